/*
 * peak_test.c - gfir_response_peak, gfir_filter_loudness (peak and energy,
 * one path and sums of paths) and gfir_filter_onset against float64
 * references: the peak is the largest of gfir_response_magnitudes (a double
 * FFT, exact at its points) on a grid 32 times as fine as the filter, each
 * local maximum near the top then refined by golden section on the direct
 * double sum (gfir_response_magnitude). On random filters, on narrow-band
 * ones whose peak lies half-way between the library's grid points (a tone,
 * a decaying resonance, a narrow Kaiser band-pass: the sharpest peaks a
 * filter of their length can have) and on a flat one (a pure delay, where
 * the refinement runs out of budget).
 *
 * Tolerance: 1e-5 relative. The library's transform is float: its rounding
 * is about 1e-7 per butterfly level of the largest bin, 2e-6 over 21
 * levels; the interpolation drops under 1e-7 and the refinement stops once
 * its bound is within 1e-6. The reference is exact to double rounding. The
 * grid alone (no refinement) misses a tone's peak by up to 10% (0.9 dB),
 * which this tolerance catches.
 */
#include "design/peak.h"
#include "gfir.h"
#include "test_util.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#define PEAK_TOLERANCE 1e-5
#define TWO_PI 6.283185307179586

/* sum_s |g_s| |H_s(w)| at w (radians per sample), in double. */
static double sum_at(const float *taps, size_t ntaps, const unsigned *sets, const double *gains,
                     unsigned n, double w)
{
    double v = 0;
    for (unsigned s = 0; s < n; s++)
        v += fabs(gains[s]) * gfir_response_magnitude(taps + (size_t)sets[s] * ntaps, ntaps, w,
                                                      TWO_PI);
    return v;
}

/* Golden section for the largest value in [a, b]. */
static double golden(const float *taps, size_t ntaps, const unsigned *sets, const double *gains,
                     unsigned n, double a, double b)
{
    const double ratio = 0.6180339887498949;
    double c = b - ratio * (b - a), d = a + ratio * (b - a);
    double fc = sum_at(taps, ntaps, sets, gains, n, c), fd = sum_at(taps, ntaps, sets, gains, n, d);
    while (b - a > 1e-13) {
        if (fc > fd) {
            b = d;
            d = c;
            fd = fc;
            c = b - ratio * (b - a);
            fc = sum_at(taps, ntaps, sets, gains, n, c);
        } else {
            a = c;
            c = d;
            fc = fd;
            d = a + ratio * (b - a);
            fd = sum_at(taps, ntaps, sets, gains, n, d);
        }
    }
    return fc > fd ? fc : fd;
}

/* The float64 reference peak of the sum of the sets' magnitudes. */
static double reference_peak(const float *taps, size_t ntaps, const unsigned *sets,
                             const double *gains, unsigned n)
{
    size_t points = 8192;
    while (points < 32 * ntaps)
        points *= 2;
    double *sum = calloc(points + 1, sizeof *sum), *mag = malloc((points + 1) * sizeof *mag);
    double top = 0, best;
    assert_non_null(sum);
    assert_non_null(mag);
    for (unsigned s = 0; s < n; s++) {
        assert_int_equal(gfir_response_magnitudes(taps + (size_t)sets[s] * ntaps, ntaps, mag,
                                                  points + 1),
                         GFIR_OK);
        for (size_t k = 0; k <= points; k++)
            sum[k] += fabs(gains[s]) * mag[k];
    }
    for (size_t k = 0; k <= points; k++)
        top = sum[k] > top ? sum[k] : top;
    best = top;
    /* within the grid's bound of the top, 1 / cos(pi L / (2 * 2 points)) */
    const double step = 3.141592653589793 / (double)points;
    const double c = cos(step * (double)ntaps / 4);
    for (size_t k = 0; k <= points; k++) {
        const double left = k ? sum[k - 1] : sum[1], right = k < points ? sum[k + 1] : sum[k - 1];
        if (sum[k] < top * c || sum[k] < left || sum[k] < right)
            continue;
        const double v = golden(taps, ntaps, sets, gains, n, ((double)k - 1) * step,
                                ((double)k + 1) * step);
        best = v > best ? v : best;
    }
    free(sum);
    free(mag);
    return best;
}

