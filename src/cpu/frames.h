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

#endif
