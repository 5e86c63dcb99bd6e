/*
 * minphase_test.c - gfir_design_minimum_phase against filters whose minimum
 * phase version is known exactly (built from their zeros in double: each
 * zero outside the unit circle reflected inside, the gain kept), against
 * the defining properties on random decaying filters (the same magnitude,
 * the energy as early as it can come), and gfir_response_magnitudes against
 * the direct double sum of gfir_response_magnitude (gfir_response_peak has
 * peak_test.c).
 *
 * Tolerances: the exact cases have zeros at least 0.29 from the unit
 * circle, so the cepstrum decays fast and the method is exact to double
 * rounding; 1e-6 relative L2 covers the float taps it is rounded to. Elsewhere the
 * function's own 0.05 dB target is checked at frequencies off its grid with
 * 0.1 dB, the figure the command line promises.
 */
#include "gfir.h"
#include "test_util.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#define TAP_TOLERANCE 1e-6
#define MAGNITUDE_DB 0.1
#define PI 3.14159265358979323846

/* p (n coefficients) times (1 + b z^-1 + c z^-2) into p, which holds n + 2. */
static size_t times_quadratic(double *p, size_t n, double b, double c)
{
    for (size_t i = n + 2; i-- > 0;) {
        double v = i < n ? p[i] : 0;
        v += i >= 1 && i - 1 < n ? b * p[i - 1] : 0;
        v += i >= 2 && i - 2 < n ? c * p[i - 2] : 0;
        p[i] = v;
    }
    return n + 2;
}

/*
 * A filter from npairs quadratic factors (1 + b z^-1 + c z^-2), each a
 * conjugate pair of zeros at radius sqrt(c), and its minimum-phase version.
 * A pair outside the unit circle (c > 1) has the magnitude of its reversal
 * (c + b z^-1 + z^-2), whose zeros are the pair reflected inside. The
 * coefficients are a few bits each, and a case is drawn again until its
 * product is exact in float: the reference is then exact for the very taps
 * the function is given, not for a rounding of them.
 */
static size_t zeros_case(uint64_t *rng, size_t npairs, float *h, double *want)
{
    static const double inside_c[] = {0.25, 0.375, 0.5}, outside_c[] = {2, 3, 4};
    double p[64], q[64];
    size_t n;
    int exact = 0;
    for (int attempt = 0; attempt < 1000 && !exact; attempt++) {
        exact = 1;
        p[0] = q[0] = 1;
        n = 1;
        for (size_t k = 0; k < npairs; k++) {
            const int outside = test_uniform(rng) < 0.5;
            const int pick = (int)(3 * test_uniform(rng)), step = (int)(5 * test_uniform(rng)) - 2;
            const double c = outside ? outside_c[pick] : inside_c[pick];
            const double b = outside ? step : step / 4.0;
            times_quadratic(p, n, b, c);
            n = outside ? times_quadratic(q, n, b / c, 1 / c) : times_quadratic(q, n, b, c);
            if (outside)
                for (size_t i = 0; i < n; i++)
                    q[i] *= c;
        }
        for (size_t i = 0; i < n; i++)
            exact &= (double)(float)p[i] == p[i];
    }
    assert_true(exact);
    for (size_t i = 0; i < n; i++) {
        h[i] = (float)p[i];
        want[i] = q[i];
    }
    return n;
}

static void test_known_zeros(void **state)
{
    (void)state;
    uint64_t rng = 0x5eed0001;
    static const size_t pairs[] = {1, 3, 6, 10};
    for (size_t c = 0; c < sizeof pairs / sizeof pairs[0]; c++) {
        for (int rep = 0; rep < 5; rep++) {
            float h[64], out[64];
            double want[64], err_db = -1;
            const size_t n = zeros_case(&rng, pairs[c], h, want);
            assert_int_equal(gfir_design_minimum_phase(h, n, out, &err_db), GFIR_OK);
            const double e = test_rel_l2(out, want, n);
            if (!(e < TAP_TOLERANCE))
                fail_msg("%zu pairs: rel L2 %g", pairs[c], e);
            assert_true(err_db >= 0 && err_db <= 0.05);
            /* and a minimum-phase filter is its own minimum phase (in place) */
            assert_int_equal(gfir_design_minimum_phase(out, n, out, NULL), GFIR_OK);
            assert_true(test_rel_l2(out, want, n) < TAP_TOLERANCE);
        }
    }
}

