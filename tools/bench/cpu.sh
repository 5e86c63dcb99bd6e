#!/usr/bin/env bash
# Benchmarks the CPU direct path (tools/cpu_bench.c) and writes its section of
# docs/BENCHMARKS.md, with the machine, the date and the commit it ran on.
#   bash tools/bench/cpu.sh [RUNS]
#   GFIR_BUILD_DIR  build directory (default: build)
# For figures worth keeping, run it on an otherwise idle machine: the load
# average at the start is recorded beside the table for that reason.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
build=${GFIR_BUILD_DIR:-build}
runs=${1:-9}

if [ ! -f "$build/CMakeCache.txt" ]; then
    GFIR_BUILD_DIR=$build bash tools/setup.sh --tests
fi
cmake --build "$build" --target cpu_bench >/dev/null

model=$(lscpu | sed -n 's/^Model name:[[:space:]]*//p' | head -n1)
cpus=$(nproc)
load=$(cut -d' ' -f1-3 /proc/loadavg)
commit=$(git rev-parse --short HEAD)
date=$(date -u +%Y-%m-%d)

echo "cpu.sh: running $build/tools/cpu_bench $runs (about a minute)" >&2
table=$("$build/tools/cpu_bench" "$runs")
echo "$table" >&2

# The single-thread and all-core bests from the table, for the summary line.
summary=$(awk -F'|' '
    $2 ~ /direct/ {
        gsub(/ /, "", $3); gsub(/ /, "", $5); gsub(/ /, "", $6); gsub(/[ %]/, "", $7)
        key = ($3 == "1") ? "one" : "all"
        if ($6 + 0 > best[key]) { best[key] = $6 + 0; taps[key] = $4 + 0; pct[key] = $7 }
    }
    END {
        printf "Best direct throughput: %.1f GMAC/s on one thread (ntaps %d, %s%% of one core'"'"'s peak), ",
               best["one"], taps["one"], pct["one"]
        printf "%.1f GMAC/s on all cores (ntaps %d, %s%% of their peak).", best["all"], taps["all"], pct["all"]
    }' <<<"$table")

tools/bench/put-section.py docs/BENCHMARKS.md cpu-direct <<MD
## CPU direct path

\`bash tools/bench/cpu.sh\` — machine: $model, $cpus CPUs (\`nproc\`); $date; commit \`$commit\`;
load average at start: $load.

$table

$summary

How to read it: a channel-sample is one output sample of one channel; a MAC is
one multiply-add, so GMAC/s = Msamples/s x ntaps / 1000. The peak is measured,
not taken from a datasheet: cpu_bench times a loop of 16 independent FMA chains
held in registers at the vector width the direct kernel uses (the best of three
tries), which is what one core can do when no load or store gets in the way;
the all-core peak assumes every core keeps that clock. Gold accumulates in
double with no vectorisation and is there for scale. With threads = 0 the plan
uses every online CPU; if other work shares them (see the load average), those
rows measure the contention as much as the kernel.
MD
echo "cpu.sh: wrote the cpu-direct section of docs/BENCHMARKS.md" >&2
