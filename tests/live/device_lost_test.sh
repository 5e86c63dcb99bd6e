#!/usr/bin/env bash
# The JACK server dies under a running --monitor: gfir says so in one line and
# exits 1 within a few seconds, never hangs.
source "$(dirname "$0")/common.sh"
start_jack 128
make_signal 0.1 1 255

"$GFIR" --monitor --taps "$work/taps.txt" --backend cpu --device system 2>"$work/err" &
pid=$!
wait_started
sleep 1
kill "$jack_pid"
wait "$jack_pid" 2>/dev/null || true
jack_pid=
rc=0
wait_gone "$pid" 15 || fail "gfir --monitor hung for 15 s after its server died"
wait "$pid" || rc=$?
cat "$work/err"
[ "$rc" = 1 ] || fail "exit $rc after the device was lost, expected 1"
[ "$(grep -c '^gfir: ' "$work/err")" = 1 ] || fail "not exactly one error line"
grep -q 'disconnected' "$work/err" || fail "the error does not say the device went away"
echo "ok"
