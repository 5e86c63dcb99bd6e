/*
 * kernels.h - the CUDA kernel families and their extern "C" launchers.
 *
 * Every convolution kernel computes, per channel c and for 0 <= i < n,
 *     y_c[i] = sum_{m < ntaps} hr_c[m] * x_c[i + m]
 * where x_c holds ntaps - 1 halo samples (the channel's previous inputs)
 * followed by the n new ones, and hr_c is the channel's tap set reversed. That
 * is the causal convolution of the contract. The textbook's (PMPP ch. 7) left
 * ghost cells are the halo: real history, zeros before the first sample; causal
 * convolution needs no right ghost cells.
 *
 * Channels are planar, one launch for all of them: grid y = channel.
 * A launcher checks its arguments, launches on the given stream and returns
 * cudaGetLastError(); it never synchronises, prints or exits.
 */
#ifndef GF_KERNELS_H
#define GF_KERNELS_H

#include "gfir.h"

#include <cuda_runtime_api.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Device tap sets are reversed and zero-padded to a multiple of this, so the
 * direct kernel steps through taps GF_TAP_STEP at a time with no remainder.
 * Not a free parameter: direct.cu's padded tile rows of 16 + 1 floats are
 * built on it. */
#define GF_TAP_STEP 16
/* __constant__ capacity of the constant kernel, all filters together: the
 * 64 KB of constant memory a module may declare, in floats. */
#define GF_CONSTANT_MAX_TAPS 16384
/* CUDA's largest gridDim.y and gridDim.z (gridDim.x goes to 2^31 - 1): the
 * most channels, and the most segment pairs of one FFT call. */
#define GF_GRID_Y_MAX 65535

typedef struct gf_conv_args {
    const float *d_x;       /* channel c: d_x + c * x_stride, ntaps - 1 + n samples */
    size_t x_stride;
    const float *d_taps;    /* reversed taps, filter f: d_taps + f * taps_stride,
                               zero from ntaps up to taps_stride (a multiple of
                               GF_TAP_STEP) */
    size_t taps_stride;
    int shared_taps;        /* 1: filter 0 serves every channel */
    size_t ntaps;
    float *d_y;             /* channel c: d_y + c * y_stride, n samples */
    size_t y_stride;
    size_t n;
    unsigned channels;
    unsigned block_threads; /* textbook kernels: blockDim.x; 0 = 256 */
} gf_conv_args;

/* 7.2: one thread per output, taps read from global memory. */
cudaError_t gf_launch_basic(const gf_conv_args *a, cudaStream_t stream);
/* 7.3: taps in __constant__ memory. The bank is one per device, so each call
 * copies its taps into it and launches on the device's one queue for the
 * bank, which the given stream then waits for: plans on other streams take
 * their turns and never see each other's taps. cudaErrorInvalidValue when the
 * filters' taps together exceed GF_CONSTANT_MAX_TAPS. */
cudaError_t gf_launch_constant(const gf_conv_args *a, cudaStream_t stream);
int gf_constant_fits(size_t ntaps, unsigned filters);
/* 7.4: input tile plus halo cells in shared memory; taps in segments when the
 * halo does not fit the shared memory sized from blockDim. */
cudaError_t gf_launch_tiled(const gf_conv_args *a, cudaStream_t stream);
/* 7.5: tile in shared memory, halo cells read through the caches (L2). */
cudaError_t gf_launch_cached(const gf_conv_args *a, cudaStream_t stream);
/* Ours: 16 outputs per thread from a sliding register window, taps staged in
 * shared memory per block, conflict-free padded tiles, coalesced stores. */
cudaError_t gf_launch_direct(const gf_conv_args *a, cudaStream_t stream);

/*
 * Layout kernels of the streaming backend.
 * stage: builds a block's planar input: d_x_cur[c] = the last ntaps - 1 samples
 * of d_x_prev[c] (which held prev_n new samples behind its halo), then the n
 * new samples of channel c from interleaved d_in (zeros when d_in is NULL).
 */
cudaError_t gf_launch_stage(const float *d_x_prev, size_t prev_n, float *d_x_cur,
                              size_t x_stride, size_t halo, const float *d_in, size_t n,
                              unsigned channels, cudaStream_t stream);
/* interleave: d_out[i * channels + c] = d_y[c * y_stride + i]. */
cudaError_t gf_launch_interleave(const float *d_y, size_t y_stride, float *d_out, size_t n,
                                   unsigned channels, cudaStream_t stream);

/*
 * Overlap-save FFT convolution (fft.cu): the same contract as the direct
 * kernels, from the same planar halo-prefixed input, computed with cuFFT.
 *
 * A gf_fft_filter holds the tap sets' spectra, made once; a gf_fft_engine
 * holds one stream's cuFFT plans and work buffers, sized for blocks of up to
 * max_n frames, and refers to a filter that must outlive it. Engines on
 * different streams may share a filter and run concurrently.
 *
 * These return GFIR_OK or a negative status (GFIR_ERR_NOMEM when host or
 * device memory or a cuFFT work area cannot be had, GFIR_ERR_DEVICE for any
 * other CUDA or cuFFT failure, GFIR_ERR_ARG for bad arguments) and write a
 * sentence naming the failed call and its code into why (why_len bytes; why
 * may be NULL). They never synchronise except at create and destroy.
 */
