/*
 * cpu_direct.c - the fast direct convolution on the CPU.
 *
 * Outputs are computed W at a time: for each tap, one broadcast coefficient
 * times W consecutive inputs is added into W accumulators. GCC vectorises the
 * j loop (check with -fopt-info-vec); W is chosen so the accumulators fill
 * about eight vector registers, enough independent FMA chains to hide the FMA
 * latency: W = 128 with AVX-512, 64 with AVX2, 32 with baseline SSE.
 * Each width is compiled for its instruction set and picked at run time, so
 * one binary runs well on any x86-64 machine.
 */
#include "cpu/direct.h"

#if defined(__x86_64__) || defined(__i386__)
#define GF_X86 1
#endif

#if defined(__GNUC__)
#define ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define ALWAYS_INLINE inline
#endif

/* W outputs per step; the j loops are the ones GCC vectorises. */
static ALWAYS_INLINE void direct_body(const float *restrict xh, const float *restrict hr,
                                      size_t ntaps, float *restrict y, size_t n, size_t w)
{
    size_t i = 0;
    for (; i + w <= n; i += w) {
        float acc[128];
        for (size_t j = 0; j < w; j++)
            acc[j] = 0.0f;
        for (size_t m = 0; m < ntaps; m++) {
            const float hm = hr[m];
            const float *restrict xp = xh + i + m;
            for (size_t j = 0; j < w; j++)
                acc[j] += hm * xp[j];
        }
        for (size_t j = 0; j < w; j++)
            y[i + j] = acc[j];
    }
    /* The short tail: eight at a time, then one at a time. */
    for (; i + 8 <= n; i += 8) {
        float acc[8] = {0};
        for (size_t m = 0; m < ntaps; m++) {
            const float hm = hr[m];
            for (size_t j = 0; j < 8; j++)
                acc[j] += hm * xh[i + m + j];
        }
        for (size_t j = 0; j < 8; j++)
            y[i + j] = acc[j];
    }
    for (; i < n; i++) {
        float acc = 0.0f;
        for (size_t m = 0; m < ntaps; m++)
            acc += hr[m] * xh[i + m];
        y[i] = acc;
    }
}

static void direct_w32(const float *xh, const float *hr, size_t ntaps, float *y, size_t n)
{
    direct_body(xh, hr, ntaps, y, n, 32);
}

#if GF_X86 && defined(__GNUC__)
__attribute__((target("avx2,fma"))) static void direct_w64(const float *xh, const float *hr,
                                                          size_t ntaps, float *y, size_t n)
{
    direct_body(xh, hr, ntaps, y, n, 64);
}

__attribute__((target("avx512f,avx512vl,avx2,fma"))) static void
direct_w128(const float *xh, const float *hr, size_t ntaps, float *y, size_t n)
{
    direct_body(xh, hr, ntaps, y, n, 128);
}
#endif

gf_cpu_conv_fn gf_cpu_direct_select(const char **isa_name)
{
    const char *name = "sse";
    gf_cpu_conv_fn fn = direct_w32;
#if GF_X86 && defined(__GNUC__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl")) {
        name = "avx512";
        fn = direct_w128;
    } else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
        name = "avx2";
        fn = direct_w64;
    }
#else
    name = "generic";
#endif
    if (isa_name)
        *isa_name = name;
    return fn;
}
