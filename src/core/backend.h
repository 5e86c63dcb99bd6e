/*
 * backend.h - the private interface every backend fills (PortAudio's host-API
 * table, libsamplerate's converters). Not installed.
 */
#ifndef GF_CORE_BACKEND_H
#define GF_CORE_BACKEND_H

#include "gfir.h"

#include <stddef.h>

/* One call of gfir_plan_execute_device() or gfir_plan_flush_device(), as a
 * backend gets it: strided device buffers (gfir.h, "Device memory"), checked
 * by the plan layer, and the caller's stream. */
typedef struct gf_device_io {
    const float *in;            /* NULL: silence */
    size_t in_stride, in_dist;
    float *out;
    size_t out_stride, out_dist;
    void *stream;               /* a cudaStream_t */
} gf_device_io;

typedef struct gf_backend_ops {
    const char *name;
    gfir_backend id;
    /* 1 when built and a device is usable now. */
    int (*available)(void);
    /* GFIR_OK when the backend has `kernel` (never AUTO) for this plan's
     * shape, else GFIR_ERR_UNSUPPORTED with plan->detail saying why. The
     * choice among kernels is the policy's (core/policy.c), not the backend's. */
    gfir_status (*has_kernel)(gfir_plan *plan, gfir_kernel kernel);
    /* 1 when the engine the policy chose runs a routed plan's paths itself
     * (plan->route); otherwise the plan layer runs them as channels. */
    int (*takes_paths)(const gfir_plan *plan);
    /* Seconds this process would still spend starting the backend's device
     * before a first plan runs (0 once started, and for the CPU). */
    double (*startup_s)(const gfir_plan *plan);
    /* Allocates plan->impl; the policy has set plan->kernel, form, partition,
     * and the shape (ntaps, block_frames, ...). Makes the first filter from
     * taps with gf_filter_first (core/plan.h), so it takes prepare's path. */
    gfir_status (*create)(gfir_plan *plan, const float *taps);
    /* Prepares the engine's tap sets (filter_channels x ntaps; a routed
     * plan's already expanded unless the engine takes paths) in the engine's
     * own form: sets f->impl and f->release. Runs on any thread, also while
     * another runs the plan, so it reads only what create fixed and writes
     * nothing of the plan's; why (whylen bytes) gets a sentence on failure. */
    gfir_status (*prepare)(const gfir_plan *plan, const float *taps, gfir_filter *f, char *why,
                           size_t whylen);
    /* The first call after a swap, before execute: makes plan->incoming's
     * share of the work the engine holds in flight for plan->filter (output
     * already computed for frames still to be handed out), so that from the
     * next output frame on both filters' outputs exist. Allocation-free. */
    gfir_status (*fade_begin)(gfir_plan *plan);
    /* The crossfade is over (or cut short by reset, convolve_device or
     * set_taps_device, which clear the history): plan->incoming becomes the
     * engine's filter. Called before the core makes it plan->filter; the
     * engine must not touch the old filter's memory after the work queued
     * so far, and makes sure its release waits for that work.
     * Allocation-free. */
    void (*fade_end)(gfir_plan *plan);
    /* Filters n <= plan->block_frames interleaved frames; in may be NULL for
     * silence; in == out allowed. Allocation-free. With plan->incoming set,
     * each output frame i is (1 - w) y_old + w y_new, w from
     * gf_fade_weights(plan, i, ...) (or the same formula on the device). */
    gfir_status (*execute)(gfir_plan *plan, const float *in, float *out, size_t n);
    /* Device memory, NULL for a backend that has none: execute_device as
     * execute, on n <= plan->block_frames frames of io, ordered on io's
     * stream without waiting for the device; convolve_device writes outputs
     * start .. start + length of the whole signal io->in (frames long, no
     * history) and leaves the history cleared; set_taps_device replaces
     * the plan's tap sets with device ones and clears the history, the same
     * way. None is called for a routed plan. */
    gfir_status (*execute_device)(gfir_plan *plan, const gf_device_io *io, size_t n);
    gfir_status (*convolve_device)(gfir_plan *plan, const gf_device_io *io, size_t frames,
                                   size_t start, size_t length);
    gfir_status (*set_taps_device)(gfir_plan *plan, const float *taps, void *stream);
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
