# The CPU FFT kernel (partitioned overlap-save) against a float64 reference.
gfir_unit_test(fft_test)
target_compile_definitions(fft_test PRIVATE _POSIX_C_SOURCE=200809L)
