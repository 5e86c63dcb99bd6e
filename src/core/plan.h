/*
 * plan.h - the plan object shared by the plan layer and the backends.
 * Callers only ever see gfir_plan as an opaque pointer.
 */
#ifndef GF_CORE_PLAN_H
#define GF_CORE_PLAN_H

#include "core/backend.h"

#include <stdarg.h>

#define GF_DETAIL_LEN 256

struct gfir_plan {
    const gf_backend_ops *ops;
    gfir_kernel kernel;          /* resolved, never AUTO */
    unsigned channels;
    unsigned filter_channels;
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
