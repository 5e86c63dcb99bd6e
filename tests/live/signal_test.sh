#!/usr/bin/env bash
# SIGINT and SIGTERM during --monitor (no --duration) stop it cleanly: exit 0
# and the summary line, naming the signal.
source "$(dirname "$0")/common.sh"
start_jack 128
make_signal 0.1 1 255

for sig in INT TERM; do
    "$GFIR" --monitor --taps "$work/taps.txt" --backend cpu --device system \
        2>"$work/err" &
    pid=$!
    wait_started
    sleep 1
    kill -"$sig" "$pid"
    rc=0
    wait_gone "$pid" 10 || fail "gfir --monitor still running 10 s after SIG$sig"
    wait "$pid" || rc=$?
    cat "$work/err"
    [ "$rc" = 0 ] || fail "exit $rc after SIG$sig"
    grep -q "^summary: .*; stopped by SIG$sig$" "$work/err" || fail "no summary after SIG$sig"
done
echo "ok"
