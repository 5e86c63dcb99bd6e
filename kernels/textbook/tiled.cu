/*
 * tiled.cu - PMPP 7.4: each block stages its input tile plus the halo cells
 * (the ntaps - 1 inputs beyond the tile that its last outputs need) in shared
 * memory, then every output reads only shared memory. The shared memory is
 * sized from blockDim and ntaps; when the halo does not fit, the taps are
 * processed in segments, each with its own tile.
 */
#include "textbook.cuh"

/* Stay within the 48 KB every block gets without opting in. */
#define TILED_SMEM_BYTES (48 * 1024)

__global__ void tiled_kernel(gf_conv_args a, unsigned segment)
{
    extern __shared__ float s_tile[];
    const unsigned c = blockIdx.y, t = threadIdx.x, block = blockDim.x;
    const size_t base = blockIdx.x * (size_t)block;
    const size_t inputs = a.n + a.ntaps - 1;
    const float *x = a.d_x + c * a.x_stride;
    const float *h = gf_taps_of(a, c);
    float acc = 0.0f;

    for (size_t s0 = 0; s0 < a.ntaps; s0 += segment) {
        const unsigned seg = (unsigned)min((size_t)segment, a.ntaps - s0);
        const unsigned tile = block + seg - 1;
        __syncthreads(); /* the previous segment's tile is no longer read */
        for (unsigned j = t; j < tile; j += block) {
            const size_t g = base + s0 + j;
            s_tile[j] = g < inputs ? x[g] : 0.0f;
        }
        __syncthreads();
        for (unsigned m = 0; m < seg; m++)
            acc += h[s0 + m] * s_tile[t + m];
    }
    if (base + t < a.n)
        a.d_y[c * a.y_stride + base + t] = acc;
}

extern "C" cudaError_t gf_launch_tiled(const gf_conv_args *a, cudaStream_t stream)
{
    cudaError_t e = gf_check_args(a);
    if (e != cudaSuccess || a->n == 0)
        return e;
    const unsigned threads = gf_threads(a);
    const size_t fit = TILED_SMEM_BYTES / sizeof(float) - threads + 1;
    const unsigned segment = (unsigned)(a->ntaps < fit ? a->ntaps : fit);
    const size_t smem = (threads + segment - 1) * sizeof(float);
    dim3 grid((unsigned)((a->n + threads - 1) / threads), a->channels);
    tiled_kernel<<<grid, threads, smem, stream>>>(*a, segment);
    return cudaGetLastError();
}
