/*
 * frames.h - the moves every CPU engine makes between the caller's
 * interleaved frames and its own planar rows, and the crossfade's mix
 * (gfir.h: output k of a fade is (1 - w_k) y_old + w_k y_new). Inline, so
 * each engine's loops compile as they did in place.
 */
#ifndef GF_CPU_FRAMES_H
#define GF_CPU_FRAMES_H

#include <stddef.h>
#include <string.h>

/* Channel c of n interleaved frames of `channels` into the row x; zeros
 * when in is NULL (silence). */
static inline void gf_frames_take(float *x, const float *in, unsigned channels, unsigned c,
                                  size_t n)
{
    if (in)
        for (size_t i = 0; i < n; i++)
            x[i] = in[i * channels + c];
    else
        memset(x, 0, n * sizeof *x);
}

/* The row y into channel c of n interleaved frames, mixed with y_new by the
 * fade's weights w when y_new is not NULL. */
static inline void gf_frames_give(float *out, unsigned channels, unsigned c, const float *y,
                                  const float *y_new, const float *w, size_t n)
{
    if (y_new)
        for (size_t i = 0; i < n; i++)
            out[i * channels + c] = (1.0f - w[i]) * y[i] + w[i] * y_new[i];
    else
        for (size_t i = 0; i < n; i++)
            out[i * channels + c] = y[i];
}

/* n frames of `channels` planes, `stride` floats apart, interleaved into
 * out. Stereo, the common case, gets a loop of its own that GCC vectorises
 * (unpacks); the general one walks out in order. */
static inline void gf_frames_interleave(float *restrict out, const float *restrict planes,
                                        size_t stride, unsigned channels, size_t n)
{
    if (channels == 2) {
        const float *restrict a = planes, *restrict b = planes + stride;
        for (size_t i = 0; i < n; i++) {
            out[2 * i] = a[i];
            out[2 * i + 1] = b[i];
        }
        return;
    }
    for (size_t i = 0; i < n; i++)
        for (unsigned c = 0; c < channels; c++)
            out[i * channels + c] = planes[c * stride + i];
}

#endif
