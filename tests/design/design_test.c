/*
 * design_test.c - filter design against SciPy's float64 designs (golden files
 * by tests/design/gen_design_golden.py), the designs against the specification they
 * were asked for, stage folding and the frequency response against direct
 * double computations, and every error path.
 *
 * Tap tolerance: relative L2 error 1e-6. gfir designs in double like SciPy
 * and only rounds the result to float, which moves each tap by at most 2^-24
 * (6e-8) of itself; the golden files print 9 digits (5e-9) and libm's sin,
 * cos and pow differ by ulps. 1e-6 leaves room for those and nothing more:
 * a wrong length, cutoff, scale or a beta off by 1e-4 is far above it.
 */
#include "gfir.h"
#include "test_util.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#ifndef GFIR_TEST_DATA_DIR
#error "GFIR_TEST_DATA_DIR must name tests/design/data"
#endif
#define DESIGN_DIR GFIR_TEST_DATA_DIR "/"

#define TAP_TOLERANCE 1e-6

/*
 * Kaiser's method aims at a deviation delta = 10^(-A/20) on each side of one
 * transition. The ripples of two transitions add up (band types), and
 * scale=True sets the gain to 1 at one frequency, which shifts the whole
 * passband: SciPy's own designs here reach 2.3 delta. The check allows 2.5
 * delta (8 dB): it catches a wrong type, edge or scale, not SciPy's habits.
 */
#define SPEC_SLACK 2.5

static const double pi = 3.14159265358979323846;

/* cmocka 1.1.5 (Debian 12) compares floats only. */
#define assert_close(got, want, tolerance) close_at((got), (want), (tolerance), __LINE__)
static void close_at(double got, double want, double tolerance, int line)
{
    if (!(fabs(got - want) <= tolerance))
        fail_msg("line %d: %.17g, want %.17g", line, got, want);
}

typedef struct golden {
    char name[256];
    gfir_filter_type type;
    double rate_hz, cutoff1_hz, cutoff2_hz, transition_hz, attenuation_db, beta;
    size_t ntaps;
    double *taps;
} golden;

static int parse_type(const char *s, gfir_filter_type *type)
{
    static const char *const names[] = {"lowpass", "highpass", "bandpass", "bandstop"};
    for (int i = 0; i < 4; i++) {
        if (strcmp(s, names[i]) == 0) {
            *type = (gfir_filter_type)i;
            return 1;
        }
    }
    return 0;
}

static void read_golden(const char *name, golden *g)
{
    char path[1024], type[16];
    snprintf(path, sizeof path, "%s%s", DESIGN_DIR, name);
    snprintf(g->name, sizeof g->name, "%s", name);
    FILE *f = fopen(path, "r");
    if (!f)
        fail_msg("cannot open %s", path);
    int fields = fscanf(f, "%15s %lf %lf %lf %lf %lf %zu %lf", type, &g->rate_hz,
                        &g->cutoff1_hz, &g->cutoff2_hz, &g->transition_hz,
                        &g->attenuation_db, &g->ntaps, &g->beta);
    if (fields != 8 || !parse_type(type, &g->type))
        fail_msg("%s: bad header", path);
    g->taps = malloc(g->ntaps * sizeof *g->taps);
    assert_non_null(g->taps);
    for (size_t i = 0; i < g->ntaps; i++) {
        if (fscanf(f, "%lf", &g->taps[i]) != 1)
            fail_msg("%s: tap %zu missing", path, i);
    }
    fclose(f);
}

/* Every case named in cases.txt, read into a malloc'd array. */
static golden *read_all(size_t *count)
{
    FILE *f = fopen(DESIGN_DIR "cases.txt", "r");
    char line[256];
    golden *all = NULL;
    size_t n = 0;
    if (!f)
        fail_msg("cannot open %scases.txt", DESIGN_DIR);
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] == '#' || line[0] == '\0')
            continue;
        all = realloc(all, (n + 1) * sizeof *all);
        assert_non_null(all);
        read_golden(line, &all[n++]);
    }
    fclose(f);
    assert_true(n >= 25); /* a lost index line must not shrink the test silently */
    *count = n;
    return all;
}

static void free_all(golden *all, size_t count)
{
    for (size_t i = 0; i < count; i++)
        free(all[i].taps);
    free(all);
}

static float *design(const golden *g)
{
    float *taps = malloc(g->ntaps * sizeof *taps);
    assert_non_null(taps);
    assert_int_equal(gfir_design_kaiser(g->type, g->rate_hz, g->cutoff1_hz, g->cutoff2_hz,
                                        g->transition_hz, g->attenuation_db, taps, g->ntaps),
                     GFIR_OK);
    return taps;
}

