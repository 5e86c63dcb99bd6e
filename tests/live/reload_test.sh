#!/usr/bin/env bash
# Reloading the filter during --monitor on a JACK dummy server at 48 kHz,
# 128-frame periods. jack_simple_client's tones (240 Hz left, 720 Hz right)
# are the input, and jack_rec records what gfir sends out. While it runs the
# preset file is rewritten:
#   1 s  low-pass 3000 Hz, as long as the first (swapped into the plan)
#   2 s  high-pass 500 Hz, twice as long (a plan of its own): 240 Hz stops
#   3 s  a broken preset: the high-pass must keep playing
#   4 s  SIGHUP with the file still broken: the same
# Checks: exit 0, no underruns, a reload line for each valid file and a
# failure line for each broken one; in the recording both tones pass at
# first, then only 720 Hz, which never stops afterwards, nor does 240 Hz
# come back. A run with underruns is tried again only when the server itself
# was late (retry_when_late in common.sh).
source "$(dirname "$0")/common.sh"
need_numpy
command -v jack_simple_client >/dev/null && command -v jack_rec >/dev/null ||
    skip "jack_simple_client or jack_rec is not installed (Debian jackd2)"
start_jack 128

preset() { # type cutoff transition: the preset file, renamed into place as editors save
    printf '[room]\ntype = %s\ncutoff_hz = %s\ntransition_hz = %s\n' "$1" "$2" "$3" \
        >"$work/room.ini.new"
    mv "$work/room.ini.new" "$work/room.ini"
}

jack_simple_client >/dev/null 2>&1 &
tones=$!
cleanup_tones() {
    kill "$tones" 2>/dev/null || true
    cleanup
}
trap cleanup_tones EXIT

run_once() {
    preset lowpass 2000 400
    rm -f "$work/rec.wav"
    "$GFIR" --monitor --duration 6 --preset "$work/room.ini" --backend cpu --device system \
        2>"$work/err" &
    local pid=$!
    wait_started
    jack_connect jack_simple_client:output1 PortAudio:in_0
    jack_connect jack_simple_client:output2 PortAudio:in_1
    (cd "$work" && exec jack_rec -f "$work/rec.wav" -d 5 -b 16 PortAudio:out_0 PortAudio:out_1) \
        >/dev/null 2>&1 &
    local rec=$!
    sleep 1
    preset lowpass 3000 400
    sleep 1
    preset highpass 500 200
    sleep 1
    printf '[room]\ntype = highpass\ncutoff_hz = nonsense\n' >"$work/room.ini"
    sleep 1
    kill -HUP "$pid"
    wait "$pid" || fail "gfir --monitor exited $?"
    wait "$rec" || true
    cat "$work/err"
}

# the lines, and the recording's tones over time
check() {
    expect_clean_summary "$work/err"
    [ "$(grep -c 'room.ini changed: reloaded the filter' "$work/err")" = 2 ] ||
        fail "not two reload lines"
    local own='reloaded the filter (1207 taps, in a plan of its own, filter delay now 12.6 ms)'
    grep -qF "$own, crossfade 50 ms" "$work/err" ||
        fail "the longer filter did not get a plan of its own"
    grep -q "room.ini changed, but the filter cannot be reloaded: .*nonsense.*; the old one" \
        "$work/err" || fail "no failure line for the broken file"
    grep -q "SIGHUP, but the filter cannot be reloaded" "$work/err" ||
        fail "no failure line after SIGHUP"
    "$PY" - "$work/rec.wav" <<'PYEOF'
import sys, wave
import numpy as np
w = wave.open(sys.argv[1])
x = np.frombuffer(w.readframes(w.getnframes()), dtype='<i2').reshape(-1, 2) / 32768.0
win = 2400  # 50 ms
rms = np.sqrt(np.mean(x[: len(x) // win * win].reshape(-1, win, 2) ** 2, axis=1))
left, right = rms[:, 0], rms[:, 1]
print('left ', ' '.join('%.2f' % v for v in left))
print('right', ' '.join('%.2f' % v for v in right))
# the tones' RMS is 0.14; a stopped one is below 0.01
loud, quiet = 0.07, 0.01
stop = np.flatnonzero(left < quiet)
if len(stop) == 0:
    sys.exit('FAIL: 240 Hz never stopped (the high-pass was not swapped in)')
first = stop[0]
if first < 10:
    sys.exit('FAIL: 240 Hz stopped after %d ms, before the high-pass came' % (first * 50))
if not (left[2:first - 1] > loud).all():
    sys.exit('FAIL: 240 Hz dropped out before the high-pass came')
after = slice(first + 2, len(left))
if (left[after] > quiet).any():
    sys.exit('FAIL: 240 Hz came back after the high-pass: the broken file changed the filter')
if not (right[2:] > loud).all():
    sys.exit('FAIL: 720 Hz dropped out')
if len(left) - first < 40:
    sys.exit('FAIL: the recording ends %d ms after the high-pass' % ((len(left) - first) * 50))
PYEOF
}

retry_when_late run_once check
echo "ok"
