/*
 * fft.h - the GPU FFT kernel: overlap-save convolution with the same
 * contract as the direct kernels (kernels.h), from the same planar
 * halo-prefixed input.
 *
 * Two ways to the same samples, chosen by the engine: our own transforms in
 * shared memory, the smfft family (smfft.h: one-pass up to
 * GF_SMFFT_ONEPASS_MAX points, four-step up to GF_SMFFT_MAX), for whole
 * filters; and cuFFT's transforms between passes of ours (engine.cu,
 * passes.cu) for the rest, whole or uniformly partitioned. The rules that
 * pick the FFT and partition sizes are measurements: src/cuda/tuning.c's.
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
 * may be NULL), as cuda_status.h says. Only filter create and engine destroy
 * wait for the device, each for its one stream.
 */
#ifndef GF_FFT_FFT_H
#define GF_FFT_FFT_H

#include "fft/smfft.h"
#include "gfir.h"

#include <cuda_runtime_api.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gf_fft_filter gf_fft_filter;
typedef struct gf_fft_engine gf_fft_engine;

/* Why the filters cannot be made on this machine (libcufft, opened at run
 * time, is missing or lacks an entry point), or NULL when they can. */
const char *gf_fft_cufft_missing(void);

/*
 * Spectra of filters tap sets of ntaps taps each (host memory, natural order,
 * one after another). part == 0: the whole filter at FFT size fft_size, a
 * power of two >= ntaps. part > 0: uniform partitions of part taps, each
 * transformed at fft_size == 2 * part points.
 * The work runs on `stream`, which create waits for before it returns (and
 * nothing else): the spectra are complete for any stream that uses them.
 */
gfir_status gf_fft_filter_create(gf_fft_filter **out, const float *taps, size_t ntaps,
                                 unsigned filters, size_t fft_size, size_t part,
                                 cudaStream_t stream, char *why, size_t why_len);
size_t gf_fft_filter_size(const gf_fft_filter *f);
/* Remakes the spectra from filters x ntaps new taps in device memory
 * (natural order, one set after another), queued on `stream` without
 * waiting. No engine may be running on the filter meanwhile: the caller
 * orders the streams. with_cufft 0 skips the spectra only cuFFT's passes
 * read, for a filter whose engines all run smfft (gf_fft_engine_smfft);
 * a filter without smfft spectra always remakes them. */
gfir_status gf_fft_filter_set_taps(gf_fft_filter *f, const float *d_taps, int with_cufft,
                                   cudaStream_t stream, char *why, size_t why_len);
void gf_fft_filter_destroy(gf_fft_filter *f);

/* An engine for `channels` channels on `stream`; f has 1 tap set (shared by
 * every channel) or `channels`. A whole filter of at most GF_SMFFT_MAX
 * points runs the smfft transforms, unless flags has GF_FFT_CUFFT_ONLY
 * (tests and benchmarks compare the two); everything else runs the cuFFT
 * passes. */
#define GF_FFT_CUFFT_ONLY 1u
gfir_status gf_fft_engine_create(gf_fft_engine **out, const gf_fft_filter *f,
                                 unsigned channels, size_t max_n, cudaStream_t stream,
                                 unsigned flags, char *why, size_t why_len);
/* Points the engine at another filter of the same shape (FFT size, taps,
 * partitions, tap sets, and smfft's spectra where the engine runs smfft),
 * from its next run on: a filter swapped into a running plan. Queued runs
 * keep the filter they were queued with. GFIR_ERR_ARG for another shape. */
gfir_status gf_fft_engine_use(gf_fft_engine *e, const gf_fft_filter *f, char *why,
                              size_t why_len);
/* 1 when the engine runs the smfft transforms rather than cuFFT. */
int gf_fft_engine_smfft(const gf_fft_engine *e);
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

/*
 * As gf_fft_run, from input that is partly outside memory: sample j of
 * channel c (j < ntaps - 1 + n) is d_x[c * x_stride + j - lead] for
 * lead <= j < lead + avail, and zero elsewhere. So a window of a whole
 * signal in the caller's rows needs no copy: the zeros before its first
 * sample are lead, those after its last sample lie past avail. x_stride >=
 * avail unless the engine has one channel.
 */
gfir_status gf_fft_run_window(gf_fft_engine *e, const float *d_x, size_t x_stride, size_t lead,
                              size_t avail, size_t n, float *d_out, size_t frame_stride,
                              size_t channel_stride, char *why, size_t why_len);
/* The most frames one run of the engine takes. */
size_t gf_fft_engine_max_n(const gf_fft_engine *e);

#ifdef __cplusplus
}
#endif

#endif
