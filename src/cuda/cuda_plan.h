/*
 * cuda_plan.h - the state of the CUDA lane engines (the direct engine of
 * direct_plan.c and the whole-signal FFT engine of fft_plan.c), shared by
 * their files:
 *   backend.c      the backend, and the entry points both engines' tables
 *                  share (create, start, prepare, execute, ..., destroy),
 *                  each inside the device guard (guard.h);
 *   lanes.c        the two lanes: each channel's halo on the device, the
 *                  pipelining of big calls, execute and reset;
 *   lanes_device.c calls on device memory (gfir.h's _device functions);
 *   direct_plan.c  the direct engine: what a direct kernel (ours or a
 *                  textbook one) adds;
 *   fft_plan.c     the FFT engine: what the FFT kernel adds.
 * The delay-line engine is fdl.c's, with its own state.
 * Failures go into plan->detail as kernels/cuda_status.h says.
 *
 * A filter (gfir_filter.impl) is a gf_cuda_filter: the direct kernels'
 * reversed taps or the FFT kernel's spectra. The step convolves with
 * plan->filter's and, during a crossfade, plan->incoming's too, mixing the
 * two on the device, sub-block by sub-block through the lane's d_fade.
 */
#ifndef GF_CUDA_CUDA_PLAN_H
#define GF_CUDA_CUDA_PLAN_H

#include "core/plan.h"
#include "cuda/backend.h"
#include "fft/fft.h"
#include "kernels.h"

#include <cuda_runtime_api.h>
#include <stddef.h>

typedef struct gf_cuda_state gf_cuda_state;

typedef struct gf_cuda_lane {
    cudaStream_t stream;
    cudaEvent_t staged;     /* this lane's x buffer is complete */
    cudaEvent_t done;       /* this lane's output is in its pinned buffer */
    float *h_in, *h_out;    /* pinned, sub_frames * channels */
    float *d_in, *d_out;    /* interleaved, sub_frames * channels */
    float *d_x;             /* planar, channels * x_stride: halo then samples */
    float *d_y;             /* planar, channels * sub_frames; direct kernels only */
    float *d_fade;          /* planar, channels * sub_frames: the incoming filter's output */
    gf_fft_engine *fft;     /* FFT kernel only; lane 0's takes whole blocks
                             * (lanes_device.c) */
    size_t n;               /* frames staged in d_x by the last use */
    float *dest;            /* where its pending output goes; NULL when none */
    int direct;             /* its output was copied to dest by the device itself */
} gf_cuda_lane;

/* A prepared filter of a lane plan; it records on each lane's stream, when
 * it leaves the plan, the event its release waits for. */
typedef struct gf_cuda_filter {
    int device;
    cudaEvent_t retired[2];
    float *d_taps;          /* direct kernels: reversed, padded to taps_stride, per set */
    gf_fft_filter *fft;     /* the FFT kernel's spectra */
} gf_cuda_filter;

/* What the plan's kind of kernel adds to each lane, once at create. */
typedef gfir_status (*gf_cuda_lane_setup)(gfir_plan *plan, gf_cuda_state *st, gf_cuda_lane *l);
/* Convolves n frames of planar input, channel c at x + c * x_stride (ntaps - 1
 * history samples, then the n new ones), into out, frame i of channel c at
 * out[i * out_stride + c * out_dist], on lane l's stream: with l's engine
 * (FFT), or through l's d_y unless out_stride is 1 (direct kernels, which
 * write planar rows; n <= sub_frames then), with filter f. */
typedef gfir_status (*gf_cuda_step)(gfir_plan *plan, gf_cuda_state *st, gf_cuda_lane *l,
                                    const gf_cuda_filter *f, const float *x, size_t x_stride,
                                    size_t n, float *out, size_t out_stride, size_t out_dist);

struct gf_cuda_state {
    gf_cuda_lane lane[2];
    int last;               /* the lane that staged the newest block */
    int zeroed;             /* lane `last` holds a cleared halo (n 0), queued: no
                             * block was staged or halo copied since */
    cudaEvent_t caller;     /* device calls: the caller's stream so far, for the lanes */
    size_t sub_frames;
    size_t halo;            /* ntaps - 1 */
    size_t x_stride;
    gf_cuda_lane_setup lane_setup;
    gf_cuda_step step;
    /* direct kernels */
    size_t taps_stride;
    cudaError_t (*launch)(const gf_conv_args *, cudaStream_t);
};

/* backend.c: the lane engines' shared entry points (core/engine.h's
 * contracts), and whether the plan's channels fit the lanes' grid. */
gfir_status gf_cuda_lanes_fit(gfir_plan *plan);
gfir_status gf_cuda_lanes_create(gfir_plan *plan);
gfir_status gf_cuda_lanes_start(gfir_plan *plan);
gfir_status gf_cuda_lanes_prepare(const gfir_plan *plan, const float *taps, gfir_filter *out,
                                  char *why, size_t why_len);
