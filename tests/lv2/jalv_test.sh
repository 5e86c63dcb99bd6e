#!/usr/bin/env bash
# jalv on a private JACK dummy server: gfir filter (stereo) and gfir
# convolver (stereo) loaded from a saved state directory (its IR inside),
# both fed jack_metro's clicks and recorded with jack_rec for 20 s. The
# server runs with real-time scheduling where the machine allows it (as an
# audio user's does; its clients' process threads then get it too), and JACK
# must report no xrun of either client while recording ("client = ... was
# not finished").
# Without real-time scheduling a client the kernel had not yet run when the
# period ended (state = Triggered) lost no time to its plugin: those are
# counted, and only one caught running late fails. Both outputs must carry
# the filtered clicks: the convolver's only when the state's IR loaded (its
# dry path is off).
#   jalv_test.sh GFIR SAVE_STATE   (LV2_PATH names the built bundle's folder)
source "$(dirname "${BASH_SOURCE[0]}")/../live/common.sh"
SAVE_STATE=$2
need_numpy
command -v jalv >/dev/null || skip "jalv is not installed (Debian jalv)"
if chrt -f 10 true 2>/dev/null; then
    realtime=1
    launch_jack 1024 -R -P 70 || skip "jackd could not start: $(tail -3 "$work/jackd.log")"
else
    realtime=0
    start_jack 1024
fi

"$PY" - "$work/ir.wav" <<'PYEOF'
import sys
import numpy as np
import scipy.io.wavfile as w
rng = np.random.default_rng(5)
ir = rng.standard_normal((24000, 2)) * np.exp(-np.arange(24000) / 4000.0)[:, None]
w.write(sys.argv[1], 48000, ir.astype(np.float32))
PYEOF
"$SAVE_STATE" urn:gfir:lv2:convolver-stereo "$work/state" "$work/ir.wav" ||
    fail "cannot make the saved state"

pids=()
cleanup_clients() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
}
trap 'cleanup_clients; cleanup' EXIT
jalv -i -x -n gfconv -l "$work/state" >"$work/jalv_conv.log" 2>&1 </dev/null &
pids+=($!)
jalv -i -x -n gffilt -c cutoff_hz=2000 urn:gfir:lv2:filter-stereo >"$work/jalv_filt.log" 2>&1 \
    </dev/null &
pids+=($!)
jack_metro -n metro -b 240 >/dev/null 2>&1 &
pids+=($!)
for _ in $(seq 100); do
    ports=$(jack_lsp 2>/dev/null)
    if grep -q '^gfconv:out_2$' <<<"$ports" && grep -q '^gffilt:out_2$' <<<"$ports" &&
        grep -q '^metro:' <<<"$ports"; then
        break
    fi
    sleep 0.1
done
metro=$(jack_lsp | grep '^metro:' | head -1)
for c in gfconv gffilt; do
    jack_connect "$metro" "$c:in_1" || fail "cannot connect $metro to $c:in_1"
    jack_connect "$metro" "$c:in_2" || fail "cannot connect $metro to $c:in_2"
done
# from here on: a client's first period after it joins the graph is JACK's
# business (jackd reports it as that client's xrun), not the plugin's
logged=$(wc -l <"$work/jackd.log")
jack_rec -f "$work/out.wav" -d 20 gfconv:out_1 gfconv:out_2 gffilt:out_1 gffilt:out_2 \
    >"$work/rec.log" 2>&1 || fail "jack_rec failed: $(tail -3 "$work/rec.log")"
for p in "${pids[@]:0:2}"; do
    kill -0 "$p" 2>/dev/null || fail "a jalv exited: $(cat "$work"/jalv_*.log)"
done
late='client = (gfconv|gffilt) was not finished'
[ "$realtime" = 1 ] || late="$late, state = Running"
if tail -n +"$((logged + 1))" "$work/jackd.log" | grep -E "$late"; then
    fail "xruns of the plugins' clients (real-time scheduling: $realtime)"
fi
echo "jalv: no xrun (real-time scheduling: $realtime)"

"$PY" - "$work/out.wav" <<'PYEOF' || fail "the outputs are not the filtered clicks"
import sys
import numpy as np
import scipy.io.wavfile as w
rate, y = w.read(sys.argv[1])
y = y.astype(np.float64)
seconds = len(y) / rate
rms = np.sqrt((y ** 2).mean(axis=0))
print(f"jalv: {seconds:.1f} s recorded, output RMS {', '.join(f'{r:.3g}' for r in rms)}")
assert seconds >= 19, seconds
assert (rms > 1e-3).all(), rms
PYEOF
echo "jalv_test: both plugins ran 20 s under jalv with no xrun"
