#!/usr/bin/env bash
# tools/ci/sanitize.sh - builds gfir with AddressSanitizer and
# UndefinedBehaviorSanitizer (GCC) into build-asan/ and runs the tests under
# them: unit, command-line, live, batch and Python. Reports go to log files
# rather than the tests' stderr (which the tests read), and any report fails
# the run, as does a test that skips itself (but for those labelled gpu).
# Leaks inside audio plugins that libasound has unloaded are suppressed
# (tools/ci/lsan.supp says why).
#   GFIR_ASAN_BUILD_DIR   build directory (default: build-asan)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

build=${GFIR_ASAN_BUILD_DIR:-build-asan}
flags="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g"
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGFIR_CUDA=OFF -DGFIR_WERROR=ON \
    -DCMAKE_C_FLAGS="$flags" >/dev/null
cmake --build "$build"

logs=$(mktemp -d)
out=$(mktemp)
trap 'rm -rf "$logs" "$out"' EXIT
# The slow unwinder gives leaks inside audio plugins their whole stack, which
# lsan.supp needs to recognise them.
export ASAN_OPTIONS="log_path=$logs/asan:detect_leaks=1:check_initialization_order=1"
ASAN_OPTIONS+=":fast_unwind_on_malloc=0"
# A file job cancels its reader inside a read that a silent pipe holds
# (pipeline.c). The forced unwind leaves that thread's stack poisoned, and
# GCC 12's ASan then trips over its own poison as the thread ends, when it
# unsets the thread's alternate signal stack: a report about its own code,
# not gfir's. Without the alternate stack there is nothing for it to unset.
ASAN_OPTIONS+=":use_sigaltstack=0"
export UBSAN_OPTIONS="log_path=$logs/ubsan:print_stacktrace=1:halt_on_error=1"
export LSAN_OPTIONS="suppressions=$PWD/tools/ci/lsan.supp:print_suppressions=0"
# Not run here: what checks the build's artefacts rather than running code
# (the header compiled alone, the installed tree, the exported symbols, GCC's
# vectorisation report), which a sanitized build changes by design.
status=0
ctest --test-dir "$build" --output-on-failure \
    -E '^(header_test|install_test|symbols_test|vectorize_test|python_.*)$' 2>&1 |
    tee "$out" || status=1
# The Python package loads the sanitized libgfir into an interpreter that is
# not: AddressSanitizer's runtime must then be loaded first, and the
# interpreter's own objects, never freed at exit, are no leaks of ours.
LD_PRELOAD=$(gcc -print-file-name=libasan.so) ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0" \
    ctest --test-dir "$build" --output-on-failure -R '^python_' 2>&1 | tee -a "$out" || status=1
# as in .ci/run, only tests labelled gpu may skip themselves
if ! skipped=$(bash tools/ci/skips.sh "$build" "$out"); then
    echo "sanitize: these tests skipped themselves, but must run on this machine:" >&2
    echo "$skipped" >&2
    status=1
fi
if compgen -G "$logs/*" >/dev/null; then
    echo "sanitize: sanitizer reports:" >&2
    cat "$logs"/* >&2
    status=1
fi
exit "$status"