/* Lengths exactly SciPy's, the knife-edge cases included; beta to rounding. */
static void test_golden_lengths_and_beta(void **state)
{
    (void)state;
    size_t count, ntaps, kaiser_ntaps;
    double beta;
    golden *all = read_all(&count);
    for (size_t i = 0; i < count; i++) {
        const golden *g = &all[i];
        assert_int_equal(gfir_design_length(g->type, g->rate_hz, g->transition_hz,
                                            g->attenuation_db, &ntaps),
                         GFIR_OK);
        if (ntaps != g->ntaps)
            fail_msg("%s: %zu taps, SciPy %zu", g->name, ntaps, g->ntaps);
        assert_int_equal(gfir_kaiserord(g->attenuation_db, g->transition_hz, g->rate_hz,
                                        &kaiser_ntaps, &beta),
                         GFIR_OK);
        assert_true(kaiser_ntaps == ntaps || (kaiser_ntaps + 1 == ntaps && ntaps % 2 == 1));
        if (fabs(beta - g->beta) > 1e-14 * (1.0 + g->beta))
            fail_msg("%s: beta %.17g, SciPy %.17g", g->name, beta, g->beta);
    }
    free_all(all, count);
}

static void test_golden_taps(void **state)
{
    (void)state;
    size_t count;
    golden *all = read_all(&count);
    for (size_t i = 0; i < count; i++) {
        float *taps = design(&all[i]);
        double err = test_rel_l2(taps, all[i].taps, all[i].ntaps);
        if (!(err < TAP_TOLERANCE))
            fail_msg("%s: relative L2 error %.3g", all[i].name, err);
        free(taps);
    }
    free_all(all, count);
}

/* Largest |H(f)| - target over [lo, hi] on a grid fine enough to see every
 * ripple (8 points per rate / ntaps); -1 for an empty band. */
static double worst_deviation(const float *taps, size_t ntaps, double rate_hz, double lo,
                              double hi, double target)
{
    double worst = -1.0, step = rate_hz / (8.0 * (double)ntaps);
    lo = lo < 0.0 ? 0.0 : lo;
    hi = hi > 0.5 * rate_hz ? 0.5 * rate_hz : hi;
    if (hi < lo)
        return worst;
    size_t points = (size_t)((hi - lo) / step) + 2;
    for (size_t p = 0; p < points; p++) {
        double f = lo + (hi - lo) * (double)p / (double)(points - 1);
        double dev = fabs(gfir_response_magnitude(taps, ntaps, f, rate_hz) - target);
        worst = dev > worst ? dev : worst;
    }
    return worst;
}

/* Passbands hold 1 and stopbands 0 within the asked-for deviation, outside
 * the transition bands around each cutoff. */
static void test_golden_spec(void **state)
{
    (void)state;
    size_t count;
    golden *all = read_all(&count);
    for (size_t i = 0; i < count; i++) {
        const golden *g = &all[i];
        float *taps = design(g);
        double half = 0.5 * g->transition_hz, nyq = 0.5 * g->rate_hz;
        double c1 = g->cutoff1_hz, c2 = g->cutoff2_hz;
        /* bands between 0, c1 (c2) and Nyquist alternate between two gains */
        double lo_gain = g->type == GFIR_LOWPASS || g->type == GFIR_BANDSTOP;
        double starts[3] = {0.0, c1, c2}; /* the cutoff that opens each band */
        double gains[3] = {lo_gain, 1.0 - lo_gain, lo_gain};
        int bands = g->type == GFIR_LOWPASS || g->type == GFIR_HIGHPASS ? 2 : 3;
        double worst = 0.0;
        for (int b = 0; b < bands; b++) {
            double lo = b == 0 ? 0.0 : starts[b] + half;
            double hi = b == bands - 1 ? nyq : starts[b + 1] - half;
            double dev = worst_deviation(taps, g->ntaps, g->rate_hz, lo, hi, gains[b]);
            worst = dev > worst ? dev : worst;
        }
        double delta = pow(10.0, -g->attenuation_db / 20.0);
        if (!(worst <= SPEC_SLACK * delta))
            fail_msg("%s: deviation %.3g, asked %.3g", g->name, worst, delta);
        free(taps);
    }
    free_all(all, count);
}

