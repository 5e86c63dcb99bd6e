/*
 * cuda_plan.h - the CUDA backend's plan state, shared by its files:
 *   backend.c      the ops table, the device, AUTO's kernel choice, create
 *                  and destroy;
 *   lanes.c        the two lanes: each channel's halo on the device, the
 *                  pipelining of big calls, execute and reset;
 *   device.c       calls on device memory (gfir.h's _device functions);
 *   direct_plan.c  what a direct kernel (ours or a textbook one) adds;
 *   fft_plan.c     what the FFT kernel adds.
 * Failures go into plan->detail as kernels/cuda_status.h says.
 */
#ifndef GF_CUDA_CUDA_PLAN_H
#define GF_CUDA_CUDA_PLAN_H

#include "core/plan.h"
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
    gf_fft_engine *fft;     /* FFT kernel only; lane 0's takes whole blocks (device.c) */
    size_t n;               /* frames staged in d_x by the last use */
    float *dest;            /* where its pending output goes; NULL when none */
    int direct;             /* its output was copied to dest by the device itself */
} gf_cuda_lane;

/* What the plan's kind of kernel adds to each lane, once at create. */
typedef gfir_status (*gf_cuda_lane_setup)(gfir_plan *plan, gf_cuda_state *st, gf_cuda_lane *l);
/* Convolves n frames of planar input, channel c at x + c * x_stride (ntaps - 1
 * history samples, then the n new ones), into out, frame i of channel c at
 * out[i * out_stride + c * out_dist], on lane l's stream: with l's engine
 * (FFT), or through l's d_y unless out_stride is 1 (direct kernels, which
 * write planar rows; n <= sub_frames then). */
typedef gfir_status (*gf_cuda_step)(gfir_plan *plan, gf_cuda_state *st, gf_cuda_lane *l,
                                    const float *x, size_t x_stride, size_t n, float *out,
                                    size_t out_stride, size_t out_dist);

struct gf_cuda_state {
    gf_cuda_lane lane[2];
    int last;               /* the lane that staged the newest block */
    cudaEvent_t caller;     /* device calls: the caller's stream so far, for the lanes */
    size_t sub_frames;
    size_t halo;            /* ntaps - 1 */
    size_t x_stride;
    gf_cuda_lane_setup lane_setup;
    gf_cuda_step step;
    /* direct kernels */
    float *d_taps;          /* reversed, padded to taps_stride, per filter */
    size_t taps_stride;
    cudaError_t (*launch)(const gf_conv_args *, cudaStream_t);
    /* FFT kernel: the spectra both lanes' engines multiply by */
    gf_fft_filter *fft_filter;
};

/* lanes.c. The frames per sub-block a call is cut into; a lane's stream,
 * events and buffers, its halo zeroed (the kernel's part comes after, from
 * lane_setup); its release (after its stream is idle). */
size_t gf_cuda_sub_frames(const gfir_plan *plan);
gfir_status gf_cuda_lane_create(gfir_plan *plan, gf_cuda_state *st, gf_cuda_lane *l);
void gf_cuda_lane_destroy(gf_cuda_lane *l);
gfir_status gf_cuda_execute(gfir_plan *plan, const float *in, float *out, size_t n);
gfir_status gf_cuda_reset(gfir_plan *plan);
/* gf_cuda_reset's zeros without its wait for pending host output: queued
 * on the newest lane, for device calls. */
gfir_status gf_cuda_clear(gfir_plan *plan, gf_cuda_state *st);

/* device.c: backend.h's device operations for lane plans. */
gfir_status gf_cuda_execute_device(gfir_plan *plan, const gf_device_io *io, size_t n);
gfir_status gf_cuda_convolve_device(gfir_plan *plan, const gf_device_io *io, size_t frames,
                                    size_t start, size_t length);
gfir_status gf_cuda_set_taps_device(gfir_plan *plan, const float *taps, cudaStream_t stream);

/* direct_plan.c and fft_plan.c: the kernel's filter, made on `stream` and
 * complete for every stream when create returns; sets st's lane_setup and
 * step. */
gfir_status gf_cuda_direct_create(gfir_plan *plan, gf_cuda_state *st, const float *taps,
                                  cudaStream_t stream);
gfir_status gf_cuda_fft_create(gfir_plan *plan, gf_cuda_state *st, const float *taps,
                               cudaStream_t stream);
/* fft_plan.c: sub-blocks long enough beside the halo for the FFT. */
size_t gf_cuda_fft_sub_frames(const gfir_plan *plan, size_t sub_frames);

#endif
