#!/usr/bin/env bash
# live.sh - how --monitor keeps time: runs gfir --monitor against a private JACK
# server on its dummy driver (no sound card needed) at periods of 64, 128 and
# 256 frames, for filters of 255, 4095 and (where the backend has an FFT
# kernel) 65535 taps, and prints underruns, input overflows, worker deadline
# misses and the server's own xruns for each.
#
#   tools/bench/live.sh [--seconds N] [--backend cpu|cuda|auto] [--gfir PATH]
#
# --seconds: length of each run (default 60). The JACK server runs at 48 kHz
# with the same period as gfir, so PortAudio adds no buffering of its own.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

seconds=60
backend=cpu
gfir=build/gfir
while [ $# -gt 0 ]; do
    case $1 in
    --seconds) seconds=$2; shift 2 ;;
    --backend) backend=$2; shift 2 ;;
    --gfir) gfir=$2; shift 2 ;;
    -h | --help) sed -n '2,12p' "$0"; exit 0 ;;
    *) echo "live.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
[ -x "$gfir" ] || { echo "live.sh: no gfir at $gfir (build first, or --gfir PATH)" >&2; exit 1; }
for tool in jackd jack_lsp sox; do
    command -v $tool >/dev/null || { echo "live.sh: $tool not found (Debian jackd2, sox)" >&2; exit 1; }
done

work=$(mktemp -d)
jack_pid=
stop_jack() {
    if [ -n "$jack_pid" ]; then
        kill "$jack_pid" 2>/dev/null || true
        wait "$jack_pid" 2>/dev/null || true
        jack_pid=
    fi
}
trap 'stop_jack; rm -rf "$work"' EXIT
export HOME=$work JACK_NO_START_SERVER=1 JACK_DEFAULT_SERVER=gfir-bench-$$

# Random taps scaled so the output stays in range; the values do not change the cost.
make_taps() {
    awk -v n="$1" 'BEGIN { srand(7); for (i = 0; i < n; i++) printf "%.9f\n", (rand() - 0.5) / sqrt(n) }' \
        >"$work/taps$1.txt"
}

# 65535 taps only where the backend has an FFT kernel: ask gfir to filter a
# tiny file with one.
taps_list="255 4095"
make_taps 255
sox -n -r 48000 -c 1 "$work/tiny.wav" synth 0.01 sine 440
if "$gfir" "$work/tiny.wav" "$work/tiny-out.wav" --taps "$work/taps255.txt" \
    --backend "$backend" --kernel fft >/dev/null 2>&1; then
    taps_list="$taps_list 65535"
fi
for n in $taps_list; do make_taps "$n"; done

start_jack() {
    jackd -n "$JACK_DEFAULT_SERVER" --no-realtime -d dummy -r 48000 -p "$1" >"$work/jackd.log" 2>&1 &
    jack_pid=$!
    for _ in $(seq 100); do
        jack_lsp 2>/dev/null | grep -q '^system:playback_1$' && return 0
        sleep 0.1
    done
    echo "live.sh: jackd did not start:" >&2
    tail -3 "$work/jackd.log" >&2
    exit 1
}

field() { grep '^summary:' "$work/err" | grep -o "[0-9]* $1" | cut -d' ' -f1; }

printf '%-7s %6s %6s %9s %9s %9s %8s %10s\n' backend period taps underruns overflows \
    deadline xruns latency
for period in 64 128 256; do
    start_jack "$period"
    for n in $taps_list; do
        rc=0
        "$gfir" --monitor --device system --period "$period" --duration "$seconds" \
            --taps "$work/taps$n.txt" --backend "$backend" 2>"$work/err" || rc=$?
        if [ "$rc" != 0 ]; then
            printf '%-7s %6s %6s  failed: %s\n' "$backend" "$period" "$n" "$(tail -1 "$work/err")"
            continue
        fi
        latency=$(grep -o '^latency: [0-9.]* ms' "$work/err" | cut -d' ' -f2)
        printf '%-7s %6s %6s %9s %9s %9s %8s %7s ms\n' "$backend" "$period" "$n" \
            "$(field 'output underruns')" "$(field 'input overflows')" \
            "$(field 'worker deadline misses')" "$(field 'host xruns')" "$latency"
    done
    stop_jack
done
