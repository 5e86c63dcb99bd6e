/*
 * fdl.c - the CUDA delay-line engine's state and host calls (the
 * "cuda-fdl" engine, fdl_engine.c), on the kernels of kernels/fdl/fdl.h:
 * long filters at small calls, zero latency, and a cost per call that does
 * not grow with the filter's history.
 *
 * The filter's first B taps (B = plan->partition: the largest power of two
 * within the calls, 16 to 2048) run as a direct head inside each call. The
 * rest is cut into uniform partitions of B taps whose input spectra stay on
 * the device in a frequency-domain delay line. Paths are native: each input
 * is transformed once, each output summed in the frequency domain; a plan
 * without paths uses channel c into output c.
 *
 * A call of n frames is cut at block boundaries (every B frames since the
 * plan began, whatever the chunking). Each piece is staged into the inputs'
 * current block and its outputs computed (head plus the block's tail). At a
 * boundary the next block's tail is made: forward transforms of the
 * completed windows, the multiply-accumulate, the inverse transforms. When
 * the call ends on a boundary, as a live caller's periods do, the output copy
 * is queued before that work, so the call returns as soon as its own output
 * is back and the tail is ready long before the next period arrives.
 *
 * Beyond its first 2P taps a long filter runs in far partitions of P
 * (fdl_far.c), whose work has a whole block of P frames to finish, off the
 * calls' clock; a host call of one whole block replays a CUDA graph
 * (fdl_graph.c).
 *
 * A filter (gfir_filter.impl) is an fdl_filter: the head taps and the
 * partitions' spectra. During a crossfade the incoming filter has its own
 * tail and head output, mixed into the call's output piece by piece; the
 * forward transforms are the inputs' and run once. A swap's first call
 * makes the incoming filter's tail of the current block from the delay
 * line, which still holds the windows the plan's tail was made from.
 */
#include "core/route.h"
#include "cuda/guard.h"
#include "cuda/fdl_state.h"
#include "cuda/startup.h"
#include "cuda/tuning.h"
#include "cuda_status.h"
#include "fdl/fdl.h"
#include "kernels.h"

#include <cuda_runtime_api.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The library's CUDA error convention (cuda_status.h), into the plan's detail. */
static gfir_status fail(gfir_plan *plan, cudaError_t e, const char *what)
{
    return gf_cuda_fail(e, what, plan->detail, sizeof plan->detail);
}

void gf_fdl_destroy(gfir_plan *plan)
{
    fdl_state *st = plan->impl;
    int theirs;
    if (!st)
        return;
    (void)gf_cuda_enter(plan->device, &theirs);
    if (st->stream)
        cudaStreamSynchronize(st->stream);
    gf_fdl_far_destroy(st->far);
    if (st->block_graph)
        cudaGraphExecDestroy(st->block_graph);
    cudaFree(st->d_clock);
    cudaFreeHost(st->h_in);
    cudaFreeHost(st->h_out);
    void *dev[] = {st->d_in,       st->d_out,     st->d_xw,       st->d_tail,
                   st->d_tail_new, st->d_out_new, st->d_x,        st->d_partial,
                   st->d_tw,       st->d_out_start, st->d_path_in, st->d_path_set,
                   st->d_path_gain};
    for (size_t i = 0; i < sizeof dev / sizeof dev[0]; i++)
        cudaFree(dev[i]);
    if (st->out_ready)
        cudaEventDestroy(st->out_ready);
    if (st->trace_began)
        cudaEventDestroy(st->trace_began);
    if (st->caller)
        cudaEventDestroy(st->caller);
    if (st->stream)
        cudaStreamDestroy(st->stream);
    cudaGetLastError();
    gf_cuda_leave(theirs);
    free(st);
    plan->impl = NULL;
}

static gfir_status upload(gfir_plan *plan, void **dst, const void *src, size_t bytes,
                          cudaStream_t stream)
{
    TRY(gf_cuda_malloc(dst, bytes ? bytes : 4));
    if (bytes)
        TRY(cudaMemcpyAsync(*dst, src, bytes, cudaMemcpyHostToDevice, stream));
    return GFIR_OK;
}

/* Waits for what create queued on the engine's stream. */
static gfir_status finish_stream(gfir_plan *plan, fdl_state *st, const char *what)
{
    cudaError_t e = cudaStreamSynchronize(st->stream);
    return e == cudaSuccess ? GFIR_OK : fail(plan, e, what);
}