static void fold_case(size_t na, size_t nb, uint64_t seed)
{
    float *a = malloc(na * sizeof *a), *b = malloc(nb * sizeof *b);
    float *out = malloc((na + nb - 1) * sizeof *out);
    assert_non_null(a);
    assert_non_null(b);
    assert_non_null(out);
    test_fill(a, na, &seed);
    test_fill(b, nb, &seed);
    assert_int_equal(gfir_fold(a, na, b, nb, out), GFIR_OK);
    for (size_t i = 0; i < na + nb - 1; i++) {
        double ref = 0.0, size = 0.0;
        for (size_t j = 0; j < na; j++) {
            if (i >= j && i - j < nb) {
                ref += (double)a[j] * (double)b[i - j];
                size += fabs((double)a[j] * (double)b[i - j]);
            }
        }
        /* double accumulation leaves only the final rounding to float */
        if (!(fabs(out[i] - ref) <= 0x1p-24 * fabs(ref) + 1e-14 * size))
            fail_msg("fold %zu x %zu: out[%zu] = %.9g, want %.17g", na, nb, i, out[i], ref);
    }
    free(a);
    free(b);
    free(out);
}

static void test_fold(void **state)
{
    (void)state;
    fold_case(1, 1, 1);
    fold_case(1, 33, 2);
    fold_case(37, 101, 3);
    fold_case(555, 147, 4);
    fold_case(2048, 3, 5);

    /* folding with a unit impulse is the identity */
    float h[5] = {0.5f, -0.25f, 0.125f, 1.0f, -2.0f}, one = 1.0f, out[5];
    assert_int_equal(gfir_fold(h, 5, &one, 1, out), GFIR_OK);
    assert_memory_equal(out, h, sizeof h);
}

/* Long stages fold through a double FFT (fold.c): against the direct sum in
 * double, the only error left must be the final rounding to float, 2^-24 of
 * each tap, so a relative L2 of 2e-7; an FFT in float would give about 1e-6. */
static void fold_fft_case(size_t na, size_t nb, uint64_t seed)
{
    float *a = malloc(na * sizeof *a), *b = malloc(nb * sizeof *b);
    float *out = malloc((na + nb - 1) * sizeof *out);
    double *ref = calloc(na + nb - 1, sizeof *ref);
    assert_non_null(a);
    assert_non_null(b);
    assert_non_null(out);
    assert_non_null(ref);
    test_fill(a, na, &seed);
    test_fill(b, nb, &seed);
    assert_int_equal(gfir_fold(a, na, b, nb, out), GFIR_OK);
    for (size_t j = 0; j < na; j++)
        for (size_t k = 0; k < nb; k++)
            ref[j + k] += (double)a[j] * (double)b[k];
    double err = test_rel_l2(out, ref, na + nb - 1);
    if (!(err < 2e-7))
        fail_msg("fold %zu x %zu: relative L2 error %.3g", na, nb, err);
    free(a);
    free(b);
    free(out);
    free(ref);
}

static void test_fold_long(void **state)
{
    (void)state;
    fold_fft_case(1500, 1500, 11);
    fold_fft_case(3000, 7001, 12);
    fold_fft_case(16385, 4095, 13);
    fold_fft_case(33, 65536, 14);
    fold_fft_case(100000, 17, 15);
}

/* |H| at the bins of an N-point DFT of the zero-padded taps, and elsewhere. */
static void test_response_dft(void **state)
{
    (void)state;
    enum { NTAPS = 61, NDFT = 256 };
    float taps[NTAPS];
    uint64_t seed = 42;
    const double rate_hz = 48000.0;
    test_fill(taps, NTAPS, &seed);
    for (int k = 0; k <= NDFT / 2; k++) {
        double re = 0.0, im = 0.0;
        for (int n = 0; n < NTAPS; n++) {
            int phase = (k * n) % NDFT; /* exact reduction of the angle */
            re += taps[n] * cos(2.0 * pi * phase / NDFT);
            im -= taps[n] * sin(2.0 * pi * phase / NDFT);
        }
        double want = sqrt(re * re + im * im);
        double f = rate_hz * k / NDFT;
        assert_close(gfir_response_magnitude(taps, NTAPS, f, rate_hz), want, 1e-12);
        /* periodic in rate_hz, and even in f for real taps */
        assert_close(gfir_response_magnitude(taps, NTAPS, f + 3 * rate_hz, rate_hz), want,
                            1e-12);
        assert_close(gfir_response_magnitude(taps, NTAPS, -f, rate_hz), want, 1e-12);
    }

    /* two equal taps: |H(f)| = 2 |cos(pi f / rate)| */
    float pair[2] = {1.0f, 1.0f};
    for (double f = 0.0; f <= 24000.0; f += 1000.0)
        assert_close(gfir_response_magnitude(pair, 2, f, rate_hz),
                            2.0 * fabs(cos(pi * f / rate_hz)), 1e-14);
}

