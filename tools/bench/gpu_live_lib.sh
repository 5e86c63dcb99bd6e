#!/usr/bin/env bash
# gpu_live_lib.sh - the GPU delay-line engine at small periods through the
# library alone (build/tools/live_bench: one period of random input per
# period, on the period's clock), the rows of docs/BENCHMARKS.md's "GPU,
# live at 32 frames" table: 2 x 48,000 taps and 128 and 256 channels of
# 480,000 taps (one filter each) at periods of 32 and 64 frames.
#
#   tools/bench/gpu_live_lib.sh [--seconds N] [--build DIR] [--baseline DIR]
#
# --seconds: each row's length (default 60); --build: the build to time
# (default build); --baseline: a second build (another commit's, made with
# `git worktree add` and cmake there) whose rows run in the same session,
# each right after the same row of --build. Needs a GPU and builds with CUDA.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
seconds=60
build=build
baseline=
while [ $# -gt 0 ]; do
    case $1 in
    --seconds) seconds=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --baseline) baseline=$2; shift 2 ;;
    -h | --help) sed -n '2,14p' "$0"; exit 0 ;;
    *) echo "gpu_live_lib.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
for b in "$build" $baseline; do
    [ -x "$b/tools/live_bench" ] || { echo "gpu_live_lib.sh: no $b/tools/live_bench" >&2; exit 1; }
done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || true
header=--header
for period in 32 64; do
    for load in "2 48000" "128 480000" "256 480000"; do
        set -- $load
        for b in "$build" $baseline; do
            row=$("$b/tools/live_bench" --backend cuda --layout diag --inputs "$1" --outputs "$1" \
                  --taps "$2" --period "$period" --seconds "$seconds" $header)
            header=
            if [ -n "$baseline" ]; then
                # the build's name in the first column
                printf '%s\n' "$row" | sed "\$s/^| /| $(basename "$b"): /"
            else
                printf '%s\n' "$row"
            fi
        done
    done
done
