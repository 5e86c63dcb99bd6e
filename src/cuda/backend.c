/*
 * backend_cuda.c - the streaming CUDA backend.
 *
 * Each channel's halo lives on the device: a block is staged into a planar
 * buffer as [last ntaps - 1 inputs of the previous block | new samples], so the
 * history is never sent from the host again. Two such buffers alternate
 * (ping-pong) so staging never reads what it overwrites.
 *
 * A call is cut into sub-blocks that alternate between two streams with their
 * own pinned staging and device buffers: while one sub-block computes, the
 * next one's input is copied in and the previous one's output copied out.
 * Sub-block k+1's staging reads the buffer sub-block k staged, so it waits on
 * an event recorded after k's staging.
 *
 * The convolution step between staging and the copy out is the kernel's: a
 * direct launcher writing planar rows that a second pass interleaves, or the
 * FFT engine of kernels/fft/, which writes interleaved frames itself. Both
 * read the same staged buffer, so the lanes, the halo and the pipelining are
 * shared.
 */
#include "core/cache.h"
#include "fft/fft.h"
#include "kernels.h"
#include "core/plan.h"

#include <cuda_runtime_api.h>
#include <stdlib.h>
#include <string.h>

/* Calls larger than this are pipelined in sub-blocks of at least this size. */
#define PIPELINE_MIN_FRAMES ((size_t)1 << 16)
#define PIPELINE_DEPTH 8
/* An FFT sub-block recomputes its halo's worth of overlap: sub-blocks of at
 * least this many halos keep that under a quarter of the work. */
#define FFT_SUB_HALOS 4
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

typedef struct cuda_state cuda_state;

typedef struct cuda_lane {
    cudaStream_t stream;
    cudaEvent_t staged;     /* this lane's x buffer is complete */
    cudaEvent_t done;       /* this lane's output is in its pinned buffer */
    float *h_in, *h_out;    /* pinned, sub_frames * channels */
    float *d_in, *d_out;    /* interleaved, sub_frames * channels */
    float *d_x;             /* planar, channels * x_stride: halo then samples */
    float *d_y;             /* planar, channels * sub_frames; direct kernels only */
    gf_fft_engine *fft;   /* FFT kernel only */
    size_t n;               /* frames staged in d_x by the last use */
    float *dest;            /* where its pending output goes; NULL when none */
    int direct;             /* its output was copied to dest by the device itself */
} cuda_lane;

/* Convolves lane l's staged block of n frames into its d_out, interleaved. */
typedef gfir_status (*conv_step)(gfir_plan *plan, cuda_state *st, cuda_lane *l, size_t n);

struct cuda_state {
    cuda_lane lane[2];
    int last;               /* the lane that staged the newest block */
    size_t sub_frames;
    size_t halo;
    size_t x_stride;
    conv_step step;
    /* direct kernels */
    float *d_taps;          /* reversed, padded to taps_stride, per filter */
    size_t taps_stride;
    cudaError_t (*launch)(const gf_conv_args *, cudaStream_t);
    /* FFT kernel: the spectra both lanes' engines multiply by */
    gf_fft_filter *fft_filter;
};

static gfir_status cuda_error(gfir_plan *plan, cudaError_t e, const char *what)
{
    gfir_status st = e == cudaErrorMemoryAllocation ? GFIR_ERR_NOMEM : GFIR_ERR_DEVICE;
    return gf_fail(plan, st, "%s: %s", what, cudaGetErrorString(e));
}

#define CUDA_TRY(call)                                                                     \
    do {                                                                                   \
        cudaError_t e_ = (call);                                                           \
        if (e_ != cudaSuccess)                                                             \
            return cuda_error(plan, e_, #call);                                            \
    } while (0)

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

static void free_lane(cuda_lane *l)
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
}

