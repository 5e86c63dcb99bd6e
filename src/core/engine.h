/*
 * engine.h - the private interface every engine fills (FFTW's solvers,
 * libsamplerate's converters): one table per engine, one file per engine.
 * The policy (core/policy.c) walks the registered engines (registry.c),
 * asks each whether it applies to the plan's shape and what it costs, and
 * sets plan->engine once; from then on the plan layer calls that table and
 * nothing else. Adding an engine is its file and one line in registry.c.
 * Not installed.
 */
#ifndef GF_CORE_ENGINE_H
#define GF_CORE_ENGINE_H

#include "gfir.h"

#include <stddef.h>

struct gf_call_trace; /* core/trace.h */

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

/* What engines of one backend share: the device they run on. */
typedef struct gf_backend {
    const char *name;           /* "cpu", "cuda" */
    gfir_backend id;
    /* 1 when built and a device is usable now; absent is not an error. */
    int (*available)(void);
    /* Devices usable now (0 when none); NULL for the host, which is one. */
    int (*devices)(void);
    /* Starts the device on a thread of its own and returns at once
     * (gfir_backend_prepare); NULL for the host, which has nothing to start. */
    gfir_status (*prepare)(int device);
    /* Seconds this process would still spend starting the device before a
     * first plan runs on it (0 once started); NULL for the host, which has
     * nothing to start and is what a device's start-up is weighed against. */
    double (*startup_s)(int device);
    /* For AUTO: below this many samples per call (frames x channels) a
     * round trip to the device costs more than it saves (0: no floor). */
    size_t min_call_samples;
} gf_backend;

typedef struct gf_engine {
    const char *name;           /* "cpu-direct", "cuda-fdl", ... */
    const gf_backend *backend;
    /* Whether the engine runs the requested kernel (AUTO: whichever the
     * engine would use) for the plan's shape and latency budget: 1, and
     * plan->kernel and plan->partition set; 0 when it does not serve that
     * request (nothing written); a negative gfir_status with plan->detail
     * saying why when it serves the kernel but not this shape. For AUTO an
     * engine applies only where it beats the backend's plainer engines by
     * its own measurements (a break-even in the backend's tuning file). */
    int (*applies)(gfir_plan *plan, gfir_kernel requested);
    /* The latency it adds to a plan it applies to, in frames. */
    size_t (*latency)(const gfir_plan *plan);
    /* Seconds of compute for `frames` frames of the plan, by the backend's
     * model; NULL where the backend has none (its engines then apply to
     * disjoint shapes, so the policy never has to weigh them). */
    double (*cost_s)(const gfir_plan *plan, double frames);
    /* 1 for a backend's plainest engine, which applies to AUTO everywhere:
     * AUTO takes it only where no other engine of its backend applies,
     * since theirs is a measured win over it (their break-even), which
     * outranks the cost model where the two disagree. */
    int fallback;
    /* 1 when it runs a routed plan's paths itself (plan->route); otherwise
     * the plan layer runs them as channels. */
    int takes_paths;
    /* Phase one of a plan: allocates plan->impl for the shape (ntaps,
     * channels, block_frames, kernel, partition), with no filter yet. */
    gfir_status (*create)(gfir_plan *plan);
    /* Phase two, after the core made plan->filter with prepare: the engine
     * takes its first filter (and warms up where it must). */
    gfir_status (*start)(gfir_plan *plan);
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
     * next output frame on both filters' outputs exist. An engine whose
     * share would not fit one call's deadline may instead set
     * plan->fade_delay and plan->fade_wait to the frames it needs to make
     * the incoming filter's output in its calls' own time: the core then
     * runs that many frames with plan->incoming set and fade_wait above 0
     * (the old filter's output alone, no block crossing the wait's end)
     * before the fade's first frame. Allocation-free. */
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
    /* Optional, NULL for neither: execute in two halves, for a plan split
     * over several devices (core/split.c), which launches every device's
     * share before it waits for any, so the devices run at once. launch
     * queues the call's work (input copied off `in` before it returns) and
     * returns without waiting for the device; finish waits for it and
     * writes the n frames to out. Only for calls without a fade; the plan
     * is called for nothing else in between. Allocation-free. */
    gfir_status (*launch)(gfir_plan *plan, const float *in, size_t n);
    gfir_status (*finish)(gfir_plan *plan, float *out, size_t n);
    /* Device memory, NULL for an engine that has none: execute_device as
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
    /* Optional, NULL where the engine keeps no trace (core/trace.h):
     * trace_start turns it on for the calls after it; trace_last gives the
     * last call's, GFIR_ERR_UNSUPPORTED where that call kept none. */
    gfir_status (*trace_start)(gfir_plan *plan);
    gfir_status (*trace_last)(const gfir_plan *plan, struct gf_call_trace *out);
    /* Clears the history; a status < 0 when the device fails. */
    gfir_status (*reset)(gfir_plan *plan);
    /* Frees plan->impl (NULL after a failed create is allowed). */
    void (*destroy)(gfir_plan *plan);
} gf_engine;

#endif
