/*
 * cmac.h - the hot loop of every CPU FFT engine: acc += h * x over n complex
 * bins held in split form (real parts in one array, imaginary in another), so
 * the loop is plain vertical FMAs. Compiled for AVX-512, AVX2+FMA and the
 * baseline, picked at run time like the direct kernel.
 */
#ifndef GF_CPU_CMAC_H
#define GF_CPU_CMAC_H

#include <stddef.h>

typedef void (*gf_cmac_fn)(float *ar, float *ai, const float *hr, const float *hi,
                           const float *xr, const float *xi, size_t n);

/* The widest version this processor runs. */
gf_cmac_fn gf_cmac_select(void);

/*
 * acc += sum over j < count of h_j * x_j over n bins (n a multiple of 16),
 * where h_j = h + j * stride and x_j = x + j * stride are split spectra whose
 * imaginary parts lie im floats after their real parts: a run of partitions
 * of a frequency-domain delay line against the filter's. The accumulators
 * stay in registers across the run and the FMA versions fuse: for the
 * non-uniform engine's short spectra (80 bins, 31 partitions) that took
 * `cpu_nupc_bench --compare 4096 64,1024` from 24 to 14 ns a frame in all,
 * against one call of the function above per partition.
 */
typedef void (*gf_cmac_run_fn)(float *ar, float *ai, const float *h, const float *x, size_t im,
                               size_t stride, size_t count, size_t n);
gf_cmac_run_fn gf_cmac_run_select(void);

#endif
