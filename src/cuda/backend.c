/*
 * backend.c - the streaming CUDA backend: its ops table, the device a plan
 * runs on, AUTO's kernel choice, and create and destroy, which put together
 * the lanes (lanes.c) and the kernel's part (direct_plan.c or fft_plan.c).
 * cuda_plan.h says what lives where.
 */
#include "core/cache.h"
#include "cuda_plan.h"
#include "cuda_status.h"

#include <cuda_runtime_api.h>
#include <stdlib.h>

/*
 * AUTO's crossover from direct to FFT on the GPU, in taps. Measured on an H100
 * with 2 x 2^24 samples on the device (`gfir-bench --calibrate`, 2026-11-23,
 * commit a462bbc): the direct kernel's time grows with the taps (0.24 ms at
 * 127, 0.33 at 191, 0.41 at 255) while the one-kernel FFT (fftconv.cu) stays
 * near 0.31-0.33 ms, so they cross between 127 and 191 taps. This is the
 * default: `gfir-bench --calibrate` measures the crossover of the device it
 * runs on and keeps it in the user's cache directory
 * (GF_CUDA_CROSSOVER_FILE, a line per device name), which AUTO prefers.
 */
#define AUTO_FFT_MIN_TAPS 191

static int cuda_available(void)
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        cudaGetLastError(); /* clear the sticky "no device" so later calls are clean */
        return 0;
    }
    return count > 0;
}

/* AUTO's crossover for the plan's device: calibrated, else the default. */
static size_t fft_min_taps(const gfir_plan *plan)
{
    struct cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, plan->device) != cudaSuccess) {
        cudaGetLastError();
        return AUTO_FFT_MIN_TAPS;
    }
    prop.name[sizeof prop.name - 1] = '\0';
    const size_t calibrated = gf_cache_lookup(GF_CUDA_CROSSOVER_FILE, prop.name);
    return calibrated ? calibrated : AUTO_FFT_MIN_TAPS;
}

static gfir_status cuda_choose_kernel(const gfir_plan *plan, gfir_kernel requested,
                                      gfir_kernel *chosen)
{
    switch (requested) {
    case GFIR_KERNEL_AUTO:
        *chosen = plan->ntaps >= fft_min_taps(plan) ? GFIR_KERNEL_FFT : GFIR_KERNEL_DIRECT;
        return GFIR_OK;
    case GFIR_KERNEL_CONSTANT:
        if (!gf_constant_fits(plan->ntaps, plan->filter_channels))
            return gf_fail((gfir_plan *)plan, GFIR_ERR_UNSUPPORTED,
                             "kernel 'constant' holds at most %d taps in all; this filter has "
                             "%u x %zu",
                             GF_CONSTANT_MAX_TAPS, plan->filter_channels, plan->ntaps);
        *chosen = requested;
        return GFIR_OK;
    case GFIR_KERNEL_BASIC:
    case GFIR_KERNEL_TILED:
    case GFIR_KERNEL_CACHED:
    case GFIR_KERNEL_DIRECT:
    case GFIR_KERNEL_FFT:
        *chosen = requested;
        return GFIR_OK;
    default:
        return GFIR_ERR_UNSUPPORTED;
    }
}

static void cuda_destroy(gfir_plan *plan)
{
    gf_cuda_state *st = plan->impl;
    if (!st)
        return;
    cudaSetDevice(plan->device);
    for (int i = 0; i < 2; i++) {
        if (st->lane[i].stream)
            cudaStreamSynchronize(st->lane[i].stream);
        gf_cuda_lane_destroy(&st->lane[i]);
    }
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
    return GFIR_OK;
}

const gf_backend_ops gf_cuda_backend = {
    .name = "cuda",
    .id = GFIR_BACKEND_CUDA,
    .available = cuda_available,
    .choose_kernel = cuda_choose_kernel,
    .create = cuda_create,
    .execute = gf_cuda_execute,
    .reset = gf_cuda_reset,
    .destroy = cuda_destroy,
};
