# cpu_fft_bench: measures the constants of src/cpu_fft.c (AUTO's FFT/direct
# crossover, the partition ceiling, the threading threshold).
add_executable(cpu_fft_bench cpu_fft_bench.c)
target_link_libraries(cpu_fft_bench PRIVATE gfir_static)
target_compile_options(cpu_fft_bench PRIVATE ${GFIR_WARNINGS})
target_compile_definitions(cpu_fft_bench PRIVATE _POSIX_C_SOURCE=200809L)
# It forces partition sizes through cpu_fft.h, a private header.
target_include_directories(cpu_fft_bench PRIVATE ${PROJECT_SOURCE_DIR}/src)