gfir_status gf_cuda_lanes_fade_begin(gfir_plan *plan);
void gf_cuda_lanes_fade_end(gfir_plan *plan);
gfir_status gf_cuda_lanes_execute(gfir_plan *plan, const float *in, float *out, size_t n);
gfir_status gf_cuda_lanes_execute_device(gfir_plan *plan, const gf_device_io *io, size_t n);
gfir_status gf_cuda_lanes_convolve_device(gfir_plan *plan, const gf_device_io *io,
                                          size_t frames, size_t start, size_t length);
gfir_status gf_cuda_lanes_set_taps_device(gfir_plan *plan, const float *taps, void *stream);
gfir_status gf_cuda_lanes_reset(gfir_plan *plan);
void gf_cuda_lanes_destroy(gfir_plan *plan);
/* Both lane engines' tables: every entry but what tells them apart. */
#define GF_CUDA_LANES_ENTRIES                                                                  \
    .latency = gf_cuda_no_latency, .create = gf_cuda_lanes_create,                             \
    .start = gf_cuda_lanes_start, .prepare = gf_cuda_lanes_prepare,                            \
    .fade_begin = gf_cuda_lanes_fade_begin, .fade_end = gf_cuda_lanes_fade_end,                \
    .execute = gf_cuda_lanes_execute, .execute_device = gf_cuda_lanes_execute_device,          \
    .convolve_device = gf_cuda_lanes_convolve_device,                                          \
    .set_taps_device = gf_cuda_lanes_set_taps_device, .reset = gf_cuda_lanes_reset,            \
    .destroy = gf_cuda_lanes_destroy

/* lanes.c. The frames per sub-block a call is cut into; a lane's stream,
 * events and buffers, its halo zeroed (the kernel's part comes after, from
 * lane_setup); its release (after its stream is idle). */
size_t gf_cuda_sub_frames(const gfir_plan *plan);
gfir_status gf_cuda_lane_create(gfir_plan *plan, gf_cuda_state *st, gf_cuda_lane *l);
void gf_cuda_lane_destroy(gf_cuda_lane *l);
gfir_status gf_cuda_execute(gfir_plan *plan, const float *in, float *out, size_t n);
/* The kernel's step with the plan's filter, and during a crossfade the
 * incoming one's mixed in: `at` is the frame of the call (the fade's frame
 * less plan->fade_pos) of the step's first output. */
gfir_status gf_cuda_convolve(gfir_plan *plan, gf_cuda_state *st, gf_cuda_lane *l,
                             const float *x, size_t x_stride, size_t n, float *out,
                             size_t out_stride, size_t out_dist, size_t at);
gfir_status gf_cuda_reset(gfir_plan *plan);
/* gf_cuda_reset's zeros without its wait for pending host output: queued
 * on the newest lane, for device calls. */
gfir_status gf_cuda_clear(gfir_plan *plan, gf_cuda_state *st);

/* lanes_device.c: the device operations of lane plans, inside the guard. */
gfir_status gf_cuda_execute_device(gfir_plan *plan, const gf_device_io *io, size_t n);
gfir_status gf_cuda_convolve_device(gfir_plan *plan, const gf_device_io *io, size_t frames,
                                    size_t start, size_t length);
gfir_status gf_cuda_set_taps_device(gfir_plan *plan, const float *taps, cudaStream_t stream);

/* direct_plan.c and fft_plan.c: set st's lane_setup and step (and what
 * they need); then the kernel's part of a filter, made on `stream` and
 * complete for every stream when it returns, into f. */
void gf_cuda_direct_setup(gfir_plan *plan, gf_cuda_state *st);
/* Outputs of a window of a whole signal through our direct kernel in one
 * launch on lane l, into planar rows out_dist apart: the inputs they need
 * are lead zeros, then x's rows (x_stride apart) [0 .. avail), then zeros
 * (gf_conv_args). */
gfir_status gf_cuda_direct_window(gfir_plan *plan, gf_cuda_state *st, gf_cuda_lane *l,
                                  const float *x, size_t x_stride, size_t lead, size_t avail,
                                  size_t n, float *out, size_t out_dist);
void gf_cuda_fft_setup(gfir_plan *plan, gf_cuda_state *st);
gfir_status gf_cuda_direct_prepare(const gfir_plan *plan, const gf_cuda_state *st,
                                   const float *taps, gf_cuda_filter *f, cudaStream_t stream,
                                   char *why, size_t why_len);
gfir_status gf_cuda_fft_prepare(const gfir_plan *plan, const gf_cuda_state *st,
                                const float *taps, gf_cuda_filter *f, cudaStream_t stream,
                                char *why, size_t why_len);
/* fft_plan.c: both lanes' engines take filter f from their next run on. */
gfir_status gf_cuda_fft_use(gfir_plan *plan, gf_cuda_state *st, const gf_cuda_filter *f);
/* fft_plan.c: sub-blocks long enough beside the halo for the FFT. */
size_t gf_cuda_fft_sub_frames(const gfir_plan *plan, size_t sub_frames);

#endif
