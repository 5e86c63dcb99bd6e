/*
 * fdl_graph.c - the delay-line engine's block graph (fdl_state.h): a host
 * call of one whole block on a block's boundary, outside a crossfade (a live
 * caller's period), replays one CUDA graph captured from the launches such a
 * call makes: the near and far staging, which read the input from mapped
 * host memory, the head, which writes the output there, its event, the next
 * block's tail, and a one-thread tick of the device clock the graph's
 * kernels read their place from. Timed apart on an H100, enqueueing such a
 * call's operations one by one (ten, with a copy each way where the mapped
 * memory is now) was 35 of a 32-frame call's 40 us and most of its tail.
 * The host keeps its own count of the blocks and copies it to the clock
 * after calls that did not replay; a crossfade's end changes the filter
 * and tails the graph holds, so it is captured again and the executable
 * graph updated in place.
 */
#include "cuda/fdl_state.h"
#include "kernels.h"

#include <cuda_runtime_api.h>

static gfir_status fail(gfir_plan *plan, cudaError_t e, const char *what)
{
    return gf_cuda_fail(e, what, plan->detail, sizeof plan->detail);
}

/* The graph a host call of one block replays (fdl_state): captured from
 * the plan's stream, with the kernels reading d_clock. */
static gfir_status capture_block(gfir_plan *plan, fdl_state *st, cudaGraph_t *graph)
{
    const size_t B = st->part;
    const fdl_filter *f = plan->filter->impl;
    const gf_fdl_paths paths = gf_fdl_paths_of(st);
    gf_fdl_clock *c = st->d_clock;
    const gf_fdl_at near = {NULL, &c->parity, &c->newest};
    const gf_fdl_ring none = {NULL, 0, 0, {NULL, NULL, NULL}};
    const cudaStream_t stream = st->stream;
    cudaGraph_t g = NULL;
    cudaError_t e = cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal);
    if (e != cudaSuccess)
        return fail(plan, e, "cudaStreamBeginCapture");
    if (st->trace)
        e = cudaEventRecordWithFlags(st->trace_began, stream, cudaEventRecordExternal);
    if (e == cudaSuccess)
        e = gf_launch_fdl_stage(st->m_in, st->inputs, B, st->d_xw, B, 0, 0, near, stream);
    if (e == cudaSuccess && st->far)
        e = gf_fdl_far_stage_clocked(st->far, st->m_in, B, c, stream);
    if (e == cudaSuccess)
        e = gf_launch_fdl_head(st->d_xw, f->d_head, st->d_tail,
                               st->far ? gf_fdl_far_ring_clocked(st->far, c) : none, paths,
                               st->outputs, B, st->head_len, 0, B, 0, near, st->m_out, stream);
    if (e == cudaSuccess)
        e = cudaEventRecordWithFlags(st->out_ready, stream, cudaEventRecordExternal);
    if (e == cudaSuccess && st->tparts)
        e = gf_launch_fdl_forward(st->d_xw, st->inputs, B, 0, st->d_tw, st->d_x, st->tparts, 0,
                                  near, stream);
    if (e == cudaSuccess && st->tparts)
        e = gf_launch_fdl_mac(st->d_x, f->d_h, paths, st->outputs, B, st->tparts, st->tparts, 0,
                              PER_CHUNK, st->chunks, near, st->d_partial, stream);
    if (e == cudaSuccess && st->tparts)
        e = gf_launch_fdl_inverse(st->d_partial, st->outputs, B, st->chunks, st->d_tw,
                                  st->d_tail, B, stream);
    if (e == cudaSuccess)
        e = gf_launch_fdl_tick(c, B, st->tparts ? st->tparts : 1,
                               st->far ? gf_fdl_far_part(st->far) : 0, stream);
    const cudaError_t ended = cudaStreamEndCapture(stream, &g);
    if (e == cudaSuccess)
        e = ended;
    if (e != cudaSuccess) {
        if (g)
            cudaGraphDestroy(g);
        cudaGetLastError();
        return fail(plan, e, "capturing a block's graph");
    }
    *graph = g;
    return GFIR_OK;
}

/* The block graph (again, after a crossfade changed the filter and tails
 * it holds): the executable graph updated in place where CUDA can. */
gfir_status gf_fdl_graph_make(gfir_plan *plan, fdl_state *st)
{
    cudaGraph_t g = NULL;
    gfir_status s = capture_block(plan, st, &g);
    cudaError_t e = cudaSuccess;
    if (s != GFIR_OK)
        return s;
    if (st->block_graph) {
        cudaGraphExecUpdateResultInfo info;
        if (cudaGraphExecUpdate(st->block_graph, g, &info) != cudaSuccess) {
            cudaGetLastError();
            cudaGraphExecDestroy(st->block_graph);
            st->block_graph = NULL;
        }
    }
    if (!st->block_graph)
        e = cudaGraphInstantiate(&st->block_graph, g, 0);
    if (e == cudaSuccess)
        e = cudaGraphUpload(st->block_graph, st->stream);
    cudaGraphDestroy(g);
    if (e != cudaSuccess) {
        if (st->block_graph)
            cudaGraphExecDestroy(st->block_graph);
        st->block_graph = NULL;
        return fail(plan, e, "instantiating a block's graph");
    }
    st->graph_stale = 0;
    return GFIR_OK;
}

/* One block of input from h_in through the graph, and the host's count of
 * the blocks moved on as run() moves it. */
gfir_status gf_fdl_replay(gfir_plan *plan, fdl_state *st)
{
    const fdl_filter *f = plan->filter->impl;
    if (st->clock_stale) {
        gf_fdl_clock c = {(unsigned)st->parity, (unsigned)st->next_slot, 0, 0};
        if (st->far)
            gf_fdl_far_clock(st->far, &c);
        /* from pageable memory: copied before the call returns */
        TRY(cudaMemcpyAsync(st->d_clock, &c, sizeof c, cudaMemcpyHostToDevice, st->stream));
        st->clock_stale = 0;
    }
    TRY(cudaGraphLaunch(st->block_graph, st->stream));
    if (st->tparts)
        st->next_slot = st->next_slot + 1 == st->tparts ? 0 : st->next_slot + 1;
    st->parity ^= 1;
    if (st->far)
        TRY(gf_fdl_far_advance(st->far, st->part, f->d_far, NULL, st->stream));
    return GFIR_OK;
}

/* Whether this call replays the block graph: a whole block of input on a
 * block's boundary, outside a crossfade, with a graph to replay. */
int gf_fdl_replays(gfir_plan *plan, fdl_state *st, const float *in, size_t n)
{
    if (!in || n != st->part || st->pos != 0 || plan->incoming || st->graph_off)
        return 0;
    if ((st->graph_stale || !st->block_graph) && gf_fdl_graph_make(plan, st) != GFIR_OK) {
        st->graph_off = 1; /* the launches one by one, as before graphs */
        return 0;
    }
    return 1;
}
