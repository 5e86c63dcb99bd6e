/*
 * roundtrip_bench.cu - what getting one period's work onto a GPU and its
 * result back costs, by mechanism, with no filtering in it: the floor under
 * the delay-line engine's live calls (src/cuda/fdl.c), for issue 29's
 * question of launches against a persistent kernel. Each call, on the
 * period's clock as tools/live_bench.c calls the library, writes a period of
 * interleaved input into mapped pinned memory, has the GPU copy it to a
 * mapped output (times a gain: every word crosses the bus both ways, as the
 * engine's staging and head do), and waits for it, by one of:
 *
 *   graph       a CUDA graph of that one kernel, launched each call, its
 *               event spun on (the engine's way since fdl_graph.c);
 *   launch      the kernel launched each call, its event spun on;
 *   persistent  one kernel launched once that never returns: a block spins
 *               on a sequence word in mapped memory, does the copy when the
 *               host bumps it, and answers in another word the host spins on;
 *   persistent-grid  the same with a block per 1024 words (at most 32), the
 *               last block to finish answering for all.
 *
 *   roundtrip_bench [--mode graph|launch|persistent|persistent-grid] [--channels N]
 *                   [--period FRAMES] [--rate HZ] [--seconds S] [--header]
 *
 * Prints one Markdown row: the round trip's median, p99, p99.9 and maximum,
 * and the calls that took longer than a period; each output is checked.
 */
#include <cuda_runtime.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "period_clock.h"

#define THREADS 256

__global__ void copy_kernel(const float *__restrict__ in, float *__restrict__ out, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        out[i] = 0.5f * in[i];
}

/* The persistent block: ring[0] is the host's sequence (0: stop), ring[1]
 * the answer. */
__global__ void persistent_kernel(const float *in, float *out, size_t n, volatile unsigned *ring)
{
    __shared__ unsigned seq;
    unsigned seen = 0;
    for (;;) {
        if (threadIdx.x == 0) {
            unsigned s;
            while ((s = ring[0]) == seen)
                ;
            seq = s;
        }
        __syncthreads();
        const unsigned s = seq;
        if (s == 0xFFFFFFFFu)
            return;
        __threadfence_system(); /* the input, written before the sequence */
        for (size_t i = threadIdx.x; i < n; i += blockDim.x)
            out[i] = 0.5f * ((volatile const float *)in)[i];
        __threadfence_system(); /* the output, before the answer */
        __syncthreads();
        if (threadIdx.x == 0)
            ring[1] = s;
        seen = s;
    }
}

/* The same with `gridDim.x` blocks, each copying its share: every block
 * spins on the sequence, and the last to finish (a count in device memory)
 * answers for all. */
__global__ void persistent_grid_kernel(const float *in, float *out, size_t n,
                                       volatile unsigned *ring, unsigned *arrived)
{
    __shared__ unsigned seq;
    unsigned seen = 0;
    for (;;) {
        if (threadIdx.x == 0) {
            unsigned s;
            while ((s = ring[0]) == seen)
                ;
            seq = s;
        }
        __syncthreads();
        const unsigned s = seq;
        if (s == 0xFFFFFFFFu)
            return;
        __threadfence_system();
        for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
             i += (size_t)gridDim.x * blockDim.x)
            out[i] = 0.5f * ((volatile const float *)in)[i];
        __threadfence_system();
        __syncthreads();
        if (threadIdx.x == 0 && atomicAdd(arrived, 1u) == gridDim.x - 1) {
            atomicExch(arrived, 0u);
            __threadfence_system();
            ring[1] = s;
        }
        seen = s;
    }
}

