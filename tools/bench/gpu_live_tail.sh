#!/usr/bin/env bash
# gpu_live_tail.sh - where a live GPU call's tail comes from, for the "GPU,
# live at 32 frames" section of docs/BENCHMARKS.md: (1) the hand-over alone,
# a period's input to the GPU and back with no filtering, by CUDA graph, by
# plain launch and by a persistent kernel of one block or of several
# (build/tools/roundtrip_bench); (2)
# the delay-line engine's calls split into the worker's wake-up, staging,
# enqueueing, waiting and the device's own time (build/tools/live_bench
# --trace), 128 and 256 channels of 480,000 taps at 32 frames.
#
#   tools/bench/gpu_live_tail.sh [--seconds N] [--build DIR]
#
# --seconds: each run's length (default 60). Needs a GPU and a CUDA build.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
seconds=60
build=build
while [ $# -gt 0 ]; do
    case $1 in
    --seconds) seconds=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    -h | --help) sed -n '2,12p' "$0"; exit 0 ;;
    *) echo "gpu_live_tail.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
for t in roundtrip_bench live_bench; do
    [ -x "$build/tools/$t" ] || { echo "gpu_live_tail.sh: no $build/tools/$t" >&2; exit 1; }
done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || true
echo
header=--header
for channels in 128 256; do
    for mode in graph persistent persistent-grid launch; do
        "$build/tools/roundtrip_bench" $header --mode "$mode" --channels "$channels" --period 32 \
            --seconds "$seconds"
        header=
    done
done
for channels in 128 256; do
    echo
    "$build/tools/live_bench" --header --trace --backend cuda --layout diag --inputs "$channels" \
        --outputs "$channels" --taps 480000 --period 32 --seconds "$seconds"
done