/* The paths in output order (a stable counting sort), on the device. Without
 * a route: channel c through tap set c (or 0) into output c, gain 1. */
static gfir_status upload_paths(gfir_plan *plan, fdl_state *st)
{
    const gf_route *r = plan->route;
    const size_t np = r ? r->npaths : plan->inputs;
    unsigned *start = calloc(st->outputs + 1, sizeof *start);
    unsigned *in = malloc(np * sizeof *in), *set = malloc(np * sizeof *set);
    float *gain = malloc(np * sizeof *gain);
    gfir_status s = GFIR_ERR_NOMEM;
    if (!start || !in || !set || !gain) {
        gf_fail(plan, s, "out of host memory for %zu paths", np);
        goto done;
    }
    for (size_t p = 0; p < np; p++)
        start[(r ? r->paths[p].output : p) + 1]++;
    for (unsigned o = 0; o < st->outputs; o++)
        start[o + 1] += start[o];
    {
        unsigned *fill = calloc(st->outputs, sizeof *fill);
        if (!fill) {
            gf_fail(plan, s, "out of host memory for %zu paths", np);
            goto done;
        }
        for (size_t p = 0; p < np; p++) {
            const unsigned o = r ? r->paths[p].output : (unsigned)p;
            const unsigned at = start[o] + fill[o]++;
            in[at] = r ? r->paths[p].input : (unsigned)p;
            set[at] = r ? r->paths[p].taps : (plan->filter_channels == 1 ? 0 : (unsigned)p);
            gain[at] = r ? r->paths[p].gain : 1.0f;
        }
        free(fill);
    }
    st->npaths = np;
    s = upload(plan, (void **)&st->d_out_start, start, (st->outputs + 1) * sizeof *start,
               st->stream);
    if (s == GFIR_OK)
        s = upload(plan, (void **)&st->d_path_in, in, np * sizeof *in, st->stream);
    if (s == GFIR_OK)
        s = upload(plan, (void **)&st->d_path_set, set, np * sizeof *set, st->stream);
    if (s == GFIR_OK)
        s = upload(plan, (void **)&st->d_path_gain, gain, np * sizeof *gain, st->stream);
    /* the copies read these host arrays: wait before freeing them */
    if (s == GFIR_OK)
        s = finish_stream(plan, st, "cudaStreamSynchronize (paths)");
done:
    free(start);
    free(in);
    free(set);
    free(gain);
    return s;
}

/* The twiddles the partitions' transforms share, computed in double. */
static gfir_status make_twiddles(gfir_plan *plan, fdl_state *st)
{
    TRY(gf_cuda_malloc((void **)&st->d_tw, st->part * sizeof *st->d_tw));
    TRY(gf_fdl_twiddles(st->d_tw, st->part));
    return GFIR_OK;
}

static void release_filter(void *impl)
{
    fdl_filter *f = impl;
    int theirs;
    if (!f)
        return;
    (void)gf_cuda_enter(f->device, &theirs);
    if (f->retired) {
        cudaEventSynchronize(f->retired);
        cudaEventDestroy(f->retired);
    }
    if (f->retired_far) {
        cudaEventSynchronize(f->retired_far);
        cudaEventDestroy(f->retired_far);
    }
    cudaFree(f->d_head);
    cudaFree(f->d_h);
    cudaFree(f->d_far);
    cudaGetLastError();
    gf_cuda_leave(theirs);
    free(f);
}