static void cuda_destroy(gfir_plan *plan)
{
    cuda_state *st = plan->impl;
    if (!st)
        return;
    cudaSetDevice(plan->device);
    for (int i = 0; i < 2; i++) {
        if (st->lane[i].stream)
            cudaStreamSynchronize(st->lane[i].stream);
        free_lane(&st->lane[i]);
    }
    cudaFree(st->d_taps);
    gf_fft_filter_destroy(st->fft_filter);
    free(st);
    plan->impl = NULL;
}

static gfir_status alloc_lane(gfir_plan *plan, cuda_state *st, cuda_lane *l)
{
    const size_t ch = plan->channels, io = st->sub_frames * ch * sizeof(float);
    CUDA_TRY(cudaStreamCreateWithFlags(&l->stream, cudaStreamNonBlocking));
    CUDA_TRY(cudaEventCreateWithFlags(&l->staged, cudaEventDisableTiming));
    CUDA_TRY(cudaEventCreateWithFlags(&l->done, cudaEventDisableTiming));
    CUDA_TRY(cudaHostAlloc((void **)&l->h_in, io, cudaHostAllocDefault));
    CUDA_TRY(cudaHostAlloc((void **)&l->h_out, io, cudaHostAllocDefault));
    CUDA_TRY(cudaMalloc((void **)&l->d_in, io));
    CUDA_TRY(cudaMalloc((void **)&l->d_out, io));
    CUDA_TRY(cudaMalloc((void **)&l->d_x, ch * st->x_stride * sizeof(float)));
    /* zeros before the first sample: the halo of the first block. On the
     * lane's own stream, recorded as staged: the other lane's first staging
     * waits for that event, and a plain cudaMemset (legacy default stream)
     * would not be ordered before it. */
    CUDA_TRY(cudaMemsetAsync(l->d_x, 0, ch * st->x_stride * sizeof(float), l->stream));
    CUDA_TRY(cudaEventRecord(l->staged, l->stream));
    if (st->fft_filter)
        return gf_fft_engine_create(&l->fft, st->fft_filter, plan->channels, st->sub_frames,
                                      l->stream, 0, plan->detail, sizeof plan->detail);
    CUDA_TRY(cudaMalloc((void **)&l->d_y, io));
    return GFIR_OK;
}

static gfir_status upload_taps(gfir_plan *plan, cuda_state *st, const float *taps)
{
    const size_t ntaps = plan->ntaps, filters = plan->filter_channels;
    const size_t bytes = filters * st->taps_stride * sizeof(float);
    float *h = calloc(filters * st->taps_stride, sizeof *h);
    if (!h)
        return gf_fail(plan, GFIR_ERR_NOMEM, "out of host memory for %zu taps", ntaps);
    for (size_t f = 0; f < filters; f++)
        for (size_t k = 0; k < ntaps; k++)
            h[f * st->taps_stride + k] = taps[f * ntaps + ntaps - 1 - k];
    cudaError_t e = cudaMalloc((void **)&st->d_taps, bytes);
    if (e == cudaSuccess)
        e = cudaMemcpy(st->d_taps, h, bytes, cudaMemcpyHostToDevice);
    free(h);
    return e == cudaSuccess ? GFIR_OK : cuda_error(plan, e, "uploading taps");
}

static gfir_status direct_step(gfir_plan *plan, cuda_state *st, cuda_lane *me, size_t n)
{
    gf_conv_args a = {
        .d_x = me->d_x, .x_stride = st->x_stride, .d_taps = st->d_taps,
        .taps_stride = st->taps_stride, .shared_taps = plan->filter_channels == 1,
        .ntaps = plan->ntaps, .d_y = me->d_y, .y_stride = st->sub_frames, .n = n,
        .channels = plan->channels, .block_threads = 0,
    };
    CUDA_TRY(st->launch(&a, me->stream));
    CUDA_TRY(gf_launch_interleave(me->d_y, st->sub_frames, me->d_out, n, plan->channels,
                                    me->stream));
    return GFIR_OK;
}

