/*
 * kaiser.c - Kaiser windowed-sinc filter design (scipy.signal.kaiserord and
 * firwin with scale=True).
 *
 * Everything is computed in double and only the final taps are rounded to
 * float, so the designs match SciPy's float64 ones to float precision.
 */
#include "gfir.h"

#include <math.h>

#include "design/dft.h"

/* Kaiser's formulas are empirical fits that SciPy refuses below 8 dB. Above
 * 1000 dB beta would pass 100 and buy nothing a double (let alone a float)
 * can hold, and I0(beta) would head for overflow near beta = 700. */
#define MIN_ATTENUATION_DB 8.0
#define MAX_ATTENUATION_DB 1000.0

int gf_positive_finite(double x)
{
    return x > 0.0 && isfinite(x);
}

/* scipy.signal.kaiser_beta. */
static double kaiser_beta(double a)
{
    if (a > 50.0)
        return 0.1102 * (a - 8.7);
    if (a > 21.0)
        return 0.5842 * pow(a - 21.0, 0.4) + 0.07886 * (a - 21.0);
    return 0.0;
}

gfir_status gfir_kaiserord(double attenuation_db, double transition_hz, double rate_hz,
                           size_t *ntaps, double *beta)
{
    if (!ntaps || !beta)
        return GFIR_ERR_NULL;
    if (!(attenuation_db >= MIN_ATTENUATION_DB && attenuation_db <= MAX_ATTENUATION_DB) ||
        !gf_positive_finite(transition_hz) || !gf_positive_finite(rate_hz))
        return GFIR_ERR_ARG;
    /* SciPy's operations in SciPy's order: where the real quotient is a whole
     * number, the rounding of each step decides the ceil, and another order
     * (one division by 2.285 * pi * width, say) can give a length one off. */
    double width = transition_hz / (rate_hz / 2.0);
    double length = ceil((attenuation_db - 7.95) / 2.285 / (pi * width) + 1.0);
    if (!(length <= (double)GFIR_MAX_TAPS))
        return GFIR_ERR_TAPS;
    *ntaps = (size_t)length;
    *beta = kaiser_beta(attenuation_db);
    return GFIR_OK;
}

static int needs_odd_length(gfir_filter_type type)
{
    return type == GFIR_HIGHPASS || type == GFIR_BANDSTOP;
}

gfir_status gfir_design_length(gfir_filter_type type, double rate_hz, double transition_hz,
                               double attenuation_db, size_t *ntaps)
{
    double beta;
    size_t n;
    if (!ntaps)
        return GFIR_ERR_NULL;
    if ((unsigned)type > GFIR_BANDSTOP)
        return GFIR_ERR_ARG;
    gfir_status st = gfir_kaiserord(attenuation_db, transition_hz, rate_hz, &n, &beta);
    if (st != GFIR_OK)
        return st;
    /* An even-length symmetric filter has a zero at Nyquist (type II), so a
     * filter that must pass Nyquist gets one tap more, as firwin demands. */
    if (needs_odd_length(type) && n % 2 == 0) {
        if (n == GFIR_MAX_TAPS)
            return GFIR_ERR_TAPS;
        n++;
    }
    *ntaps = n;
    return GFIR_OK;
}

/* The passbands of firwin, as fractions of Nyquist: [left, right] pairs. */
typedef struct passbands {
    double left[2], right[2];
    int count;
} passbands;

/* Checks the cutoffs against the type, known to be valid, and turns them
 * into passbands. */
