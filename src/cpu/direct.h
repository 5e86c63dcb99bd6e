/*
 * direct.h - direct convolution kernels on the CPU.
 *
 * Every kernel here computes, for 0 <= i < n,
 *     y[i] = sum_{m < ntaps} hr[m] * xh[i + m]
 * where xh holds the channel's history (ntaps - 1 samples) followed by its n
 * new samples, and hr is the tap set reversed (hr[m] = h[ntaps - 1 - m]).
 * That is the causal convolution y[i] = sum_k h[k] x[i - k] of the contract.
 */
#ifndef GF_CPU_DIRECT_H
#define GF_CPU_DIRECT_H

#include <stddef.h>

typedef void (*gf_cpu_conv_fn)(const float *xh, const float *hr, size_t ntaps, float *y,
                                 size_t n);

/* The reference: a plain loop accumulating in double. */
void gf_cpu_gold(const float *xh, const float *hr, size_t ntaps, float *y, size_t n);

/* The fast path for this processor (AVX-512, AVX2+FMA or baseline), picked once. */
gf_cpu_conv_fn gf_cpu_direct_select(const char **isa_name);

#endif