/* The engine drops the wrapped samples while it interleaves: no d_y pass. */
static gfir_status fft_step(gfir_plan *plan, cuda_state *st, cuda_lane *me, size_t n)
{
    return gf_fft_run(me->fft, me->d_x, st->x_stride, n, me->d_out, plan->channels, 1,
                        plan->detail, sizeof plan->detail);
}

/* Block sizes: pipelined sub-blocks for big calls; for FFT, none so short that
 * the halo's overlap dominates. */
static size_t choose_sub_frames(const gfir_plan *plan)
{
    size_t sub = plan->block_frames;
    if (plan->block_frames >= 2 * PIPELINE_MIN_FRAMES) {
        sub = (plan->block_frames + PIPELINE_DEPTH - 1) / PIPELINE_DEPTH;
        sub = sub > PIPELINE_MIN_FRAMES ? sub : PIPELINE_MIN_FRAMES;
    }
    if (plan->kernel == GFIR_KERNEL_FFT) {
        const size_t halo = plan->ntaps - 1;
        const size_t fft_min = halo < plan->block_frames / FFT_SUB_HALOS
                                   ? FFT_SUB_HALOS * halo
                                   : plan->block_frames;
        sub = sub > fft_min ? sub : fft_min;
    }
    return sub;
}

static gfir_status cuda_create(gfir_plan *plan, const float *taps)
{
    static cudaError_t (*const launchers[])(const gf_conv_args *, cudaStream_t) = {
        [GFIR_KERNEL_BASIC] = gf_launch_basic,   [GFIR_KERNEL_CONSTANT] = gf_launch_constant,
        [GFIR_KERNEL_TILED] = gf_launch_tiled,   [GFIR_KERNEL_CACHED] = gf_launch_cached,
        [GFIR_KERNEL_DIRECT] = gf_launch_direct,
    };
    gfir_status status;
    cuda_state *st = calloc(1, sizeof *st);
    if (!st)
        return gf_fail(plan, GFIR_ERR_NOMEM, "out of host memory");
    plan->impl = st;
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e == cudaSuccess && (plan->device < 0 || plan->device >= count)) {
        free(st); /* nothing on a device yet, and no device to select */
        plan->impl = NULL;
        return gf_fail(plan, GFIR_ERR_ARG, "device %d does not exist (this machine has %d)",
                         plan->device, count);
    }
    if (e == cudaSuccess)
        e = cudaSetDevice(plan->device);
    if (e != cudaSuccess) {
        free(st);
        plan->impl = NULL;
        return cuda_error(plan, e, "cudaSetDevice");
    }

    st->halo = plan->ntaps - 1;
    st->sub_frames = choose_sub_frames(plan);
    /* rows rounded to 32 floats keep every channel's buffer 128-byte aligned */
    st->x_stride = (st->halo + st->sub_frames + 31) / 32 * 32;
    st->taps_stride = (plan->ntaps + GF_TAP_STEP - 1) / GF_TAP_STEP * GF_TAP_STEP;

    if (plan->kernel == GFIR_KERNEL_FFT) {
        const size_t part = gf_fft_part(plan->ntaps, st->sub_frames);
        st->step = fft_step;
        status = gf_fft_filter_create(
            &st->fft_filter, taps, plan->ntaps, plan->filter_channels,
            part ? 2 * part : gf_fft_size(plan->ntaps, st->sub_frames), part, 0, plan->detail,
            sizeof plan->detail);
    } else {
        st->step = direct_step;
        st->launch = launchers[plan->kernel];
        status = upload_taps(plan, st, taps);
    }
    for (int i = 0; i < 2 && status == GFIR_OK; i++)
        status = alloc_lane(plan, st, &st->lane[i]);
    if (status != GFIR_OK) {
        cuda_destroy(plan);
        return status;
    }
    st->last = 1;
    plan->latency_frames = 0;
    return GFIR_OK;
}

static void abandon(cuda_state *st);