/* Every documented error code, NaN in every argument, and the edges that
 * are not errors. */
static void test_design_arguments(void **state)
{
    (void)state;
    const double nan = NAN;
    size_t n = 7;
    double beta = 3.0;
    float taps[4096];

    /* kaiserord */
    assert_int_equal(gfir_kaiserord(60, 100, 48000, NULL, &beta), GFIR_ERR_NULL);
    assert_int_equal(gfir_kaiserord(60, 100, 48000, &n, NULL), GFIR_ERR_NULL);
    const double bad_atten[] = {0.0, -60.0, 7.99, 1000.5, nan, INFINITY};
    for (size_t i = 0; i < sizeof bad_atten / sizeof *bad_atten; i++)
        assert_int_equal(gfir_kaiserord(bad_atten[i], 100, 48000, &n, &beta), GFIR_ERR_ARG);
    const double bad_positive[] = {0.0, -1.0, nan, INFINITY};
    for (size_t i = 0; i < sizeof bad_positive / sizeof *bad_positive; i++) {
        assert_int_equal(gfir_kaiserord(60, bad_positive[i], 48000, &n, &beta), GFIR_ERR_ARG);
        assert_int_equal(gfir_kaiserord(60, 100, bad_positive[i], &n, &beta), GFIR_ERR_ARG);
    }
    assert_int_equal(gfir_kaiserord(1000, 1e-3, 48000, &n, &beta), GFIR_ERR_TAPS);
    assert_int_equal(n, 7); /* outputs untouched on failure */
    assert_close(beta, 3.0, 0.0);
    assert_int_equal(gfir_kaiserord(8, 1e9, 48000, &n, &beta), GFIR_OK);
    assert_int_equal(n, 2);
    /* absurd widths round Kaiser's formula to 1 tap; SciPy's design is then [1] */
    assert_int_equal(gfir_kaiserord(8, 1e19, 48000, &n, &beta), GFIR_OK);
    assert_int_equal(n, 1);
    for (int type = GFIR_LOWPASS; type <= GFIR_BANDSTOP; type++) {
        assert_int_equal(gfir_design_kaiser((gfir_filter_type)type, 48000, 3000, 9000, 1e19, 8,
                                            taps, 1),
                         GFIR_OK);
        assert_true(taps[0] == 1.0f);
    }

    /* design_length */
    assert_int_equal(gfir_design_length(GFIR_LOWPASS, 48000, 100, 60, NULL), GFIR_ERR_NULL);
    assert_int_equal(gfir_design_length((gfir_filter_type)4, 48000, 100, 60, &n), GFIR_ERR_ARG);
    assert_int_equal(gfir_design_length((gfir_filter_type)-1, 48000, 100, 60, &n),
                     GFIR_ERR_ARG);
    assert_int_equal(gfir_design_length(GFIR_HIGHPASS, nan, 100, 60, &n), GFIR_ERR_ARG);
    assert_int_equal(gfir_design_length(GFIR_HIGHPASS, 48000, 1e-3, 1000, &n), GFIR_ERR_TAPS);

    /* design_kaiser: 48 kHz, 1 kHz transition, 60 dB */
    size_t lp, bs;
    assert_int_equal(gfir_design_length(GFIR_LOWPASS, 48000, 1000, 60, &lp), GFIR_OK);
    assert_int_equal(gfir_design_length(GFIR_BANDSTOP, 48000, 1000, 60, &bs), GFIR_OK);
    assert_true(lp <= 4096 && bs <= 4096);
    assert_int_equal(gfir_design_kaiser(GFIR_LOWPASS, 48000, 4000, 0, 1000, 60, NULL, lp),
                     GFIR_ERR_NULL);
    assert_int_equal(gfir_design_kaiser(GFIR_LOWPASS, 48000, 4000, 0, 1000, 60, taps, lp + 1),
                     GFIR_ERR_ARG);
    assert_int_equal(gfir_design_kaiser(GFIR_LOWPASS, 48000, 4000, 0, 1000, 60, taps, 0),
                     GFIR_ERR_ARG);
    assert_int_equal(gfir_design_kaiser((gfir_filter_type)9, 48000, 4000, 0, 1000, 60, taps, lp),
                     GFIR_ERR_ARG);
    const double bad_cutoff[] = {0.0, -10.0, 24000.0, 30000.0, nan, INFINITY};
    for (size_t i = 0; i < sizeof bad_cutoff / sizeof *bad_cutoff; i++) {
        double c = bad_cutoff[i];
        assert_int_equal(gfir_design_kaiser(GFIR_LOWPASS, 48000, c, 0, 1000, 60, taps, lp),
                         GFIR_ERR_ARG);
        assert_int_equal(gfir_design_kaiser(GFIR_BANDSTOP, 48000, c, 9000, 1000, 60, taps, bs),
                         GFIR_ERR_ARG);
        assert_int_equal(gfir_design_kaiser(GFIR_BANDSTOP, 48000, 3000, c, 1000, 60, taps, bs),
                         GFIR_ERR_ARG);
    }
    /* band edges must increase; an unused cutoff2 may be anything but NaN */
    assert_int_equal(gfir_design_kaiser(GFIR_BANDSTOP, 48000, 9000, 3000, 1000, 60, taps, bs),
                     GFIR_ERR_ARG);
    assert_int_equal(gfir_design_kaiser(GFIR_BANDSTOP, 48000, 3000, 3000, 1000, 60, taps, bs),
                     GFIR_ERR_ARG);
    assert_int_equal(gfir_design_kaiser(GFIR_LOWPASS, 48000, 4000, -5, 1000, 60, taps, lp),
                     GFIR_OK);
    assert_int_equal(gfir_design_kaiser(GFIR_LOWPASS, 48000, 4000, nan, 1000, 60, taps, lp),
                     GFIR_ERR_ARG);
    assert_int_equal(gfir_design_kaiser(GFIR_LOWPASS, 48000, 4000, 0, nan, 60, taps, lp),
                     GFIR_ERR_ARG);
    assert_int_equal(gfir_design_kaiser(GFIR_LOWPASS, 48000, 4000, 0, 1000, nan, taps, lp),
                     GFIR_ERR_ARG);
    assert_int_equal(gfir_design_kaiser(GFIR_LOWPASS, nan, 4000, 0, 1000, 60, taps, lp),
                     GFIR_ERR_ARG);
    assert_int_equal(gfir_design_kaiser(GFIR_LOWPASS, 48000, 4000, 0, 1000, 7, taps, lp),
                     GFIR_ERR_ARG);
}