/*
 * fftconv.cu: overlap-save of a whole filter in our own transforms, the
 * data in shared memory: up to GF_FFTCONV_ONE_MAX points in one kernel (a
 * transform of that many complex points fills a thread block's shared
 * memory), up to GF_FFTCONV_MAX in three (four-step, through a work area
 * of gf_fftconv_work bytes). Used by the FFT engine below.
 */
#define GF_FFTCONV_ONE_MAX 8192
#define GF_FFTCONV_MAX ((size_t)1 << 22)
typedef struct gf_fftconv_args {
    const float *d_x;        /* as gf_fft_run's input */
    size_t x_stride, avail;  /* avail: ntaps - 1 + n samples per channel */
    const float2 *d_spec;    /* gf_fftconv_spectrum's, N points per tap set */
    const float2 *d_tw;      /* its twiddles */
    int shared;              /* one tap set for every channel */
    unsigned log_n;          /* N = 2^log_n */
    size_t hop, col;         /* outputs per segment (N - col), col = ntaps - 1 */
    size_t rows, n;          /* segments per channel (ceil(n / hop)), frames */
    float *d_out;            /* as gf_fft_run's output */
    size_t frame_stride, channel_stride;
    unsigned channels;
    float2 *d_work;          /* above GF_FFTCONV_ONE_MAX points; else unused */
} gf_fftconv_args;
int gf_fftconv_fits(size_t n_fft);
/* The spectra of `filters` tap sets of ntaps taps (device memory, natural
 * order), scaled by 1/N, in the kernel's own order, and its twiddles: two
 * cudaMalloc'd arrays for the caller to cudaFree. Synchronous. */
cudaError_t gf_fftconv_spectrum(const float *d_taps, size_t ntaps, unsigned filters,
                                  size_t n_fft, float2 **d_tw, float2 **d_spec);
/* Bytes of work area for rows segments per channel (0: none needed). */
size_t gf_fftconv_work(size_t n_fft, size_t rows, unsigned channels);
cudaError_t gf_fftconv_run(const gf_fftconv_args *a, cudaStream_t stream);

typedef struct gf_fft_filter gf_fft_filter;
typedef struct gf_fft_engine gf_fft_engine;

/* The FFT size the library uses for a whole (unpartitioned) filter of ntaps
 * taps and blocks of up to max_n frames (a power of two above ntaps - 1), and
 * the partition size it uses instead, or 0 where it keeps the filter whole.
 * Tuned by measurement. */
size_t gf_fft_size(size_t ntaps, size_t max_n);
size_t gf_fft_part(size_t ntaps, size_t max_n);

/* Spectra of filters tap sets of ntaps taps each (host memory, natural order,
 * one after another). part == 0: the whole filter at FFT size fft_size, a
 * power of two >= ntaps. part > 0: uniform partitions of part taps, each
 * transformed at fft_size == 2 * part points. */
gfir_status gf_fft_filter_create(gf_fft_filter **out, const float *taps, size_t ntaps,
                                   unsigned filters, size_t fft_size, size_t part, char *why,
                                   size_t why_len);
size_t gf_fft_filter_size(const gf_fft_filter *f);
void gf_fft_filter_destroy(gf_fft_filter *f);

/* An engine for `channels` channels on `stream`; f has 1 tap set (shared by
 * every channel) or `channels`. A whole filter of at most GF_FFTCONV_MAX
 * points runs fftconv.cu's transforms, unless flags has
 * GF_FFT_CUFFT_ONLY (tests and benchmarks compare the two); everything
 * else runs the cuFFT passes. */
#define GF_FFT_CUFFT_ONLY 1u
gfir_status gf_fft_engine_create(gf_fft_engine **out, const gf_fft_filter *f,
                                   unsigned channels, size_t max_n, cudaStream_t stream,
                                   unsigned flags, char *why, size_t why_len);
/* 1 when the engine runs fftconv.cu's transforms rather than cuFFT. */
int gf_fft_engine_fused(const gf_fft_engine *e);
void gf_fft_engine_destroy(gf_fft_engine *e);

/*
 * Queues the convolution of n <= max_n frames on the engine's stream. Input
 * as gf_conv_args: channel c at d_x + c * x_stride, ntaps - 1 + n samples.
 * Output i of channel c goes to d_out[i * frame_stride + c * channel_stride]:
 * (1, y_stride) writes planar rows, (channels, 1) interleaved frames.
 * Allocation-free. d_out must not overlap d_x.
 */
gfir_status gf_fft_run(gf_fft_engine *e, const float *d_x, size_t x_stride, size_t n,
                         float *d_out, size_t frame_stride, size_t channel_stride, char *why,
                         size_t why_len);

#ifdef __cplusplus
}
#endif

#endif
