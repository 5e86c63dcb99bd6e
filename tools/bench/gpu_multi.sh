#!/usr/bin/env bash
# gpu_multi.sh - live channels across GPUs (issue 30): 480,000-tap filters,
# one per channel, at a 64-frame period, 256 channels on one GPU and 512
# split over two (gfir_config.devices), in one run on one machine: through
# the library (build/tools/live_bench, one period per period on its clock)
# and through a JACK server on its dummy driver (gfir --monitor --gpus, via
# tools/bench/live.sh). Writes the "gpu-multi" section of docs/BENCHMARKS.md
# and prints it.
#
#   tools/bench/gpu_multi.sh [--seconds N] [--gpus LIST] [--no-jack] [--jack-root DIR]
#
# --seconds: each row (default 60). --gpus: the split's GPUs (default 0,1;
# the one-GPU rows run on the first). --no-jack: the library rows only.
# --jack-root as gpu_live.sh's. Needs build/gfir and build/tools/live_bench
# built with CUDA, two GPUs, and for the JACK rows jackd2 and sox.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
seconds=60
gpus=0,1
jack=1
while [ $# -gt 0 ]; do
    case $1 in
    --seconds) seconds=$2; shift 2 ;;
    --gpus) gpus=$2; shift 2 ;;
    --no-jack) jack=0; shift ;;
    --jack-root)
        root=$(realpath "$2"); shift 2
        export PATH="$root/usr/bin:$PATH"
        export LD_LIBRARY_PATH="$root/lib/x86_64-linux-gnu:$root/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
        export JACK_DRIVER_DIR="$root/usr/lib/x86_64-linux-gnu/jack"
        ;;
    -h | --help) sed -n '2,15p' "$0"; exit 0 ;;
    *) echo "gpu_multi.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
bench=build/tools/live_bench
[ -x "$bench" ] || { echo "gpu_multi.sh: no $bench (build with CUDA first)" >&2; exit 1; }
one=${gpus%%,*}
n=$(awk -F, '{print NF}' <<<"$gpus")
split=$((256 * n))
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
commit=${GFIR_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
devices=$(nvidia-smi --query-gpu=index,name --format=csv,noheader 2>/dev/null | paste -sd ';' || echo unknown)

"$bench" --header --gpus "$one" --layout diag --inputs 256 --taps 480000 --period 64 \
    --seconds "$seconds" >"$work/lib.md"
"$bench" --gpus "$gpus" --layout diag --inputs "$split" --taps 480000 --period 64 \
    --seconds "$seconds" >>"$work/lib.md"

if [ "$jack" = 1 ]; then
    # ten seconds of quiet noise per channel; the values do not change the cost
    sox -n -r 48000 -b 32 -e floating-point -c 256 "$work/ir256.wav" synth 10 whitenoise vol 0.001
    sox -n -r 48000 -b 32 -e floating-point -c "$split" "$work/ir$split.wav" synth 10 \
        whitenoise vol 0.001
    {
        bash tools/bench/live.sh --backend cuda --gpus "$one" --seconds "$seconds" --periods 64 \
            --channels 256 --ir "$work/ir256.wav"
        bash tools/bench/live.sh --backend cuda --gpus "$gpus" --seconds "$seconds" --periods 64 \
            --channels "$split" --ir "$work/ir$split.wav" | tail -n +2
    } >"$work/jack.txt"
fi

{
    echo "## Live channels across GPUs"
    echo
    echo "Command: \`bash tools/bench/gpu_multi.sh --seconds $seconds --gpus $gpus\`."
    echo "Devices: $devices. Date: $(date -u +%F). Commit: $commit."
    echo
    echo "480,000-tap filters, one per channel, 64-frame period (1.333 ms at 48 kHz): 256"
    echo "channels on GPU $one, $split split over GPUs $gpus (each GPU a range of outputs, all"
    echo "launched before any is waited for). Through the library (live_bench):"
    echo
    cat "$work/lib.md"
    if [ "$jack" = 1 ]; then
        echo
        echo "Through gfir --monitor and a JACK server on its dummy driver (tools/bench/live.sh;"
        echo "xruns are the server's own, counted apart):"
        echo
        echo '```'
        cat "$work/jack.txt"
        echo '```'
    fi
} | tee "$work/section.md"
python3 tools/bench/put-section.py docs/BENCHMARKS.md gpu-multi <"$work/section.md"
