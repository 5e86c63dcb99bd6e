#!/usr/bin/env bash
# gpu_check.sh - what every change to GPU code must pass on a machine with a
# GPU: the GPU tests (the CUDA kernels and FFT engines, smfft's transforms,
# the delay-line engine, device memory, routed plans, filter swaps, plans
# split over GPUs ({0,0}, and {0,1} where two are visible), a plan past the
# device's memory, and the AUTO policy on CUDA), then
# compute-sanitizer's memcheck and racecheck over the kernel tests in their
# quick form.
#
#   tools/bench/gpu_check.sh [BUILD_DIR]     (default build; built if missing)
#
# Exits non-zero if any test or sanitizer run fails; the sanitizers' logs go
# to BUILD_DIR/sanitizer-*.log.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
build=${1:-build}
if [ ! -f "$build/build.ninja" ]; then
    cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGFIR_CUDA=ON >/dev/null || exit 1
fi
cmake --build "$build" || exit 1
status=0
ctest --test-dir "$build" --output-on-failure -j 4 \
    -R '^(cuda_test|cuda_fft_test|smfft_test|fdl_test|device_test|swap_cuda_test|split_cuda_test|split_cuda_test_two|split_test|routing_test|policy_test|policy_golden_test|streaming_test)$' || status=1
# memory_test fills a device on purpose: alone, after the others
ctest --test-dir "$build" --output-on-failure -R '^memory_test$' || status=1
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
# Each test in its smaller form (the full ones take tens of minutes under the
# sanitizers); racecheck, slower still, runs the CUDA kernels alone. The runs
# are independent and mostly host-bound, so they run side by side
# (GFIR_CHECK_JOBS at a time, default: every run at once), the slowest
# setting the wall time; the results print in the list's order.
runs=("memcheck cuda_test --quick" "memcheck cuda_fft_test --quick"
    "memcheck smfft_test --quick"
    "memcheck fdl_test --quick" "memcheck swap_cuda_test --quick"
    "memcheck split_cuda_test --quick"
    "racecheck cuda_test --kernels"
    "racecheck cuda_fft_test --quick" "racecheck smfft_test --quick"
    "racecheck fdl_test --quick")
jobs=${GFIR_CHECK_JOBS:-${#runs[@]}}
# On a host of several GPUs the runs take turns over them (each sees one),
# since ten sanitized runs on one GPU ran past 300 s where one alone did not.
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
[ "${ngpu:-0}" -ge 1 ] || ngpu=1
nth=0
one() {
    local tool=$1 name=$2 flag=$3 gpu=$4
    CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-$gpu} \
        timeout "${GFIR_SANITIZER_TIMEOUT:-900}" "$sanitizer" --tool "$tool" --error-exitcode 9 \
        "$build/tests/cuda/$name" "$flag" >"$build/sanitizer-$tool-$name.log" 2>&1
    echo $? >"$build/sanitizer-$tool-$name.rc"
}
running=0
for run in "${runs[@]}"; do
    set -- $run
    rm -f "$build/sanitizer-$1-$2.rc"
    one "$1" "$2" "$3" $((nth % ngpu)) &
    nth=$((nth + 1))
    running=$((running + 1))
    if [ "$running" -ge "$jobs" ]; then
        wait -n
        running=$((running - 1))
    fi
done
wait
for run in "${runs[@]}"; do
    set -- $run
    log="$build/sanitizer-$1-$2.log"
    if [ "$(cat "$build/sanitizer-$1-$2.rc" 2>/dev/null)" = 0 ]; then
        echo "$1 $2 $3: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | tail -1)"
    else
        echo "$1 $2 $3: FAILED (see $log)"
        tail -20 "$log"
        status=1
    fi
done
exit $status
