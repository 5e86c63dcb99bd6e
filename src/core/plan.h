/*
 * plan.h - the plan object shared by the plan layer and the backends.
 * Callers only ever see gfir_plan as an opaque pointer.
 */
#ifndef GF_CORE_PLAN_H
#define GF_CORE_PLAN_H

#include "core/backend.h"

#include <stdarg.h>

#define GF_DETAIL_LEN 256

/* The form an engine takes beyond its kernel, where a kernel has several. */
typedef enum gf_form {
    GF_FORM_PLAIN = 0,           /* the kernel's only form */
    GF_FORM_UNIFORM = 1,         /* CPU FFT: uniform partitions of `partition` frames,
                                    which is also its latency */
    GF_FORM_NONUNIFORM = 2,      /* CPU FFT: partitions that grow, latency 0 */
    GF_FORM_FDL = 3              /* CUDA FFT for small calls: a direct head of `partition`
                                    taps and a frequency-domain delay line, latency 0 */
} gf_form;

struct gf_route;

struct gfir_plan {
    const gf_backend_ops *ops;
    gfir_kernel kernel;          /* resolved, never AUTO */
    gf_form form;                /* set by the policy with the kernel */
    size_t partition;            /* GF_FORM_UNIFORM: frames per partition */
    unsigned inputs, outputs;    /* the caller's interleaved channels in and out */
    unsigned channels;           /* the engine's: inputs, or one per path when routed */
    unsigned filter_channels;    /* the engine's tap sets: 1 or channels */
    struct gf_route *route;      /* routed plans (core/route.h), else NULL */
    size_t ntaps;
    size_t block_frames;         /* largest block handed to ops->execute */
    size_t latency_frames;       /* set by the backend's create */
    size_t max_latency_frames;   /* the caller's budget (gfir_config), GFIR_LATENCY_ANY: none */
    unsigned threads;
    int device;
    void *impl;                  /* the backend's own state */
    char detail[GF_DETAIL_LEN];
};

/* Records a sentence for gfir_plan_error_detail() and returns status, so a
 * backend can write: return gf_fail(plan, GFIR_ERR_DEVICE, "cudaMalloc: %s", s); */
gfir_status gf_fail(gfir_plan *plan, gfir_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#endif
