/*
 * why.h - the library's one way to record why a call failed (why.c): a
 * plan's sentence with gf_fail, any other buffer's with gf_detail.
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

/* Records a sentence for gfir_plan_error_detail() and returns status, so a
 * backend can write: return gf_fail(plan, GFIR_ERR_DEVICE, "cudaMalloc: %s", s); */
gfir_status gf_fail(gfir_plan *plan, gfir_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* The calling thread's sentence on its last failed create. */
char *gf_thread_detail(void);

#endif
