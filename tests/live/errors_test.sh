#!/usr/bin/env bash
# The device errors: no device at all, a name that matches none (the message
# lists what exists), a rate and a channel count the device lacks (the message
# says what it offers); and a filter above --max-taps (issue 25: a 64-million
# tap design was accepted). Each is one line on stderr and exit code 1.
source "$(dirname "$0")/common.sh"
make_signal 0.2 2 31
"$PY" -c "
import sys; sys.path.insert(0, '$HERE')
import live_util as u
u.write_wav_float('$work/cd.wav', u.random_signal(3, 4410, 2), 44100)"

# expect_error NAME PATTERN -- gfir arguments...
expect_error() {
    local name=$1 pattern=$2 rc=0
    shift 3
    timeout 30 "$GFIR" "$@" 2>"$work/err" || rc=$?
    cat "$work/err"
    [ "$rc" = 1 ] || fail "$name: exit $rc, expected 1"
    [ "$(wc -l <"$work/err")" = 1 ] || fail "$name: not exactly one line on stderr"
    grep -q "$pattern" "$work/err" || fail "$name: the message does not match '$pattern'"
}

# No JACK server yet: on a machine without a sound card PortAudio sees nothing.
if "$GFIR" --list-devices | grep -q '^no audio devices found$'; then
    expect_error "no device" '^gfir: no audio output device found' -- \
        "$work/in.wav" --play --taps "$work/taps.txt"
else
    echo "this machine has audio devices: the no-device case cannot be tried here"
fi

start_jack 128
expect_error "bad name" "^gfir: no output device matches 'nosuch'; there are: .*'system'" -- \
    "$work/in.wav" --play --taps "$work/taps.txt" --device nosuch
expect_error "bad rate" "cannot play 44100 Hz .* at 48000 Hz" -- \
    "$work/cd.wav" --play --taps "$work/taps.txt" --device system
expect_error "bad channels" "cannot monitor 48000 Hz with 4 channels.* it offers 2 input channels" -- \
    --monitor --channels 4 --taps "$work/taps.txt" --device system
printf '[huge]\ntype = lowpass\ncutoff_hz = 4000\ntransition_hz = 0.01\nattenuation_db = 200\n' \
    >"$work/huge.ini"
for mode in "$work/in.wav --play" "--monitor"; do
    # shellcheck disable=SC2086  # mode is two words or one
    expect_error "ceiling ($mode)" "64208051 taps.*ceiling is 33554432 taps (--max-taps N" -- \
        $mode --preset "$work/huge.ini" --device system
done
echo "ok"
