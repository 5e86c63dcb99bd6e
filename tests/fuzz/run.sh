#!/usr/bin/env bash
# tests/fuzz/run.sh [SECONDS] - builds the libFuzzer targets with clang, the
# library and the command line's sources under AddressSanitizer and
# UndefinedBehaviorSanitizer, into build-fuzz/, and runs each target for
# SECONDS (default 60), two at a time, from a copy of its corpus in
# tests/fuzz/corpus/<target>/ (what the fuzzer adds stays out of the tree).
# Any crash, leak, sanitizer report, timeout or reference mismatch fails the
# run; the input behind it is kept as build-fuzz/crashes/<target>-*, and the
# target's log is printed.
#   GFIR_FUZZ_BUILD_DIR   build directory (default: build-fuzz)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

seconds=${1:-60}
build=${GFIR_FUZZ_BUILD_DIR:-build-fuzz}
targets=(fuzz_taps fuzz_preset fuzz_input fuzz_plan fuzz_manifest)
flags="-fsanitize=address,undefined,fuzzer-no-link -fno-sanitize-recover=undefined"
flags+=" -fno-omit-frame-pointer"

CC=clang cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGFIR_FUZZ=ON \
    -DGFIR_TESTS=OFF -DGFIR_CUDA=OFF -DGFIR_PORTAUDIO=OFF -DGFIR_WERROR=ON \
    -DCMAKE_C_FLAGS="$flags" >/dev/null
cmake --build "$build" --target "${targets[@]}"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$build/crashes"
# FFTW's measuring planner would spend the time planning; the wisdom cache
# stays out of the user's home.
export GFIR_FFTW_PLANNER=estimate HOME=$work
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

run_one() {
    local t=$1
    cp -r "tests/fuzz/corpus/$t" "$work/$t"
    # stdin from /dev/null and output to a file: a preset's 'file = /dev/stdin'
    # or /proc/self/fd/N then reads nothing rather than waiting on a pipe
    "$build/tests/fuzz/$t" -max_total_time="$seconds" -timeout=30 -rss_limit_mb=2048 \
        -close_fd_mask=3 -print_final_stats=1 -artifact_prefix="$build/crashes/$t-" \
        "$work/$t" </dev/null >"$work/$t.log" 2>&1
}

failed=0
for ((i = 0; i < ${#targets[@]}; i += 2)); do
    pids=()
    for t in "${targets[@]:i:2}"; do
        run_one "$t" &
        pids+=("$!:$t")
    done
    for entry in "${pids[@]}"; do
        t=${entry#*:}
        if wait "${entry%%:*}"; then
            echo "fuzz: $t: $(grep -E '^Done [0-9]+ runs' "$work/$t.log" || echo done)"
        else
            echo "fuzz: $t FAILED; its log:" >&2
            tail -60 "$work/$t.log" >&2
            failed=1
        fi
    done
done
exit "$failed"
