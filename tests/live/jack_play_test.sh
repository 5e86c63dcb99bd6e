#!/usr/bin/env bash
# --play of a 3 s stereo file through a 255-tap filter (CPU backend) to a JACK
# dummy server at 48 kHz, 128-frame periods: exit 0, every frame of the signal
# and its tail played, no underruns, and nothing on stderr but the latency and
# summary lines (ALSA finds no card here and would say so at length). A failed
# run is tried again only when the server itself was late (live_run).
source "$(dirname "$0")/common.sh"
start_jack 128
make_signal 3 2 255

# every frame of the signal and its tail, and no more than two lines on stderr
played_all() {
    expect_clean_summary "$work/err"
    grep -q '^latency: [0-9.]* ms' "$work/err" || fail "no latency line"
    [ "$(wc -l <"$work/err")" = 2 ] || fail "stderr holds more than the latency and summary lines"
    local played
    played=$(summary_field "$work/err" 'frames played')
    [ "$played" = $((3 * 48000 + 254)) ] || fail "played $played frames, expected $((3 * 48000 + 254))"
}
live_run played_all "$work/in.wav" --play --taps "$work/taps.txt" --backend cpu --device system
echo "ok"
