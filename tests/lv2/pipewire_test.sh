#!/usr/bin/env bash
# PipeWire's filter-chain module runs gfir filter headless: pipewire and
# wireplumber under dbus-run-session with a private runtime directory (the
# Dummy-Driver clocks the graph), a second pipewire with
# pipewire-filter.conf, pw-play into the filter's sink and pw-record (float)
# out of its source. The recording, aligned by cross-correlation (the graph
# starts the two at an arbitrary offset), must be `gfir --preset lowpass
# --align causal` of the signal to float rounding (relative L2 error under
# 1e-5). The played file ends in a second of silence: pw-play may drop its
# last quanta when it exits.
#   pipewire_test.sh GFIR   (LV2_PATH names the built bundle's folder)
set -euo pipefail
GFIR=$1
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PY=/usr/bin/python3
for tool in pipewire wireplumber pw-play pw-record dbus-run-session; do
    command -v "$tool" >/dev/null || { echo "skipped: no $tool"; exit 77; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$PY" - "$work" <<'PYEOF'
import sys
import numpy as np
import scipy.io.wavfile as w
rng = np.random.default_rng(11)
x = (rng.standard_normal((48000, 2)) * 0.2).astype(np.float32)
w.write(sys.argv[1] + "/signal.wav", 48000, x)
w.write(sys.argv[1] + "/played.wav", 48000, np.vstack([x, np.zeros((48000, 2), np.float32)]))
PYEOF
"$GFIR" "$work/signal.wav" "$work/want.wav" --preset lowpass --align causal -q

cat >"$work/session.sh" <<EOF
set -eu
export XDG_RUNTIME_DIR="$work/run" HOME="$work"
mkdir -p "\$XDG_RUNTIME_DIR"
pids=()
trap 'kill "\${pids[@]}" 2>/dev/null; wait 2>/dev/null' EXIT
pipewire >"$work/pipewire.log" 2>&1 & pids+=(\$!)
for _ in \$(seq 50); do pw-cli info 0 >/dev/null 2>&1 && break; sleep 0.1; done
wireplumber >"$work/wireplumber.log" 2>&1 & pids+=(\$!)
pipewire -c "$HERE/pipewire-filter.conf" >"$work/filter.log" 2>&1 & pids+=(\$!)
for _ in \$(seq 100); do
    pw-cli ls Node 2>/dev/null | grep -q 'node.name = "gfir_out"' && break
    sleep 0.1
done
pw-record --format f32 --target gfir_out "$work/out.wav" & rec=\$!
sleep 0.5
pw-play --target gfir_in "$work/played.wav"
sleep 0.5
kill \$rec
wait \$rec || true
EOF
timeout 60 dbus-run-session bash "$work/session.sh" >"$work/session.log" 2>&1 || {
    cat "$work/session.log" "$work"/*.log >&2
    exit 1
}
"$PY" - "$work" <<'PYEOF'
import sys
import numpy as np
import scipy.io.wavfile as w
_, y = w.read(sys.argv[1] + "/out.wav")
_, want = w.read(sys.argv[1] + "/want.wav")
y, want = y.astype(np.float64), want.astype(np.float64)
corr = np.correlate(y[:, 0], want[:4000, 0], mode="valid")
k = int(np.argmax(np.abs(corr)))
got = y[k:k + len(want)]
assert len(got) == len(want), (len(y), k)
err = np.linalg.norm(got - want) / np.linalg.norm(want)
print(f"pipewire filter-chain: {len(want)} frames from frame {k} of the recording, "
      f"relative L2 error {err:.3g}")
assert err < 1e-5, err
PYEOF
