/*
 * fdl_trace.c - the delay-line engine's call trace (core/trace.h): with it
 * on, out_ready keeps time and the block graph records trace_began before
 * its first kernel, so a replayed block's device time is the interval
 * between the two; the host's stamps (fdl.c's launch and finish) split the
 * rest into staging, enqueueing and waiting. Only replayed blocks, a live
 * caller's whole periods, are traced.
 */
#include "core/trace.h"
#include "cuda/fdl_state.h"

#include <cuda_runtime_api.h>
#include <time.h>

double gf_fdl_now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Timing events in place of out_ready, and the graph captured again with
 * trace_began in it. */
gfir_status gf_fdl_trace_start(gfir_plan *plan)
{
    fdl_state *st = plan->impl;
    cudaEvent_t began = NULL, ready = NULL;
    cudaError_t e;
    if (st->trace)
        return GFIR_OK;
    e = cudaStreamSynchronize(st->stream);
    if (e == cudaSuccess)
        e = cudaEventCreate(&began);
    if (e == cudaSuccess)
        e = cudaEventCreate(&ready);
    if (e != cudaSuccess) {
        if (began)
            cudaEventDestroy(began);
        return gf_cuda_fail(e, "the call trace's events", plan->detail, sizeof plan->detail);
    }
    cudaEventDestroy(st->out_ready);
    st->out_ready = ready;
    st->trace_began = began;
    st->trace = 1;
    st->graph_stale = 1;
    return GFIR_OK;
}

gfir_status gf_fdl_trace_last(const gfir_plan *plan, gf_call_trace *out)
{
    const fdl_state *st = plan->impl;
    float ms = -1.0f;
    if (!st->trace || !st->traced)
        return GFIR_ERR_UNSUPPORTED;
    out->staged_s = st->trace_t[1] - st->trace_t[0];
    out->enqueued_s = st->trace_t[2] - st->trace_t[1];
    out->waited_s = st->trace_t[3] - st->trace_t[2];
    if (cudaEventElapsedTime(&ms, st->trace_began, st->out_ready) != cudaSuccess) {
        cudaGetLastError();
        ms = -1.0f;
    }
    out->device_s = ms >= 0.0f ? 1e-3 * (double)ms : -1.0;
    return GFIR_OK;
}
