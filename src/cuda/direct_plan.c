/*
 * direct_plan.c - a CUDA plan's direct kernel (ours or a textbook one): the
 * reversed taps on the device, and the step that launches the kernel on a
 * lane's staged block and interleaves its planar output.
 */
#include "cuda/cuda_plan.h"
#include "cuda_status.h"

#include <cuda_runtime_api.h>
#include <stdlib.h>

static gfir_status direct_lane(gfir_plan *plan, gf_cuda_state *st, gf_cuda_lane *l)
{
    GF_CUDA_TRY(cudaMalloc((void **)&l->d_y, st->sub_frames * plan->channels * sizeof(float)),
                plan->detail, sizeof plan->detail);
    return GFIR_OK;
}

static gfir_status direct_step(gfir_plan *plan, gf_cuda_state *st, gf_cuda_lane *me,
                               const float *x, size_t x_stride, size_t n, float *out,
                               size_t out_stride, size_t out_dist)
{
    const unsigned ch = plan->channels;
    const int rows = out_stride == 1; /* planar output: the kernel writes it itself */
    gf_conv_args a = {
        .d_x = x, .x_stride = x_stride, .d_taps = st->d_taps,
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

gfir_status gf_cuda_direct_create(gfir_plan *plan, gf_cuda_state *st, const float *taps,
                                  cudaStream_t stream)
{
    static cudaError_t (*const launchers[])(const gf_conv_args *, cudaStream_t) = {
        [GFIR_KERNEL_BASIC] = gf_launch_basic,   [GFIR_KERNEL_CONSTANT] = gf_launch_constant,
        [GFIR_KERNEL_TILED] = gf_launch_tiled,   [GFIR_KERNEL_CACHED] = gf_launch_cached,
        [GFIR_KERNEL_DIRECT] = gf_launch_direct,
    };
    const size_t ntaps = plan->ntaps, filters = plan->filter_channels;
    st->launch = launchers[plan->kernel];
    st->lane_setup = direct_lane;
    st->step = direct_step;
    st->taps_stride = (ntaps + GF_TAP_STEP - 1) / GF_TAP_STEP * GF_TAP_STEP;

    const size_t bytes = filters * st->taps_stride * sizeof(float);
    float *h = calloc(filters * st->taps_stride, sizeof *h);
    if (!h)
        return gf_fail(plan, GFIR_ERR_NOMEM, "out of host memory for %zu taps", ntaps);
    for (size_t f = 0; f < filters; f++)
        for (size_t k = 0; k < ntaps; k++)
            h[f * st->taps_stride + k] = taps[f * ntaps + ntaps - 1 - k];
    cudaError_t e = cudaMalloc((void **)&st->d_taps, bytes);
    if (e == cudaSuccess)
        e = cudaMemcpyAsync(st->d_taps, h, bytes, cudaMemcpyHostToDevice, stream);
    /* h is read until the stream gets there, and lane 1's kernels read the
     * taps from another stream */
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(stream);
    free(h);
    return e == cudaSuccess ? GFIR_OK
                            : gf_cuda_fail(e, "uploading taps", plan->detail, sizeof plan->detail);
}
