/*
 * plan.h - the plan object shared by the plan layer and the backends.
 * Callers only ever see gfir_plan as an opaque pointer.
 */
#ifndef GF_CORE_PLAN_H
#define GF_CORE_PLAN_H

#include "core/engine.h"
#include "core/why.h"

#include <stdarg.h>
#include <stdatomic.h>

#define GF_DETAIL_LEN 256
/* max_block_frames' default (gfir.h). */
#define GF_DEFAULT_BLOCK_FRAMES 4096

struct gf_route;

/*
 * A filter in an engine's own form (gfir.h's gfir_filter): what the
 * backend's prepare made from the engine's tap sets. It needs no plan to be
 * released, so a caller may destroy it after its plan.
 */
struct gfir_filter {
    void *impl;                     /* the engine's prepared form */
    void (*release)(void *impl);    /* frees impl (waiting for a device that may still read it) */
    unsigned long long plan_id;     /* the plan it was made for (gfir_plan.id) */
    atomic_int held;                /* 1 from its swap until gfir_plan_retired hands it back */
    struct gfir_filter *next;       /* on its plan's retired list */
};

_Static_assert(ATOMIC_POINTER_LOCK_FREE == 2 && ATOMIC_INT_LOCK_FREE == 2,
               "swap and the retired list must be lock-free");

struct gfir_plan {
    const gf_engine *engine;     /* set once by the policy */
    gfir_kernel kernel;          /* resolved, never AUTO */
    size_t partition;            /* the engine's partition in frames, where it has one
                                    (uniform FFT, delay line), else 0 */
    unsigned inputs, outputs;    /* the caller's interleaved channels in and out */
    unsigned channels;           /* the engine's: inputs, or one per path when routed */
    unsigned filter_channels;    /* the engine's tap sets: 1, channels, or any count for
                                    an engine that takes paths */
    struct gf_route *route;      /* routed plans (core/route.h), else NULL */
    size_t ntaps;
    size_t block_frames;         /* largest block handed to engine->execute */
    size_t latency_frames;       /* the engine's latency(), set at create */
    size_t max_latency_frames;   /* the caller's budget (gfir_config), GFIR_LATENCY_ANY: none */
    size_t expected_frames;      /* the frames the caller expects to filter (gfir_config), 0:
                                    unknown */
    unsigned threads;
    int device;
    void *impl;                  /* the backend's own state */
    char detail[GF_DETAIL_LEN];
    /* Filters (core/swap.c). Execute runs `filter`; after a swap, `incoming`
     * too, and the output is their crossfade until fade_pos reaches
     * fade_len, when incoming becomes the filter and the old one goes to
     * `retired`. During an engine's execute with incoming set, the core
     * guarantees fade_begun and that the call ends within the fade, and
     * within the wait before it. */
    unsigned long long id;       /* tells plans apart for gfir_plan_swap */
    gfir_filter *filter;
    gfir_filter *incoming;
    size_t fade_len, fade_pos;   /* frames of output */
    int fade_begun;              /* the engine's fade_begin has run */
    /* Frames of output from the swap to the fade's first, as fade_begin
     * set them (0 for most engines: the call after the swap), and those of
     * them still to run: the old filter's output alone, while the engine
     * makes the incoming one's. */
    size_t fade_delay, fade_wait;
    _Atomic(gfir_filter *) retired;  /* a stack: pushed by this plan's thread, popped by any */
};


/* gfir_plan_create's work for one plan on cfg->device, cfg read and checked
 * (gf_config_read, gf_config_check; create.c): *out NULL on failure and
 * gf_thread_detail() saying why. */
gfir_status gf_plan_create_one(gfir_plan **out, const float *taps, size_t ntaps,
                               const gfir_config *cfg);

/* w[i] = gfir_crossfade_weight, as a float, at frame fade_pos + offset + i of the
 * plan's fade: for an engine whose call holds n frames from offset on. */
void gf_fade_weights(const gfir_plan *plan, size_t offset, size_t n, float *w);

#endif
