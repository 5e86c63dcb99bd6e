/*
 * fft_callbacks.h - what fft.cu's cuFFT callbacks read, shared by fft.cu and
 * lto/fft_callbacks.cu (compiled to LTO-IR and linked into cuFFT's kernels at
 * plan time).
 *
 * One per engine, in device memory; cuFFT hands its address to every callback
 * as callerInfo. The fields marked "per call" change with gfir_fft_run's
 * arguments and are rewritten on the engine's stream, in order with the
 * transforms, only when they differ from the last call's.
 */
#ifndef GFIR_FFT_CALLBACKS_H
#define GFIR_FFT_CALLBACKS_H

#include <cuda_runtime.h>

typedef struct gfir_fft_cb_args {
    /* per call */
    const float *x;                     /* channel c at x + c * x_stride */
    unsigned long long x_stride, avail; /* avail: halo + n samples per channel */
    float *out;                         /* output i of channel c at */
    unsigned long long frame_stride;    /*   out[i * frame_stride + c * channel_stride] */
    unsigned long long channel_stride, n;
    /* fixed at engine create */
    const float2 *spec;      /* the filter's bins, one row per tap set (whole filters) */
    unsigned long long front; /* segment s of a channel starts at s * hop - front */
    unsigned long long hop;   /* new outputs per row */
    unsigned long long col;   /* column of a row's first valid output */
    unsigned long long row;   /* floats per real row: fft size + 2 */
    unsigned long long bins;  /* complex bins per row: fft size / 2 + 1 */
    unsigned channels;
    int shared;              /* one tap set for every channel */
    int narrow;              /* every offset a plan passes fits in 32 bits */
    int unused;              /* no padding: the engine compares these bytes */
} gfir_fft_cb_args;

/* The callbacks' symbols in the LTO-IR fatbin. */
#define GFIR_FFT_SYM_GATHER "gfir_fft_cb_gather"
#define GFIR_FFT_SYM_MULTIPLY "gfir_fft_cb_multiply"
#define GFIR_FFT_SYM_EXTRACT "gfir_fft_cb_extract"

#endif
