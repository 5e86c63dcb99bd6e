#!/usr/bin/env bash
# --play through ALSA's file plugin: the default PCM tees everything PortAudio
# plays into a raw file, which must hold the causal convolution of a random
# float WAV with known taps (numpy, float64), then the filter's tail:
# relative L2 error below 1e-5 once aligned.
#
# The file plugin's slave is ALSA's jack plugin on a private dummy JACK server
# rather than "null": the null PCM has no clock (it always reports its whole
# buffer free), so a callback-driven player runs free against it and can only
# underrun. JACK's dummy driver is a null sink that keeps time. It runs with
# 512-frame periods, the smallest PortAudio's ALSA probe accepts from the plugin.
# When that server runs late, PortAudio's ALSA recovery primes the device with
# silence again, in the middle of the file; such a run is tried again (live_run).
source "$(dirname "$0")/common.sh"
need_numpy
alsa_file_sink
start_jack 512
make_signal 2 2 63

# the raw file holds the convolution, once aligned
played_right() {
    expect_clean_summary "$work/err"
    [ -s "$work/played.raw" ] || fail "the file plugin wrote nothing: was ALSA's default PCM used?"
    "$PY" - "$work" <<'PYEOF'
import os, sys
import numpy as np
sys.path.insert(0, os.environ['GFIR_LIVE_TESTS'])
import live_util as u

work = sys.argv[1]
x = u.random_signal(1, 2 * 48000, 2)
h = np.loadtxt(work + '/taps.txt', dtype=np.float64)
full = u.full_convolution(x, h)
causal, tail = full[:len(x)], full[len(x):]

got, raw, start = u.played_from_raw(work + '/played.raw', full)

def rel(a, b):
    return np.linalg.norm(a - b) / np.linalg.norm(b)

e_causal, e_tail = rel(got[:len(x)], causal), rel(got[len(x):], tail)
after = np.abs(raw[start + len(full):]).max(initial=0.0)
print('aligned at frame %d: rel L2 %.2e (causal part), %.2e (tail); largest sample after: %g'
      % (start, e_causal, e_tail, after))
if not (e_causal < 1e-5 and e_tail < 1e-5 and after == 0):
    sys.exit('FAIL: the played signal is not the causal convolution')
PYEOF
}
live_run played_right "$work/in.wav" --play --taps "$work/taps.txt" --backend cpu
echo "ok"
