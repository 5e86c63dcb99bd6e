/*
 * smfft.h - smfft, gfir's own FFT convolution: overlap-save of a whole filter
 * with the transforms in shared memory, so the data crosses device memory
 * once each way instead of five times as around cuFFT (passes.h).
 *
 * Two shapes: one-pass (smfft_onepass.cu), a thread block transforms,
 * filters and transforms back a segment pair in one kernel; four-step
 * (smfft_fourstep.cu), three kernels through a work area of gf_smfft_work
 * bytes for transforms too large for one block. smfft_kernels.cuh is the
 * transform both use, smfft.cu the host side. The FFT engine (fft.h) is
 * the only caller outside tests and gfir-bench.
 */
#ifndef GF_FFT_SMFFT_H
#define GF_FFT_SMFFT_H

#include <cuda_runtime_api.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The largest one-pass transform: 2^14 points, 139 KB of shared memory,
 * one block an SM (512 threads of the convolution kernel, 1024 of the
 * filter's spectrum). On an H100 (gfir-bench --fft-sizes,
 * 2 x 2^24 samples, 2026-11-24) it beat four-step for every filter it can
 * take at 2 ntaps or more (8000 taps: 0.525 ms against 0.605); src/cuda/tuning.c
 * has the figures. Four-step takes over above. */
#define GF_SMFFT_ONEPASS_MAX 16384
/* The largest four-step transform: the largest size measured and checked
 * against float64 (commit f5f832d: rel L2 2.3e-7 to 3.1e-7 at every size up
 * to it). Filters that need more go to cuFFT. */
#define GF_SMFFT_MAX ((size_t)1 << 22)

typedef struct gf_smfft_args {
    const float *d_x;        /* as gf_fft_run_window's input: */
    size_t x_stride, avail;  /* avail samples per channel from d_x on, */
    size_t lead;             /* after lead zeros that are not in memory */
    const float2 *d_spec;    /* gf_smfft_spectrum's, N points per tap set */
    const float2 *d_tw;      /* its twiddles */
    int shared;              /* one tap set for every channel */
    unsigned log_n;          /* N = 2^log_n */
    size_t hop, col;         /* outputs per segment (N - col), col = ntaps - 1 */
    size_t rows, n;          /* segments per channel (ceil(n / hop)), frames */
    float *d_out;            /* as gf_fft_run's output */
    size_t frame_stride, channel_stride;
    unsigned channels;
    float2 *d_work;          /* four-step: gf_smfft_work bytes; one-pass: unused */
} gf_smfft_args;

/* 1 when n_fft is a power of two smfft transforms (2 .. GF_SMFFT_MAX). */
int gf_smfft_fits(size_t n_fft);

/*
 * The spectra of `filters` tap sets of ntaps taps (device memory, natural
 * order), scaled by 1/N, in the transforms' own order, and their twiddles:
 * two cudaMalloc'd arrays for the caller to cudaFree. The work runs on
 * `stream`, which this waits for before it returns. cudaErrorNotSupported
 * when the device's shared memory cannot hold the transform: nothing is
 * allocated then, and the caller keeps to cuFFT.
 */
cudaError_t gf_smfft_spectrum(const float *d_taps, size_t ntaps, unsigned filters,
                              size_t n_fft, cudaStream_t stream, float2 **d_tw,
                              float2 **d_spec);

/* The same spectra for new taps, into the arrays gf_smfft_spectrum made for
 * this shape (ntaps, filters, n_fft), queued on `stream` without waiting. */
cudaError_t gf_smfft_spectrum_into(const float *d_taps, size_t ntaps, unsigned filters,
                                   size_t n_fft, const float2 *d_tw, float2 *d_spec,
                                   cudaStream_t stream);

/* Bytes of work area for rows segments per channel (0: none needed). */
size_t gf_smfft_work(size_t n_fft, size_t rows, unsigned channels);

/* Queues the convolution a describes on the stream (the launcher convention
 * of kernels.h). */
cudaError_t gf_smfft_run(const gf_smfft_args *a, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
