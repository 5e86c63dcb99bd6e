#!/usr/bin/env bash
# The CPU direct kernel is fast only if GCC vectorises its hot loop, the W-wide
# accumulation `acc[j] += hm * xp[j]`, in each of the three instruction-set
# clones of src/cpu/direct.c: 16-byte vectors (SSE, direct_w32), 32-byte (AVX2,
# direct_w64) and 64-byte (AVX-512, direct_w128). A harmless-looking edit (an
# aliasing pointer, a non-constant width, a reduction) silently loses that;
# this compiles the file as the library does and reads GCC's -fopt-info report.
#   vectorize_test.sh CC SOURCE_DIR
set -euo pipefail
cc=$1 src=$2
file=$src/src/cpu/direct.c
hot='acc[j] += hm * xp[j]'

# The loop is found by its text, not a line number; GCC reports a loop at the
# line of its `for`, the nearest one above the statement.
stmt=$(grep -nF "$hot" "$file" | cut -d: -f1)
if [ "$(printf '%s\n' "$stmt" | grep -c .)" -ne 1 ]; then
    echo "expected exactly one '$hot' in $file; found lines: ${stmt:-none}" >&2
    echo "(update this test together with the kernel)" >&2
    exit 1
fi
loop=$(awk -v s="$stmt" 'NR < s && /^[[:space:]]*for[[:space:]]*\(/ { l = NR } END { print l }' "$file")
echo "hot loop: $file:$loop (statement at line $stmt)"

report=$("$cc" -std=c11 -O3 -D_POSIX_C_SOURCE=200809L -I"$src/include" -I"$src/src" \
    -fopt-info-vec-optimized -c "$file" -o /dev/null 2>&1)
echo "$report"

status=0
for bytes in 16 32 64; do
    if grep -q "direct.c:$loop:[0-9]*: optimized: loop vectorized using $bytes byte vectors" \
        <<<"$report"; then
        echo "ok: line $loop vectorised with $bytes-byte vectors"
    else
        echo "NOT vectorised with $bytes-byte vectors: line $loop" >&2
        status=1
    fi
done
exit $status
