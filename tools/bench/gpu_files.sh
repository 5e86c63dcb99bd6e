#!/usr/bin/env bash
# End to end on a GPU machine: `gfir in.wav out.wav --taps T` for a 10-minute
# stereo 48 kHz 16-bit WAV, with filters of 1 tap (the I/O floor) up to
# 1440000 taps (a 30-s room), on the CUDA backend and on the CPU, median of
# RUNS wall times. Writes the gpu-files section of docs/BENCHMARKS.md. Needs
# python3 with NumPy.
#   bash tools/bench/gpu_files.sh [SECONDS [RUNS]]
# With --startup (RUNS default 5): CUDA's start-up on the critical path: the
# 1-tap file on --backend cuda against --backend cpu (issue 28's target: cuda
# at most 1.2x the CPU's), the start-up alone (--describe, which makes the
# plan and filters nothing), and a 1-second file on the default backend
# (AUTO keeps it on the CPU and starts no device: no slower than the
# base's); written to the gpu-startup section.
#   bash tools/bench/gpu_files.sh --startup [SECONDS [RUNS]]
#   GFIR_BUILD_DIR  build directory (default build)
#   GFIR_BASE_BUILD_DIR  with --startup, another tree's build (main's, say)
#                   timed in the same run, row for row
#   GFIR_COMMIT     commit to record (default: git's HEAD; set it where the
#                   tree's .git is missing or stale, as on a copied tree)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
build=${GFIR_BUILD_DIR:-build}
startup=0
[ "${1:-}" = --startup ] && { startup=1; shift; }
seconds=${1:-600}
runs=${2:-$((startup ? 5 : 3))}
gfir=$build/gfir
[ -x "$gfir" ] || { echo "gpu_files.sh: no $gfir; build first" >&2; exit 1; }
base=${GFIR_BASE_BUILD_DIR:+$GFIR_BASE_BUILD_DIR/gfir}
[ -z "$base" ] || [ -x "$base" ] || { echo "gpu_files.sh: no $base; build it first" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# 1440000: a 30-s room at 48 kHz (issue 28: within 1.15x of the 1-tap run on cuda)
taps_list=(1 255 4095 65535 262143 1440000)
((startup)) && taps_list=(1)

python3 - "$work" "$seconds" "${taps_list[@]}" <<'PY'
import sys, wave
import numpy as np
work, seconds = sys.argv[1], int(sys.argv[2])
rng = np.random.default_rng(7)
x = (rng.standard_normal((seconds * 48000, 2)) * 3000).clip(-32768, 32767).astype("<i2")
with wave.open(f"{work}/in.wav", "wb") as w:
    w.setnchannels(2)
    w.setsampwidth(2)
    w.setframerate(48000)
    w.writeframes(x.tobytes())
for n in map(int, sys.argv[3:]):
    h = rng.standard_normal(n) / np.sqrt(n)
    np.savetxt(f"{work}/taps{n}.txt", h, fmt="%.9g")
PY

# Median wall time in seconds of RUNS runs of a command that must succeed.
median_time() {
    local times=() t0 t1
    for ((r = 0; r < runs; r++)); do
        t0=$(date +%s.%N)
        "$@" >/dev/null 2>&1 || { echo "gpu_files.sh: failed: $*" >&2; exit 1; }
        t1=$(date +%s.%N)
        times+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f", b - a}')")
    done
    printf '%s\n' "${times[@]}" | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'
}

commit=${GFIR_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
device=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | awk 'NR == 1' || true)
cpu=$(lscpu | sed -n '0,/^Model name:/s/^Model name:[[:space:]]*//p')

