/*
 * lanes.c - the CUDA backend's lanes: each channel's halo on the device and
 * the pipelining of big calls.
 *
 * A block is staged into a planar buffer as [the halo: the last ntaps - 1
 * inputs of the previous block | new samples], so the halo is never sent
 * from the host again. Two such buffers alternate (ping-pong) so staging
 * never reads what it overwrites.
 *
 * A call is cut into sub-blocks that alternate between two lanes, each with
 * its own stream and its own pinned staging and device buffers: while one
 * sub-block computes, the next one's input is copied in and the previous
 * one's output copied out. Sub-block k+1's staging reads the buffer
 * sub-block k staged, so it waits on an event recorded after k's staging.
 *
 * The convolution step between staging and the copy out is the kernel's
 * (gf_cuda_state.step): a direct launcher writing planar rows that a second
 * pass interleaves, or the FFT engine, which writes interleaved frames
 * itself. Both read the same staged buffer, so the lanes, the halo and the
 * pipelining are shared. During a crossfade the step runs twice on that
 * buffer, once per filter, and a mixing pass fades the second output into
 * the first (gf_cuda_convolve).
 */
#include "cuda/cuda_plan.h"
#include "cuda_status.h"

#include <cuda_runtime_api.h>
#include <stdlib.h>
#include <string.h>

/*
 * Calls of at least twice PIPELINE_MIN_FRAMES are cut into PIPELINE_DEPTH
 * sub-blocks, none shorter than PIPELINE_MIN_FRAMES: enough sub-blocks for
 * the copies of some to hide behind the kernels of others, each long
 * enough (256 KB a channel) to keep a copy's and a launch's fixed costs
 * small beside it. Reasons, not measurements: Table 2 of gfir-bench (plan
 * API, pinned host memory) is where other values would be timed.
 */
#define PIPELINE_MIN_FRAMES ((size_t)1 << 16)
#define PIPELINE_DEPTH 8

size_t gf_cuda_sub_frames(const gfir_plan *plan)
{
    size_t sub = plan->block_frames;
    if (plan->block_frames >= 2 * PIPELINE_MIN_FRAMES) {
        sub = (plan->block_frames + PIPELINE_DEPTH - 1) / PIPELINE_DEPTH;
        sub = sub > PIPELINE_MIN_FRAMES ? sub : PIPELINE_MIN_FRAMES;
    }
    return sub;
}

void gf_cuda_lane_destroy(gf_cuda_lane *l)
{
    /* the engine synchronises on the lane's stream: it goes before the stream */
    gf_fft_engine_destroy(l->fft);
    if (l->stream)
        cudaStreamDestroy(l->stream);
    if (l->staged)
        cudaEventDestroy(l->staged);
    if (l->done)
        cudaEventDestroy(l->done);
    cudaFreeHost(l->h_in);
    cudaFreeHost(l->h_out);
    cudaFree(l->d_in);
    cudaFree(l->d_out);
    cudaFree(l->d_x);
    cudaFree(l->d_y);
    cudaFree(l->d_fade);
}

