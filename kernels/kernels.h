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
 *
 * The FFT kernel, with host objects of its own, is declared in fft/fft.h.
 */
#ifndef GF_KERNELS_H
#define GF_KERNELS_H

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
    const float *d_x;       /* channel c: d_x + c * x_stride, ntaps - 1 + n samples
                               (a window: see below) */
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
    /* Ours only (gf_launch_direct; the textbook kernels refuse it): window
     * set, the ntaps - 1 + n inputs of channel c are `lead` zeros, then
     * d_x + c * x_stride [0 .. avail), then zeros, so a window of a whole
     * signal (its zeros before and after included) is one launch, and
     * x_stride need only cover avail; lead + avail at most ntaps - 1 + n
     * (more would meet the taps' zero padding). Zero (as initializers that
     * stop before it leave it): the inputs are all at d_x. */
    int window;
    size_t lead, avail;
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
/* Makes the current device's bank queue (its stream and events) if it has
 * none yet, so that no launch has to: plans of the constant kernel call it
 * at create, since execute allocates nothing. */
cudaError_t gf_constant_prepare(void);
/* 7.4: input tile plus halo cells in shared memory; taps in segments when the
 * halo does not fit the shared memory sized from blockDim. */
cudaError_t gf_launch_tiled(const gf_conv_args *a, cudaStream_t stream);
/* 7.5: tile in shared memory, halo cells read through the caches (L2). */
cudaError_t gf_launch_cached(const gf_conv_args *a, cudaStream_t stream);
/* Ours: 16 outputs per thread from a sliding register window, taps staged in
 * shared memory per block, conflict-free padded tiles, coalesced stores. */
cudaError_t gf_launch_direct(const gf_conv_args *a, cudaStream_t stream);

/*
 * Layout kernels of the streaming backend. A strided buffer holds sample
 * (frame i, channel c) at p[i * stride + c * dist]: interleaved frames have
 * (channels, 1), planar rows of pitch P have (1, P).
 * stage: builds a block's planar input: d_x_cur[c] = the last ntaps - 1 samples
 * of d_x_prev[c] (which held prev_n new samples behind its halo), then the n
 * new samples of channel c from strided d_in (zeros when d_in is NULL).
 */
cudaError_t gf_launch_stage(const float *d_x_prev, size_t prev_n, float *d_x_cur,
                              size_t x_stride, size_t halo, const float *d_in, size_t in_stride,
                              size_t in_dist, size_t n, unsigned channels, cudaStream_t stream);
/* window: a planar block for a window of a whole signal: d_x[c] gets lead
 * zeros, then samples base, base + 1, ... of channel c of strided d_in
 * (frames samples long), zeros past its end, len elements in all. */
cudaError_t gf_launch_window(const float *d_in, size_t in_stride, size_t in_dist, size_t frames,
                             size_t lead, size_t base, float *d_x, size_t x_stride, size_t len,
                             unsigned channels, cudaStream_t stream);
/* restride: n frames of `channels` channels from one strided buffer to
 * another (planar rows to interleaved frames, or to a caller's layout). The
 * two must not overlap. */
cudaError_t gf_launch_restride(const float *d_src, size_t src_stride, size_t src_dist,
                               float *d_dst, size_t dst_stride, size_t dst_dist, size_t n,
                               unsigned channels, cudaStream_t stream);
/* reverse_taps: `filters` tap sets of ntaps (natural order, one after
 * another) into d_hr as gf_conv_args.d_taps holds them: set f reversed at
 * d_hr + f * hr_stride. The padding beyond ntaps is left as it is (zeros). */
cudaError_t gf_launch_reverse_taps(const float *d_taps, size_t ntaps, unsigned filters,
                                   float *d_hr, size_t hr_stride, cudaStream_t stream);

/* crossfade: during a filter swap (gfir.h), frames fade_pos .. fade_pos + n
 * of a fade of fade_len frames: out = (1 - w) out + w new, with core/swap.c's
 * raised cosine w, both strided as above. fade_pos + n <= fade_len. */
cudaError_t gf_launch_crossfade(float *d_out, size_t out_stride, size_t out_dist,
                                const float *d_new, size_t new_stride, size_t new_dist,
                                size_t n, unsigned channels, size_t fade_pos, size_t fade_len,
                                cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
