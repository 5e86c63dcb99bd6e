#!/usr/bin/env bash
# GStreamer runs gfir filter through its LV2 wrapper (gstreamer1.0-plugins-bad,
# elements urn-gfir-lv2-filter-mono and -stereo, the stereo one a single
# two-channel pad through its port groups) on a file: the output must be
# `gfir --preset lowpass --align causal` to float rounding (relative L2 under
# 1e-5). The wrapper offers no LV2 worker and cannot set a path parameter, so
# it lists no convolver: checked, as docs/plugins.md says.
#   gstreamer_test.sh GFIR   (LV2_PATH names the built bundle's folder)
set -euo pipefail
GFIR=$1
PY=/usr/bin/python3
command -v gst-launch-1.0 >/dev/null || { echo "skipped: no gst-launch-1.0"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export GST_REGISTRY="$work/registry.bin" HOME="$work"

elements=$(gst-inspect-1.0 lv2 2>/dev/null | grep -o 'urn-gfir-lv2-[a-z-]*' | sort -u | tr '\n' ' ')
[ "$elements" = "urn-gfir-lv2-filter-mono urn-gfir-lv2-filter-stereo " ] ||
    { echo "FAIL: GStreamer's LV2 wrapper lists: $elements" >&2; exit 1; }

for channels in 1 2; do
    "$PY" - "$work/in.wav" "$channels" <<'PYEOF'
import sys
import numpy as np
import scipy.io.wavfile as w
ch = int(sys.argv[2])
x = (np.random.default_rng(ch).standard_normal((44101, ch)) * 0.2).astype(np.float32)
w.write(sys.argv[1], 48000, x if ch > 1 else x[:, 0])
PYEOF
    element=urn-gfir-lv2-filter-$([ "$channels" = 2 ] && echo stereo || echo mono)
    gst-launch-1.0 -q filesrc location="$work/in.wav" ! wavparse ! audioconvert ! \
        "$element" cutoff-hz=4000 transition-hz=400 attenuation-db=80 ! audioconvert ! \
        audio/x-raw,format=F32LE ! wavenc ! filesink location="$work/gst.wav"
    "$GFIR" "$work/in.wav" "$work/want.wav" --preset lowpass --align causal -q
    "$PY" - "$work" "$element" <<'PYEOF'
import sys
import numpy as np
import scipy.io.wavfile as w
_, got = w.read(sys.argv[1] + "/gst.wav")
_, want = w.read(sys.argv[1] + "/want.wav")
assert got.shape == want.shape, (got.shape, want.shape)
got, want = got.astype(np.float64), want.astype(np.float64)
err = np.linalg.norm(got - want) / np.linalg.norm(want)
print(f"gst-launch-1.0 ... ! {sys.argv[2]} ! ...: relative L2 error {err:.3g}")
assert err < 1e-5, err
PYEOF
done
