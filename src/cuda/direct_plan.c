/*
 * direct_plan.c - a direct kernel's part of a lane plan (ours or a textbook
 * one; the "cuda-direct" engine, direct_engine.c): a filter's reversed taps
 * on the device, and the step that launches the kernel on a lane's staged
 * block and interleaves its planar output.
 */
#include "cuda/cuda_plan.h"
#include "cuda_status.h"

#include <cuda_runtime_api.h>
#include <stdlib.h>

static gfir_status direct_lane(gfir_plan *plan, gf_cuda_state *st, gf_cuda_lane *l)
{
    GF_CUDA_TRY(gf_cuda_malloc((void **)&l->d_y, st->sub_frames * plan->channels * sizeof(float)),
                plan->detail, sizeof plan->detail);
    return GFIR_OK;
}

static gfir_status direct_step(gfir_plan *plan, gf_cuda_state *st, gf_cuda_lane *me,
                               const gf_cuda_filter *f, const float *x, size_t x_stride,
                               size_t n, float *out, size_t out_stride, size_t out_dist)
{
    const unsigned ch = plan->channels;
    const int rows = out_stride == 1; /* planar output: the kernel writes it itself */
    gf_conv_args a = {
        .d_x = x, .x_stride = x_stride, .d_taps = f->d_taps,
        .taps_stride = st->taps_stride, .shared_taps = plan->filter_channels == 1,
        .ntaps = plan->ntaps, .d_y = rows ? out : me->d_y,
        .y_stride = !rows ? st->sub_frames : ch == 1 ? n : out_dist, .n = n,
        .channels = ch, .block_threads = 0,
    };
    GF_CUDA_TRY(st->launch(&a, me->stream), plan->detail, sizeof plan->detail);
    if (!rows)
        GF_CUDA_TRY(gf_launch_restride(me->d_y, 1, st->sub_frames, out, out_stride, out_dist, n,
                                       ch, me->stream),
                    plan->detail, sizeof plan->detail);
    return GFIR_OK;
}

gfir_status gf_cuda_direct_window(gfir_plan *plan, gf_cuda_state *st, gf_cuda_lane *l,
                                  const float *x, size_t x_stride, size_t lead, size_t avail,
                                  size_t n, float *out, size_t out_dist)
{
    const gf_cuda_filter *f = plan->filter->impl;
    const unsigned ch = plan->channels;
    gf_conv_args a = {
        .d_x = x, .x_stride = x_stride, .d_taps = f->d_taps,
        .taps_stride = st->taps_stride, .shared_taps = plan->filter_channels == 1,
        .ntaps = plan->ntaps, .d_y = out, .y_stride = ch == 1 ? n : out_dist, .n = n,
        .channels = ch, .block_threads = 0, .window = 1, .lead = lead, .avail = avail,
    };
    GF_CUDA_TRY(gf_launch_direct(&a, l->stream), plan->detail, sizeof plan->detail);
    return GFIR_OK;
}

void gf_cuda_direct_setup(gfir_plan *plan, gf_cuda_state *st)
{
    static cudaError_t (*const launchers[])(const gf_conv_args *, cudaStream_t) = {
        [GFIR_KERNEL_BASIC] = gf_launch_basic,   [GFIR_KERNEL_CONSTANT] = gf_launch_constant,
        [GFIR_KERNEL_TILED] = gf_launch_tiled,   [GFIR_KERNEL_CACHED] = gf_launch_cached,
        [GFIR_KERNEL_DIRECT] = gf_launch_direct,
    };
    st->launch = launchers[plan->kernel];
    st->lane_setup = direct_lane;
    st->step = direct_step;
    st->taps_stride = (plan->ntaps + GF_TAP_STEP - 1) / GF_TAP_STEP * GF_TAP_STEP;
}

gfir_status gf_cuda_direct_prepare(const gfir_plan *plan, const gf_cuda_state *st,
                                   const float *taps, gf_cuda_filter *f, cudaStream_t stream,
                                   char *why, size_t why_len)
{
    const size_t ntaps = plan->ntaps, filters = plan->filter_channels;
    const size_t bytes = filters * st->taps_stride * sizeof(float);
    float *h = calloc(filters * st->taps_stride, sizeof *h);
    if (!h)
        return gf_detail(why, why_len, GFIR_ERR_NOMEM, "out of host memory for %zu taps", ntaps);
    for (size_t s = 0; s < filters; s++)
        for (size_t k = 0; k < ntaps; k++)
            h[s * st->taps_stride + k] = taps[s * ntaps + ntaps - 1 - k];
    cudaError_t e = gf_cuda_malloc((void **)&f->d_taps, bytes);
    if (e == cudaSuccess)
        e = cudaMemcpyAsync(f->d_taps, h, bytes, cudaMemcpyHostToDevice, stream);
    /* h is read until the stream gets there, and the lanes' kernels read the
     * taps from other streams */
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(stream);
    free(h);
    return e == cudaSuccess ? GFIR_OK : gf_cuda_fail(e, "uploading taps", why, why_len);
}
