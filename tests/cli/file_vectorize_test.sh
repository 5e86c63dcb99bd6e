#!/usr/bin/env bash
# The file path's per-sample loops run over every sample of a job; scalar,
# the writer's conditioning (src/cli/file/condition.c) was a third of the
# writer thread's time on a 4095-tap file and libsndfile's 16-bit to float
# conversion half the reader's. GCC must vectorise the clip count, the
# rounding to the 16-bit grid and the reader's scaling of 16-bit input
# (src/cli/file/render.c); a branch or a size_t counter in one of them
# silently loses that. This compiles each file as the CLI does (-O3) and
# reads GCC's -fopt-info report for the loops holding these statements.
#   file_vectorize_test.sh CC SOURCE_DIR
set -euo pipefail
cc=$1 src=$2
status=0
check() { # FILE STATEMENT
    local file=$src/src/cli/file/$1 hot=$2 report stmt loop
    report=$("$cc" -std=c99 -O3 -D_POSIX_C_SOURCE=200809L -I"$src/src/cli" -I"$src/src" \
        -I"$src/include" $(pkg-config --cflags sndfile 2>/dev/null) \
        -fopt-info-vec-optimized -c "$file" -o /dev/null 2>&1)
    stmt=$(grep -nF "$hot" "$file" | cut -d: -f1)
    if [ "$(printf '%s\n' "$stmt" | grep -c .)" -ne 1 ]; then
        echo "expected exactly one '$hot' in $file; found lines: ${stmt:-none}" >&2
        echo "(update this test together with the loop)" >&2
        status=1
        return
    fi
    loop=$(awk -v s="$stmt" 'NR < s && /^[[:space:]]*for[[:space:]]*\(/ { l = NR } END { print l }' "$file")
    if grep -q "$1:$loop:[0-9]*: optimized: loop vectorized" <<<"$report"; then
        echo "ok: $1: '$hot' (loop at line $loop) vectorised"
    else
        echo "$report"
        echo "NOT vectorised: $1: '$hot' (loop at line $loop)" >&2
        status=1
    fi
}
check condition.c 'clipped += over;'
check condition.c 'pcm[i] = (short)((v + magic) - magic);'
check render.c 'buf[i] = (float)pcm[i] * (1.0f / 32768.0f);'
exit $status