/* The head taps and the partitions' spectra, on `stream`, waited for. */
static gfir_status fill_filter(const gfir_plan *plan, const fdl_state *st, const float *taps,
                               fdl_filter *f, cudaStream_t stream, char *why, size_t why_len)
{
    const size_t B = st->part, sets = st->sets, ntaps = plan->ntaps;
    float *head = calloc(sets * B, sizeof *head), *d_taps = NULL;
    cudaError_t e = head ? cudaSuccess : cudaErrorMemoryAllocation;
    const char *what = "host memory for the head taps";
    for (size_t set = 0; head && set < sets; set++)
        memcpy(head + set * B, taps + set * ntaps, st->head_len * sizeof *head);
    if (e == cudaSuccess) {
        what = "the head taps";
        e = gf_cuda_malloc((void **)&f->d_head, sets * B * sizeof *head);
    }
    if (e == cudaSuccess)
        e = cudaMemcpyAsync(f->d_head, head, sets * B * sizeof *head, cudaMemcpyHostToDevice,
                            stream);
    if (e == cudaSuccess && st->tparts) {
        what = "the filter's partition spectra";
        e = gf_cuda_malloc((void **)&d_taps, sets * ntaps * sizeof *taps);
        if (e == cudaSuccess)
            e = cudaMemcpyAsync(d_taps, taps, sets * ntaps * sizeof *taps,
                                cudaMemcpyHostToDevice, stream);
        if (e == cudaSuccess)
            e = gf_cuda_malloc((void **)&f->d_h, sets * st->tparts * B * sizeof(float2));
        if (e == cudaSuccess)
            e = gf_launch_fdl_spectra(d_taps, ntaps, 0, st->near_taps, (unsigned)sets, B,
                                      st->tparts, st->d_tw, f->d_h, stream);
        if (e == cudaSuccess && st->far) {
            what = "the filter's far partition spectra";
            e = gf_cuda_malloc((void **)&f->d_far, gf_fdl_far_spectra_bytes(st->far));
            if (e == cudaSuccess)
                e = gf_fdl_far_spectra(st->far, d_taps, f->d_far, stream);
        }
    }
    /* the copies read head and taps until the stream gets there */
    const cudaError_t waited = cudaStreamSynchronize(stream);
    cudaFree(d_taps);
    free(head);
    if (e == cudaSuccess && waited != cudaSuccess) {
        e = waited;
        what = "cudaStreamSynchronize (filter)";
    }
    return e == cudaSuccess ? GFIR_OK : gf_cuda_fail(e, what, why, why_len);
}

gfir_status gf_fdl_prepare(const gfir_plan *plan, const float *taps, gfir_filter *out,
                           char *why, size_t why_len)
{
    const fdl_state *st = plan->impl;
    cudaStream_t stream = NULL;
    fdl_filter *f;
    int theirs;
    cudaError_t e;
    gfir_status s;
    f = calloc(1, sizeof *f);
    if (!f)
        return gf_detail(why, why_len, GFIR_ERR_NOMEM, "out of host memory");
    f->device = plan->device;
    e = gf_cuda_enter(plan->device, &theirs);
    if (e == cudaSuccess)
        e = cudaEventCreateWithFlags(&f->retired, cudaEventDisableTiming);
    if (e == cudaSuccess && st->far)
        e = cudaEventCreateWithFlags(&f->retired_far, cudaEventDisableTiming);
    if (e == cudaSuccess)
        e = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
    s = e == cudaSuccess ? fill_filter(plan, st, taps, f, stream, why, why_len)
                         : gf_cuda_fail(e, "setting up a filter's device and stream", why,
                                        why_len);
    if (stream)
        cudaStreamDestroy(stream);
    gf_cuda_leave(theirs);
    if (s != GFIR_OK) {
        release_filter(f);
        return s;
    }
    out->impl = f;
    out->release = release_filter;
    return GFIR_OK;
}

static gfir_status alloc_state(gfir_plan *plan, fdl_state *st)
{
    const size_t B = st->part, block = plan->block_frames;
    /* mapped: the block graph's kernels read the input and write the
     * output across the bus themselves, with no copies in between */
    TRY(cudaHostAlloc((void **)&st->h_in, block * st->inputs * sizeof(float),
                      cudaHostAllocMapped));
    TRY(cudaHostAlloc((void **)&st->h_out, block * st->outputs * sizeof(float),
                      cudaHostAllocMapped));
    TRY(cudaHostGetDevicePointer((void **)&st->m_in, st->h_in, 0));
    TRY(cudaHostGetDevicePointer((void **)&st->m_out, st->h_out, 0));
    TRY(gf_cuda_malloc((void **)&st->d_in, block * st->inputs * sizeof(float)));
    TRY(gf_cuda_malloc((void **)&st->d_out, block * st->outputs * sizeof(float)));
    TRY(gf_cuda_malloc((void **)&st->d_xw, st->inputs * 2 * B * sizeof(float)));
    TRY(gf_cuda_malloc((void **)&st->d_tail, st->outputs * B * sizeof(float)));
    TRY(gf_cuda_malloc((void **)&st->d_tail_new, st->outputs * B * sizeof(float)));
    TRY(gf_cuda_malloc((void **)&st->d_out_new, block * st->outputs * sizeof(float)));
    if (st->tparts) {
        TRY(gf_cuda_malloc((void **)&st->d_x, st->inputs * st->tparts * B * sizeof(float2)));
        TRY(gf_cuda_malloc((void **)&st->d_partial, st->outputs * st->chunks * B * sizeof(float2)));
    }
    return GFIR_OK;
}

