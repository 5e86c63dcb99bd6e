/*
 * passes.cu - the passes of the cuFFT overlap-save around its transforms:
 * gather, multiply (or the partitioned multiply-accumulate) and extract.
 * engine.cu's opening comment says what each is for and why they are
 * separate passes rather than cuFFT callbacks.
 */
#include "fft/passes.h"
#include "kernels.h"

/* Threads per block of every pass: 8 warps, untuned. The passes are bound
 * by memory traffic, one element per thread per row. */
#define PASS_THREADS 256

static unsigned grid_y(size_t rows)
{
    return (unsigned)(rows < GF_GRID_Y_MAX ? rows : GF_GRID_Y_MAX);
}

/* Thread j of segment s copies sample s*hop + j - front of every channel into
 * column j of that channel's row (s * channels + c), zeros outside the
 * input's avail samples: reads and writes coalesced per channel. */
__global__ void gather_kernel(const float *__restrict__ x, size_t x_stride, size_t avail,
                              size_t front, float *__restrict__ buf, size_t n_fft, size_t hop,
                              size_t segs, unsigned channels)
{
    const size_t j = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (j >= n_fft)
        return;
    for (size_t s = blockIdx.y; s < segs; s += gridDim.y) {
        const size_t g = s * hop + j - front; /* wraps past zero when before the row */
        float *row = buf + s * channels * (n_fft + 2) + j;
        for (unsigned c = 0; c < channels; c++)
            row[c * (n_fft + 2)] = g < avail ? x[c * x_stride + g] : 0.0f;
    }
}

/* Partitioned multiply-accumulate: thread k of (block run, channel c) makes
 * bin k of output blocks j0 .. j0 + MAC_RUN - 1, Y_j = sum_q H_{parts-1-q}
 * X_{j+q}, sliding a window of MAC_RUN input spectra along q in registers:
 * per step one input load and one filter load serve MAC_RUN outputs. Input
 * and output rows are segment-major, (s * channels + c) of bins, s < segs.
 * A run of 16 keeps its 32 float2 of window and sums (64 registers) in
 * registers; no other run length was measured. Builds with -DGF_MAC_RUN=R
 * let gfir-bench --fft-parts time others. */
#ifndef GF_MAC_RUN
#define GF_MAC_RUN 16
#endif
#define MAC_RUN GF_MAC_RUN
__global__ void mac_kernel(const float2 *__restrict__ x, size_t segs,
                           const float2 *__restrict__ spec, size_t parts, size_t bins,
                           size_t blocks, unsigned channels, int shared,
                           float2 *__restrict__ y)
{
    const size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (k >= bins)
        return;
    const unsigned c = blockIdx.z;
    const float2 *xc = x + c * bins + k;
    const size_t step = channels * bins;
    const float2 *h = spec + (shared ? 0 : c) * parts * bins + k;
    const float2 zero = make_float2(0.0f, 0.0f);
    for (size_t j0 = blockIdx.y * (size_t)MAC_RUN; j0 < blocks;
         j0 += (size_t)gridDim.y * MAC_RUN) {
        float2 acc[MAC_RUN], w[MAC_RUN];
#pragma unroll
        for (int r = 0; r < MAC_RUN; r++) {
            acc[r] = zero;
            w[r] = j0 + r < segs ? xc[(j0 + r) * step] : zero;
        }
        for (size_t q = 0; q < parts; q++) {
            const float2 hv = h[(parts - 1 - q) * bins];
#pragma unroll
            for (int r = 0; r < MAC_RUN; r++) {
                acc[r].x = fmaf(hv.x, w[r].x, fmaf(-hv.y, w[r].y, acc[r].x));
                acc[r].y = fmaf(hv.x, w[r].y, fmaf(hv.y, w[r].x, acc[r].y));
            }
#pragma unroll
            for (int r = 0; r < MAC_RUN - 1; r++)
                w[r] = w[r + 1];
            const size_t s = j0 + MAC_RUN + q;
            w[MAC_RUN - 1] = s < segs ? xc[s * step] : zero;
        }
#pragma unroll
        for (int r = 0; r < MAC_RUN; r++)
            if (j0 + r < blocks)
                y[((j0 + r) * channels + c) * bins + k] = acc[r];
    }
}

/* Thread k of segment s multiplies bin k of every channel's row by bin k of
 * that channel's filter (of the one filter, when shared). */
__global__ void multiply_kernel(float2 *__restrict__ buf, const float2 *__restrict__ spec,
                                size_t bins, size_t segs, unsigned channels, int shared)
{
    const size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (k >= bins)
        return;
    for (size_t s = blockIdx.y; s < segs; s += gridDim.y) {
        float2 *row = buf + s * channels * bins + k;
        for (unsigned c = 0; c < channels; c++) {
            const float2 h = spec[(shared ? 0 : c) * bins + k];
            const float2 v = row[c * bins];
            row[c * bins] = make_float2(v.x * h.x - v.y * h.y, v.x * h.y + v.y * h.x);
        }
    }
}

