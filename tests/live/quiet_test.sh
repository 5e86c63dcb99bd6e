#!/usr/bin/env bash
# -v says what gfir does and nothing of what ALSA and JACK print while
# PortAudio probes devices (about 90 lines here, where ALSA finds no sound
# card): every line on stderr is gfir's own. --debug lets those libraries
# speak, which shows that the quiet comes from their handlers being set and
# not from the probing finding nothing to say. --play and --list-devices, to a
# JACK dummy server.
source "$(dirname "$0")/common.sh"
start_jack 256
make_signal 0.3 2 31

# gfir's own lines: "gfir: ...", the latency, summary and block time lines,
# and the device table of --list-devices
only_gfir() {
    local stray
    stray=$(grep -v -e '^gfir: ' -e '^latency: ' -e '^summary: ' -e '^block time: ' "$1" || true)
    [ -z "$stray" ] || fail "$2: lines on stderr that are not gfir's: $(head -3 <<<"$stray")"
}

timeout 30 "$GFIR" "$work/in.wav" --play --taps "$work/taps.txt" --backend cpu -v \
    >"$work/out" 2>"$work/err" || fail "--play -v failed: $(cat "$work/err")"
cat "$work/err"
only_gfir "$work/err" "--play -v"
grep -q '^gfir: playing ' "$work/err" || fail "-v did not say what it plays"
timeout 30 "$GFIR" --list-devices -v >"$work/out" 2>"$work/err" || fail "--list-devices -v failed"
[ ! -s "$work/err" ] || fail "--list-devices -v printed on stderr: $(head -3 "$work/err")"
grep -q 'JACK' "$work/out" || fail "--list-devices does not list the JACK server"

timeout 30 "$GFIR" "$work/in.wav" --play --taps "$work/taps.txt" --backend cpu -v --debug \
    >"$work/out" 2>"$work/debug" || fail "--play --debug failed: $(cat "$work/debug")"
if grep -q -e '^ALSA lib' -e 'jack' "$work/debug"; then
    echo "--debug: $(grep -c -v '^gfir: ' "$work/debug") lines from the libraries"
else
    echo "the libraries had nothing to say here: --debug cannot be told apart"
fi
grep -q '^gfir: playing ' "$work/debug" || fail "--debug lost gfir's own lines"
echo "ok"