gfir_status gf_fdl_clear(gfir_plan *plan, fdl_state *st)
{
    const size_t B = st->part;
    TRY(cudaMemsetAsync(st->d_xw, 0, st->inputs * 2 * B * sizeof(float), st->stream));
    TRY(cudaMemsetAsync(st->d_tail, 0, st->outputs * B * sizeof(float), st->stream));
    if (st->tparts)
        TRY(cudaMemsetAsync(st->d_x, 0, st->inputs * st->tparts * B * sizeof(float2),
                            st->stream));
    if (st->far)
        TRY(gf_fdl_far_clear(st->far, st->stream));
    st->clock_stale = 1;
    st->pos = 0;
    st->next_slot = 0;
    st->parity = 0;
    return GFIR_OK;
}

gfir_status gf_fdl_reset(gfir_plan *plan)
{
    fdl_state *st = plan->impl;
    gfir_status s = gf_fdl_clear(plan, st);
    if (s != GFIR_OK)
        return s;
    TRY(cudaStreamSynchronize(st->stream));
    return GFIR_OK;
}

/* One block of silence through every kernel, so the first real call does not
 * pay for CUDA loading the kernels (lazily, on first launch: milliseconds,
 * several periods of a live stream). The reset after it clears its traces. */
static gfir_status warm_up(gfir_plan *plan, fdl_state *st)
{
    const size_t step = plan->block_frames < st->part ? plan->block_frames : st->part;
    const size_t frames = st->far ? GF_FDL_FAR_PART : st->part;
    gfir_status s = GFIR_OK;
    for (size_t done = 0; s == GFIR_OK && done < frames; done += step)
        s = gf_fdl_run(plan, st, 1, NULL, step, 0);
    return s;
}

gfir_status gf_fdl_create(gfir_plan *plan)
{
    fdl_state *st = calloc(1, sizeof *st);
    gfir_status s;
    if (!st)
        return gf_fail(plan, GFIR_ERR_NOMEM, "out of host memory");
    plan->impl = st;
    st->part = plan->partition;
    st->near_taps = gf_fdl_far_near_taps(st->part, plan->ntaps);
    st->head_len = st->near_taps < st->part ? st->near_taps : st->part;
    st->tparts = (st->near_taps + st->part - 1) / st->part - 1;
    st->chunks = (st->tparts + PER_CHUNK - 1) / PER_CHUNK;
    st->inputs = plan->inputs;
    st->outputs = plan->outputs;
    st->sets = plan->filter_channels;
    {
        /* the calls' own work first, ahead of any far partitions' */
        int least = 0, greatest = 0;
        cudaError_t e = cudaDeviceGetStreamPriorityRange(&least, &greatest);
        if (e == cudaSuccess)
            e = cudaStreamCreateWithPriority(&st->stream, cudaStreamNonBlocking, greatest);
        if (e == cudaSuccess)
            e = cudaEventCreateWithFlags(&st->out_ready, cudaEventDisableTiming);
        if (e == cudaSuccess)
            e = cudaEventCreateWithFlags(&st->caller, cudaEventDisableTiming);
        s = e == cudaSuccess ? GFIR_OK : fail(plan, e, "setting up the device and a stream");
    }
    if (s == GFIR_OK)
        s = alloc_state(plan, st);
    if (s == GFIR_OK)
        s = upload_paths(plan, st);
    if (s == GFIR_OK && st->near_taps < plan->ntaps) {
        const cudaError_t e = gf_fdl_far_create(&st->far, plan->ntaps, st->inputs, st->outputs,
                                                st->sets, gf_fdl_paths_of(st));
        if (e != cudaSuccess)
            s = fail(plan, e, "the far partitions");
    }
    if (s == GFIR_OK)
        s = make_twiddles(plan, st);
    return s;
}

/* After the first filter: a warm-up, the history cleared after it, the
 * blocks' clock and the block graph (whose failure only leaves the calls
 * launching one by one). */
gfir_status gf_fdl_start(gfir_plan *plan)
{
    fdl_state *st = plan->impl;
    gfir_status s = warm_up(plan, st);
    if (s == GFIR_OK)
        s = gf_fdl_reset(plan);
    if (s == GFIR_OK) {
        const cudaError_t e = gf_cuda_malloc((void **)&st->d_clock, sizeof *st->d_clock);
        s = e == cudaSuccess ? GFIR_OK : fail(plan, e, "the blocks' clock");
    }
    if (s == GFIR_OK && gf_fdl_graph_make(plan, st) != GFIR_OK) {
        cudaGetLastError();
        st->graph_off = 1;
    }
    if (s == GFIR_OK)
        gf_cuda_mark_started(plan->device);
    return s;
}

