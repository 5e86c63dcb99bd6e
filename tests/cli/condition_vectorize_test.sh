#!/usr/bin/env bash
# The file writer's conditioning (src/cli/file/condition.c) runs over every
# output sample; scalar, it was a third of the writer thread's time on a
# 4095-tap file. GCC must vectorise its clip count and its rounding to the
# 16-bit grid; a branch or a size_t counter in either loop silently loses
# that. This compiles the file as the CLI does (-O3) and reads GCC's
# -fopt-info report for the loops holding these statements.
#   condition_vectorize_test.sh CC SOURCE_DIR
set -euo pipefail
cc=$1 src=$2
file=$src/src/cli/file/condition.c
report=$("$cc" -std=c99 -O3 -D_POSIX_C_SOURCE=200809L -I"$src/src/cli" -I"$src/include" \
    -fopt-info-vec-optimized -c "$file" -o /dev/null 2>&1)
echo "$report"
status=0
for hot in 'clipped += over;' 'pcm[i] = (short)((v + magic) - magic);'; do
    stmt=$(grep -nF "$hot" "$file" | cut -d: -f1)
    if [ "$(printf '%s\n' "$stmt" | grep -c .)" -ne 1 ]; then
        echo "expected exactly one '$hot' in $file; found lines: ${stmt:-none}" >&2
        exit 1
    fi
    loop=$(awk -v s="$stmt" 'NR < s && /^[[:space:]]*for[[:space:]]*\(/ { l = NR } END { print l }' "$file")
    if grep -q "condition.c:$loop:[0-9]*: optimized: loop vectorized" <<<"$report"; then
        echo "ok: '$hot' (loop at line $loop) vectorised"
    else
        echo "NOT vectorised: '$hot' (loop at line $loop)" >&2
        status=1
    fi
done
exit $status
