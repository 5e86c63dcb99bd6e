/*
 * test_util.h - shared by the test programs: a seeded generator of random
 * signals (never zeros), a float64 reference convolution and relative L2 error.
 */
#ifndef GF_TEST_UTIL_H
#define GF_TEST_UTIL_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

/* xorshift64*: reproducible from the seed, independent of the C library. */
static inline double test_uniform(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return (double)((x * 0x2545F4914F6CDD1DULL) >> 11) * (1.0 / 9007199254740992.0);
}

/* Uniform in [-1, 1). */
static inline void test_fill(float *v, size_t n, uint64_t *state)
{
    for (size_t i = 0; i < n; i++)
        v[i] = (float)(2.0 * test_uniform(state) - 1.0);
}

/*
 * The contract's definition, in double, at one output: for interleaved x of
 * channels, y[i][c] = sum_k h_c[k] x[i - k][c], x = 0 before 0.
 */
static inline double test_reference_at(const float *x, unsigned channels, const float *taps,
                                       size_t ntaps, unsigned filter_channels, unsigned c,
                                       size_t i)
{
    const float *h = taps + (filter_channels == 1 ? 0 : c) * ntaps;
    const size_t kmax = i < ntaps - 1 ? i : ntaps - 1;
    double acc = 0.0;
    for (size_t k = 0; k <= kmax; k++)
        acc += (double)h[k] * (double)x[(i - k) * channels + c];
    return acc;
}

/* The same over the whole signal of frames x channels, into y. */
static inline void test_reference(const float *x, size_t frames, unsigned channels,
                                  const float *taps, size_t ntaps, unsigned filter_channels,
                                  double *y)
{
    for (unsigned c = 0; c < channels; c++)
        for (size_t i = 0; i < frames; i++)
            y[i * channels + c] =
                test_reference_at(x, channels, taps, ntaps, filter_channels, c, i);
}

/* ||got - ref|| / ||ref||; NaN in got gives NaN, which fails any "<" check. */
static inline double test_rel_l2(const float *got, const double *ref, size_t n)
{
    double num = 0.0, den = 0.0;
    for (size_t i = 0; i < n; i++) {
        double d = (double)got[i] - ref[i];
        num += d * d;
        den += ref[i] * ref[i];
    }
    return sqrt(num) / sqrt(den);
}

#endif
