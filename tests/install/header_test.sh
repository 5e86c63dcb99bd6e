#!/usr/bin/env bash
# The public header on its own, as a user's compiler sees it (libsndfile's
# tests/pedantic-header-test.sh): it must compile with no warnings as strict C99
# and as C++11, survive being included twice, and give C++ the C linkage the
# library was built with, which only linking a C++ program proves.
#   header_test.sh CC CXX INCLUDE_DIR LIBGFIR_SO
# CXX may be empty (no C++ compiler): the C part runs, then the test is skipped.
set -euo pipefail
cc=$1 cxx=$2 include=$3 lib=$4
link=("$lib" "-Wl,-rpath,$(dirname "$lib")")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Uses a type, an enum, a macro and a function from every part of the header,
# so a declaration that only breaks when used is exercised too.
cat >"$tmp/use.c" <<'SRC'
#include <gfir.h>
#include <gfir.h>
#include <string.h>

int main(void)
{
    gfir_config cfg;
    gfir_plan *plan = NULL;
    const float taps[3] = {0.25f, 0.5f, 0.25f};
    size_t limit = GFIR_MAX_TAPS;
    gfir_config_init(&cfg);
    cfg.backend = GFIR_BACKEND_CPU;
    cfg.kernel = GFIR_KERNEL_DIRECT;
    if (gfir_plan_create(&plan, taps, 3, &cfg) != GFIR_OK)
        return 1;
    gfir_plan_destroy(plan);
    if (limit == 0 || GFIR_VERSION_NUMBER < 0 || strcmp(gfir_strerror(GFIR_OK), "") == 0)
        return 1;
    return (int)GFIR_LOWPASS; /* 0 */
}
SRC

echo "C99: $cc"
"$cc" -std=c99 -Wall -Wextra -pedantic -Wstrict-prototypes -Werror -I"$include" \
    -c "$tmp/use.c" -o "$tmp/use_c.o"
"$cc" "$tmp/use_c.o" "${link[@]}" -o "$tmp/use_c"
"$tmp/use_c"

if [ -z "$cxx" ]; then
    echo "no C++ compiler found: the C++ half was not checked" >&2
    exit 77
fi
echo "C++11: $cxx"
cp "$tmp/use.c" "$tmp/use.cpp"
"$cxx" -std=c++11 -Wall -Wextra -pedantic -Werror -I"$include" \
    -c "$tmp/use.cpp" -o "$tmp/use_cpp.o"
"$cxx" "$tmp/use_cpp.o" "${link[@]}" -o "$tmp/use_cpp"
"$tmp/use_cpp"
echo "header_test: ok"