static void test_fold_and_response_errors(void **state)
{
    (void)state;
    float a[3] = {1, 2, 3}, out[8];
    assert_int_equal(gfir_fold(NULL, 3, a, 3, out), GFIR_ERR_NULL);
    assert_int_equal(gfir_fold(a, 3, NULL, 3, out), GFIR_ERR_NULL);
    assert_int_equal(gfir_fold(a, 3, a, 3, NULL), GFIR_ERR_NULL);
    assert_int_equal(gfir_fold(a, 0, a, 3, out), GFIR_ERR_TAPS);
    assert_int_equal(gfir_fold(a, 3, a, 0, out), GFIR_ERR_TAPS);
    /* lengths alone are refused before anything is read */
    assert_int_equal(gfir_fold(a, GFIR_MAX_TAPS, a, 2, out), GFIR_ERR_TAPS);
    assert_int_equal(gfir_fold(a, SIZE_MAX, a, SIZE_MAX, out), GFIR_ERR_TAPS);

    assert_close(gfir_response_magnitude(NULL, 3, 100, 48000), GFIR_ERR_NULL, 0.0);
    assert_close(gfir_response_magnitude(a, 0, 100, 48000), GFIR_ERR_TAPS, 0.0);
    assert_close(gfir_response_magnitude(a, 3, NAN, 48000), GFIR_ERR_ARG, 0.0);
    assert_close(gfir_response_magnitude(a, 3, INFINITY, 48000), GFIR_ERR_ARG, 0.0);
    assert_close(gfir_response_magnitude(a, 3, 100, 0), GFIR_ERR_ARG, 0.0);
    assert_close(gfir_response_magnitude(a, 3, 100, -48000), GFIR_ERR_ARG, 0.0);
    assert_close(gfir_response_magnitude(a, 3, 100, NAN), GFIR_ERR_ARG, 0.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_golden_lengths_and_beta),
        cmocka_unit_test(test_golden_taps),
        cmocka_unit_test(test_golden_spec),
        cmocka_unit_test(test_fold),
        cmocka_unit_test(test_fold_long),
        cmocka_unit_test(test_response_dft),
        cmocka_unit_test(test_design_arguments),
        cmocka_unit_test(test_fold_and_response_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
