/*
 * constant.cu - PMPP 7.3: taps in __constant__ memory, where a warp reading
 * the same tap is served by one broadcast from the constant cache.
 *
 * The bank is one per device for the whole process, and each plan's taps
 * must be in it while that plan's kernel runs. So every call copies its taps
 * in and launches on the device's one bank queue (a stream of this file's),
 * under a lock held only while those are queued: on the queue, a copy can
 * land only after the previous launch has read its taps, whichever plan or
 * thread that was. The caller's stream hands over to the queue through an
 * event and waits for the launch through another, so its own order holds.
 * The price is that constant-kernel launches of different plans (and of a
 * plan's two lanes) no longer overlap one another; the lanes' copies to and
 * from the host still overlap them.
 *
 * Slots of the bank per plan, loaded once, were the other way: they would
 * refuse a plan whenever the live plans' taps passed 16384 together, where
 * gfir.h states the limit per plan (ntaps * filters <= 16384).
 */
#include "textbook.cuh"

#include <pthread.h>
#include <stdlib.h>

__constant__ float c_taps[GF_CONSTANT_MAX_TAPS];

__global__ void constant_kernel(gf_conv_args a)
{
    const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    const unsigned c = blockIdx.y;
    if (i >= a.n)
        return;
    const float *x = a.d_x + c * a.x_stride;
    const float *h = c_taps + (a.shared_taps ? 0 : c * a.ntaps);
    float acc = 0.0f;
    for (size_t m = 0; m < a.ntaps; m++)
        acc += h[m] * x[i + m];
    a.d_y[c * a.y_stride + i] = acc;
}

extern "C" int gf_constant_fits(size_t ntaps, unsigned filters)
{
    return ntaps <= GF_CONSTANT_MAX_TAPS / (filters ? filters : 1);
}

/* A device's bank queue: its stream, and the events the caller's stream and
 * the queue wait on. Made at a device's first launch and kept for the
 * process, as the bank itself is. */
typedef struct bank_queue {
    int made;
    cudaStream_t stream;
    cudaEvent_t handed;  /* the caller's work before the launch is done */
    cudaEvent_t read;    /* the launch is done */
} bank_queue;

/* Guards the queue table and keeps each call's copies and launch together. */
static pthread_mutex_t bank_lock = PTHREAD_MUTEX_INITIALIZER;
static bank_queue *queues; /* one per device, indexed by ordinal */
static int queue_count;

/* The current device's queue, made on first use; under bank_lock. */
static cudaError_t current_queue(bank_queue **out)
{
    int device;
    cudaError_t e = cudaGetDevice(&device);
    if (e == cudaSuccess && !queues) {
        int count = 0;
        e = cudaGetDeviceCount(&count);
        if (e == cudaSuccess) {
            queues = (bank_queue *)calloc(count > 0 ? (size_t)count : 1, sizeof *queues);
            if (!queues)
                return cudaErrorMemoryAllocation;
            queue_count = count;
        }
    }
    if (e != cudaSuccess)
        return e;
    if (device < 0 || device >= queue_count)
        return cudaErrorInvalidDevice;
    bank_queue *q = &queues[device];
    if (!q->made) {
        e = cudaStreamCreateWithFlags(&q->stream, cudaStreamNonBlocking);
        if (e == cudaSuccess)
            e = cudaEventCreateWithFlags(&q->handed, cudaEventDisableTiming);
        if (e == cudaSuccess)
            e = cudaEventCreateWithFlags(&q->read, cudaEventDisableTiming);
        if (e != cudaSuccess) {
            /* half made: none of it is kept, the next call tries again */
            if (q->stream)
                cudaStreamDestroy(q->stream);
            if (q->handed)
                cudaEventDestroy(q->handed);
            q->stream = NULL;
            q->handed = NULL;
            return e;
        }
        q->made = 1;
    }
    *out = q;
    return cudaSuccess;
}

/* This call's taps, packed, into the bank, and the launch: on q's stream
 * after the caller's stream's work so far; the caller's stream waits. */
static cudaError_t launch_on_queue(const gf_conv_args *a, unsigned filters, bank_queue *q,
                                   cudaStream_t stream)
{
    cudaError_t e = cudaEventRecord(q->handed, stream);
    if (e == cudaSuccess)
        e = cudaStreamWaitEvent(q->stream, q->handed, 0);
    for (unsigned f = 0; f < filters && e == cudaSuccess; f++)
        e = cudaMemcpyToSymbolAsync(c_taps, a->d_taps + f * a->taps_stride,
                                    a->ntaps * sizeof(float), f * a->ntaps * sizeof(float),
                                    cudaMemcpyDeviceToDevice, q->stream);
    if (e != cudaSuccess)
        return e;
    const unsigned threads = gf_threads(a);
    dim3 grid((unsigned)((a->n + threads - 1) / threads), a->channels);
    constant_kernel<<<grid, threads, 0, q->stream>>>(*a);
    e = cudaGetLastError();
    if (e != cudaSuccess)
        return e;
    e = cudaEventRecord(q->read, q->stream);
    if (e == cudaSuccess)
        e = cudaStreamWaitEvent(stream, q->read, 0);
    if (e != cudaSuccess)
        /* the caller's stream will not wait for the launch: finish it here,
         * before the caller can free what it reads */
        cudaStreamSynchronize(q->stream);
    return e;
}

extern "C" cudaError_t gf_constant_prepare(void)
{
    bank_queue *q = NULL;
    pthread_mutex_lock(&bank_lock);
    const cudaError_t e = current_queue(&q);
    pthread_mutex_unlock(&bank_lock);
    return e;
}

extern "C" cudaError_t gf_launch_constant(const gf_conv_args *a, cudaStream_t stream)
{
    cudaError_t e = gf_check_args(a);
    if (e != cudaSuccess || a->n == 0)
        return e;
    const unsigned filters = a->shared_taps ? 1 : a->channels;
    if (!gf_constant_fits(a->ntaps, filters))
        return cudaErrorInvalidValue;
    bank_queue *q = NULL;
    pthread_mutex_lock(&bank_lock);
    e = current_queue(&q);
    if (e == cudaSuccess)
        e = launch_on_queue(a, filters, q, stream);
    pthread_mutex_unlock(&bank_lock);
    return e;
}
