#!/usr/bin/env bash
# gpu_live.sh - the GPU's live table (docs/BENCHMARKS.md): gfir --monitor
# through a JACK server on its dummy driver with 128 capture and 128 playback
# ports, 128 channels of 480,000-tap filters (one each) at 32- and 64-frame periods;
# the stereo rows of live.sh on the GPU; routed loads through JACK (one input
# to 128 outputs through a 128-channel IR, a 32 x 32 matrix as 32 files of 32
# channels); and live_bench's same routed loads through the library.
#
#   tools/bench/gpu_live.sh [--seconds N] [--short N] [--jack-root DIR] [--gpus LIST]
#
# --seconds: the 128-channel run (default 60); --short: each other row
# (default 15). --gpus: every row split over those GPUs (gfir --gpus,
# live_bench --gpus). --jack-root: where Debian's jackd2 package (and its libraries)
# was unpacked, for a machine without JACK installed. Needs build/gfir and
# build/tools/live_bench built with CUDA, sox, and a GPU.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
seconds=60
short=15
gpus=()
while [ $# -gt 0 ]; do
    case $1 in
    --seconds) seconds=$2; shift 2 ;;
    --short) short=$2; shift 2 ;;
    --jack-root)
        root=$(realpath "$2"); shift 2
        export PATH="$root/usr/bin:$PATH"
        export LD_LIBRARY_PATH="$root/lib/x86_64-linux-gnu:$root/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
        export JACK_DRIVER_DIR="$root/usr/lib/x86_64-linux-gnu/jack"
        ;;
    --gpus) gpus=(--gpus "$2"); shift 2 ;;
    -h | --help) sed -n '2,15p' "$0"; exit 0 ;;
    *) echo "gpu_live.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "## 128 channels x 480,000 taps, one filter each, periods 32 and 64 (gfir --monitor, JACK dummy)"
# Ten seconds of quiet noise in each of 128 channels; the values do not change the cost.
sox -n -r 48000 -b 32 -e floating-point -c 128 "$work/ir128.wav" synth 10 whitenoise vol 0.001
bash tools/bench/live.sh ${gpus[@]+"${gpus[@]}"} --backend cuda --seconds "$seconds" --periods "32 64" --channels 128 \
    --ir "$work/ir128.wav"

echo "## stereo, periods 64 to 256, 255 to 2^20 taps (gfir --monitor, JACK dummy)"
bash tools/bench/live.sh ${gpus[@]+"${gpus[@]}"} --backend cuda --seconds "$short" --periods "64 128 256" \
    --taps "255 4095 65535 1048576"

echo "## routed loads through JACK (gfir --monitor): 1 x 128 of 480,000 taps, 32 x 32 of 48,000, period 128"
bash tools/bench/live.sh ${gpus[@]+"${gpus[@]}"} --backend cuda --seconds "$short" --periods 128 --channels 1 \
    --ports 128 --ir "$work/ir128.wav"
rows=
for k in $(seq 32); do
    sox -n -r 48000 -b 32 -e floating-point -c 32 "$work/row$k.wav" synth 1 whitenoise vol 0.001
    rows="$rows${rows:+,}$work/row$k.wav"
done
bash tools/bench/live.sh ${gpus[@]+"${gpus[@]}"} --backend cuda --seconds "$short" --periods 128 --channels 32 \
    --ir "$rows"

echo "## routed loads through the library (live_bench: one period per period, on its clock)"
bench=build/tools/live_bench
"$bench" ${gpus[@]+"${gpus[@]}"} --header --backend cuda --layout diag --inputs 128 --taps 480000 --period 64 \
    --seconds "$short"
"$bench" ${gpus[@]+"${gpus[@]}"} --backend cuda --layout fan --outputs 128 --taps 480000 --period 128 --seconds "$short"
"$bench" ${gpus[@]+"${gpus[@]}"} --backend cuda --layout matrix --inputs 32 --outputs 32 --taps 48000 --period 128 \
    --seconds "$short"