# One row of the start-up table for the gfir at $1, named $2.
startup_row() {
    local bin=$1 name=$2 args=("$work/in.wav" "$work/out.wav" --taps "$work/taps1.txt" --no-dither)
    local fc fp dc dp sa
    fc=$(median_time "$bin" "${args[@]}" --backend cuda -q)
    fp=$(median_time "$bin" "${args[@]}" --backend cpu -q)
    dc=$(median_time "$bin" --describe --taps "$work/taps1.txt" --backend cuda)
    dp=$(median_time "$bin" --describe --taps "$work/taps1.txt" --backend cpu)
    sa=$(median_time "$bin" "$work/short.wav" "$work/out.wav" --taps "$work/taps1.txt" --no-dither -q)
    awk -v n="$name" -v fc="$fc" -v fp="$fp" -v dc="$dc" -v dp="$dp" -v sa="$sa" 'BEGIN {
        printf "| %s | %s | %s | %.2fx | %s | %s | %.3f | %s |\n", n, fc, fp, fc / fp, dc, dp,
               dc - dp, sa }'
}

if ((startup)); then
    python3 - "$work" <<'PY'
import sys, wave
import numpy as np
x = (np.random.default_rng(8).standard_normal((48000, 2)) * 3000).astype("<i2")
with wave.open(f"{sys.argv[1]}/short.wav", "wb") as w:
    w.setnchannels(2)
    w.setsampwidth(2)
    w.setframerate(48000)
    w.writeframes(x.tobytes())
PY
    rows=$(startup_row "$gfir" "this tree ($commit)")
    echo "$rows" >&2
    if [ -n "$base" ]; then
        row=$(startup_row "$base" "base ($GFIR_BASE_BUILD_DIR)")
        echo "$row" >&2
        rows+=$'\n'"$row"
    fi
    {
        echo "## GPU, start-up on the critical path"
        echo
        echo "\`bash tools/bench/gpu_files.sh --startup $seconds $runs\`: \`gfir in.wav out.wav --taps T\`"
        echo "with one tap on a $seconds s stereo 48 kHz 16-bit WAV (random), and"
        echo "\`gfir --describe --taps T\` (the plan made, nothing filtered: start-up alone),"
        echo "and a 1 s file on the default backend (AUTO leaves it on the CPU and starts no"
        echo "device), wall time in seconds, median of $runs."
        echo "Device: $device; CPU: $cpu ($(nproc) CPUs)."
        echo "$(date -u +%F), commit $commit. Target (issue 28): the file on cuda at most 1.2x cpu."
        echo
        echo "| gfir | file, cuda | file, cpu | cuda / cpu | --describe, cuda | --describe, cpu | start-up (describe: cuda - cpu) | 1 s file, auto |"
        echo "|---|---|---|---|---|---|---|---|"
        printf '%s\n' "$rows"
    } | python3 tools/bench/put-section.py docs/BENCHMARKS.md gpu-startup
    exit 0
fi

rows=""
floor=""
for n in "${taps_list[@]}"; do
    args=("$work/in.wav" "$work/out.wav" --taps "$work/taps$n.txt" --no-dither)
    tc=$(median_time "$gfir" "${args[@]}" --backend cuda -q)
    kernel=$("$gfir" "${args[@]}" --backend cuda -v 2>&1 | sed -n 's/.*kernel \([a-z]*\),.*/\1/p' | awk 'NR == 1')
    tp=$(median_time "$gfir" "${args[@]}" --backend cpu -q)
    [ -n "$floor" ] || floor=$tc
    ratio=$(awk -v a="$tc" -v b="$floor" 'BEGIN {printf "%.2f", a / b}')
    row="| $n | $kernel | $tc | ${ratio}x | $tp |"
    echo "$row" >&2
    rows+="$row"$'\n'
done

{
    echo "## GPU, files end to end"
    echo
    echo "\`bash tools/bench/gpu_files.sh $seconds $runs\`: \`gfir in.wav out.wav --taps T\` on a"
    echo "$seconds s stereo 48 kHz 16-bit WAV (random), wall time in seconds, median of $runs."
    echo "Device: $device; CPU: $cpu ($(nproc) CPUs). $(date -u +%F), commit $commit."
    echo "The 1-tap CUDA run is the I/O floor."
    echo
    echo "| taps | CUDA kernel | --backend cuda | vs 1 tap | --backend cpu |"
    echo "|---|---|---|---|---|"
    printf '%s' "$rows"
} | python3 tools/bench/put-section.py docs/BENCHMARKS.md gpu-files
