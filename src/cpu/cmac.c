/*
 * cmac.c - the split-form complex multiply-accumulates of cmac.h, one body
 * each compiled per instruction set.
 */
#include "cpu/cmac.h"

#include <math.h>

#if defined(__GNUC__)
#define ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define ALWAYS_INLINE inline
#endif

static ALWAYS_INLINE void cmac_body(float *restrict ar, float *restrict ai,
                                    const float *restrict hr, const float *restrict hi,
                                    const float *restrict xr, const float *restrict xi, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        ar[k] += hr[k] * xr[k] - hi[k] * xi[k];
        ai[k] += hr[k] * xi[k] + hi[k] * xr[k];
    }
}

/* a * b + c, fused where the instruction set has it: with -std=c11, GCC
 * contracts nothing by itself. */
static ALWAYS_INLINE float madd(float a, float b, float c, int fused)
{
    return fused ? fmaf(a, b, c) : a * b + c;
}

/* w (16 or 32) bins of a run. The four products go to four accumulators,
 * combined once at the end, so each accumulator waits on one FMA per
 * partition rather than two: 2 x 4 AVX-512 registers in flight at w = 32. */
static ALWAYS_INLINE void cmac_run_block(float *restrict ar, float *restrict ai,
                                         const float *restrict h, const float *restrict x,
                                         size_t im, size_t stride, size_t count, size_t w,
                                         int fused)
{
    float rr[32], ii[32], ri[32], ir[32];
    for (size_t k = 0; k < w; k++) {
        rr[k] = ar[k];
        ii[k] = 0.0f;
        ri[k] = ai[k];
        ir[k] = 0.0f;
    }
    for (size_t j = 0; j < count; j++) {
        const float *restrict hr = h + j * stride, *restrict hi = hr + im;
        const float *restrict xr = x + j * stride, *restrict xi = xr + im;
        for (size_t k = 0; k < w; k++) {
            rr[k] = madd(hr[k], xr[k], rr[k], fused);
            ii[k] = madd(hi[k], xi[k], ii[k], fused);
            ri[k] = madd(hr[k], xi[k], ri[k], fused);
            ir[k] = madd(hi[k], xr[k], ir[k], fused);
        }
    }
    for (size_t k = 0; k < w; k++) {
        ar[k] = rr[k] - ii[k];
        ai[k] = ri[k] + ir[k];
    }
}

static ALWAYS_INLINE void cmac_run_body(float *restrict ar, float *restrict ai,
                                        const float *restrict h, const float *restrict x,
                                        size_t im, size_t stride, size_t count, size_t n,
                                        int fused)
{
    size_t k = 0;
    for (; k + 32 <= n; k += 32)
        cmac_run_block(ar + k, ai + k, h + k, x + k, im, stride, count, 32, fused);
    if (k < n)
        cmac_run_block(ar + k, ai + k, h + k, x + k, im, stride, count, 16, fused);
}

static void cmac_base(float *ar, float *ai, const float *hr, const float *hi, const float *xr,
                      const float *xi, size_t n)
{
    cmac_body(ar, ai, hr, hi, xr, xi, n);
}

static void cmac_run_base(float *ar, float *ai, const float *h, const float *x, size_t im,
                          size_t stride, size_t count, size_t n)
{
    cmac_run_body(ar, ai, h, x, im, stride, count, n, 0);
}

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#define HAVE_X86_TARGETS 1
__attribute__((target("avx2,fma"))) static void cmac_avx2(float *ar, float *ai, const float *hr,
                                                         const float *hi, const float *xr,
                                                         const float *xi, size_t n)
{
    cmac_body(ar, ai, hr, hi, xr, xi, n);
}

__attribute__((target("avx512f,avx512vl,avx2,fma"))) static void
cmac_avx512(float *ar, float *ai, const float *hr, const float *hi, const float *xr,
            const float *xi, size_t n)
{
    cmac_body(ar, ai, hr, hi, xr, xi, n);
}

__attribute__((target("avx2,fma"))) static void
cmac_run_avx2(float *ar, float *ai, const float *h, const float *x, size_t im, size_t stride,
              size_t count, size_t n)
{
    cmac_run_body(ar, ai, h, x, im, stride, count, n, 1);
}

__attribute__((target("avx512f,avx512vl,avx2,fma"))) static void
cmac_run_avx512(float *ar, float *ai, const float *h, const float *x, size_t im, size_t stride,
                size_t count, size_t n)
{
    cmac_run_body(ar, ai, h, x, im, stride, count, n, 1);
}
#endif

gf_cmac_fn gf_cmac_select(void)
{
#ifdef HAVE_X86_TARGETS
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl"))
        return cmac_avx512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        return cmac_avx2;
#endif
    return cmac_base;
}

gf_cmac_run_fn gf_cmac_run_select(void)
{
#ifdef HAVE_X86_TARGETS
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl"))
        return cmac_run_avx512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        return cmac_run_avx2;
#endif
    return cmac_run_base;
}
