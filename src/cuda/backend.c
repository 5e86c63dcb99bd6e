/*
 * backend.c - the CUDA backend: its device (available, start-up), and the
 * entry points its two lane engines share ("cuda-direct", direct_engine.c
 * over direct_plan.c; "cuda-fft", fft_engine.c over fft_plan.c): create and
 * start put together the lanes (lanes.c) and the kernel's part; calls on
 * device memory go to lanes_device.c. Filters (gfir.h's gfir_filter) are
 * prepared here, on a stream of their own, so that a thread may make one
 * while another runs the plan. Every entry point runs inside the one device
 * guard (guard.h). The delay-line engine is fdl_engine.c's; cuda_plan.h
 * says what lives where, tuning.c what was measured.
 */
#include "cuda/backend.h"
#include "cuda/cuda_plan.h"
#include "cuda/guard.h"
#include "cuda/startup.h"
#include "cuda/tuning.h"
#include "cuda_status.h"

#include <cuda_runtime_api.h>
#include <stdlib.h>
#include <string.h>

static int cuda_devices(void)
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        cudaGetLastError(); /* clear the sticky "no device" so later calls are clean */
        return 0;
    }
    return count;
}

static int cuda_available(void)
{
    return cuda_devices() > 0;
}

const gf_backend gf_cuda_backend = {
    .name = "cuda",
    .id = GFIR_BACKEND_CUDA,
    .available = cuda_available,
    .devices = cuda_devices,
    .prepare = gf_cuda_prepare,
    .startup_s = gf_cuda_startup_s,
    .min_call_samples = GF_CUDA_MIN_CALL_SAMPLES,
};

gfir_status gf_cuda_lanes_fit(gfir_plan *plan)
{
    if (plan->channels > GF_GRID_Y_MAX)
        return gf_fail(plan, GFIR_ERR_UNSUPPORTED,
                       "%u channels (paths run as one each) are more than the GPU's lanes "
                       "take (%d)", plan->channels, GF_GRID_Y_MAX);
    return GFIR_OK;
}

int gf_cuda_wants_fft(const gfir_plan *plan, gfir_kernel requested)
{
    return requested == GFIR_KERNEL_FFT ||
           (requested == GFIR_KERNEL_AUTO && plan->ntaps >= gf_cuda_fft_min_taps(plan->device));
}

size_t gf_cuda_no_latency(const gfir_plan *plan)
{
    (void)plan;
    return 0;
}

static void lanes_destroy(gfir_plan *plan)
{
    gf_cuda_state *st = plan->impl;
    if (!st)
        return;
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
void gf_cuda_lanes_destroy(gfir_plan *plan)
{
    int theirs;
    /* a create that failed before any state (on a device that is not there)
     * leaves nothing to free, and no device to enter */
    if (!plan->impl)
        return;
    (void)gf_cuda_enter(plan->device, &theirs);
    lanes_destroy(plan);
    cudaGetLastError();
    gf_cuda_leave(theirs);
}

/* Waits until no lane's work reads the filter, then frees it, on its device
 * (the caller's current device is given back). */
static void release_filter(void *impl)
{
    gf_cuda_filter *f = impl;
    int theirs;
    if (!f)
        return;
    (void)gf_cuda_enter(f->device, &theirs);
    for (int i = 0; i < 2; i++)
        if (f->retired[i]) {
            cudaEventSynchronize(f->retired[i]);
            cudaEventDestroy(f->retired[i]);
        }
    cudaFree(f->d_taps);
    gf_fft_filter_destroy(f->fft);
    cudaGetLastError();
    gf_cuda_leave(theirs);
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

gfir_status gf_cuda_lanes_prepare(const gfir_plan *plan, const float *taps, gfir_filter *out,
                                  char *why, size_t why_len)
{
    gf_cuda_filter *f = calloc(1, sizeof *f);
    int theirs;
    gfir_status status;
    if (!f)
        return gf_detail(why, why_len, GFIR_ERR_NOMEM, "out of host memory");
    f->device = plan->device;
    status = gf_cuda_enter_plan(plan, &theirs, why, why_len);
    if (status == GFIR_OK)
        status = prepare_on(plan, taps, f, why, why_len);
    gf_cuda_leave(theirs);
    if (status != GFIR_OK) {
        release_filter(f);
        return status;
    }
    out->impl = f;
    out->release = release_filter;
    return GFIR_OK;
}

/* The lanes are stateless beyond the halo: both filters read it as it is. */
gfir_status gf_cuda_lanes_fade_begin(gfir_plan *plan)
{
    (void)plan;
    return GFIR_OK;
}

/* The engines take the incoming filter; the old one's release waits for
 * what the lanes have queued with it, or, where an event cannot be
 * recorded, the lane is waited for now. */
void gf_cuda_lanes_fade_end(gfir_plan *plan)
{
    gf_cuda_state *st = plan->impl;
    gf_cuda_filter *old = plan->filter->impl;
    int theirs;
    (void)gf_cuda_enter(plan->device, &theirs);
    if (plan->kernel == GFIR_KERNEL_FFT)
        /* same shape by construction: prepare made both for this plan */
        (void)gf_cuda_fft_use(plan, st, plan->incoming->impl);
    for (int i = 0; i < 2; i++)
        if (cudaEventRecord(old->retired[i], st->lane[i].stream) != cudaSuccess) {
            cudaGetLastError();
            cudaStreamSynchronize(st->lane[i].stream);
        }
    gf_cuda_leave(theirs);
}

gfir_status gf_cuda_device_exists(gfir_plan *plan)
{
    int count = 0;
    cudaError_t e;
    /* a start-up under way (gfir_backend_prepare) finishes first: one
     * context, and this create's calls then find it made */
    gf_cuda_prepare_wait(plan->device);
    e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess)
        return gf_cuda_fail(e, "cudaGetDeviceCount", plan->detail, sizeof plan->detail);
    if (plan->device < 0 || plan->device >= count)
        return gf_fail(plan, GFIR_ERR_ARG, "device %d does not exist (this machine has %d)",
                       plan->device, count);
    return GFIR_OK;
}

/* The lanes and the kernel's part of the state; the first filter comes
 * next (core/swap.c), then start. */
static gfir_status create_on_device(gfir_plan *plan)
{
    gfir_status status = GFIR_OK;
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
    }
    return status;
}