/* A tail from the delay line, whose newest window is in slot `newest`,
 * with filter f's spectra, into tail. */
static gfir_status tail_of(gfir_plan *plan, fdl_state *st, gf_fdl_paths paths,
                           const fdl_filter *f, size_t newest, float *tail)
{
    const gf_fdl_at args = {NULL, NULL, NULL};
    TRY(gf_launch_fdl_mac(st->d_x, f->d_h, paths, st->outputs, st->part, st->tparts,
                          st->tparts, newest, PER_CHUNK, st->chunks, args, st->d_partial,
                          st->stream));
    TRY(gf_launch_fdl_inverse(st->d_partial, st->outputs, st->part, st->chunks, st->d_tw, tail,
                              st->part, st->stream));
    return GFIR_OK;
}

/* The next block's tail from the block that just completed (and the
 * incoming filter's, during a crossfade). */
static gfir_status next_tail(gfir_plan *plan, fdl_state *st, gf_fdl_paths paths)
{
    const size_t newest = st->next_slot;
    gfir_status s;
    const gf_fdl_at args = {NULL, NULL, NULL};
    TRY(gf_launch_fdl_forward(st->d_xw, st->inputs, st->part, st->parity, st->d_tw, st->d_x,
                              st->tparts, newest, args, st->stream));
    s = tail_of(plan, st, paths, plan->filter->impl, newest, st->d_tail);
    if (s == GFIR_OK && plan->incoming)
        s = tail_of(plan, st, paths, plan->incoming->impl, newest, st->d_tail_new);
    st->next_slot = newest + 1 == st->tparts ? 0 : newest + 1;
    return s;
}

/* The current block's tail came from the window in the slot before
 * next_slot (zeros before the first boundary, as the plan's tail). */
gfir_status gf_fdl_fade_begin(gfir_plan *plan, fdl_state *st)
{
    if (st->far) {
        const fdl_filter *g = plan->incoming->impl;
        TRY(gf_fdl_far_fade_begin(st->far, g->d_far, st->stream));
    }
    if (!st->tparts) {
        TRY(cudaMemsetAsync(st->d_tail_new, 0, st->outputs * st->part * sizeof(float),
                            st->stream));
        return GFIR_OK;
    }
    return tail_of(plan, st, gf_fdl_paths_of(st), plan->incoming->impl,
                   (st->next_slot + st->tparts - 1) % st->tparts, st->d_tail_new);
}

void gf_fdl_fade_end(gfir_plan *plan)
{
    fdl_state *st = plan->impl;
    fdl_filter *old = plan->filter->impl;
    float *t = st->d_tail;
    st->d_tail = st->d_tail_new;
    st->d_tail_new = t;
    if (cudaEventRecord(old->retired, st->stream) != cudaSuccess) {
        cudaGetLastError();
        cudaStreamSynchronize(st->stream);
    }
    if (st->far && gf_fdl_far_fade_end(st->far, old->retired_far) != cudaSuccess) {
        cudaGetLastError();
        cudaDeviceSynchronize();
    }
    st->graph_stale = 1; /* it holds the outgoing filter and tails */
}

/* The call's output leaves d_out: into the pinned buffer for a host call,
 * into the caller's buffer for a device call (io), less its first `skip`
 * frames; out_ready marks it. */
static gfir_status send_output(gfir_plan *plan, fdl_state *st, const gf_device_io *io, size_t n,
                               size_t skip)
{
    if (io && n > skip)
        TRY(gf_launch_restride(st->d_out + skip * st->outputs, st->outputs, 1, io->out,
                               io->out_stride, io->out_dist, n - skip, st->outputs,
                               st->stream));
    else if (!io)
        TRY(cudaMemcpyAsync(st->h_out, st->d_out, n * st->outputs * sizeof(float),
                            cudaMemcpyDeviceToHost, st->stream));
    TRY(cudaEventRecord(st->out_ready, st->stream));
    return GFIR_OK;
}

