/*
 * cmac.c - the split-form complex multiply-accumulate of cmac.h, one body
 * compiled per instruction set.
 */
#include "cpu/cmac.h"

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

static void cmac_base(float *ar, float *ai, const float *hr, const float *hi, const float *xr,
                      const float *xi, size_t n)
{
    cmac_body(ar, ai, hr, hi, xr, xi, n);
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
