/*
 * backend.c - the streaming CUDA backend: its ops table, the device a plan
 * runs on, the kernels it has, and create and destroy, which put together
 * the lanes (lanes.c) and the kernel's part (direct_plan.c or fft_plan.c),
 * or hand a small-call FFT plan to the delay-line engine (fdl.c); calls on
 * device memory go to device.c or the delay-line engine's own.
 * cuda_plan.h says what lives where; facts.c what the policy needs to know.
 */
#include "cuda/cuda_plan.h"
#include "cuda/facts.h"
#include "cuda/fdl.h"
#include "cuda_status.h"

#include <cuda_runtime_api.h>
#include <stdlib.h>

static int cuda_available(void)
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        cudaGetLastError(); /* clear the sticky "no device" so later calls are clean */
        return 0;
    }
    return count > 0;
}

static gfir_status cuda_has_kernel(gfir_plan *plan, gfir_kernel kernel)
{
    switch (kernel) {
    case GFIR_KERNEL_CONSTANT:
        if (!gf_constant_fits(plan->ntaps, plan->filter_channels))
            return gf_fail(plan, GFIR_ERR_UNSUPPORTED,
                           "kernel 'constant' holds at most %d taps in all; this filter has "
                           "%u x %zu",
                           GF_CONSTANT_MAX_TAPS, plan->filter_channels, plan->ntaps);
        return GFIR_OK;
    case GFIR_KERNEL_BASIC:
    case GFIR_KERNEL_TILED:
    case GFIR_KERNEL_CACHED:
    case GFIR_KERNEL_DIRECT:
    case GFIR_KERNEL_FFT:
        return GFIR_OK;
    default:
        return gf_fail(plan, GFIR_ERR_UNSUPPORTED, "the CUDA backend has no kernel '%s'",
                       gfir_kernel_name(kernel));
    }
}

static int cuda_takes_paths(const gfir_plan *plan)
{
    return plan->form == GF_FORM_FDL;
}

static double cuda_startup_s(const gfir_plan *plan)
{
    return gf_cuda_startup_s(plan->device);
}

static void cuda_destroy(gfir_plan *plan)
{
    gf_cuda_state *st = plan->impl;
    if (plan->form == GF_FORM_FDL) {
        gf_cuda_fdl_destroy(plan);
        return;
    }
    if (!st)
        return;
    cudaSetDevice(plan->device);
    for (int i = 0; i < 2; i++) {
        if (st->lane[i].stream)
            cudaStreamSynchronize(st->lane[i].stream);
        gf_cuda_lane_destroy(&st->lane[i]);
    }
    if (st->caller)
        cudaEventDestroy(st->caller);
    cudaFree(st->d_taps);
    gf_fft_filter_destroy(st->fft_filter);
    free(st);
    plan->impl = NULL;
}

/* Selects the plan's device; nothing is on it yet when this fails. */
static gfir_status select_device(gfir_plan *plan)
{
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e == cudaSuccess && (plan->device < 0 || plan->device >= count))
        return gf_fail(plan, GFIR_ERR_ARG, "device %d does not exist (this machine has %d)",
                       plan->device, count);
    if (e == cudaSuccess)
        e = cudaSetDevice(plan->device);
    if (e != cudaSuccess)
        return gf_cuda_fail(e, "cudaSetDevice", plan->detail, sizeof plan->detail);
    return GFIR_OK;
}

/* The lanes first, then the kernel's filter on lane 0's stream (create
 * waits for that stream alone, and lane 1's first use comes later), then
 * the kernel's part of each lane. */
static gfir_status cuda_create(gfir_plan *plan, const float *taps)
{
    gfir_status status = select_device(plan);
    if (status != GFIR_OK)
        return status;
    if (plan->form == GF_FORM_FDL) {
        status = gf_cuda_fdl_create(plan, taps);
        if (status == GFIR_OK)
            gf_cuda_mark_started(plan->device);
        return status;
    }
    gf_cuda_state *st = calloc(1, sizeof *st);
    if (!st)
        return gf_fail(plan, GFIR_ERR_NOMEM, "out of host memory");
    plan->impl = st;
    st->halo = plan->ntaps - 1;
    st->sub_frames = gf_cuda_sub_frames(plan);
    if (plan->kernel == GFIR_KERNEL_FFT)
        st->sub_frames = gf_cuda_fft_sub_frames(plan, st->sub_frames);
    /* rows rounded to 32 floats keep every channel's buffer 128-byte aligned */
    st->x_stride = (st->halo + st->sub_frames + 31) / 32 * 32;

    for (int i = 0; i < 2 && status == GFIR_OK; i++)
        status = gf_cuda_lane_create(plan, st, &st->lane[i]);
    if (status == GFIR_OK) {
        const cudaError_t e = cudaEventCreateWithFlags(&st->caller, cudaEventDisableTiming);
        if (e != cudaSuccess)
            status = gf_cuda_fail(e, "cudaEventCreateWithFlags", plan->detail,
                                  sizeof plan->detail);
    }
    if (status == GFIR_OK)
        status = plan->kernel == GFIR_KERNEL_FFT
                     ? gf_cuda_fft_create(plan, st, taps, st->lane[0].stream)
                     : gf_cuda_direct_create(plan, st, taps, st->lane[0].stream);
    for (int i = 0; i < 2 && status == GFIR_OK; i++)
        status = st->lane_setup(plan, st, &st->lane[i]);
    if (status != GFIR_OK) {
        cuda_destroy(plan);
        return status;
    }
    st->last = 1;
    plan->latency_frames = 0;
    gf_cuda_mark_started(plan->device);
    return GFIR_OK;
}

static gfir_status cuda_execute(gfir_plan *plan, const float *in, float *out, size_t n)
{
    return plan->form == GF_FORM_FDL ? gf_cuda_fdl_execute(plan, in, out, n)
                                     : gf_cuda_execute(plan, in, out, n);
}

static gfir_status cuda_execute_device(gfir_plan *plan, const gf_device_io *io, size_t n)
{
    return plan->form == GF_FORM_FDL ? gf_cuda_fdl_execute_device(plan, io, n)
                                     : gf_cuda_execute_device(plan, io, n);
}

static gfir_status cuda_convolve_device(gfir_plan *plan, const gf_device_io *io, size_t frames,
                                        size_t start, size_t length)
{
    return plan->form == GF_FORM_FDL
               ? gf_cuda_fdl_convolve_device(plan, io, frames, start, length)
               : gf_cuda_convolve_device(plan, io, frames, start, length);
}

static gfir_status cuda_set_taps_device(gfir_plan *plan, const float *taps, void *stream)
{
    return plan->form == GF_FORM_FDL
               ? gf_cuda_fdl_set_taps_device(plan, taps, stream)
               : gf_cuda_set_taps_device(plan, taps, (cudaStream_t)stream);
}

static gfir_status cuda_reset(gfir_plan *plan)
{
    return plan->form == GF_FORM_FDL ? gf_cuda_fdl_reset(plan) : gf_cuda_reset(plan);
}

const gf_backend_ops gf_cuda_backend = {
    .name = "cuda",
    .id = GFIR_BACKEND_CUDA,
    .available = cuda_available,
    .has_kernel = cuda_has_kernel,
    .takes_paths = cuda_takes_paths,
    .startup_s = cuda_startup_s,
    .create = cuda_create,
    .execute = cuda_execute,
    .execute_device = cuda_execute_device,
    .convolve_device = cuda_convolve_device,
    .set_taps_device = cuda_set_taps_device,
    .reset = cuda_reset,
    .destroy = cuda_destroy,
};
