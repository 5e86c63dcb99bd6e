/*
 * fdl_engine.c - the CUDA delay-line engine ("cuda-fdl"): long filters at
 * small calls, zero latency (fdl.c's state and host calls, fdl_device.c's
 * device calls). It serves the FFT kernel for calls of at most
 * GF_CUDA_FDL_MAX_BLOCK frames (tuning.h) and runs paths natively. Every
 * entry point runs inside the device guard (guard.h).
 */
#include "core/trace.h"
#include "cuda/backend.h"
#include "cuda/fdl_state.h"
#include "cuda/guard.h"
#include "cuda/tuning.h"

/* B for calls of up to block_frames frames: calls of B frames each end on a
 * block boundary, which keeps the tail's work off their clock. */
static size_t partition_for(size_t block_frames)
{
    size_t p = GF_FDL_MIN_PART;
    while (p * 2 <= block_frames && p * 2 <= GF_FDL_MAX_PART)
        p *= 2;
    return p;
}

/* The FFT kernel (named, or AUTO past the device's crossover) for calls of
 * at most GF_CUDA_FDL_MAX_BLOCK frames; paths run natively, so the lanes'
 * channel limit does not apply. */
static int fdl_applies(gfir_plan *plan, gfir_kernel requested)
{
    if (plan->block_frames > GF_CUDA_FDL_MAX_BLOCK || !gf_cuda_wants_fft(plan, requested))
        return 0;
    plan->kernel = GFIR_KERNEL_FFT;
    plan->partition = partition_for(plan->block_frames);
    return 1;
}

#define GUARDED(call)                                                                          \
    do {                                                                                       \
        int theirs_;                                                                           \
        gfir_status s_ = gf_cuda_enter_plan(plan, &theirs_, plan->detail, sizeof plan->detail); \
        if (s_ == GFIR_OK)                                                                     \
            s_ = (call);                                                                       \
        gf_cuda_leave(theirs_);                                                                \
        return s_;                                                                             \
    } while (0)

static gfir_status fdl_create(gfir_plan *plan)
{
    const gfir_status s = gf_cuda_device_exists(plan);
    if (s != GFIR_OK)
        return s;
    GUARDED(gf_fdl_create(plan));
}

static gfir_status fdl_start(gfir_plan *plan)
{
    GUARDED(gf_fdl_start(plan));
}

static gfir_status fdl_fade_begin(gfir_plan *plan)
{
    GUARDED(gf_fdl_fade_begin(plan, plan->impl));
}

static void fdl_fade_end(gfir_plan *plan)
{
    int theirs;
    (void)gf_cuda_enter(plan->device, &theirs);
    gf_fdl_fade_end(plan);
    gf_cuda_leave(theirs);
}

static gfir_status fdl_execute(gfir_plan *plan, const float *in, float *out, size_t n)
{
    GUARDED(gf_fdl_execute(plan, in, out, n));
}

static gfir_status fdl_launch(gfir_plan *plan, const float *in, size_t n)
{
    GUARDED(gf_fdl_launch(plan, in, n));
}

static gfir_status fdl_finish(gfir_plan *plan, float *out, size_t n)
{
    GUARDED(gf_fdl_finish(plan, out, n));
}

static gfir_status fdl_execute_device(gfir_plan *plan, const gf_device_io *io, size_t n)
{
    GUARDED(gf_fdl_execute_device(plan, plan->impl, io, n));
}

static gfir_status fdl_convolve_device(gfir_plan *plan, const gf_device_io *io, size_t frames,
                                       size_t start, size_t length)
{
    GUARDED(gf_fdl_convolve_device(plan, plan->impl, io, frames, start, length));
}

static gfir_status fdl_set_taps_device(gfir_plan *plan, const float *taps, void *stream)
{
    GUARDED(gf_fdl_set_taps_device(plan, plan->impl, taps, (cudaStream_t)stream));
}

static gfir_status fdl_trace_start(gfir_plan *plan)
{
    GUARDED(gf_fdl_trace_start(plan));
}

static gfir_status fdl_trace_last(const gfir_plan *plan, gf_call_trace *out)
{
    int theirs;
    gfir_status s = gf_cuda_enter(plan->device, &theirs) == cudaSuccess ? GFIR_OK
                                                                         : GFIR_ERR_DEVICE;
    if (s == GFIR_OK)
        s = gf_fdl_trace_last(plan, out);
    gf_cuda_leave(theirs);
    return s;
}

static gfir_status fdl_reset(gfir_plan *plan)
{
    GUARDED(gf_fdl_reset(plan));
}

const gf_engine gf_cuda_fdl_engine = {
    .name = "cuda-fdl",
    .backend = &gf_cuda_backend,
    .applies = fdl_applies,
    .latency = gf_cuda_no_latency,
    .takes_paths = 1,
    .create = fdl_create,
    .start = fdl_start,
    .prepare = gf_fdl_prepare,
    .fade_begin = fdl_fade_begin,
    .fade_end = fdl_fade_end,
    .execute = fdl_execute,
    .launch = fdl_launch,
    .finish = fdl_finish,
    .execute_device = fdl_execute_device,
    .convolve_device = fdl_convolve_device,
    .set_taps_device = fdl_set_taps_device,
    .trace_start = fdl_trace_start,
    .trace_last = fdl_trace_last,
    .reset = fdl_reset,
    .destroy = gf_fdl_destroy,
};
