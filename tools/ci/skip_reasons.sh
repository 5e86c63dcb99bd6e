#!/usr/bin/env bash
# skip_reasons.sh CTEST_OUTPUT [BUILD_DIR]: why each test that ctest lists
# under "The following tests did not run" skipped itself, one line each
# ("NAME: REASON"). ctest prints a skipped test's output only with -V; every
# gfir test says its reason as the last line of its output, which ctest keeps
# in BUILD_DIR/Testing/Temporary/LastTest.log (default BUILD_DIR: build).
set -euo pipefail
out=$1
log=${2:-build}/Testing/Temporary/LastTest.log
sed -n '/The following tests did not run:/,$p' "$out" |
    sed -nE 's/^\s+[0-9]+ - (.*) \(Skipped\)$/\1/p' |
    while read -r name; do
        reason=$(awk -v t="$name" '
            $0 ~ "^[0-9]+/[0-9]+ Test: " t "$" { want = 1; next }
            want && /^Output:$/ { inside = 1; next }
            inside && /^<end of output>$/ { print last; exit }
            inside && NF && $0 !~ /^-+$/ { last = $0 }' "$log")
        echo "$name: ${reason:-(no reason printed)}"
    done
