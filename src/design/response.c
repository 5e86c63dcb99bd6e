/*
 * response.c - a filter's frequency response: its magnitude at one frequency,
 * and its largest magnitude over all frequencies.
 */
#include "gfir.h"
#include "design/dft.h"

#include <math.h>
#include <stdlib.h>

double gfir_response_magnitude(const float *taps, size_t ntaps, double freq_hz, double rate_hz)
{
    if (!taps)
        return GFIR_ERR_NULL;
    if (ntaps == 0 || ntaps > GFIR_MAX_TAPS)
        return GFIR_ERR_TAPS;
    if (!gf_positive_finite(rate_hz) || !isfinite(freq_hz))
        return GFIR_ERR_ARG;
    /* The response has period rate_hz; fmod is exact and keeps the phases
     * w * k small, hence accurate, for any frequency given. */
    double w = 2.0 * pi * (fmod(freq_hz, rate_hz) / rate_hz);
    double re = 0.0, im = 0.0;
    for (size_t k = 0; k < ntaps; k++) {
        re += (double)taps[k] * cos(w * (double)k);
        im -= (double)taps[k] * sin(w * (double)k);
    }
    return hypot(re, im);
}

double gfir_response_peak(const float *taps, size_t ntaps)
{
    size_t n = 8192;
    double *re, *im, peak = 0;
    if (!taps)
        return GFIR_ERR_NULL;
    if (ntaps == 0 || ntaps > GFIR_MAX_TAPS)
        return GFIR_ERR_TAPS;
    /* zero-padded to at least 8x the length (4x for long filters), so the
     * grid is fine enough to see the narrowest peak of the response */
    while (n < ntaps * (ntaps > ((size_t)1 << 20) ? 4 : 8))
        n <<= 1;
    re = calloc(n, sizeof *re);
    im = calloc(n, sizeof *im);
    if (!re || !im) {
        peak = GFIR_ERR_NOMEM;
        goto done;
    }
    for (size_t i = 0; i < ntaps; i++)
        re[i] = taps[i];
    if (gf_dft(re, im, n) != 0) {
        peak = GFIR_ERR_NOMEM;
        goto done;
    }
    for (size_t k = 0; k <= n / 2; k++) {
        double m = sqrt(re[k] * re[k] + im[k] * im[k]);
        if (m > peak)
            peak = m;
    }
done:
    free(re);
    free(im);
    return peak;
}

gfir_status gfir_response_magnitudes(const float *taps, size_t ntaps, double *mag, size_t nfreqs)
{
    size_t n;
    double *re, *im;
    gfir_status st = GFIR_ERR_NOMEM;
    if (!taps || !mag)
        return GFIR_ERR_NULL;
    if (ntaps == 0 || ntaps > GFIR_MAX_TAPS)
        return GFIR_ERR_TAPS;
    if (nfreqs < 2 || ((nfreqs - 1) & (nfreqs - 2)) != 0 || nfreqs - 1 > GFIR_MAX_TAPS)
        return GFIR_ERR_ARG;
    n = 2 * (nfreqs - 1);
    re = calloc(n, sizeof *re);
    im = calloc(n, sizeof *im);
    if (!re || !im)
        goto done;
    /* a grid coarser than the filter is long samples the response of the
     * taps wrapped around it: the DFT sees only k mod n */
    for (size_t i = 0; i < ntaps; i++)
        re[i % n] += taps[i];
    if (gf_dft(re, im, n) != 0)
        goto done;
    for (size_t k = 0; k < nfreqs; k++)
        mag[k] = hypot(re[k], im[k]);
    st = GFIR_OK;
done:
    free(re);
    free(im);
    return st;
}
