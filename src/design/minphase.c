/*
 * minphase.c - the minimum-phase filter with a given magnitude response, by
 * the real cepstrum (the homomorphic method), in double.
 *
 * The log-magnitude's inverse transform is the real cepstrum c; keeping c[0],
 * doubling c[1 .. n/2 - 1] and dropping the rest gives the cepstrum of the
 * minimum-phase filter, whose transform's exponential is its spectrum. On the
 * FFT grid the result's magnitude is exactly the filter's; what is inexact
 * is its phase, since the cepstrum of a filter with zeros near the unit
 * circle decays slowly and the grid's cepstrum is that one aliased. A phase
 * off the true one shows as energy beyond the filter's length, which the cut
 * to ntaps taps loses, and so as a magnitude error. So the grid is refined
 * until the cut result's magnitude matches on the grid itself, which holds
 * every coarser power-of-two grid.
 *
 * Every sequence here is real, so each transform is one complex FFT of half
 * the length (the even samples as real parts, the odd as imaginary) and a
 * pass that untangles the two.
 */
#include "gfir.h"
#include "design/dft.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The grid: from 16 times the filter's length (at least 2^13 points),
 * doubled until the result is within MINPHASE_TARGET_DB, up to 256 times
 * the length or 2^24 points, whichever is smaller (but never below the
 * first). 2^24 points take about 0.8 GB and a few seconds a refinement. */
#define MINPHASE_FIRST_FACTOR 16
#define MINPHASE_LAST_FACTOR 256
#define MINPHASE_MIN_POINTS ((size_t)1 << 13)
#define MINPHASE_MAX_POINTS ((size_t)1 << 24)
#define MINPHASE_TARGET_DB 0.05
/* The accuracy is judged where the response is within this of its peak... */
#define MINPHASE_JUDGED_BELOW_PEAK 1e-4 /* -80 dB */
/* ... and the log-magnitude is floored this far below the peak: zeros on the
 * unit circle have no logarithm (those at Nyquist and DC are divided out
 * first: divide_out). -200 dB is below anything float taps can express, so
 * nothing audible moves. */
#define MINPHASE_FLOOR_BELOW_PEAK 1e-10

/* Buffers for one grid of n points: a half-length complex FFT's, and one
 * half spectrum (n / 2 + 1 points). */
typedef struct grid {
    size_t n;
    double *zr, *zi;
    double *xr, *xi;
    double *tw;                 /* the half-length FFT's twiddles (gf_dft_twiddles) */
    double *post;               /* cos and sin of 2 pi k / n, k = 0 .. n / 2 */
} grid;

/* The real sequence x (n) to its half spectrum X[0 .. n/2] in g->xr, g->xi.
 * With z[m] = x[2m] + i x[2m+1] and Z its M = n/2 point transform, the even
 * and odd samples' transforms are E = (Z[k] + conj Z[M-k]) / 2 and
 * O = (Z[k] - conj Z[M-k]) / 2i, and X[k] = E + e^{-2 pi i k / n} O. */
static void rfft(grid *g, const double *x)
{
    const size_t n = g->n, m = n / 2;
    for (size_t j = 0; j < m; j++) {
        g->zr[j] = x[2 * j];
        g->zi[j] = x[2 * j + 1];
    }
    gf_dft_with(g->zr, g->zi, m, g->tw);
    for (size_t k = 0; k <= m; k++) {
        const size_t a = k % m, b = (m - k) % m;
        const double er = (g->zr[a] + g->zr[b]) / 2, ei = (g->zi[a] - g->zi[b]) / 2;
        const double or = (g->zi[a] + g->zi[b]) / 2, oi = -(g->zr[a] - g->zr[b]) / 2;
        const double c = g->post[2 * k], s = -g->post[2 * k + 1];
        g->xr[k] = er + c * or - s * oi;
        g->xi[k] = ei + c * oi + s * or;
    }
}

/* The half spectrum in g->xr, g->xi (of a real sequence) back to x (n),
 * scaled by 1 / n (the inverse transform): E = (X[k] + conj X[M-k]) / 2,
 * O = (X[k] - conj X[M-k]) / 2 e^{-2 pi i k / n}, and z = E + i O transformed
 * back holds the even samples in its real parts, the odd in its imaginary
 * ones. */
static void irfft(grid *g, double *x)
{
    const size_t n = g->n, m = n / 2;
    for (size_t k = 0; k < m; k++) {
        const double er = (g->xr[k] + g->xr[m - k]) / 2, ei = (g->xi[k] - g->xi[m - k]) / 2;
        const double dr = (g->xr[k] - g->xr[m - k]) / 2, di = (g->xi[k] + g->xi[m - k]) / 2;
        const double c = g->post[2 * k], s = g->post[2 * k + 1];
        const double or = dr * c - di * s, oi = dr * s + di * c;
        /* Z = E + i O, conjugated for the inverse through the forward FFT */
        g->zr[k] = er - oi;
        g->zi[k] = -(ei + or);
    }
    gf_dft_with(g->zr, g->zi, m, g->tw);
    for (size_t j = 0; j < m; j++) {
        x[2 * j] = g->zr[j] / (double)m;
        x[2 * j + 1] = -g->zi[j] / (double)m;
    }
}

