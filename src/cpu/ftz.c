/*
 * ftz.c - flush-to-zero and denormals-are-zero (see ftz.h): the x86 MXCSR
 * bits; elsewhere nothing, as the compiler's defaults already apply.
 */
#include "cpu/ftz.h"

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#define GF_X86 1
#endif

unsigned gf_ftz_enter(void)
{
#if GF_X86
    unsigned saved = _mm_getcsr();
    _mm_setcsr(saved | 0x8040u); /* FTZ (bit 15) | DAZ (bit 6) */
    return saved;
#else
    return 0;
#endif
}

void gf_ftz_leave(unsigned saved)
{
#if GF_X86
    _mm_setcsr(saved);
#else
    (void)saved;
#endif
}
