/*
 * fft_callbacks.cu - cuFFT callbacks that fold overlap-save's own passes into
 * the transforms (see fft.cu: measured slower than the passes, so used only
 * on request). Compiled to LTO-IR, not to machine code: cuFFT
 * links and inlines them into its kernels when a plan is made, so a callback
 * costs what its loads and stores cost, not an indirect call per element.
 *
 * C++ linkage on purpose: cuFFT finds a callback by its name and the
 * signature its type implies (an extern "C" one fails the plan with
 * CUFFT_INTERNAL_ERROR, seen with CUDA 13.0).
 *
 * Offsets are element offsets in the layout the plan describes: real rows of
 * `row` floats, complex rows of `bins` bins, row = s * channels + c.
 */
#include <cufftXt.h>

#include "fft_callbacks.h"

/* offset = r * width + j */
static __device__ __forceinline__ void split(unsigned long long offset, unsigned long long width,
                                             int narrow, unsigned long long *r,
                                             unsigned long long *j)
{
    if (narrow) { /* 32-bit division is several times cheaper */
        const unsigned o = (unsigned)offset, w = (unsigned)width, q = o / w;
        *r = q;
        *j = o - q * w;
    } else {
        *r = offset / width;
        *j = offset - *r * width;
    }
}

/* R2C load: sample j of segment s of channel c, zero outside the input. */
__device__ cufftReal gfir_fft_cb_gather(void *data, unsigned long long offset,
                                                   void *info, void *shared)
{
    (void)data;
    (void)shared;
    const gfir_fft_cb_args *a = (const gfir_fft_cb_args *)info;
    unsigned long long r, j;
    split(offset, a->row, a->narrow, &r, &j);
    unsigned long long s, c;
    split(r, a->channels, a->narrow, &s, &c);
    const unsigned long long g = s * a->hop + j - a->front; /* wraps when before the row */
    return g < a->avail ? __ldg(a->x + c * a->x_stride + g) : 0.0f;
}

/* R2C store: bin k of row r times bin k of its channel's filter. */
__device__ void gfir_fft_cb_multiply(void *data, unsigned long long offset,
                                                cufftComplex v, void *info, void *shared)
{
    (void)shared;
    const gfir_fft_cb_args *a = (const gfir_fft_cb_args *)info;
    unsigned long long r, k;
    split(offset, a->bins, a->narrow, &r, &k);
    unsigned long long s, c = 0;
    if (!a->shared)
        split(r, a->channels, a->narrow, &s, &c);
    const float2 h = __ldg(a->spec + c * a->bins + k);
    ((cufftComplex *)data)[offset] = make_float2(v.x * h.x - v.y * h.y, v.x * h.y + v.y * h.x);
}

/* C2R store: columns col .. col + hop - 1 of row r are outputs s * hop .. of
 * channel c; the columns before are wrapped (or belong to the partition
 * overlap) and are dropped, as are outputs past the call's n. */
__device__ void gfir_fft_cb_extract(void *data, unsigned long long offset,
                                               cufftReal v, void *info, void *shared)
{
    (void)data;
    (void)shared;
    const gfir_fft_cb_args *a = (const gfir_fft_cb_args *)info;
    unsigned long long r, j;
    split(offset, a->row, a->narrow, &r, &j);
    if (j < a->col || j - a->col >= a->hop)
        return;
    unsigned long long s, c;
    split(r, a->channels, a->narrow, &s, &c);
    const unsigned long long i = s * a->hop + (j - a->col);
    if (i < a->n)
        a->out[i * a->frame_stride + c * a->channel_stride] = v;
}