/* *p resized to n doubles; 0, or -1 (and *p as it was) without memory. */
static int grow(double **p, size_t n)
{
    double *q = realloc(*p, n * sizeof *q);
    if (!q)
        return -1;
    *p = q;
    return 0;
}

/* The grid's buffers and twiddles for n points. */
static int grid_size(grid *g, double **seq, size_t n)
{
    g->n = n;
    free(g->tw);
    g->tw = gf_dft_twiddles(n / 2);
    if (!g->tw || grow(&g->zr, n / 2) || grow(&g->zi, n / 2) || grow(&g->xr, n / 2 + 1) ||
        grow(&g->xi, n / 2 + 1) || grow(&g->post, n + 2) || grow(seq, n))
        return -1;
    for (size_t k = 0; k <= n / 2; k++) {
        g->post[2 * k] = cos(2 * pi * (double)k / (double)n);
        g->post[2 * k + 1] = sin(2 * pi * (double)k / (double)n);
    }
    return 0;
}

/* |DFT| of ntaps taps zero-padded to the grid, for k = 0 .. n / 2, into mag;
 * seq is n points of scratch. */
static void magnitudes(grid *g, const double *taps, size_t ntaps, double *seq, double *mag)
{
    memcpy(seq, taps, ntaps * sizeof *seq);
    memset(seq + ntaps, 0, (g->n - ntaps) * sizeof *seq);
    rfft(g, seq);
    for (size_t k = 0; k <= g->n / 2; k++)
        mag[k] = hypot(g->xr[k], g->xi[k]);
}

/* One pass on the grid: the minimum-phase taps into out (ntaps), from mag
 * (n / 2 + 1 points) whose largest is peak; seq is n points of scratch. */
static void cepstral(grid *g, const double *mag, double peak, double *seq, double *out,
                     size_t ntaps)
{
    const size_t n = g->n;
    const double floor_mag = peak * MINPHASE_FLOOR_BELOW_PEAK;
    /* the log-magnitude is real and even: its inverse transform is the real
     * cepstrum, real and even too */
    for (size_t k = 0; k <= n / 2; k++) {
        g->xr[k] = log(mag[k] > floor_mag ? mag[k] : floor_mag);
        g->xi[k] = 0;
    }
    irfft(g, seq);
    /* folded onto its causal half */
    for (size_t k = 1; k < n / 2; k++)
        seq[k] *= 2;
    memset(seq + n / 2 + 1, 0, (n / 2 - 1) * sizeof *seq);
    rfft(g, seq);
    for (size_t k = 0; k <= n / 2; k++) {
        const double m = exp(g->xr[k]), phase = g->xi[k];
        g->xr[k] = m * cos(phase);
        g->xi[k] = m * sin(phase);
    }
    irfft(g, seq);
    memcpy(out, seq, ntaps * sizeof *out);
}

/* The largest difference in dB between got's magnitudes and want's where
 * want is within MINPHASE_JUDGED_BELOW_PEAK of peak. */
static double worst_db(const double *want, const double *got, size_t npoints, double peak)
{
    double worst = 0;
    for (size_t k = 0; k < npoints; k++) {
        if (want[k] < peak * MINPHASE_JUDGED_BELOW_PEAK)
            continue;
        const double db = got[k] > 0 ? fabs(20 * log10(got[k] / want[k])) : HUGE_VAL;
        worst = db > worst ? db : worst;
    }
    return worst;
}

/*
 * Zeros exactly on the unit circle at Nyquist (z = -1: every even-length
 * symmetric filter has one, its taps cancelling in pairs) or at DC (z = 1:
 * an antisymmetric one) have no logarithm: the floor stands in, and the
 * cepstrum of that floor missed the magnitude by 3e-4 around them. Each is
 * divided out of h here (synthetic division by 1 - sign z^-1, which leaves
 * a remainder of rounding size), the rest is made minimum phase, and the
 * factor multiplied back in: a zero on the circle is minimum phase as it is.
 * Returns how many factors came out; h then holds ntaps minus that many.
 */
#define MINPHASE_ON_CIRCLE 1e-9 /* |H(z)| relative to the sum of |h|: rounding, not a design */

static size_t divide_out(double *h, size_t ntaps, double sign)
{
    size_t count = 0;
    while (ntaps - count > 1) {
        const size_t n = ntaps - count;
        double at = 0, size = 0, power = 1;
        for (size_t i = 0; i < n; i++, power *= sign) {
            at += h[i] * power;
            size += fabs(h[i]);
        }
        if (!(fabs(at) <= MINPHASE_ON_CIRCLE * size) || !(size > 0))
            break;
        /* h = (1 - sign z^-1) q: q[0] = h[0], q[i] = h[i] + sign q[i - 1] */
        for (size_t i = 1; i < n - 1; i++)
            h[i] += sign * h[i - 1];
        count++;
    }
    return count;
}