gfir_status gf_cuda_lane_create(gfir_plan *plan, gf_cuda_state *st, gf_cuda_lane *l)
{
    char *why = plan->detail;
    const size_t why_len = sizeof plan->detail;
    const size_t ch = plan->channels, io = st->sub_frames * ch * sizeof(float);
    GF_CUDA_TRY(cudaStreamCreateWithFlags(&l->stream, cudaStreamNonBlocking), why, why_len);
    GF_CUDA_TRY(cudaEventCreateWithFlags(&l->staged, cudaEventDisableTiming), why, why_len);
    GF_CUDA_TRY(cudaEventCreateWithFlags(&l->done, cudaEventDisableTiming), why, why_len);
    GF_CUDA_TRY(cudaHostAlloc((void **)&l->h_in, io, cudaHostAllocDefault), why, why_len);
    GF_CUDA_TRY(cudaHostAlloc((void **)&l->h_out, io, cudaHostAllocDefault), why, why_len);
    GF_CUDA_TRY(gf_cuda_malloc((void **)&l->d_in, io), why, why_len);
    GF_CUDA_TRY(gf_cuda_malloc((void **)&l->d_out, io), why, why_len);
    GF_CUDA_TRY(gf_cuda_malloc((void **)&l->d_x, ch * st->x_stride * sizeof(float)), why, why_len);
    GF_CUDA_TRY(gf_cuda_malloc((void **)&l->d_fade, ch * st->sub_frames * sizeof(float)), why,
                why_len);
    /* zeros before the first sample: the halo of the first block. On the
     * lane's own stream, recorded as staged: the other lane's first staging
     * waits for that event, and a plain cudaMemset (legacy default stream)
     * would not be ordered before it. */
    GF_CUDA_TRY(cudaMemsetAsync(l->d_x, 0, ch * st->x_stride * sizeof(float), l->stream), why,
                why_len);
    GF_CUDA_TRY(cudaEventRecord(l->staged, l->stream), why, why_len);
    return GFIR_OK;
}

/* After a failure nothing in flight is handed back; a lane with no output
 * pending holds nothing of the caller's, and is not waited for. */
static void abandon(gf_cuda_state *st)
{
    for (int i = 0; i < 2; i++) {
        if (st->lane[i].dest)
            cudaStreamSynchronize(st->lane[i].stream);
        st->lane[i].dest = NULL;
    }
}

gfir_status gf_cuda_clear(gfir_plan *plan, gf_cuda_state *st)
{
    gf_cuda_lane *l = &st->lane[st->last];
    char *why = plan->detail;
    const size_t why_len = sizeof plan->detail;
    /* cleared already (a whole signal or new taps after another): the
     * zeros and their event are queued, and a batch of new taps and a
     * convolve per call queues no memset of every row's halo */
    if (st->zeroed)
        return GFIR_OK;
    /* the next block takes its halo from lane `last` at offset n: make it
     * zeros, ordered before that staging as at create (only the halo: the
     * rest of each row is never read as history) */
    l->n = 0;
    if (st->halo)
        GF_CUDA_TRY(cudaMemset2DAsync(l->d_x, st->x_stride * sizeof(float), 0,
                                      st->halo * sizeof(float), plan->channels, l->stream),
                    why, why_len);
    GF_CUDA_TRY(cudaEventRecord(l->staged, l->stream), why, why_len);
    st->zeroed = 1;
    return GFIR_OK;
}

gfir_status gf_cuda_reset(gfir_plan *plan)
{
    gf_cuda_state *st = plan->impl;
    abandon(st);
    return gf_cuda_clear(plan, st);
}

gfir_status gf_cuda_convolve(gfir_plan *plan, gf_cuda_state *st, gf_cuda_lane *l,
                             const float *x, size_t x_stride, size_t n, float *out,
                             size_t out_stride, size_t out_dist, size_t at)
{
    gfir_status status =
        st->step(plan, st, l, plan->filter->impl, x, x_stride, n, out, out_stride, out_dist);
    if (status != GFIR_OK || !plan->incoming)
        return status;
    /* the incoming filter in pieces that fit d_fade; x + done is the same
     * rows from output `done` on, halo included */
    for (size_t done = 0, m; done < n; done += m) {
        m = n - done < st->sub_frames ? n - done : st->sub_frames;
        status = st->step(plan, st, l, plan->incoming->impl, x + done, x_stride, m, l->d_fade, 1,
                          st->sub_frames);
        if (status != GFIR_OK)
            return status;
        GF_CUDA_TRY(gf_launch_crossfade(out + done * out_stride, out_stride, out_dist, l->d_fade,
                                        1, st->sub_frames, m, plan->channels,
                                        plan->fade_pos + at + done, plan->fade_len, l->stream),
                    plan->detail, sizeof plan->detail);
    }
    return GFIR_OK;
}

/* Queues one sub-block (frames at .. at + n of the call) on lane `me`, after
 * lane `prev` staged the previous one. src and dst are host memory the
 * copies use directly: the caller's own when it is pinned, else the lane's
 * pinned staging; src is NULL for silence. */