static int cmp(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

#define CK(call)                                                                               \
    do {                                                                                       \
        cudaError_t e_ = (call);                                                               \
        if (e_ != cudaSuccess) {                                                               \
            fprintf(stderr, "roundtrip_bench: %s: %s\n", #call, cudaGetErrorString(e_));       \
            return 1;                                                                          \
        }                                                                                      \
    } while (0)

int main(int argc, char **argv)
{
    const char *mode = "graph";
    unsigned channels = 128;
    size_t period = 32;
    double rate = 48000, seconds = 10;
    int header = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--header")) {
            header = 1;
            continue;
        }
        if (!v) {
            fprintf(stderr, "roundtrip_bench: %s needs a value\n", a);
            return 2;
        }
        i++;
        if (!strcmp(a, "--mode"))
            mode = v;
        else if (!strcmp(a, "--channels"))
            channels = (unsigned)atoi(v);
        else if (!strcmp(a, "--period"))
            period = (size_t)atol(v);
        else if (!strcmp(a, "--rate"))
            rate = atof(v);
        else if (!strcmp(a, "--seconds"))
            seconds = atof(v);
        else {
            fprintf(stderr, "roundtrip_bench: unknown option %s\n", a);
            return 2;
        }
    }
    const int grid = !strcmp(mode, "persistent-grid");
    const int persistent = grid || !strcmp(mode, "persistent"), graph = !strcmp(mode, "graph");
    if (!persistent && !graph && strcmp(mode, "launch")) {
        fprintf(stderr, "roundtrip_bench: --mode is graph, launch, persistent or persistent-grid\n");
        return 2;
    }
    if (!channels || !period || rate <= 0 || seconds <= 0) {
        fprintf(stderr, "roundtrip_bench: channels, period, rate and seconds must be positive\n");
        return 2;
    }
    const size_t n = period * channels;
    const double period_s = (double)period / rate;
    const size_t calls = (size_t)(seconds / period_s), warm = (size_t)(1.0 / period_s) + 1;
    if (calls == 0) {
        fprintf(stderr, "roundtrip_bench: --seconds %g is shorter than one period\n", seconds);
        return 2;
    }
    float *h_in, *h_out, *d_in, *d_out;
    unsigned *ring, *d_ring;
    cudaStream_t stream;
    cudaEvent_t done;
    cudaGraphExec_t exec = NULL;
    double *took = (double *)malloc(calls * sizeof *took);
    float *src = (float *)malloc(n * sizeof *src);
    if (!took || !src) {
        fprintf(stderr, "roundtrip_bench: out of memory\n");
        return 1;
    }
    CK(cudaSetDeviceFlags(cudaDeviceMapHost));
    CK(cudaHostAlloc((void **)&h_in, n * sizeof(float), cudaHostAllocMapped));
    CK(cudaHostAlloc((void **)&h_out, n * sizeof(float), cudaHostAllocMapped));
    CK(cudaHostAlloc((void **)&ring, 2 * sizeof(unsigned), cudaHostAllocMapped));
    CK(cudaHostGetDevicePointer((void **)&d_in, h_in, 0));
    CK(cudaHostGetDevicePointer((void **)&d_out, h_out, 0));
    CK(cudaHostGetDevicePointer((void **)&d_ring, ring, 0));
    ring[0] = ring[1] = 0;
    CK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    CK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
    const unsigned blocks = (unsigned)((n + THREADS - 1) / THREADS);
    if (graph) {
        cudaGraph_t g;
        CK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
        copy_kernel<<<blocks, THREADS, 0, stream>>>(d_in, d_out, n);
        CK(cudaStreamEndCapture(stream, &g));
        CK(cudaGraphInstantiate(&exec, g, 0));
        CK(cudaGraphDestroy(g));
    }
    unsigned *d_arrived = NULL;
    if (grid) {
        /* one block a 1024 words, at most 32: all resident at once on any GPU */
        const unsigned nb = (unsigned)((n + 1023) / 1024 < 32 ? (n + 1023) / 1024 : 32);
        CK(cudaMalloc((void **)&d_arrived, sizeof *d_arrived));
        CK(cudaMemset(d_arrived, 0, sizeof *d_arrived));
        persistent_grid_kernel<<<nb, THREADS, 0, stream>>>(d_in, d_out, n,
                                                           (volatile unsigned *)d_ring, d_arrived);
        CK(cudaGetLastError());
    } else if (persistent) {
        persistent_kernel<<<1, THREADS, 0, stream>>>(d_in, d_out, n, (volatile unsigned *)d_ring);
        CK(cudaGetLastError());
    }
    volatile unsigned *vring = ring;
    unsigned long misses = 0, wrong = 0;
    unsigned seq = 0;
    double start = 0;
    for (size_t k = 0; k < warm + calls; k++) {
        for (size_t i = 0; i < n; i++)
            src[i] = (float)((k * 7919u + i * 104729u) % 65521u) - 32760.0f;
        if (k == warm)
            start = now_s();
        if (k >= warm)
            sleep_until(start + (double)(k - warm) * period_s);
        const double t0 = now_s();
        memcpy(h_in, src, n * sizeof(float));
        if (persistent) {
            seq = seq + 1 == 0xFFFFFFFFu ? 1 : seq + 1;
            __sync_synchronize();
            vring[0] = seq;
            while (vring[1] != seq)
                ;
        } else {
            if (graph)
                CK(cudaGraphLaunch(exec, stream));
            else
                copy_kernel<<<blocks, THREADS, 0, stream>>>(d_in, d_out, n);
            CK(cudaEventRecord(done, stream));
            cudaError_t e;
            while ((e = cudaEventQuery(done)) == cudaErrorNotReady)
                ;
            CK(e);
        }
        for (size_t i = 0; i < n; i++)
            wrong += ((volatile float *)h_out)[i] != 0.5f * src[i];
        const double t = now_s() - t0;
        if (k >= warm) {
            took[k - warm] = t;
            misses += t > period_s;
        }
    }
    if (persistent) {
        vring[0] = 0xFFFFFFFFu;
        CK(cudaStreamSynchronize(stream));
    }
    if (wrong) {
        fprintf(stderr, "roundtrip_bench: %lu output words wrong\n", wrong);
        return 1;
    }
    qsort(took, calls, sizeof *took, cmp);
    if (header)
        printf("| mechanism | channels | period | median ms | p99 ms | p99.9 ms | max ms | "
               "p99.9 / period | over a period |\n|---|---|---|---|---|---|---|---|---|\n");
    printf("| %s | %u | %zu (%.3f ms) | %.3f | %.3f | %.3f | %.3f | %.0f%% | %lu of %zu |\n", mode,
           channels, period, 1e3 * period_s, 1e3 * took[(calls - 1) / 2],
           1e3 * took[(size_t)(0.99 * (double)(calls - 1))],
           1e3 * took[(size_t)(0.999 * (double)(calls - 1))], 1e3 * took[calls - 1],
           100.0 * took[(size_t)(0.999 * (double)(calls - 1))] / period_s, misses, calls);
    if (exec)
        cudaGraphExecDestroy(exec);
    cudaFree(d_arrived);
    cudaFreeHost(h_in);
    cudaFreeHost(h_out);
    cudaFreeHost(ring);
    free(took);
    free(src);
    return 0;
}
