#!/usr/bin/env bash
# live.sh - how --monitor keeps time: runs gfir --monitor against a private JACK
# server on its dummy driver (no sound card needed) at periods of 64, 128 and
# 256 frames, for filters of 255, 4095 and (where the backend has an FFT
# kernel) 65535 taps, and prints underruns, input overflows, worker deadline
# misses and the server's own xruns for each.
#
#   tools/bench/live.sh [--seconds N] [--backend cpu|cuda|auto] [--gfir PATH]
#                       [--periods "P ..."] [--taps "N ..."] [--ir-channels C]
#
# --seconds: length of each run (default 60). The JACK server runs at 48 kHz
# with the same period as gfir, so PortAudio adds no buffering of its own.
# --periods and --taps replace the lists above (--taps runs every length
# given, FFT kernel or not). --ir-channels C filters with a C-channel impulse
# response file (--ir: tap set c for channel c) instead of one shared tap set.
# The zero-latency target of a 2^20-tap stereo reverb:
#   tools/bench/live.sh --periods 64 --taps 1048576 --ir-channels 2
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

seconds=60
backend=cpu
gfir=build/gfir
periods="64 128 256"
taps_given=
ir_channels=
while [ $# -gt 0 ]; do
    case $1 in
    --seconds) seconds=$2; shift 2 ;;
    --backend) backend=$2; shift 2 ;;
    --gfir) gfir=$2; shift 2 ;;
    --periods) periods=$2; shift 2 ;;
    --taps) taps_given=$2; shift 2 ;;
    --ir-channels) ir_channels=$2; shift 2 ;;
    -h | --help) sed -n '2,20p' "$0"; exit 0 ;;
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

# Random taps scaled so the output stays in range; the values do not change the
# cost. With --ir-channels, an impulse response file of that many channels.
make_taps() {
    if [ -n "$ir_channels" ]; then
        sox -n -r 48000 -c "$ir_channels" -b 32 -e floating-point "$work/taps$1.wav" \
            synth "$1"s whitenoise vol "$(awk -v n="$1" 'BEGIN { print 0.5 / sqrt(n) }')"
        return
    fi
    awk -v n="$1" 'BEGIN { srand(7); for (i = 0; i < n; i++) printf "%.9f\n", (rand() - 0.5) / sqrt(n) }' \
        >"$work/taps$1.txt"
}
filter_args() {
    if [ -n "$ir_channels" ]; then
        echo --ir "$work/taps$1.wav"
    else
        echo --taps "$work/taps$1.txt"
    fi
}

# 65535 taps only where the backend has an FFT kernel: ask gfir to filter a
# tiny file with one.
if [ -n "$taps_given" ]; then
    taps_list=$taps_given
else
    taps_list="255 4095"
    ir_channels_asked=$ir_channels
    ir_channels=
    make_taps 255
    sox -n -r 48000 -c 1 "$work/tiny.wav" synth 0.01 sine 440
    if "$gfir" "$work/tiny.wav" "$work/tiny-out.wav" --taps "$work/taps255.txt" \
        --backend "$backend" --kernel fft >/dev/null 2>&1; then
        taps_list="$taps_list 65535"
    fi
    ir_channels=$ir_channels_asked
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
for period in $periods; do
    start_jack "$period"
    for n in $taps_list; do
        rc=0
        "$gfir" --monitor --device system --period "$period" --duration "$seconds" \
            $(filter_args "$n") --backend "$backend" 2>"$work/err" || rc=$?
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
