#!/usr/bin/env bash
# --monitor --duration 5 through a 255-tap filter (CPU backend) on a JACK dummy
# server at 48 kHz, 128-frame periods: exit 0 after 5 s, no underruns, and the
# printed latency exactly two periods plus the filter's delay. Then a 1023-tap
# filter, for which auto would pick the CPU's partitioned FFT (a block more of
# latency): live audio takes the direct kernel instead, so again two periods.
# Last, a stereo IR on one input channel: the output opens for two.
# A run with underruns is tried again only when the server itself was late
# (live_run in common.sh).
source "$(dirname "$0")/common.sh"
start_jack 128

monitor() {
    live_run expect_clean --monitor --duration "$1" --taps "$work/taps.txt" --backend cpu \
        --device system
}
expect_clean() {
    expect_clean_summary "$work/err"
}

make_signal 0.1 1 255
monitor 5
played=$(summary_field "$work/err" 'frames played')
[ "$played" -ge $((5 * 48000)) ] && [ "$played" -lt $((6 * 48000)) ] ||
    fail "played $played frames in a 5 s run"
# default period 256: two periods queued, plus 127 frames (2.6 ms) of filter
# delay, and nothing from the engine (the line goes on with "; the device")
grep -q '^latency: [0-9.]* ms (2 periods of 256 frames + filter delay 2.6 ms;' "$work/err" ||
    fail "latency is not 2 periods + filter delay"

make_signal 0.1 1 1023
monitor 2
grep -q '^latency: [0-9.]* ms (2 periods of 256 frames + filter delay 10.6 ms;' "$work/err" ||
    fail "1023 taps: latency is not 2 periods + filter delay"

# routed: one input channel through a stereo IR to two output channels
"$PY" - "$work" <<'PYEOF'
import os, sys
sys.path.insert(0, os.environ['GFIR_LIVE_TESTS'])
import live_util as u
u.write_wav_float(sys.argv[1] + '/st.wav', u.random_signal(3, 255, 2), 48000)
PYEOF
live_run expect_clean --monitor --duration 2 --channels 1 --ir "$work/st.wav" --backend cpu \
    --device system -v
grep -q "48000 Hz, 1 channel in, 2 out" "$work/err" || fail "mono to stereo: not 1 in, 2 out"
echo "ok"