static void check_peak(const char *what, const float *taps, size_t ntaps)
{
    const unsigned set = 0;
    const double one = 1, want = reference_peak(taps, ntaps, &set, &one, 1);
    const double got = gfir_response_peak(taps, ntaps);
    gf_spectra *sp = gf_spectra_make(taps, ntaps, 1, NULL);
    gf_peak_result r;
    assert_non_null(sp);
    assert_int_equal(gf_spectra_peak(sp, &set, &one, 1, &r), GFIR_OK);
    gf_spectra_free(sp);
    if (!(fabs(got - want) <= PEAK_TOLERANCE * want))
        fail_msg("%s, %zu taps: peak %.9g, want %.9g (%.3g off)", what, ntaps, got, want,
                 got / want - 1);
    /* the bound holds the true peak, and says what the peak found is worth */
    if (!(r.bound >= want * (1 - PEAK_TOLERANCE)) || !(r.peak == got))
        fail_msg("%s, %zu taps: bound %.9g below the peak %.9g", what, ntaps, r.bound, want);
}

static void test_random(void **state)
{
    static const size_t sizes[] = {1, 2, 3, 61, 1025, 4097, 20011};
    uint64_t rng = 0x9ea40001;
    (void)state;
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        float *h = malloc(sizes[i] * sizeof *h);
        assert_non_null(h);
        test_fill(h, sizes[i], &rng);
        check_peak("random", h, sizes[i]);
        free(h);
    }
}

/* A tone of ntaps taps whose peak lies half-way between two of the
 * library's grid points, where the grid alone reads it lowest; with decay
 * below 1, a resonance. */
static float *tone(size_t ntaps, double decay)
{
    float *h = malloc(ntaps * sizeof *h);
    size_t grid = 8192;
    assert_non_null(h);
    while (grid < 2 * ntaps)
        grid *= 2; /* a lower bound of the library's grid: off its points either way */
    const double w = TWO_PI * (0.1234 * (double)grid + 0.5) / (double)grid;
    for (size_t n = 0; n < ntaps; n++)
        h[n] = (float)(pow(decay, (double)n) * cos(w * (double)n));
    return h;
}

static void test_narrow_band(void **state)
{
    static const size_t sizes[] = {1001, 16383};
    float *h;
    (void)state;
    for (size_t i = 0; i < 2; i++) {
        h = tone(sizes[i], 1.0);
        check_peak("tone", h, sizes[i]);
        free(h);
        h = tone(sizes[i], 1.0 - 3.0 / (double)sizes[i]);
        check_peak("resonance", h, sizes[i]);
        free(h);
    }
    /* 40 Hz wide at 48 kHz, 80 dB: a long, narrow pass band */
    size_t n;
    assert_int_equal(gfir_design_length(GFIR_BANDPASS, 48000, 30, 80, &n), GFIR_OK);
    h = malloc(n * sizeof *h);
    assert_non_null(h);
    assert_int_equal(gfir_design_kaiser(GFIR_BANDPASS, 48000, 1000, 1040, 30, 80, h, n), GFIR_OK);
    check_peak("narrow band-pass", h, n);
    free(h);
}

/* A pure delay's response is flat: every grid point could be the nearest
 * to the peak, the budget runs out, and the value is still the peak. */
static void test_flat(void **state)
{
    const size_t ntaps = 70001;
    float *h = calloc(ntaps, sizeof *h);
    (void)state;
    assert_non_null(h);
    h[ntaps - 1] = 0.5f;
    const double got = gfir_response_peak(h, ntaps);
    if (!(fabs(got - 0.5) <= PEAK_TOLERANCE * 0.5))
        fail_msg("a delay of %zu: peak %.9g, want 0.5", ntaps, got);
    free(h);
}

/* Outputs of several paths: the peak of the sum of their magnitudes, and
 * the energy, against the references; with paths NULL, the loudest set.
 * Beyond 16384 taps the sets and outputs run on threads. */
