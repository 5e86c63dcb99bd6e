/*
 * backend.h - the private interface every backend fills (PortAudio's host-API
 * table, libsamplerate's converters). Not installed.
 */
#ifndef GF_CORE_BACKEND_H
#define GF_CORE_BACKEND_H

#include "gfir.h"

#include <stddef.h>

typedef struct gf_backend_ops {
    const char *name;
    gfir_backend id;
    /* 1 when built and a device is usable now. */
    int (*available)(void);
    /* The kernel AUTO resolves to for this plan's shape, or a status < 0
     * when a named kernel cannot serve it (GFIR_ERR_UNSUPPORTED). */
    gfir_status (*choose_kernel)(const gfir_plan *plan, gfir_kernel requested,
                                 gfir_kernel *chosen);
    /* Allocates plan->impl; plan->kernel, ntaps, block_frames are set. */
    gfir_status (*create)(gfir_plan *plan, const float *taps);
    /* Filters n <= plan->block_frames interleaved frames; in may be NULL for
     * silence; in == out allowed. Allocation-free. */
    gfir_status (*execute)(gfir_plan *plan, const float *in, float *out, size_t n);
    /* Clears the history; a status < 0 when the device fails. */
    gfir_status (*reset)(gfir_plan *plan);
    void (*destroy)(gfir_plan *plan);
} gf_backend_ops;

/* Filled by each backend's file. */
extern const gf_backend_ops gf_cpu_backend;
#ifdef GFIR_HAVE_CUDA
extern const gf_backend_ops gf_cuda_backend;
#endif

#endif
