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
    for _ in $(seq 100); do
        grep -q '^latency:' "$work/err" && break
        sleep 0.1
    done
    sleep 1
    kill -"$sig" "$pid"
    rc=0
    for _ in $(seq 100); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
        kill -KILL "$pid"
        fail "gfir --monitor still running 10 s after SIG$sig"
    fi
    wait "$pid" || rc=$?
    cat "$work/err"
    [ "$rc" = 0 ] || fail "exit $rc after SIG$sig"
    grep -q "^summary: .*; stopped by SIG$sig$" "$work/err" || fail "no summary after SIG$sig"
done
echo "ok"