static double centre(const float *h, size_t n)
{
    double num = 0, den = 0;
    for (size_t i = 0; i < n; i++) {
        num += (double)i * h[i] * h[i];
        den += (double)h[i] * h[i];
    }
    return num / den;
}

/* Noise under an exponential decay (a small room), delayed by `delay`
 * frames of silence: the shape --min-phase is for. */
static void test_decaying_noise(void **state)
{
    (void)state;
    uint64_t rng = 0x5eed0002;
    const size_t n = 3000, delay = 200;
    float *h = calloc(n, sizeof *h), *out = malloc(n * sizeof *out);
    double err_db = -1, peak = 0, e_in = 0, e_out = 0;
    assert_non_null(h);
    assert_non_null(out);
    for (size_t i = delay; i < n; i++)
        h[i] = (float)((2 * test_uniform(&rng) - 1) * exp(-(double)(i - delay) / 400.0));
    assert_int_equal(gfir_design_minimum_phase(h, n, out, &err_db), GFIR_OK);
    assert_true(err_db <= 0.05);
    assert_true(out[0] >= 0);
    /* off the grid: 997 frequencies that no power-of-two grid holds */
    for (int k = 0; k < 997; k++) {
        const double f = (k + 0.37) / 997 * 0.5;
        const double m = gfir_response_magnitude(h, n, f, 1.0);
        peak = m > peak ? m : peak;
    }
    for (int k = 0; k < 997; k++) {
        const double f = (k + 0.37) / 997 * 0.5;
        const double a = gfir_response_magnitude(h, n, f, 1.0);
        const double b = gfir_response_magnitude(out, n, f, 1.0);
        if (a > peak * 1e-4 && !(fabs(20 * log10(b / a)) <= MAGNITUDE_DB))
            fail_msg("at %g of the rate: %g dB off", f, 20 * log10(b / a));
    }
    /* the energy moves to the front: by the centre, and at every frame the
     * minimum-phase filter has had at least as much of it (to rounding) */
    assert_true(centre(out, n) < centre(h, n) - delay);
    for (size_t i = 0; i < n; i++) {
        e_in += (double)h[i] * h[i];
        e_out += (double)out[i] * out[i];
        if (!(e_out >= e_in * (1 - 1e-6)))
            fail_msg("frame %zu: %g of energy, the original had %g", i, e_out, e_in);
    }
    free(h);
    free(out);
}

static void test_minimum_phase_edges(void **state)
{
    (void)state;
    float zeros[5] = {0}, out[5] = {1, 1, 1, 1, 1}, one = -0.5f, bad[3] = {1, NAN, 0};
    double err_db = -1;
    assert_int_equal(gfir_design_minimum_phase(zeros, 5, out, &err_db), GFIR_OK);
    for (int i = 0; i < 5; i++)
        assert_true(out[i] == 0);
    /* one tap: its magnitude, made positive */
    assert_int_equal(gfir_design_minimum_phase(&one, 1, out, NULL), GFIR_OK);
    assert_true(fabs(out[0] - 0.5) < 1e-7);
    assert_int_equal(gfir_design_minimum_phase(NULL, 5, out, NULL), GFIR_ERR_NULL);
    assert_int_equal(gfir_design_minimum_phase(zeros, 5, NULL, NULL), GFIR_ERR_NULL);
    assert_int_equal(gfir_design_minimum_phase(zeros, 0, out, NULL), GFIR_ERR_TAPS);
    assert_int_equal(gfir_design_minimum_phase(bad, 3, out, NULL), GFIR_ERR_TAPS);
}

static void magnitudes_case(size_t ntaps, size_t nfreqs, uint64_t *rng)
{
    float *h = malloc(ntaps * sizeof *h);
    double *mag = malloc(nfreqs * sizeof *mag);
    assert_non_null(h);
    assert_non_null(mag);
    test_fill(h, ntaps, rng);
    assert_int_equal(gfir_response_magnitudes(h, ntaps, mag, nfreqs), GFIR_OK);
    for (size_t k = 0; k < nfreqs; k++) {
        const double want = gfir_response_magnitude(h, ntaps, (double)k / (nfreqs - 1), 2.0);
        if (!(fabs(mag[k] - want) <= 1e-9 * sqrt((double)ntaps)))
            fail_msg("%zu taps, %zu points, k %zu: %.17g, want %.17g", ntaps, nfreqs, k,
                     mag[k], want);
    }
    free(h);
    free(mag);
}

