/*
 * fdl_state.h - the delay-line engine's state and filters, shared by its
 * host calls (fdl.c), its calls on device memory (fdl_device.c) and its
 * table (fdl_engine.c).
 */
#ifndef GF_CUDA_FDL_STATE_H
#define GF_CUDA_FDL_STATE_H

#include "core/plan.h"
#include "cuda/fdl_far.h"
#include "cuda_status.h"
#include "fdl/fdl.h"

#include <cuda_runtime_api.h>

/* Partitions per multiply-accumulate chunk: enough work per thread to hide
 * the loads' latency, enough chunks to fill the GPU when outputs are few. A
 * 480,000-tap filter at B = 64 has 7,499 partitions: 118 chunks per output. */
#define PER_CHUNK 64

typedef struct fdl_state {
    size_t part, head_len, tparts, chunks;
    size_t near_taps;               /* the taps of the head and the B-partitions */
    gf_fdl_far *far;                /* the rest, when far partitions pay (fdl_far.h) */
    unsigned inputs, outputs, sets;
    size_t npaths;
    cudaStream_t stream;
    cudaEvent_t out_ready;
    cudaEvent_t caller;             /* device calls: the caller's stream so far */
    float *h_in, *h_out;            /* pinned: block_frames x inputs, x outputs */
    float *m_in, *m_out;            /* the same, mapped: where the block graph reads and writes */
    float *d_in, *d_out;
    float *d_xw, *d_tail;
    float *d_tail_new, *d_out_new;  /* the incoming filter's, during a crossfade */
    float2 *d_x, *d_partial, *d_tw;
    unsigned *d_out_start, *d_path_in, *d_path_set;
    float *d_path_gain;
    size_t pos;                     /* frames of the current block so far */
    size_t next_slot;               /* where the next window's spectrum goes */
    int parity;                     /* which half of xw is the current block */
    /* A host call of one whole block (a live caller's period) replays one
     * CUDA graph (fdl_graph.c): its copies, kernels and tail work in one
     * launch instead of ten, whose enqueueing was most of such a call's time
     * and its tail. Its kernels read where the blocks stand from d_clock. */
    gf_fdl_clock *d_clock;
    cudaGraphExec_t block_graph;
    int graph_stale;                /* pointers it holds have changed: capture again */
    int graph_off;                  /* capture failed: the launches one by one */
    int clock_stale;                /* calls without the graph moved the blocks */
    /* The call trace (core/trace.h, fdl_trace.c): with it on, out_ready
     * keeps time and the graph records trace_began first; the host's
     * stamps: launch entered, input staged, graph launched, output seen. */
    int trace, traced;
    cudaEvent_t trace_began;
    double trace_t[4];
} fdl_state;

/* A prepared filter; its release waits for the event recorded on the
 * plan's stream when it leaves the plan. */
typedef struct fdl_filter {
    int device;
    cudaEvent_t retired;
    float *d_head;                  /* sets x B: each tap set's first B taps */
    float2 *d_h;                    /* sets x tparts x B: the partitions' spectra */
    float2 *d_far;                  /* the far partitions' spectra (fdl_far.h), or NULL */
    cudaEvent_t retired_far;        /* recorded after the far work that reads them */
} fdl_filter;

#define TRY(call) GF_CUDA_TRY(call, plan->detail, sizeof plan->detail)

/* Zeros in every buffer that carries history, queued on the plan's stream. */
gfir_status gf_fdl_clear(gfir_plan *plan, fdl_state *st);
/* The call's n frames, interleaved in d_in already (or silence), through
 * the blocks into d_out, then into the pinned buffer (io NULL) or the
 * caller's buffer less its first `skip` frames; out_ready marks it. */
gfir_status gf_fdl_run(gfir_plan *plan, fdl_state *st, int silence, const gf_device_io *io,
                       size_t n, size_t skip);
/* The paths on the device, as the kernels take them. */
static inline gf_fdl_paths gf_fdl_paths_of(const fdl_state *st)
{
    const gf_fdl_paths paths = {st->d_out_start, st->d_path_in, st->d_path_set,
                                st->d_path_gain};
    return paths;
}

/* fdl_graph.c: the block graph. gf_fdl_graph_make captures it (again);
 * gf_fdl_replays says whether a host call of n frames replays it (making it
 * first where it is stale), gf_fdl_replay replays it with h_in filled. */
gfir_status gf_fdl_graph_make(gfir_plan *plan, fdl_state *st);
int gf_fdl_replays(gfir_plan *plan, fdl_state *st, const float *in, size_t n);
gfir_status gf_fdl_replay(gfir_plan *plan, fdl_state *st);

/* fdl_trace.c: the call trace's clock, and its engine entries (inside the
 * device guard). */
double gf_fdl_now_s(void);
gfir_status gf_fdl_trace_start(gfir_plan *plan);
gfir_status gf_fdl_trace_last(const gfir_plan *plan, struct gf_call_trace *out);

/* fdl.c: the engine's host calls (core/engine.h's contracts), each called
 * inside the device guard by fdl_engine.c; prepare, the filters' release
 * and destroy enter it themselves. */
gfir_status gf_fdl_create(gfir_plan *plan);
gfir_status gf_fdl_start(gfir_plan *plan);
gfir_status gf_fdl_prepare(const gfir_plan *plan, const float *taps, gfir_filter *out,
                           char *why, size_t why_len);
gfir_status gf_fdl_fade_begin(gfir_plan *plan, fdl_state *st);
void gf_fdl_fade_end(gfir_plan *plan);
gfir_status gf_fdl_execute(gfir_plan *plan, const float *in, float *out, size_t n);
/* gf_fdl_execute in its two halves (core/engine.h's launch and finish):
 * the input staged and the call's work queued; the spin until out_ready and
 * the output handed out. */
gfir_status gf_fdl_launch(gfir_plan *plan, const float *in, size_t n);
gfir_status gf_fdl_finish(gfir_plan *plan, float *out, size_t n);
gfir_status gf_fdl_reset(gfir_plan *plan);
void gf_fdl_destroy(gfir_plan *plan);

/* fdl_device.c: the engine's device calls (core/engine.h), inside its guard. */
gfir_status gf_fdl_execute_device(gfir_plan *plan, fdl_state *st, const gf_device_io *io,
                                  size_t n);
gfir_status gf_fdl_convolve_device(gfir_plan *plan, fdl_state *st, const gf_device_io *io,
                                   size_t frames, size_t start, size_t length);
gfir_status gf_fdl_set_taps_device(gfir_plan *plan, fdl_state *st, const float *taps,
                                   cudaStream_t stream);

#endif
