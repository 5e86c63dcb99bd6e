/*
 * layout.cu - moving samples between the layouts callers use (interleaved
 * frames, planar rows, any strides) and the planar, halo-prefixed buffers
 * the convolution kernels read, reversing tap sets for the direct kernels,
 * and mixing two filters' outputs during a crossfade.
 */
#include "kernels.h"

/* Threads per block of both copies: 8 warps, untuned. Each moves every sample
 * once, bound by memory traffic; Table 2 of gfir-bench times them inside the
 * plan API. */
#define LAYOUT_THREADS 256

/* One thread per element of x_cur[c]: halo first (from the previous block),
 * then the block's new samples. Reading interleaved input with a stride of
 * `channels` is served by L2: each sector is read by every channel's blocks. */
__global__ void stage_kernel(const float *__restrict__ x_prev, size_t prev_n,
                             float *__restrict__ x_cur, size_t x_stride, size_t halo,
                             const float *__restrict__ in, size_t in_stride, size_t in_dist,
                             size_t n)
{
    const size_t j = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    const unsigned c = blockIdx.y;
    if (j >= halo + n)
        return;
    float v;
    if (j < halo)
        v = x_prev[c * x_stride + prev_n + j];
    else
        v = in ? in[(j - halo) * in_stride + c * in_dist] : 0.0f;
    x_cur[c * x_stride + j] = v;
}

/* One thread per element of x[c]: lead zeros, then samples base .. of the
 * signal, zeros past its end. */
__global__ void window_kernel(const float *__restrict__ in, size_t in_stride, size_t in_dist,
                              size_t frames, size_t lead, size_t base, float *__restrict__ x,
                              size_t x_stride, size_t len)
{
    const size_t j = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    const unsigned c = blockIdx.y;
    if (j >= len)
        return;
    const size_t k = base + j - lead; /* wraps past frames below lead */
    x[c * x_stride + j] = j >= lead && k < frames ? in[k * in_stride + c * in_dist] : 0.0f;
}

/* One thread per sample (i, c); consecutive threads take consecutive frames
 * of one channel, so planar sides are coalesced and interleaved ones meet in L2. */
__global__ void restride_kernel(const float *__restrict__ src, size_t src_stride,
                                size_t src_dist, float *__restrict__ dst, size_t dst_stride,
                                size_t dst_dist, size_t n)
{
    const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    const unsigned c = blockIdx.y;
    if (i < n)
        dst[i * dst_stride + c * dst_dist] = src[i * src_stride + c * src_dist];
}

/* One thread per sample (i, c), as restride; the weight in double, as the
 * host's (core/swap.c), which --use_fast_math leaves exact. */
__global__ void crossfade_kernel(float *__restrict__ out, size_t out_stride, size_t out_dist,
                                 const float *__restrict__ y_new, size_t new_stride,
                                 size_t new_dist, size_t n, size_t fade_pos, size_t fade_len)
{
    const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    const unsigned c = blockIdx.y;
    if (i >= n)
        return;
    const float w = (float)(0.5 - 0.5 * cospi(((double)(fade_pos + i) + 0.5) / (double)fade_len));
    float *o = out + i * out_stride + c * out_dist;
    *o = (1.0f - w) * *o + w * y_new[i * new_stride + c * new_dist];
}

/* Thread k of tap set f: reversed tap k, as gf_conv_args.d_taps holds them. */
__global__ void reverse_kernel(const float *__restrict__ taps, size_t ntaps,
                               float *__restrict__ hr, size_t hr_stride)
{
    const size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    const unsigned f = blockIdx.y;
    if (k < ntaps)
        hr[f * hr_stride + k] = taps[f * ntaps + ntaps - 1 - k];
}

