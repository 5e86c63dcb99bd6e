#!/usr/bin/env bash
# The host changes its buffer size while --monitor runs: a JACK dummy server
# at 48 kHz starts with 128-frame periods and jack_bufsize makes them 512,
# 64, then 1024 (four of gfir's 256-frame callbacks in one burst, more than
# the two periods gfir queues). Nothing restarts: exit 0 after the whole 6 s,
# every frame played but those an underrun cost, no input lost, the latency
# grown (and said so) for the 1024-frame buffers, and an underrun at most at
# that change, when the first burst takes more than was queued; before gfir followed the host's
# buffer it underran at every burst from then on. A run that fails is tried
# again only when the server itself was late (retry_when_late in common.sh).
source "$(dirname "$0")/common.sh"
start_jack 128
make_signal 0.1 1 255

run_once() {
    "$GFIR" --monitor --duration 6 --taps "$work/taps.txt" --backend cpu --device system \
        2>"$work/err" &
    local pid=$!
    wait_started
    for size in 512 64 1024; do
        sleep 1.2
        jack_bufsize "$size" >/dev/null
    done
    wait "$pid" || fail "gfir --monitor exited $?"
    cat "$work/err"
}

check() {
    grep -q '^summary:' "$work/err" || fail "no summary line"
    [ "$(summary_field "$work/err" 'input overflows')" = 0 ] || fail "input overflows"
    [ "$(summary_field "$work/err" 'output underruns')" -le 1 ] || fail "underruns"
    # An underrun costs the frames of that callback, at most 1024 here: the
    # monitor drops as many later to keep its latency (the drift in session.c).
    local under; under=$(summary_field "$work/err" 'output underruns')
    [ "$(summary_field "$work/err" 'frames played')" -ge $((6 * 48000 - 1024 * under)) ] ||
        fail "the stream did not run its 6 s"
    grep -q '^gfir: the audio device takes 1024 frames at a time now; gfir queues 1280 frames' \
        "$work/err" || fail "no line about queueing more for 1024-frame buffers"
}

retry_when_late run_once check
echo "ok"
