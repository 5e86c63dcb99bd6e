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

#endif