static gfir_status enqueue(gfir_plan *plan, gf_cuda_state *st, gf_cuda_lane *me,
                           gf_cuda_lane *prev, const float *src, float *dst, size_t n, size_t at)
{
    char *why = plan->detail;
    const size_t why_len = sizeof plan->detail;
    const size_t ch = plan->channels, bytes = n * ch * sizeof(float);
    gfir_status status;
    if (src)
        GF_CUDA_TRY(cudaMemcpyAsync(me->d_in, src, bytes, cudaMemcpyHostToDevice, me->stream),
                    why, why_len);
    GF_CUDA_TRY(cudaStreamWaitEvent(me->stream, prev->staged, 0), why, why_len);
    GF_CUDA_TRY(gf_launch_stage(prev->d_x, prev->n, me->d_x, st->x_stride, st->halo,
                                src ? me->d_in : NULL, ch, 1, n, plan->channels, me->stream),
                why, why_len);
    GF_CUDA_TRY(cudaEventRecord(me->staged, me->stream), why, why_len);
    status = gf_cuda_convolve(plan, st, me, me->d_x, st->x_stride, n, me->d_out, ch, 1, at);
    if (status != GFIR_OK)
        return status;
    GF_CUDA_TRY(cudaMemcpyAsync(dst, me->d_out, bytes, cudaMemcpyDeviceToHost, me->stream), why,
                why_len);
    GF_CUDA_TRY(cudaEventRecord(me->done, me->stream), why, why_len);
    me->n = n;
    return GFIR_OK;
}

/* Waits for lane l's output and hands it to the caller. */
static gfir_status collect(gfir_plan *plan, gf_cuda_lane *l)
{
    float *dest = l->dest;
    l->dest = NULL;
    GF_CUDA_TRY(cudaEventSynchronize(l->done), plan->detail, sizeof plan->detail);
    if (!l->direct)
        memcpy(dest, l->h_out, l->n * plan->channels * sizeof(float));
    return GFIR_OK;
}

/* Page-locked host memory (cudaHostAlloc, cudaHostRegister) can be copied by
 * the device directly, which saves a pass through the staging buffers. */
static int is_pinned(const void *p)
{
    struct cudaPointerAttributes attr;
    if (!p || cudaPointerGetAttributes(&attr, p) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return attr.type == cudaMemoryTypeHost;
}

gfir_status gf_cuda_execute(gfir_plan *plan, const float *in, float *out, size_t n)
{
    gf_cuda_state *st = plan->impl;
    const size_t ch = plan->channels;
    gfir_status status = GFIR_OK;
    const int in_pinned = is_pinned(in), out_pinned = is_pinned(out);

    for (size_t done = 0, m; done < n && status == GFIR_OK; done += m) {
        gf_cuda_lane *me = &st->lane[1 - st->last], *prev = &st->lane[st->last];
        m = n - done < st->sub_frames ? n - done : st->sub_frames;
        /* The lane's buffers are about to be reused: hand back the output it
         * still holds, which also proves its input copy has finished. In place
         * is safe: that output's frames lie before the input read next. */
        if (me->dest)
            status = collect(plan, me);
        if (status != GFIR_OK)
            break;
        const float *src = in && in_pinned ? in + done * ch : in ? me->h_in : NULL;
        if (src == me->h_in)
            memcpy(me->h_in, in + done * ch, m * ch * sizeof(float));
        me->direct = out_pinned;
        st->zeroed = 0;
        status = enqueue(plan, st, me, prev, src, out_pinned ? out + done * ch : me->h_out, m,
                         done);
        me->dest = out + done * ch;
        st->last = 1 - st->last;
    }
    /* the older lane first, then the newest */
    for (int i = 0; i < 2 && status == GFIR_OK; i++) {
        gf_cuda_lane *l = &st->lane[(st->last + 1 + i) % 2];
        if (l->dest)
            status = collect(plan, l);
    }
    if (status != GFIR_OK)
        abandon(st);
    return status;
}
