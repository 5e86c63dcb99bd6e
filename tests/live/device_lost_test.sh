#!/usr/bin/env bash
# The JACK server dies under a running --monitor: gfir says so in one line and
# exits 1 within a few seconds, never hangs.
source "$(dirname "$0")/common.sh"
start_jack 128
make_signal 0.1 1 255

"$GFIR" --monitor --taps "$work/taps.txt" --backend cpu --device system 2>"$work/err" &
pid=$!
for _ in $(seq 100); do
    grep -q '^latency:' "$work/err" && break
    sleep 0.1
done
sleep 1
kill "$jack_pid"
wait "$jack_pid" 2>/dev/null || true
jack_pid=
rc=0
for _ in $(seq 150); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
done
if kill -0 "$pid" 2>/dev/null; then
    kill -KILL "$pid"
    fail "gfir --monitor hung for 15 s after its server died"
fi
wait "$pid" || rc=$?
cat "$work/err"
[ "$rc" = 1 ] || fail "exit $rc after the device was lost, expected 1"
[ "$(grep -c '^gfir: ' "$work/err")" = 1 ] || fail "not exactly one error line"
grep -q 'disconnected' "$work/err" || fail "the error does not say the device went away"
echo "ok"