/* Thread j of row s writes output s*hop + j of every channel from column
 * col + j of that channel's row; the columns below col are the wrapped ones. */
__global__ void extract_kernel(const float *__restrict__ buf, size_t n_fft, size_t hop,
                               size_t col, size_t n, size_t segs, unsigned channels,
                               float *__restrict__ out, size_t frame_stride,
                               size_t channel_stride)
{
    const size_t j = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (j >= hop)
        return;
    for (size_t s = blockIdx.y; s < segs; s += gridDim.y) {
        const size_t i = s * hop + j;
        if (i >= n)
            return; /* later segments lie further on */
        const float *row = buf + s * channels * (n_fft + 2) + col + j;
        for (unsigned c = 0; c < channels; c++)
            out[i * frame_stride + c * channel_stride] = row[c * (n_fft + 2)];
    }
}

/* Thread j of row r = t * parts + p: column j of partition p of tap set t,
 * scaled, or zero past the partition's width or the taps. */
__global__ void load_taps_kernel(const float *__restrict__ taps, size_t ntaps, size_t rows,
                                 size_t parts, size_t width, float scale,
                                 float *__restrict__ buf, size_t n_fft)
{
    const size_t j = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (j >= n_fft)
        return;
    for (size_t r = blockIdx.y; r < rows; r += gridDim.y) {
        const size_t t = r / parts, k = (r % parts) * width + j;
        buf[r * (n_fft + 2) + j] = j < width && k < ntaps ? taps[t * ntaps + k] * scale : 0.0f;
    }
}

cudaError_t gf_fft_load_taps(const float *d_taps, size_t ntaps, unsigned filters, size_t parts,
                             size_t width, float scale, float *d_rows, size_t n_fft,
                             cudaStream_t stream)
{
    const size_t rows = (size_t)filters * parts;
    dim3 grid((unsigned)((n_fft + PASS_THREADS - 1) / PASS_THREADS), grid_y(rows));
    load_taps_kernel<<<grid, PASS_THREADS, 0, stream>>>(d_taps, ntaps, rows, parts, width, scale,
                                                        d_rows, n_fft);
    return cudaGetLastError();
}

cudaError_t gf_fft_gather(const float *d_x, size_t x_stride, size_t avail,
                          size_t front, float *d_rows, size_t n_fft, size_t hop,
                          size_t segs, unsigned channels, cudaStream_t stream)
{
    dim3 grid((unsigned)((n_fft + PASS_THREADS - 1) / PASS_THREADS), grid_y(segs));
    gather_kernel<<<grid, PASS_THREADS, 0, stream>>>(d_x, x_stride, avail, front, d_rows, n_fft,
                                                     hop, segs, channels);
    return cudaGetLastError();
}

cudaError_t gf_fft_multiply(float2 *d_rows, const float2 *d_spec, size_t bins,
                            size_t rows, unsigned channels, int shared,
                            cudaStream_t stream)
{
    dim3 grid((unsigned)((bins + PASS_THREADS - 1) / PASS_THREADS), grid_y(rows));
    multiply_kernel<<<grid, PASS_THREADS, 0, stream>>>(d_rows, d_spec, bins, rows, channels,
                                                       shared);
    return cudaGetLastError();
}

cudaError_t gf_fft_mac(const float2 *d_in, size_t segs, const float2 *d_spec,
                       size_t parts, size_t bins, size_t rows, unsigned channels,
                       int shared, float2 *d_out, cudaStream_t stream)
{
    dim3 grid((unsigned)((bins + PASS_THREADS - 1) / PASS_THREADS),
              grid_y((rows + MAC_RUN - 1) / MAC_RUN), channels);
    mac_kernel<<<grid, PASS_THREADS, 0, stream>>>(d_in, segs, d_spec, parts, bins, rows, channels,
                                                  shared, d_out);
    return cudaGetLastError();
}

cudaError_t gf_fft_extract(const float *d_rows, size_t n_fft, size_t hop, size_t col,
                           size_t n, size_t rows, unsigned channels, float *d_out,
                           size_t frame_stride, size_t channel_stride,
                           cudaStream_t stream)
{
    dim3 grid((unsigned)((hop + PASS_THREADS - 1) / PASS_THREADS), grid_y(rows));
    extract_kernel<<<grid, PASS_THREADS, 0, stream>>>(d_rows, n_fft, hop, col, n, rows, channels,
                                                      d_out, frame_stride, channel_stride);
    return cudaGetLastError();
}