static void test_magnitudes(void **state)
{
    (void)state;
    uint64_t rng = 0x5eed0003;
    double mag[5];
    float h[3] = {1, 2, 3};
    magnitudes_case(1, 2, &rng);
    /* the coarsest grids: the half-length transform's edge cases */
    magnitudes_case(2, 2, &rng);
    magnitudes_case(5, 2, &rng);
    magnitudes_case(6, 3, &rng);
    magnitudes_case(37, 257, &rng);
    magnitudes_case(1000, 65, &rng);  /* coarser than the filter: wrapped */
    magnitudes_case(4097, 4097, &rng);
    assert_int_equal(gfir_response_magnitudes(NULL, 3, mag, 5), GFIR_ERR_NULL);
    assert_int_equal(gfir_response_magnitudes(h, 3, NULL, 5), GFIR_ERR_NULL);
    assert_int_equal(gfir_response_magnitudes(h, 0, mag, 5), GFIR_ERR_TAPS);
    assert_int_equal(gfir_response_magnitudes(h, 3, mag, 1), GFIR_ERR_ARG);
    assert_int_equal(gfir_response_magnitudes(h, 3, mag, 4), GFIR_ERR_ARG);
}

/*
 * SciPy's test_nyquist: a 964-tap Hamming-windowed low-pass (firwin's,
 * scaled to unit gain at DC) keeps its magnitude on the 964-point DFT grid
 * to 2e-5 absolute. Every even-length symmetric filter has a zero exactly
 * at Nyquist (its taps cancel in pairs), which the cepstrum cannot take the
 * logarithm of; it missed by 3e-4 before that zero was factored out.
 * to_dc: the same filter modulated by (-1)^i, whose zero is at DC.
 */
static void nyquist_case(size_t n, double cutoff, int to_dc)
{
    float *h = malloc(n * sizeof *h), *out = malloc(n * sizeof *out);
    double *w = malloc(n * sizeof *w), sum = 0, worst = 0, err_db = -1;
    assert_non_null(h);
    assert_non_null(out);
    assert_non_null(w);
    for (size_t i = 0; i < n; i++) {
        const double t = (double)i - (double)(n - 1) / 2, x = PI * cutoff * t;
        w[i] = (0.54 - 0.46 * cos(2 * PI * (double)i / (double)(n - 1))) * cutoff *
               (x == 0 ? 1 : sin(x) / x);
        sum += w[i];
    }
    /* mirrored, so that the taps are symmetric exactly in float */
    for (size_t i = 0; i < n; i++)
        h[i] = (float)(w[i < n / 2 ? i : n - 1 - i] / sum * (to_dc && i % 2 ? -1 : 1));
    assert_int_equal(gfir_design_minimum_phase(h, n, out, &err_db), GFIR_OK);
    for (size_t k = 0; k <= n / 2; k++) {
        const double a = gfir_response_magnitude(h, n, (double)k, (double)n);
        const double b = gfir_response_magnitude(out, n, (double)k, (double)n);
        worst = fabs(a - b) > worst ? fabs(a - b) : worst;
    }
    if (!(worst < 2e-5))
        fail_msg("%zu taps, cutoff %g%s: magnitude off by %g on the %zu-point grid", n, cutoff,
                 to_dc ? " (modulated)" : "", worst, n);
    assert_true(err_db >= 0 && err_db < 1); /* reported; 0.25 dB at cutoff 0.2, in deep stopband */
    free(h);
    free(out);
    free(w);
}

static void test_nyquist(void **state)
{
    (void)state;
    /* without the zero factored out: 1.3e-6, 5.7e-6 and 5.1e-5 */
    nyquist_case(964, 0.2, 0);
    nyquist_case(964, 0.9, 0);
    nyquist_case(964, 0.98, 0);
    nyquist_case(963, 0.98, 0); /* odd: no zero there, the same bar */
    nyquist_case(100, 0.6, 0);
    /* modulated by (-1)^i: antisymmetric, with its zero at DC instead */
    nyquist_case(964, 0.98, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_zeros),
        cmocka_unit_test(test_decaying_noise),
        cmocka_unit_test(test_minimum_phase_edges),
        cmocka_unit_test(test_magnitudes),
        cmocka_unit_test(test_nyquist),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