static void loudness_case(size_t ntaps, uint64_t seed)
{
    const unsigned nsets = 3;
    float *taps = malloc(nsets * ntaps * sizeof *taps);
    uint64_t rng = seed;
    const gfir_path paths[] = {{0, 0, 0, 0.5f}, {1, 0, 1, -1.25f}, {0, 1, 2, 2.0f}};
    const unsigned out0[] = {0, 1}, out1[] = {2}, each[] = {0, 1, 2};
    const double g0[] = {0.5, -1.25}, g1[] = {2.0}, ones[] = {1, 1, 1};
    assert_non_null(taps);
    test_fill(taps, nsets * ntaps, &rng);
    /* set 1 narrow-band, so the sum's peak is not any one set's */
    for (size_t n = 0; n < ntaps; n++)
        taps[ntaps + n] = (float)(0.05 * cos(0.7 * (double)n));

    double want = reference_peak(taps, ntaps, out0, g0, 2);
    const double want1 = reference_peak(taps, ntaps, out1, g1, 1);
    want = want1 > want ? want1 : want;
    double got = gfir_filter_loudness(taps, ntaps, nsets, paths, 3, GFIR_NORMALIZE_PEAK);
    if (!(fabs(got - want) <= PEAK_TOLERANCE * want))
        fail_msg("paths: peak %.9g, want %.9g", got, want);

    double e0 = 0, e1 = 0, e2 = 0;
    for (size_t n = 0; n < ntaps; n++) {
        e0 += (double)taps[n] * taps[n];
        e1 += (double)taps[ntaps + n] * taps[ntaps + n];
        e2 += (double)taps[2 * ntaps + n] * taps[2 * ntaps + n];
    }
    want = fmax(sqrt(0.25 * e0 + 1.5625 * e1), sqrt(4.0 * e2));
    got = gfir_filter_loudness(taps, ntaps, nsets, paths, 3, GFIR_NORMALIZE_ENERGY);
    assert_true(fabs(got - want) <= 1e-12 * want);

    want = 0;
    for (unsigned s = 0; s < nsets; s++)
        want = fmax(want, reference_peak(taps, ntaps, &each[s], &ones[s], 1));
    got = gfir_filter_loudness(taps, ntaps, nsets, NULL, 0, GFIR_NORMALIZE_PEAK);
    if (!(fabs(got - want) <= PEAK_TOLERANCE * want))
        fail_msg("sets: peak %.9g, want %.9g", got, want);
    assert_true(gfir_filter_loudness(taps, ntaps, nsets, NULL, 0, GFIR_NORMALIZE_NONE) == 1.0);
    free(taps);
}

static void test_loudness(void **state)
{
    (void)state;
    loudness_case(3001, 0x9ea40002);
    loudness_case(20011, 0x9ea40003);
}

static void test_errors(void **state)
{
    float h[4] = {0.5f, -0.25f, 0.125f, 0};
    const gfir_path bad_set = {0, 0, 1, 1.0f}, bad_gain = {0, 0, 0, NAN};
    (void)state;
    assert_true(gfir_filter_loudness(NULL, 4, 1, NULL, 0, GFIR_NORMALIZE_PEAK) == GFIR_ERR_NULL);
    assert_true(gfir_filter_loudness(h, 0, 1, NULL, 0, GFIR_NORMALIZE_PEAK) == GFIR_ERR_TAPS);
    assert_true(gfir_filter_loudness(h, 4, 0, NULL, 0, GFIR_NORMALIZE_PEAK) == GFIR_ERR_TAPS);
    assert_true(gfir_filter_loudness(h, 4, 1, &bad_set, 1, GFIR_NORMALIZE_PEAK) == GFIR_ERR_ARG);
    assert_true(gfir_filter_loudness(h, 4, 1, &bad_gain, 1, GFIR_NORMALIZE_PEAK) ==
                GFIR_ERR_ARG);
    assert_true(gfir_filter_loudness(h, 4, 1, NULL, 1, GFIR_NORMALIZE_PEAK) == GFIR_ERR_ARG);
    assert_true(gfir_filter_loudness(h, 4, 1, NULL, 0, (gfir_normalize)7) == GFIR_ERR_ARG);
    h[0] = h[1] = h[2] = 0;
    assert_true(gfir_filter_loudness(h, 4, 1, NULL, 0, GFIR_NORMALIZE_PEAK) == 0.0);
    assert_true(gfir_filter_loudness(h, 4, 1, NULL, 0, GFIR_NORMALIZE_ENERGY) == 0.0);
}

/* The onset: the first frame of any set within the level of the largest. */
static void test_onset(void **state)
{
    float h[2 * 7] = {0, 0, 0.01f, 0, 0.5f, -1.0f, 0.2f, /* set 1: */ 0, 0, 0, -0.2f, 0, 0, 0};
    (void)state;
    assert_int_equal(gfir_filter_onset(h, 7, 2, -20), 3);  /* 0.1: set 1's 0.2 at 3 */
    assert_int_equal(gfir_filter_onset(h, 7, 2, -13), 4);  /* 0.22: set 0's 0.5 at 4 */
    assert_int_equal(gfir_filter_onset(h, 7, 2, -41), 2);  /* 0.009: set 0's 0.01 */
    assert_int_equal(gfir_filter_onset(h, 7, 1, -1), 5);   /* set 0 alone, 0.89 */
    assert_int_equal(gfir_filter_onset(h, 7, 2, 1), 7);
    float z[3] = {0, 0, 0};
    assert_int_equal(gfir_filter_onset(z, 3, 1, -20), 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random),       cmocka_unit_test(test_narrow_band),
        cmocka_unit_test(test_flat),         cmocka_unit_test(test_loudness),
        cmocka_unit_test(test_errors),       cmocka_unit_test(test_onset),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
