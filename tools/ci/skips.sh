#!/usr/bin/env bash
# tools/ci/skips.sh - the tests that reported themselves skipped in a ctest
# log but must run on a machine without a GPU: every skipped test that does
# not carry the ctest label gpu (tests/cuda, python_gpu). Prints them and
# exits 1 when there is one. .ci/run and tools/ci/sanitize.sh judge skips so.
#   skips.sh BUILD_DIR CTEST_LOG
set -euo pipefail
build=$1 log=$2
gpu=$(ctest --test-dir "$build" -N -L '^gpu$' | sed -n 's/^ *Test *#[0-9]*: *//p')
bad=$(grep -E '^\s+[0-9]+ - .* \(Skipped\)' "$log" | sed -E 's/^\s+[0-9]+ - (\S+) .*/\1/' |
      grep -vxF -f <(printf '%s\n' "$gpu") || true)
if [ -n "$bad" ]; then
    printf '%s\n' "$bad"
    exit 1
fi
