#!/usr/bin/env bash
# tools/ci/tsan.sh - the LV2 plugins' threads under ThreadSanitizer: builds
# the bundle and its liblilv host tests with -fsanitize=thread into
# build-tsan/ and runs them. convolver_test runs the worker on a thread of
# its own while the audio calls go on, and restores state while a load runs
# there (tests/lv2/host.h): any data race between run(), work() and
# restore() is a report, and a report fails the run.
#   GFIR_TSAN_BUILD_DIR   build directory (default: build-tsan)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

build=${GFIR_TSAN_BUILD_DIR:-build-tsan}
# GCC warns that ThreadSanitizer does not model atomic_thread_fence: the
# runner's one fence orders its seqlock check (src/lv2/runner.c), and what
# the worker reads from the ring is ordered by acquire loads TSan does see.
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGFIR_CUDA=OFF \
    -DGFIR_WERROR=ON -DCMAKE_C_FLAGS="-fsanitize=thread -g -Wno-tsan" >/dev/null
cmake --build "$build" --target gfir_lv2 convolver_test filter_test
TSAN_OPTIONS="halt_on_error=1 exitcode=66" \
    ctest --test-dir "$build" --output-on-failure -R '^(convolver_test|filter_test)$'
