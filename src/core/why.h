/*
 * why.h - recording why a call failed (why.c); gf_fail, for a plan's
 * sentence, is core/plan.h's.
 */
#ifndef GF_CORE_WHY_H
#define GF_CORE_WHY_H

#include "gfir.h"

#include <stddef.h>

/* Writes the sentence into why (why_len bytes; nothing when NULL) and
 * returns status. Declared for CUDA code in kernels/cuda_status.h too. */
gfir_status gf_detail(char *why, size_t why_len, gfir_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* The calling thread's sentence on its last failed create. */
char *gf_thread_detail(void);

#endif
