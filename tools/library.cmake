# Programs that use libgfir from the outside, through include/gfir.h only.

# The example of tools/gfir_example.c, built here as in any other tree;
# tests/install_test.sh builds it again against the installed library.
pkg_check_modules(SNDFILE REQUIRED IMPORTED_TARGET sndfile)
add_executable(gfir_example gfir_example.c)
target_link_libraries(gfir_example PRIVATE gfir PkgConfig::SNDFILE m)
target_compile_options(gfir_example PRIVATE ${GFIR_WARNINGS} -pedantic)
