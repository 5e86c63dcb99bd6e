#!/usr/bin/env bash
# live.sh - how --monitor keeps time: runs gfir --monitor against a private JACK
# server on its dummy driver (no sound card needed) at several periods and
# filter lengths, and prints underruns, input overflows, worker deadline
# misses, the server's own xruns, and the worker's block time (median, p99.9,
# max) against the period for each.
#
#   tools/bench/live.sh [--seconds N] [--backend cpu|cuda|auto] [--gfir PATH]
#                       [--periods "64 128 256"] [--taps "255 4095 65535"]
#                       [--channels N --ir FILE[,FILE...] [--ports M]]
#                       [--realtime] [--gpus LIST]
#
# --seconds: length of each run (default 60). The JACK server runs at 48 kHz
# with the same period as gfir, so PortAudio adds no buffering of its own.
# --taps: random filters of these lengths, stereo (65535 and up only where
# the backend has an FFT kernel). --channels N --ir FILE instead runs N
# channels (and JACK ports) through an N-channel IR file, one filter each;
# the IR may route, as gfir's --ir does (a mono capture through an M-channel
# IR gives M outputs; a list gives one file per output), and --ports M then
# gives the JACK server M capture and playback ports (default N). The ch
# column says inputs x outputs where they differ. --realtime runs the JACK
# server with real-time scheduling (its clients' process threads then get
# it too), where the machine allows it; the default is --no-realtime, which
# any user can run, and whose timer thread the kernel may preempt. --gpus
# passes gfir's --gpus (the filter split over those CUDA GPUs; the backend
# column then names them).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

seconds=60
backend=cpu
gfir=build/gfir
periods="64 128 256"
taps_asked="255 4095 65535"
channels=2
ir=
ports=
realtime=--no-realtime
gpus=()
gpu_list=
while [ $# -gt 0 ]; do
    case $1 in
    --seconds) seconds=$2; shift 2 ;;
    --backend) backend=$2; shift 2 ;;
    --gfir) gfir=$2; shift 2 ;;
    --periods) periods=$2; shift 2 ;;
    --taps) taps_asked=$2; shift 2 ;;
    --channels) channels=$2; shift 2 ;;
    --ir)
        ir=
        IFS=, read -ra files <<<"$2"
        for f in "${files[@]}"; do ir="$ir${ir:+,}$(realpath "$f")"; done
        shift 2
        ;;
    --ports) ports=$2; shift 2 ;;
    --realtime) realtime=--realtime; shift ;;
    --gpus) gpus=(--gpus "$2"); gpu_list=$2; shift 2 ;;
    -h | --help) sed -n '2,26p' "$0"; exit 0 ;;
    *) echo "live.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
# the backend column: cuda:0,1 for a split over GPUs 0 and 1
label=$backend${gpu_list:+:$gpu_list}
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

# Long filters only where the backend has an FFT kernel: ask gfir to filter a
# tiny file with one.
make_taps 255
sox -n -r 48000 -c 1 "$work/tiny.wav" synth 0.01 sine 440
has_fft=0
"$gfir" "$work/tiny.wav" "$work/tiny-out.wav" --taps "$work/taps255.txt" \
    --backend "$backend" --kernel fft >/dev/null 2>&1 && has_fft=1
taps_list=
for n in $taps_asked; do
    [ "$n" -lt 65535 ] || [ "$has_fft" = 1 ] && taps_list="$taps_list $n"
done
if [ -n "$ir" ]; then
    taps_list=ir
else
    for n in $taps_list; do make_taps "$n"; done
fi

start_jack() {
    # the server's ports and gfir's, both ways, with room: 512 channels pass
    # jackd's default table
    jackd -n "$JACK_DEFAULT_SERVER" "$realtime" --port-max $((4 * ${ports:-$channels} + 256)) \
        -d dummy -r 48000 -p "$1" \
        -C "${ports:-$channels}" -P "${ports:-$channels}" >"$work/jackd.log" 2>&1 &
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
# "block time: median 0.052 ms, p99 0.081, p99.9 0.113, max 0.201 over ..."
block() { grep '^block time:' "$work/err" | sed -n "s/.*$1 \([0-9.]*\).*/\1/p"; }

printf '%-7s %6s %6s %8s %9s %9s %8s %6s %8s %8s %8s %8s %9s\n' backend ch period taps \
    underruns overflows deadline xruns median p99.9 max period latency
for period in $periods; do
    start_jack "$period"
    for n in $taps_list; do
        rc=0
        # an IR of many long channels passes the CLI's default ceiling (32 Mi
        # taps in all: 128 x 480,000 is 61 M); the library's is the limit here
        if [ "$n" = ir ]; then filter=(--ir "$ir" --max-taps 1073741824)
        else filter=(--taps "$work/taps$n.txt"); fi
        "$gfir" --monitor --device system --period "$period" --duration "$seconds" \
            --channels "$channels" "${filter[@]}" --backend "$backend" ${gpus[@]+"${gpus[@]}"} \
            -v 2>"$work/err" || rc=$?
        if [ "$rc" != 0 ]; then
            printf '%-7s %6s %6s %8s  failed: %s\n' "$label" "$channels" "$period" "$n" \
                "$(tail -1 "$work/err")"
            continue
        fi
        latency=$(grep -o '^latency: [0-9.]* ms' "$work/err" | cut -d' ' -f2)
        outs=$(sed -n 's/.* in, \([0-9]*\) out, period.*/\1/p' "$work/err" | head -1)
        ch=$channels
        [ -n "$outs" ] && [ "$outs" != "$channels" ] && ch=${channels}x$outs
        printf '%-7s %6s %6s %8s %9s %9s %8s %6s %8s %8s %8s %8.3f %6s ms\n' "$label" \
            "$ch" "$period" "$n" \
            "$(field 'output underruns')" "$(field 'input overflows')" \
            "$(field 'worker deadline misses')" "$(field 'host xruns')" \
            "$(block median)" "$(block p99.9)" "$(block max)" \
            "$(echo "$period" | awk '{printf "%.3f", $1 / 48}')" "$latency"
    done
    stop_jack
done
