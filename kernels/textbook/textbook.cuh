/*
 * textbook.cuh - argument checks shared by the kernel families' launchers.
 */
#ifndef GF_TEXTBOOK_CUH
#define GF_TEXTBOOK_CUH

#include "kernels.h"

/* The checks with the input's rows x_need samples long. */
static inline cudaError_t gf_check_shape(const gf_conv_args *a, size_t x_need)
{
    if (!a || !a->d_x || !a->d_taps || !a->d_y || a->ntaps == 0 || a->channels == 0 ||
        a->channels > GF_GRID_Y_MAX || a->taps_stride < a->ntaps || a->taps_stride % GF_TAP_STEP ||
        a->x_stride < x_need || a->y_stride < a->n || a->ntaps > 0x7fffffff)
        return cudaErrorInvalidValue;
    return cudaSuccess;
}

/* A launcher's checks: ntaps - 1 + n inputs a channel, no window (the
 * direct kernel checks its windows itself). */
static inline cudaError_t gf_check_args(const gf_conv_args *a)
{
    if (a && a->window)
        return cudaErrorInvalidValue;
    return gf_check_shape(a, a ? a->n + a->ntaps - 1 : 0);
}

/* 256 threads (8 warps) unless the caller picks: a textbook size, not a
 * measured one; gfir-bench --threads T times the kernels at others. */
static inline unsigned gf_threads(const gf_conv_args *a)
{
    return a->block_threads ? a->block_threads : 256;
}

/* A tap set for channel c. */
__device__ __forceinline__ const float *gf_taps_of(const gf_conv_args &a, unsigned c)
{
    return a.d_taps + (a.shared_taps ? 0 : c * a.taps_stride);
}

#endif