gfir_status gf_cuda_lanes_create(gfir_plan *plan)
{
    int theirs;
    gfir_status status = gf_cuda_device_exists(plan);
    if (status != GFIR_OK)
        return status;
    status = gf_cuda_enter_plan(plan, &theirs, plan->detail, sizeof plan->detail);
    if (status == GFIR_OK)
        status = create_on_device(plan);
    gf_cuda_leave(theirs);
    return status;
}

/* The kernel's part of each lane, which reads the first filter. */
gfir_status gf_cuda_lanes_start(gfir_plan *plan)
{
    gf_cuda_state *st = plan->impl;
    int theirs;
    gfir_status status = gf_cuda_enter_plan(plan, &theirs, plan->detail, sizeof plan->detail);
    for (int i = 0; i < 2 && status == GFIR_OK; i++)
        status = st->lane_setup(plan, st, &st->lane[i]);
    gf_cuda_leave(theirs);
    if (status != GFIR_OK)
        return status;
    st->last = 1;
    st->zeroed = 1; /* every lane's buffer was zeroed at its create */
    gf_cuda_mark_started(plan->device);
    return GFIR_OK;
}

gfir_status gf_cuda_lanes_execute(gfir_plan *plan, const float *in, float *out, size_t n)
{
    int theirs;
    gfir_status status = gf_cuda_enter_plan(plan, &theirs, plan->detail, sizeof plan->detail);
    if (status == GFIR_OK)
        status = gf_cuda_execute(plan, in, out, n);
    gf_cuda_leave(theirs);
    return status;
}

gfir_status gf_cuda_lanes_execute_device(gfir_plan *plan, const gf_device_io *io, size_t n)
{
    int theirs;
    gfir_status status = gf_cuda_enter_plan(plan, &theirs, plan->detail, sizeof plan->detail);
    if (status == GFIR_OK)
        status = gf_cuda_execute_device(plan, io, n);
    gf_cuda_leave(theirs);
    return status;
}

gfir_status gf_cuda_lanes_convolve_device(gfir_plan *plan, const gf_device_io *io,
                                          size_t frames, size_t start, size_t length)
{
    int theirs;
    gfir_status status = gf_cuda_enter_plan(plan, &theirs, plan->detail, sizeof plan->detail);
    if (status == GFIR_OK)
        status = gf_cuda_convolve_device(plan, io, frames, start, length);
    gf_cuda_leave(theirs);
    return status;
}

gfir_status gf_cuda_lanes_set_taps_device(gfir_plan *plan, const float *taps, void *stream)
{
    int theirs;
    gfir_status status = gf_cuda_enter_plan(plan, &theirs, plan->detail, sizeof plan->detail);
    if (status == GFIR_OK)
        status = gf_cuda_set_taps_device(plan, taps, (cudaStream_t)stream);
    gf_cuda_leave(theirs);
    return status;
}

gfir_status gf_cuda_lanes_reset(gfir_plan *plan)
{
    int theirs;
    gfir_status status = gf_cuda_enter_plan(plan, &theirs, plan->detail, sizeof plan->detail);
    if (status == GFIR_OK)
        status = gf_cuda_reset(plan);
    gf_cuda_leave(theirs);
    return status;
}