static gfir_status make_passbands(gfir_filter_type type, double rate_hz, double cutoff1_hz,
                                  double cutoff2_hz, passbands *pb)
{
    double nyquist_hz = 0.5 * rate_hz;
    double f1 = cutoff1_hz / nyquist_hz, f2 = cutoff2_hz / nyquist_hz;
    int two = type == GFIR_BANDPASS || type == GFIR_BANDSTOP;
    /* cutoff2_hz is unused by one-cutoff types, but a NaN anywhere is a
     * caller's bug worth reporting. */
    if (!(f1 > 0.0 && f1 < 1.0) || isnan(f2))
        return GFIR_ERR_ARG;
    if (two && !(f2 > f1 && f2 < 1.0))
        return GFIR_ERR_ARG;
    switch (type) {
    case GFIR_LOWPASS: *pb = (passbands){{0.0}, {f1}, 1}; break;
    case GFIR_HIGHPASS: *pb = (passbands){{f1}, {1.0}, 1}; break;
    case GFIR_BANDPASS: *pb = (passbands){{f1}, {f2}, 1}; break;
    default: *pb = (passbands){{0.0, f2}, {f1, 1.0}, 2}; break; /* GFIR_BANDSTOP */
    }
    return GFIR_OK;
}

/* numpy.sinc: sin(pi x) / (pi x), 1 at 0. */
static double sinc(double x)
{
    return x == 0.0 ? 1.0 : sin(pi * x) / (pi * x);
}

/*
 * Modified Bessel function of the first kind, order 0, from its power series
 * sum_k ((x/2)^k / k!)^2. All terms are positive, so stopping once a term no
 * longer moves the sum leaves an error of a few ulps.
 */
static double bessel_i0(double x)
{
    double q = 0.25 * x * x, term = 1.0, sum = 1.0;
    for (double k = 1.0; term > sum * 1e-17; k += 1.0) {
        term *= q / (k * k);
        sum += term;
    }
    return sum;
}

/* Tap n of the windowed ideal response before scaling: firwin's sum of
 * sincs over the passbands, times the Kaiser window. */
static double unscaled_tap(const passbands *pb, double beta, double i0_beta, size_t ntaps,
                           size_t n)
{
    double alpha = 0.5 * (double)(ntaps - 1);
    double m = (double)n - alpha;
    double ideal = 0.0;
    for (int b = 0; b < pb->count; b++)
        ideal += pb->right[b] * sinc(pb->right[b] * m) - pb->left[b] * sinc(pb->left[b] * m);
    double r = ntaps > 1 ? m / alpha : 0.0; /* one tap: a window of 1, as SciPy's */
    return ideal * bessel_i0(beta * sqrt(1.0 - r * r)) / i0_beta;
}

/* firwin's scale=True: unit gain at DC, at Nyquist, or in the middle of the
 * first passband. Taps are computed twice rather than kept in a double
 * buffer, so designing needs no allocation. */
static void write_scaled(const passbands *pb, double beta, float *taps, size_t ntaps)
{
    double i0_beta = bessel_i0(beta);
    double left = pb->left[0], right = pb->right[0];
    double scale_freq = left == 0.0 ? 0.0 : right == 1.0 ? 1.0 : 0.5 * (left + right);
    double alpha = 0.5 * (double)(ntaps - 1);
    double gain = 0.0;
    for (size_t n = 0; n < ntaps; n++) {
        double m = (double)n - alpha;
        gain += unscaled_tap(pb, beta, i0_beta, ntaps, n) * cos(pi * m * scale_freq);
    }
    for (size_t n = 0; n < ntaps; n++)
        taps[n] = (float)(unscaled_tap(pb, beta, i0_beta, ntaps, n) / gain);
}

gfir_status gfir_design_kaiser(gfir_filter_type type, double rate_hz, double cutoff1_hz,
                               double cutoff2_hz, double transition_hz, double attenuation_db,
                               float *taps, size_t ntaps)
{
    size_t want;
    passbands pb;
    if (!taps)
        return GFIR_ERR_NULL;
    gfir_status st = gfir_design_length(type, rate_hz, transition_hz, attenuation_db, &want);
    if (st != GFIR_OK)
        return st;
    if (ntaps != want)
        return GFIR_ERR_ARG;
    st = make_passbands(type, rate_hz, cutoff1_hz, cutoff2_hz, &pb);
    if (st != GFIR_OK)
        return st;
    write_scaled(&pb, kaiser_beta(attenuation_db), taps, ntaps);
    return GFIR_OK;
}