gfir_status gf_fdl_run(gfir_plan *plan, fdl_state *st, int silence, const gf_device_io *io,
                       size_t n, size_t skip)
{
    const gf_fdl_paths paths = gf_fdl_paths_of(st);
    const fdl_filter *f = plan->filter->impl;
    const gf_fdl_ring none = {NULL, 0, 0, {NULL, NULL, NULL}};
    const gf_fdl_at args = {NULL, NULL, NULL};
    int sent = 0;
    gfir_status s;
    st->clock_stale = 1;
    for (size_t done = 0; done < n;) {
        const size_t len = n - done < st->part - st->pos ? n - done : st->part - st->pos;
        float *out = st->d_out + done * st->outputs;
        const float *in = silence ? NULL : st->d_in + done * st->inputs;
        const fdl_filter *g = plan->incoming ? plan->incoming->impl : NULL;
        TRY(gf_launch_fdl_stage(in, st->inputs, len, st->d_xw, st->part, st->pos, st->parity,
                                args, st->stream));
        if (st->far)
            TRY(gf_fdl_far_stage(st->far, in, len, st->stream));
        TRY(gf_launch_fdl_head(st->d_xw, f->d_head, st->d_tail,
                               st->far ? gf_fdl_far_ring(st->far, 0) : none, paths,
                               st->outputs, st->part, st->head_len, st->pos, len, st->parity,
                               args, out, st->stream));
        if (g) {
            float *out_new = st->d_out_new + done * st->outputs;
            TRY(gf_launch_fdl_head(st->d_xw, g->d_head, st->d_tail_new,
                                   st->far ? gf_fdl_far_ring(st->far, 1) : none, paths,
                                   st->outputs, st->part, st->head_len, st->pos, len,
                                   st->parity, args, out_new, st->stream));
            TRY(gf_launch_crossfade(out, st->outputs, 1, out_new, st->outputs, 1, len,
                                    st->outputs, plan->fade_pos + done, plan->fade_len,
                                    st->stream));
        }
        st->pos += len;
        done += len;
        /* at a block's end: the call's output first, the tail work after it */
        if (st->pos == st->part && done == n) {
            if ((s = send_output(plan, st, io, n, skip)) != GFIR_OK)
                return s;
            sent = 1;
        }
        if (st->pos == st->part && st->tparts && (s = next_tail(plan, st, paths)) != GFIR_OK)
            return s;
        /* a far block ends only where a near one does: after its tail */
        if (st->far)
            TRY(gf_fdl_far_advance(st->far, len, f->d_far, g ? g->d_far : NULL, st->stream));
        if (st->pos < st->part)
            continue;
        st->parity ^= 1;
        st->pos = 0;
    }
    return sent ? GFIR_OK : send_output(plan, st, io, n, skip);
}

gfir_status gf_fdl_launch(gfir_plan *plan, const float *in, size_t n)
{
    fdl_state *st = plan->impl;
    const double entered = st->trace ? gf_fdl_now_s() : 0.0;
    st->traced = 0;
    if (in)
        memcpy(st->h_in, in, n * st->inputs * sizeof(float));
    if (gf_fdl_replays(plan, st, in, n)) {
        const double staged = st->trace ? gf_fdl_now_s() : 0.0;
        const gfir_status s = gf_fdl_replay(plan, st);
        if (st->trace) {
            const double t[3] = {entered, staged, gf_fdl_now_s()};
            memcpy(st->trace_t, t, sizeof t);
            st->traced = s == GFIR_OK;
        }
        return s;
    }
    if (in)
        TRY(cudaMemcpyAsync(st->d_in, st->h_in, n * st->inputs * sizeof(float),
                            cudaMemcpyHostToDevice, st->stream));
    return gf_fdl_run(plan, st, !in, NULL, n, 0);
}

gfir_status gf_fdl_finish(gfir_plan *plan, float *out, size_t n)
{
    fdl_state *st = plan->impl;
    cudaError_t e;
    /* A spin: the caller waits for this output and nothing else, and a
     * blocking wait's wake-up was a measured part of live calls' tail. */
    while ((e = cudaEventQuery(st->out_ready)) == cudaErrorNotReady)
        ;
    if (st->traced)
        st->trace_t[3] = gf_fdl_now_s();
    TRY(e);
    memcpy(out, st->h_out, n * st->outputs * sizeof(float));
    return GFIR_OK;
}

gfir_status gf_fdl_execute(gfir_plan *plan, const float *in, float *out, size_t n)
{
    const gfir_status s = gf_fdl_launch(plan, in, n);
    return s == GFIR_OK ? gf_fdl_finish(plan, out, n) : s;
}