/* h (n taps, room for n + count) times (1 - sign z^-1)^count. */
static void multiply_back(double *h, size_t n, double sign, size_t count)
{
    for (size_t c = 0; c < count; c++, n++) {
        h[n] = 0;
        for (size_t i = n; i > 0; i--)
            h[i] -= sign * h[i - 1];
    }
}

/* The factors divide_out took out of a filter. */
typedef struct on_circle {
    size_t at_nyquist, at_dc;
} on_circle;

/* q (n taps) with the factors f back in: full (n + both counts taps). */
static void with_factors(const double *q, size_t n, on_circle f, double *full)
{
    memcpy(full, q, n * sizeof *full);
    multiply_back(full, n, -1, f.at_nyquist);
    multiply_back(full, n + f.at_nyquist, 1, f.at_dc);
}

/* The minimum-phase version of h (ntaps, double) into best (ntaps), by the
 * cepstrum of q, h less its zeros on the circle f (rest taps), on grids
 * refined until MINPHASE_TARGET_DB holds between h and best; *error_db gets
 * the worst difference in dB where h's response is within 80 dB of its
 * peak. */
static gfir_status cepstrum_method(const double *h, size_t ntaps, const double *q, size_t rest,
                                   on_circle f, double *best, double *error_db)
{
    size_t n = MINPHASE_MIN_POINTS, last, best_n = 0;
    grid g = {0};
    double *cur = NULL, *full = NULL, *seq = NULL, *mag = NULL, *qmag = NULL, *got = NULL;
    double peak = 0, qpeak, best_db = HUGE_VAL;
    gfir_status st = GFIR_ERR_NOMEM;

    while (n < MINPHASE_FIRST_FACTOR * ntaps)
        n <<= 1;
    for (last = n; last < MINPHASE_LAST_FACTOR * ntaps && last < MINPHASE_MAX_POINTS;)
        last <<= 1;
    cur = malloc(rest * sizeof *cur);
    full = malloc(ntaps * sizeof *full);
    if (!cur || !full)
        goto done;
    for (;; n <<= 1) {
        double db;
        if (grid_size(&g, &seq, n) || grow(&mag, n / 2 + 1) || grow(&qmag, n / 2 + 1) ||
            grow(&got, n / 2 + 1))
            goto done;
        magnitudes(&g, h, ntaps, seq, mag);
        magnitudes(&g, q, rest, seq, qmag);
        peak = qpeak = 0;
        for (size_t k = 0; k <= n / 2; k++) {
            peak = mag[k] > peak ? mag[k] : peak;
            qpeak = qmag[k] > qpeak ? qmag[k] : qpeak;
        }
        if (!(peak > 0) || !(qpeak > 0)) {
            /* silence is its own minimum-phase version */
            memset(best, 0, ntaps * sizeof *best);
            best_db = 0;
            break;
        }
        cepstral(&g, qmag, qpeak, seq, cur, rest);
        with_factors(cur, rest, f, full);
        magnitudes(&g, full, ntaps, seq, got);
        /* a finer grid is not always better before it is fine enough */
        db = worst_db(mag, got, n / 2 + 1, peak);
        if (db < best_db) {
            best_db = db;
            best_n = n;
            memcpy(best, full, ntaps * sizeof *best);
        }
        if (best_db <= MINPHASE_TARGET_DB || n >= last)
            break;
    }
    /* an earlier grid's result is judged again on the finest, which holds them all */
    if (best_n && best_n != n) {
        magnitudes(&g, best, ntaps, seq, got);
        best_db = worst_db(mag, got, n / 2 + 1, peak);
    }
    *error_db = best_db;
    st = GFIR_OK;
done:
    free(cur);
    free(full);
    free(seq);
    free(mag);
    free(qmag);
    free(got);
    free(g.zr);
    free(g.zi);
    free(g.xr);
    free(g.xi);
    free(g.tw);
    free(g.post);
    return st;
}

gfir_status gfir_design_minimum_phase(const float *taps, size_t ntaps, float *out,
                                      double *error_db)
{
    double *h, *q, *best, db = 0;
    on_circle f;
    gfir_status st = GFIR_ERR_NOMEM;

    if (!taps || !out)
        return GFIR_ERR_NULL;
    if (ntaps == 0 || ntaps > GFIR_MAX_TAPS)
        return GFIR_ERR_TAPS;
    for (size_t i = 0; i < ntaps; i++)
        if (!isfinite(taps[i]))
            return GFIR_ERR_TAPS;
    h = malloc(ntaps * sizeof *h);
    q = malloc(ntaps * sizeof *q);
    best = malloc(ntaps * sizeof *best);
    if (!h || !q || !best)
        goto done;
    for (size_t i = 0; i < ntaps; i++)
        h[i] = q[i] = taps[i];
    f.at_nyquist = divide_out(q, ntaps, -1);
    f.at_dc = divide_out(q, ntaps - f.at_nyquist, 1);
    st = cepstrum_method(h, ntaps, q, ntaps - f.at_nyquist - f.at_dc, f, best, &db);
    if (st != GFIR_OK)
        goto done;
    for (size_t i = 0; i < ntaps; i++)
        out[i] = (float)best[i];
    if (error_db)
        *error_db = db;
done:
    free(h);
    free(q);
    free(best);
    return st;
}
