/*
 * backend.c - the streaming CUDA backend: its ops table, the device a plan
 * runs on, the kernels it has, and create and destroy, which put together
 * the lanes (lanes.c) and the kernel's part (direct_plan.c or fft_plan.c),
 * or hand a small-call FFT plan to the delay-line engine (fdl.c); calls on
 * device memory go to device.c or the delay-line engine's own. Filters
 * (gfir.h's gfir_filter) are prepared here for lane plans, on a stream of
 * their own, so that a thread may make one while another runs the plan.
 * cuda_plan.h says what lives where; facts.c what the policy needs to know.
 */
#include "cuda/cuda_plan.h"
#include "cuda/facts.h"
#include "cuda/fdl.h"
#include "cuda_status.h"

#include <cuda_runtime_api.h>
#include <stdlib.h>
#include <string.h>

/* The calling thread's current device, given back by leave(): a plan runs
 * on its own device without moving the caller's later CUDA work there. */
static int enter(void)
{
    int device = -1;
    if (cudaGetDevice(&device) != cudaSuccess) {
        cudaGetLastError();
        return -1;
    }
    return device;
}

static void leave(int device)
{
    if (device >= 0 && cudaSetDevice(device) != cudaSuccess)
        cudaGetLastError();
}

static int cuda_available(void)
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        cudaGetLastError(); /* clear the sticky "no device" so later calls are clean */
        return 0;
    }
    return count > 0;
}

/* The lanes stage and convolve one channel (or path) per grid row. */
static gfir_status lanes_fit(gfir_plan *plan)
{
    if (plan->form != GF_FORM_FDL && plan->channels > GF_GRID_Y_MAX)
        return gf_fail(plan, GFIR_ERR_UNSUPPORTED,
                       "%u channels (paths run as one each) are more than the GPU's lanes "
                       "take (%d)", plan->channels, GF_GRID_Y_MAX);
    return GFIR_OK;
}

static gfir_status cuda_has_kernel(gfir_plan *plan, gfir_kernel kernel)
{
    gfir_status st = lanes_fit(plan);
    const char *missing;
    if (st != GFIR_OK)
        return st;
    switch (kernel) {
    case GFIR_KERNEL_CONSTANT:
        if (!gf_constant_fits(plan->ntaps, plan->filter_channels))
            return gf_fail(plan, GFIR_ERR_UNSUPPORTED,
                           "kernel 'constant' holds at most %d taps in all; this filter has "
                           "%u x %zu",
                           GF_CONSTANT_MAX_TAPS, plan->filter_channels, plan->ntaps);
        return GFIR_OK;
    case GFIR_KERNEL_FFT:
        /* the whole-signal engines' filters make cuFFT spectra; the delay
         * line's transforms are its own */
        missing = plan->form == GF_FORM_FDL ? NULL : gf_fft_cufft_missing();
        if (missing)
            return gf_fail(plan, GFIR_ERR_UNSUPPORTED, "kernel 'fft' on the GPU: %s", missing);
        return GFIR_OK;
    case GFIR_KERNEL_BASIC:
    case GFIR_KERNEL_TILED:
    case GFIR_KERNEL_CACHED:
    case GFIR_KERNEL_DIRECT:
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

static void lanes_destroy(gfir_plan *plan)
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
    if (st->caller)
        cudaEventDestroy(st->caller);
    free(st);
    plan->impl = NULL;
}

/* Whatever failed while freeing is not another plan's next launch's error. */
static void cuda_destroy(gfir_plan *plan)
{
    const int theirs = enter();
    if (plan->form == GF_FORM_FDL)
        gf_cuda_fdl_destroy(plan);
    else
        lanes_destroy(plan);
    cudaGetLastError();
    leave(theirs);
}

/* Waits until no lane's work reads the filter, then frees it, on its device
 * (the caller's current device is given back). */
static void release_filter(void *impl)
{
    gf_cuda_filter *f = impl;
    int theirs = 0;
    if (!f)
        return;
    const int swapped = cudaGetDevice(&theirs) == cudaSuccess && theirs != f->device &&
                        cudaSetDevice(f->device) == cudaSuccess;
    for (int i = 0; i < 2; i++)
        if (f->retired[i]) {
            cudaEventSynchronize(f->retired[i]);
            cudaEventDestroy(f->retired[i]);
        }
    cudaFree(f->d_taps);
    gf_fft_filter_destroy(f->fft);
    cudaGetLastError();
    if (swapped)
        cudaSetDevice(theirs);
    free(f);
}

static gfir_status prepare_on(const gfir_plan *plan, const float *taps, gf_cuda_filter *f,
                              char *why, size_t why_len)
{
    const gf_cuda_state *st = plan->impl;
    cudaStream_t stream = NULL;
    gfir_status status;
    for (int i = 0; i < 2; i++)
        GF_CUDA_TRY(cudaEventCreateWithFlags(&f->retired[i], cudaEventDisableTiming), why,
                    why_len);
    GF_CUDA_TRY(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), why, why_len);
    status = plan->kernel == GFIR_KERNEL_FFT
                 ? gf_cuda_fft_prepare(plan, st, taps, f, stream, why, why_len)
                 : gf_cuda_direct_prepare(plan, st, taps, f, stream, why, why_len);
    cudaStreamDestroy(stream);
    return status;
}

