#!/usr/bin/env bash
# Benchmarks the zero-latency FFT engine (src/cpu/fft_nonuniform.c) against the
# uniform FFT engine and the direct one, and writes its section of
# docs/BENCHMARKS.md with the machine, the date and the commit it ran on.
#   bash tools/bench/cpu_nupc.sh [RUNS]
#   GFIR_BUILD_DIR  build directory (default: build)
# RUNS (default 5) timed runs per figure, of which the median is kept. For
# figures worth keeping, run it on an otherwise idle machine: the load
# average at the start is recorded beside the tables for that reason. It
# takes about ten minutes.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
build=${GFIR_BUILD_DIR:-build}
runs=${1:-5}

if [ ! -f "$build/CMakeCache.txt" ]; then
    GFIR_BUILD_DIR=$build bash tools/setup.sh --tests
fi
cmake --build "$build" --target cpu_nupc_bench >/dev/null
bench=$build/tools/cpu_nupc_bench

model=$(lscpu | sed -n 's/^Model name:[[:space:]]*//p' | head -n1)
cpus=$(nproc)
load=$(cut -d' ' -f1-3 /proc/loadavg)
commit=$(git rev-parse --short HEAD)
date=$(date -u +%Y-%m-%d)

echo "cpu_nupc.sh: $bench --table $runs" >&2
table=$("$bench" --table "$runs")
echo "$table" >&2
echo "cpu_nupc.sh: $bench --calls $runs" >&2
calls=$("$bench" --calls "$runs")
echo "$calls" >&2
echo "cpu_nupc.sh: $bench --swaps $runs" >&2
swaps=$("$bench" --swaps "$runs")
echo "$swaps" >&2

# The targets (issue 28): non-uniform / fastest uniform at most 1.3 at every
# size and block, worst call at most 2 times the mean; a swap's calls at most
# 2 times a call with no swap (issue 26), at 64-frame calls.
ratio=$(echo "$table" | awk -F'|' 'NR > 2 { if ($8 + 0 > m) m = $8 + 0 } END { printf "%.2f", m }')
worst=$(echo "$calls" | awk -F'|' 'NR > 2 { if ($8 + 0 > m) m = $8 + 0 } END { printf "%.2f", m }')
swap64=$(echo "$swaps" | awk -F'|' 'NR > 2 && $3 + 0 == 64 { if ($8 + 0 > m) m = $8 + 0 } END { printf "%.2f", m }')
verdict() { awk -v v="$1" -v t="$2" 'BEGIN { print (v + 0 <= t + 0) ? "met" : "missed" }'; }

tools/bench/put-section.py docs/BENCHMARKS.md cpu-nupc <<MD
## CPU zero-latency FFT engine

\`bash tools/bench/cpu_nupc.sh $runs\` — machine: $model, $cpus CPUs (\`nproc\`); $date;
commit \`$commit\`; load average at start: $load.

Throughput in ns per frame per channel (less is faster), stereo, one thread,
calls of the block size: the non-uniform engine (no latency), the uniform
engine at the partition its rule picks for the block (latency one partition)
and at its fastest partition for the filter, and direct (no latency; timed in
256-frame calls beyond 65536 taps, where its cost per frame no longer depends
on the call size).

$table

The time of single calls of the non-uniform engine, stereo, 2^16 and 2^20 taps
among others. Its schedule repeats with its longest partition, so each call
position of that cycle keeps its least time over $runs cycles (what other
processes add rarely strikes the same call every cycle); mean, 99th percentile
and worst are over the calls of the cycle.

$calls

A swap (gfir_plan_swap, crossfade of 2400 frames) from its call to its
fade's end, stereo, started a third of the way into the cycle: the engine
makes the new filter's blocks in those calls and fades once they are being
read, so no call makes the new filter's share of every level at once; only
the blocks read within the fade are made for both filters, in half steps
spread over their slack. Each call keeps its least time over $runs swaps;
the last column is the worst of them against the mean call with no swap
running.

$swaps

Targets: non-uniform / fastest uniform at most 1.3 at every size: largest
$ratio, $(verdict "$ratio" 1.3). Worst call at most 2 times the mean: largest
$worst, $(verdict "$worst" 2). A swap's calls at most 2 times a call with no
swap, 64-frame calls: largest $swap64, $(verdict "$swap64" 2).

How to read it: the uniform engine's figures are the cost of FFT convolution
when latency is allowed, so the ratio in the last column is what zero latency
costs. The engine's head grows with the plan's block (128 below 256 frames,
256, 1024 from 16384, 4096 from 65536) and a call that holds a whole block of
it takes the head in the frequency domain, so in 65536-frame calls filters up
to 65536 taps run within 1.2 times the uniform engine. What perf shows for
the rest (\`perf record\` on \`cpu_nupc_bench --compare\`, 2026-11-26): at
2^20 taps in 256-frame calls the complex multiply-accumulate (src/cpu/cmac.c)
takes 43% of the cycles and FFTW with the four-step transforms' own loops
35%; every level below the longest partition holds up to 14 partitions (the
scheme's factor of 8) and a forward and an inverse transform per frame, work
the uniform engine at P 65536 does not have. At 4096
taps the first level's 16 partitions of 256 take 39% (cmac) where the uniform
engine has one of 4096. A swap's calls, one by one
(\`cpu_nupc_bench --swap-calls 1048576 64 5\`, 2026-11-27, \`239d311\`): the
fade begins a block of the head (128 frames) after the boundary where every
level's block starts, so its first call is no longer the cycle's heaviest
(2.2 to 2.7 times the mean call with no swap before, 1.5 to 1.8 now), and
during the fade the larger levels do half their share and catch up after
it: the fade's calls average 1.1 to 1.2 times the mean call. The worst
calls are in the 65536-frame level's block made for both filters (read from
the fade's start), which runs its multiply-accumulates and inverse slices
twice over its frames: 1.3 times the mean call on average there, 1.9 to 2.4
at worst, where the incoming filter's halves take about 1.5 times the time
that the weights measured at plan start give them (two filters' spectra
compete for the caches). At 4096 taps there is no level to spread: the
first level's block, made at a grid block's first call, runs for both
filters in the fade.
Where a plan's latency budget covers a partition, the uniform engine is used.
MD
echo "cpu_nupc.sh: wrote the cpu-nupc section of docs/BENCHMARKS.md" >&2
