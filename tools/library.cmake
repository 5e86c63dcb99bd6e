# Programs that use libgfir from the outside, through include/gfir.h only.

# The example of tools/gfir_example.c, built here as in any other tree;
# tests/install_test.sh builds it again against the installed library.
pkg_check_modules(SNDFILE REQUIRED IMPORTED_TARGET sndfile)
add_executable(gfir_example gfir_example.c)
target_link_libraries(gfir_example PRIVATE gfir PkgConfig::SNDFILE m)
target_compile_options(gfir_example PRIVATE ${GFIR_WARNINGS} -pedantic)

# The CPU direct path's throughput (tools/bench/cpu.sh writes docs/BENCHMARKS.md).
# Static and with src/ only to ask the library which ISA its direct kernel took.
add_executable(cpu_bench cpu_bench.c)
target_link_libraries(cpu_bench PRIVATE gfir_static)
target_include_directories(cpu_bench PRIVATE ${PROJECT_SOURCE_DIR}/src)
target_compile_definitions(cpu_bench PRIVATE _POSIX_C_SOURCE=200809L)
target_compile_options(cpu_bench PRIVATE ${GFIR_WARNINGS})