static gfir_status lanes_prepare(const gfir_plan *plan, const float *taps, gfir_filter *out,
                                 char *why, size_t why_len)
{
    gf_cuda_filter *f;
    int theirs;
    gfir_status status;
    GF_CUDA_TRY(cudaGetDevice(&theirs), why, why_len);
    f = calloc(1, sizeof *f);
    if (!f)
        return gf_detail(why, why_len, GFIR_ERR_NOMEM, "out of host memory");
    f->device = plan->device;
    const cudaError_t e = cudaSetDevice(plan->device);
    status = e == cudaSuccess ? prepare_on(plan, taps, f, why, why_len)
                              : gf_cuda_fail(e, "cudaSetDevice", why, why_len);
    cudaSetDevice(theirs);
    if (status != GFIR_OK) {
        release_filter(f);
        return status;
    }
    out->impl = f;
    out->release = release_filter;
    return GFIR_OK;
}

/* The lanes are stateless beyond the halo: both filters read it as it is. */
static gfir_status lanes_fade_begin(gfir_plan *plan)
{
    (void)plan;
    return GFIR_OK;
}

/* The engines take the incoming filter; the old one's release waits for
 * what the lanes have queued with it, or, where an event cannot be
 * recorded, the lane is waited for now. */
static void lanes_fade_end(gfir_plan *plan)
{
    gf_cuda_state *st = plan->impl;
    gf_cuda_filter *old = plan->filter->impl;
    int theirs = plan->device;
    cudaGetDevice(&theirs);
    cudaSetDevice(plan->device);
    if (plan->kernel == GFIR_KERNEL_FFT)
        /* same shape by construction: prepare made both for this plan */
        (void)gf_cuda_fft_use(plan, st, plan->incoming->impl);
    for (int i = 0; i < 2; i++)
        if (cudaEventRecord(old->retired[i], st->lane[i].stream) != cudaSuccess) {
            cudaGetLastError();
            cudaStreamSynchronize(st->lane[i].stream);
        }
    cudaSetDevice(theirs);
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

/* The lanes first, then the plan's first filter (prepare's path, on a
 * stream of its own that it waits for), then the kernel's part of each lane. */
static gfir_status create_on_device(gfir_plan *plan, const float *taps)
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
    if (plan->kernel == GFIR_KERNEL_CONSTANT) {
        const cudaError_t e = gf_constant_prepare();
        if (e != cudaSuccess)
            return gf_cuda_fail(e, "gf_constant_prepare", plan->detail, sizeof plan->detail);
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
    if (status == GFIR_OK) {
        if (plan->kernel == GFIR_KERNEL_FFT)
            gf_cuda_fft_setup(plan, st);
        else
            gf_cuda_direct_setup(plan, st);
        status = gf_filter_first(plan, taps);
    }
    for (int i = 0; i < 2 && status == GFIR_OK; i++)
        status = st->lane_setup(plan, st, &st->lane[i]);
    if (status != GFIR_OK) {
        lanes_destroy(plan);
        return status;
    }
    st->last = 1;
    st->zeroed = 1; /* every lane's buffer was zeroed at its create */
    plan->latency_frames = 0;
    gf_cuda_mark_started(plan->device);
    return GFIR_OK;
}

static gfir_status cuda_create(gfir_plan *plan, const float *taps)
{
    const int theirs = enter();
    const gfir_status status = create_on_device(plan, taps);
    leave(theirs);
    return status;
}

static gfir_status cuda_prepare(const gfir_plan *plan, const float *taps, gfir_filter *f,
                                char *why, size_t why_len)
{
    return plan->form == GF_FORM_FDL ? gf_cuda_fdl_prepare(plan, taps, f, why, why_len)
                                     : lanes_prepare(plan, taps, f, why, why_len);
}

static gfir_status cuda_fade_begin(gfir_plan *plan)
{
    return plan->form == GF_FORM_FDL ? gf_cuda_fdl_fade_begin(plan) : lanes_fade_begin(plan);
}

static void cuda_fade_end(gfir_plan *plan)
{
    if (plan->form == GF_FORM_FDL)
        gf_cuda_fdl_fade_end(plan);
    else
        lanes_fade_end(plan);
}

static gfir_status cuda_execute(gfir_plan *plan, const float *in, float *out, size_t n)
{
    const int theirs = enter();
    const gfir_status status = plan->form == GF_FORM_FDL ? gf_cuda_fdl_execute(plan, in, out, n)
                                                         : gf_cuda_execute(plan, in, out, n);
    leave(theirs);
    return status;
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
    const int theirs = enter();
    const gfir_status status =
        plan->form == GF_FORM_FDL ? gf_cuda_fdl_reset(plan) : gf_cuda_reset(plan);
    leave(theirs);
    return status;
}

const gf_backend_ops gf_cuda_backend = {
    .name = "cuda",
    .id = GFIR_BACKEND_CUDA,
    .available = cuda_available,
    .has_kernel = cuda_has_kernel,
    .takes_paths = cuda_takes_paths,
    .startup_s = cuda_startup_s,
    .create = cuda_create,
    .prepare = cuda_prepare,
    .fade_begin = cuda_fade_begin,
    .fade_end = cuda_fade_end,
    .execute = cuda_execute,
    .execute_device = cuda_execute_device,
    .convolve_device = cuda_convolve_device,
    .set_taps_device = cuda_set_taps_device,
    .reset = cuda_reset,
    .destroy = cuda_destroy,
};
