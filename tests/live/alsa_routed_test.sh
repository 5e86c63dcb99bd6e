#!/usr/bin/env bash
# --play of a mono file through a stereo impulse response: the filter routes
# one channel to two, so PortAudio opens the device for two, and ALSA's file
# plugin (as in alsa_file_test.sh, on a private dummy JACK server) must hold
# each channel's causal convolution of the input with its IR channel, then
# the tails: relative L2 below 1e-5 once aligned (numpy, float64).
source "$(dirname "$0")/common.sh"
need_numpy
alsa_file_sink
start_jack 512
"$PY" - "$work" <<'PYEOF'
import os, sys
sys.path.insert(0, os.environ['GFIR_LIVE_TESTS'])
import live_util as u
work = sys.argv[1]
u.write_wav_float(work + '/in.wav', u.random_signal(1, 2 * 48000, 1), 48000)
u.write_wav_float(work + '/ir.wav', u.random_signal(2, 63, 2), 48000)
PYEOF

played_right() {
    expect_clean_summary "$work/err"
    [ -s "$work/played.raw" ] || fail "the file plugin wrote nothing: was ALSA's default PCM used?"
    "$PY" - "$work" <<'PYEOF'
import os, sys
import numpy as np
sys.path.insert(0, os.environ['GFIR_LIVE_TESTS'])
import live_util as u

work = sys.argv[1]
x = u.random_signal(1, 2 * 48000, 1)
h = u.random_signal(2, 63, 2)
full = np.stack([np.convolve(x[:, 0].astype(np.float64), h[:, c].astype(np.float64))
                 for c in range(2)], axis=1)
got, raw, start = u.played_from_raw(work + '/played.raw', full)
err = np.linalg.norm(got - full) / np.linalg.norm(full)
print('aligned at frame %d: rel L2 %.2e over both channels' % (start, err))
if not err < 1e-5:
    sys.exit('FAIL: the played signal is not the routed convolution')
PYEOF
}
live_run played_right "$work/in.wav" --play --ir "$work/ir.wav" --normalize none --backend cpu
echo "ok"