extern "C" cudaError_t gf_launch_stage(const float *d_x_prev, size_t prev_n, float *d_x_cur,
                                         size_t x_stride, size_t halo, const float *d_in,
                                         size_t in_stride, size_t in_dist, size_t n,
                                         unsigned channels, cudaStream_t stream)
{
    if (!d_x_prev || !d_x_cur || channels == 0 || channels > GF_GRID_Y_MAX ||
        d_x_prev == d_x_cur || x_stride < halo + n || x_stride < halo + prev_n)
        return cudaErrorInvalidValue;
    if (halo + n == 0)
        return cudaSuccess;
    dim3 grid((unsigned)((halo + n + LAYOUT_THREADS - 1) / LAYOUT_THREADS), channels);
    stage_kernel<<<grid, LAYOUT_THREADS, 0, stream>>>(d_x_prev, prev_n, d_x_cur, x_stride, halo,
                                                      d_in, in_stride, in_dist, n);
    return cudaGetLastError();
}

extern "C" cudaError_t gf_launch_window(const float *d_in, size_t in_stride, size_t in_dist,
                                        size_t frames, size_t lead, size_t base, float *d_x,
                                        size_t x_stride, size_t len, unsigned channels,
                                        cudaStream_t stream)
{
    if (!d_in || !d_x || channels == 0 || channels > GF_GRID_Y_MAX || x_stride < len)
        return cudaErrorInvalidValue;
    if (len == 0)
        return cudaSuccess;
    dim3 grid((unsigned)((len + LAYOUT_THREADS - 1) / LAYOUT_THREADS), channels);
    window_kernel<<<grid, LAYOUT_THREADS, 0, stream>>>(d_in, in_stride, in_dist, frames, lead,
                                                       base, d_x, x_stride, len);
    return cudaGetLastError();
}

extern "C" cudaError_t gf_launch_restride(const float *d_src, size_t src_stride,
                                          size_t src_dist, float *d_dst, size_t dst_stride,
                                          size_t dst_dist, size_t n, unsigned channels,
                                          cudaStream_t stream)
{
    if (!d_src || !d_dst || channels == 0 || channels > GF_GRID_Y_MAX)
        return cudaErrorInvalidValue;
    if (n == 0)
        return cudaSuccess;
    dim3 grid((unsigned)((n + LAYOUT_THREADS - 1) / LAYOUT_THREADS), channels);
    restride_kernel<<<grid, LAYOUT_THREADS, 0, stream>>>(d_src, src_stride, src_dist, d_dst,
                                                         dst_stride, dst_dist, n);
    return cudaGetLastError();
}

extern "C" cudaError_t gf_launch_crossfade(float *d_out, size_t out_stride, size_t out_dist,
                                           const float *d_new, size_t new_stride,
                                           size_t new_dist, size_t n, unsigned channels,
                                           size_t fade_pos, size_t fade_len,
                                           cudaStream_t stream)
{
    if (!d_out || !d_new || channels == 0 || channels > GF_GRID_Y_MAX ||
        fade_pos + n > fade_len)
        return cudaErrorInvalidValue;
    if (n == 0)
        return cudaSuccess;
    dim3 grid((unsigned)((n + LAYOUT_THREADS - 1) / LAYOUT_THREADS), channels);
    crossfade_kernel<<<grid, LAYOUT_THREADS, 0, stream>>>(d_out, out_stride, out_dist, d_new,
                                                          new_stride, new_dist, n, fade_pos,
                                                          fade_len);
    return cudaGetLastError();
}

extern "C" cudaError_t gf_launch_reverse_taps(const float *d_taps, size_t ntaps,
                                              unsigned filters, float *d_hr, size_t hr_stride,
                                              cudaStream_t stream)
{
    if (!d_taps || !d_hr || ntaps == 0 || hr_stride < ntaps || filters == 0 ||
        filters > GF_GRID_Y_MAX)
        return cudaErrorInvalidValue;
    dim3 grid((unsigned)((ntaps + LAYOUT_THREADS - 1) / LAYOUT_THREADS), filters);
    reverse_kernel<<<grid, LAYOUT_THREADS, 0, stream>>>(d_taps, ntaps, d_hr, hr_stride);
    return cudaGetLastError();
}
