/*
 * direct.c - the fast direct convolution kernels on the CPU.
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

/* w outputs from xh: for each tap, one broadcast coefficient times w
 * consecutive inputs added into w accumulators. The j loops are the ones GCC
 * vectorises; w is a constant wherever this is inlined. */
static ALWAYS_INLINE void direct_block(const float *restrict xh, const float *restrict hr,
                                       size_t ntaps, float *restrict y, size_t w)
{
    float acc[128];
    for (size_t j = 0; j < w; j++)
        acc[j] = 0.0f;
    for (size_t m = 0; m < ntaps; m++) {
        const float hm = hr[m];
        const float *restrict xp = xh + m;
        for (size_t j = 0; j < w; j++)
            acc[j] += hm * xp[j];
    }
    for (size_t j = 0; j < w; j++)
        y[j] = acc[j];
}

static ALWAYS_INLINE void direct_body(const float *restrict xh, const float *restrict hr,
                                      size_t ntaps, float *restrict y, size_t n, size_t w)
{
    size_t i = 0;
    for (; i + w <= n; i += w)
        direct_block(xh + i, hr, ntaps, y + i, w);
    /* The tail in halving widths down to 8, so that short calls (an audio
     * callback's 64 frames, the zero-latency FFT engine's head) still keep
     * several vector accumulators in flight: a single one waits out the
     * latency of every tap's multiply-add, which made 64 outputs four times
     * slower. */
    if (w / 2 >= 8 && i + w / 2 <= n) {
        direct_block(xh + i, hr, ntaps, y + i, w / 2);
        i += w / 2;
    }
    if (w / 4 >= 8 && i + w / 4 <= n) {
        direct_block(xh + i, hr, ntaps, y + i, w / 4);
        i += w / 4;
    }
    if (w / 8 >= 8 && i + w / 8 <= n) {
        direct_block(xh + i, hr, ntaps, y + i, w / 8);
        i += w / 8;
    }
    if (w / 16 >= 8 && i + w / 16 <= n) {
        direct_block(xh + i, hr, ntaps, y + i, w / 16);
        i += w / 16;
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