static gfir_status cuda_reset(gfir_plan *plan)
{
    cuda_state *st = plan->impl;
    cuda_lane *l = &st->lane[st->last];
    CUDA_TRY(cudaSetDevice(plan->device));
    abandon(st);
    /* the next block takes its halo from lane `last` at offset n: make it
     * zeros, ordered before that staging as at create */
    l->n = 0;
    CUDA_TRY(cudaMemsetAsync(l->d_x, 0, plan->channels * st->x_stride * sizeof(float), l->stream));
    CUDA_TRY(cudaEventRecord(l->staged, l->stream));
    return GFIR_OK;
}

/* Queues one sub-block on lane `me`, after lane `prev` staged the previous one.
 * src and dst are host memory the copies use directly: the caller's own when
 * it is pinned, else the lane's pinned staging; src is NULL for silence. */
static gfir_status enqueue(gfir_plan *plan, cuda_state *st, cuda_lane *me, cuda_lane *prev,
                           const float *src, float *dst, size_t n)
{
    const size_t ch = plan->channels, bytes = n * ch * sizeof(float);
    gfir_status status;
    if (src)
        CUDA_TRY(cudaMemcpyAsync(me->d_in, src, bytes, cudaMemcpyHostToDevice, me->stream));
    CUDA_TRY(cudaStreamWaitEvent(me->stream, prev->staged, 0));
    CUDA_TRY(gf_launch_stage(prev->d_x, prev->n, me->d_x, st->x_stride, st->halo,
                               src ? me->d_in : NULL, n, plan->channels, me->stream));
    CUDA_TRY(cudaEventRecord(me->staged, me->stream));
    status = st->step(plan, st, me, n);
    if (status != GFIR_OK)
        return status;
    CUDA_TRY(cudaMemcpyAsync(dst, me->d_out, bytes, cudaMemcpyDeviceToHost, me->stream));
    CUDA_TRY(cudaEventRecord(me->done, me->stream));
    me->n = n;
    return GFIR_OK;
}

/* Waits for lane l's output and hands it to the caller. */
static gfir_status collect(gfir_plan *plan, cuda_lane *l)
{
    float *dest = l->dest;
    l->dest = NULL;
    CUDA_TRY(cudaEventSynchronize(l->done));
    if (!l->direct)
        memcpy(dest, l->h_out, l->n * plan->channels * sizeof(float));
    return GFIR_OK;
}

/* After a failure nothing in flight is handed back. */
static void abandon(cuda_state *st)
{
    for (int i = 0; i < 2; i++) {
        cudaStreamSynchronize(st->lane[i].stream);
        st->lane[i].dest = NULL;
    }
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

static gfir_status cuda_execute(gfir_plan *plan, const float *in, float *out, size_t n)
{
    cuda_state *st = plan->impl;
    const size_t ch = plan->channels;
    gfir_status status = GFIR_OK;
    /* the calling thread may not be the one that made the plan */
    CUDA_TRY(cudaSetDevice(plan->device));
    const int in_pinned = is_pinned(in), out_pinned = is_pinned(out);

    for (size_t done = 0, m; done < n && status == GFIR_OK; done += m) {
        cuda_lane *me = &st->lane[1 - st->last], *prev = &st->lane[st->last];
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
        status = enqueue(plan, st, me, prev, src, out_pinned ? out + done * ch : me->h_out, m);
        me->dest = out + done * ch;
        st->last = 1 - st->last;
    }
    /* the older lane first, then the newest */
    for (int i = 0; i < 2 && status == GFIR_OK; i++) {
        cuda_lane *l = &st->lane[(st->last + 1 + i) % 2];
        if (l->dest)
            status = collect(plan, l);
    }
    if (status != GFIR_OK)
        abandon(st);
    return status;
}

const gf_backend_ops gf_cuda_backend = {
    .name = "cuda",
    .id = GFIR_BACKEND_CUDA,
    .available = cuda_available,
    .choose_kernel = cuda_choose_kernel,
    .create = cuda_create,
    .execute = cuda_execute,
    .reset = cuda_reset,
    .destroy = cuda_destroy,
};
