#!/usr/bin/env bash
# libgfir.so exports exactly the functions include/gfir.h declares (those it
# marks GFIR_API): internal names (gf_*), the statically linked CUDA runtime
# and everything else stay local, so no program can come to depend on them.
#   symbols_test.sh LIBGFIR_SO GFIR_H
set -euo pipefail
lib=$1 header=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# "GFIR_API <type> [*]name(": the name is the last word before the parenthesis.
sed -n 's/^GFIR_API \(.*\)(.*/\1/p' "$header" | awk '{print $NF}' | tr -d '*' | sort -u >"$tmp/declared"
nm -D --defined-only "$lib" | awk '$2 ~ /^[TtWwDdBbRrVv]$/ {print $3}' | sed 's/@.*//' | sort -u >"$tmp/exported"
[ -s "$tmp/declared" ] || { echo "no GFIR_API declarations found in $header" >&2; exit 1; }
if ! diff -u "$tmp/declared" "$tmp/exported"; then
    echo "libgfir.so's exported symbols (+) differ from gfir.h's functions (-)" >&2
    exit 1
fi
echo "$(wc -l <"$tmp/exported") symbols, all declared in gfir.h"
