/*
 * passes.h - the overlap-save passes around cuFFT's transforms (passes.cu).
 *
 * Rows are segment-major: row s * channels + c holds segment s of channel
 * c, a row of n_fft + 2 floats (n_fft / 2 + 1 bins once transformed in
 * place). Each launcher checks nothing the engine has not already checked,
 * launches on the stream and returns cudaGetLastError().
 */
#ifndef GF_FFT_PASSES_H
#define GF_FFT_PASSES_H

#include <cuda_runtime_api.h>
#include <stddef.h>

/* gather: the first segs segments of every channel into rows: row s, column
 * j gets sample s * hop + j - front of the channel (x + c * x_stride, avail
 * samples), zero outside them. */
cudaError_t gf_fft_gather(const float *d_x, size_t x_stride, size_t avail, size_t front,
                          float *d_rows, size_t n_fft, size_t hop, size_t segs,
                          unsigned channels, cudaStream_t stream);

/* load_taps: the filter's rows before their transform, from device taps
 * (filters x ntaps, natural order): row t * parts + p gets taps p * width ..
 * p * width + width - 1 of set t times scale, zeros after them to n_fft. */
cudaError_t gf_fft_load_taps(const float *d_taps, size_t ntaps, unsigned filters, size_t parts,
                             size_t width, float scale, float *d_rows, size_t n_fft,
                             cudaStream_t stream);

/* multiply: every bin of the first rows rows by the same bin of the row's
 * channel's filter spectrum (of spectrum 0 when shared). */
cudaError_t gf_fft_multiply(float2 *d_rows, const float2 *d_spec, size_t bins, size_t rows,
                            unsigned channels, int shared, cudaStream_t stream);

/* The partitioned multiply-accumulate: output row j of channel c is
 * sum_q H_{parts-1-q} X_{j+q} over the input rows d_in (segs per channel)
 * and the parts partition spectra of the channel's filter in d_spec. */
cudaError_t gf_fft_mac(const float2 *d_in, size_t segs, const float2 *d_spec, size_t parts,
                       size_t bins, size_t rows, unsigned channels, int shared, float2 *d_out,
                       cudaStream_t stream);

/* extract: column col + j of row s is output s * hop + j of its channel,
 * for outputs below n, written to d_out[i * frame_stride + c * channel_stride]. */
cudaError_t gf_fft_extract(const float *d_rows, size_t n_fft, size_t hop, size_t col, size_t n,
                           size_t rows, unsigned channels, float *d_out, size_t frame_stride,
                           size_t channel_stride, cudaStream_t stream);

#endif
