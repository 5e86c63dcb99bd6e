/*
 * layout.cu - moving samples between the interleaved frames callers use and
 * the planar, halo-prefixed buffers the convolution kernels read.
 */
#include "kernels.h"

/* Threads per block of both copies: 8 warps, untuned. Each moves every sample
 * once, bound by memory traffic; Table 2 of gfir-bench times them inside the
 * plan API. */
#define LAYOUT_THREADS 256

/* One thread per element of x_cur[c]: halo first (from the previous block),
 * then the block's new samples. Reading the interleaved input with a stride of
 * `channels` is served by L2: each sector is read by every channel's blocks. */
__global__ void stage_kernel(const float *__restrict__ x_prev, size_t prev_n,
                             float *__restrict__ x_cur, size_t x_stride, size_t halo,
                             const float *__restrict__ in, size_t n, unsigned channels)
{
    const size_t j = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    const unsigned c = blockIdx.y;
    if (j >= halo + n)
        return;
    float v;
    if (j < halo)
        v = x_prev[c * x_stride + prev_n + j];
    else
        v = in ? in[(j - halo) * channels + c] : 0.0f;
    x_cur[c * x_stride + j] = v;
}

__global__ void interleave_kernel(const float *__restrict__ y, size_t y_stride,
                                  float *__restrict__ out, size_t n, unsigned channels)
{
    const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    for (unsigned c = 0; c < channels; c++)
        out[i * channels + c] = y[c * y_stride + i];
}

extern "C" cudaError_t gf_launch_stage(const float *d_x_prev, size_t prev_n, float *d_x_cur,
                                         size_t x_stride, size_t halo, const float *d_in,
                                         size_t n, unsigned channels, cudaStream_t stream)
{
    if (!d_x_prev || !d_x_cur || channels == 0 || channels > GF_GRID_Y_MAX ||
        d_x_prev == d_x_cur || x_stride < halo + n || x_stride < halo + prev_n)
        return cudaErrorInvalidValue;
    if (halo + n == 0)
        return cudaSuccess;
    dim3 grid((unsigned)((halo + n + LAYOUT_THREADS - 1) / LAYOUT_THREADS), channels);
    stage_kernel<<<grid, LAYOUT_THREADS, 0, stream>>>(d_x_prev, prev_n, d_x_cur, x_stride, halo,
                                                      d_in, n, channels);
    return cudaGetLastError();
}

extern "C" cudaError_t gf_launch_interleave(const float *d_y, size_t y_stride, float *d_out,
                                              size_t n, unsigned channels, cudaStream_t stream)
{
    if (!d_y || !d_out || channels == 0 || y_stride < n)
        return cudaErrorInvalidValue;
    if (n == 0)
        return cudaSuccess;
    const unsigned blocks = (unsigned)((n + LAYOUT_THREADS - 1) / LAYOUT_THREADS);
    interleave_kernel<<<blocks, LAYOUT_THREADS, 0, stream>>>(d_y, y_stride, d_out, n, channels);
    return cudaGetLastError();
}
