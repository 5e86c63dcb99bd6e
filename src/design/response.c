/*
 * response.c - a filter's frequency response: its magnitude at one frequency,
 * its largest magnitude over all frequencies (peak.h), and its magnitudes on
 * a grid through one real FFT (dft.h).
 */
#include "gfir.h"
#include "design/dft.h"
#include "design/peak.h"

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

/* The taps wrapped around n points (tap i adds to point i mod n; n above
 * ntaps pads them with zeros), as gf_dft_real_magnitudes takes them, and
 * the magnitudes of their transform at k = 0 .. n / 2 into mag. */
static gfir_status wrapped_magnitudes(const float *taps, size_t ntaps, size_t n, double *mag)
{
    double *zr = calloc(n / 2, sizeof *zr), *zi = calloc(n / 2, sizeof *zi);
    gfir_status st = GFIR_ERR_NOMEM;
    if (!zr || !zi)
        goto done;
    for (size_t i = 0; i < ntaps; i++) {
        const size_t at = i % n;
        (at % 2 ? zi : zr)[at / 2] += taps[i];
    }
    if (gf_dft_real_magnitudes(zr, zi, n, mag) == 0)
        st = GFIR_OK;
done:
    free(zr);
    free(zi);
    return st;
}

double gfir_response_peak(const float *taps, size_t ntaps)
{
    const double one = 1;
    const unsigned first = 0;
    gf_spectra *sp;
    gf_peak_result r;
    int st;
    if (!taps)
        return GFIR_ERR_NULL;
    if (ntaps == 0 || ntaps > GFIR_MAX_TAPS)
        return GFIR_ERR_TAPS;
    if (!(sp = gf_spectra_make(taps, ntaps, 1, NULL)))
        return GFIR_ERR_NOMEM;
    st = gf_spectra_peak(sp, &first, &one, 1, &r);
    gf_spectra_free(sp);
    return st == GFIR_OK ? r.peak : st;
}

gfir_status gfir_response_magnitudes(const float *taps, size_t ntaps, double *mag, size_t nfreqs)
{
    if (!taps || !mag)
        return GFIR_ERR_NULL;
    if (ntaps == 0 || ntaps > GFIR_MAX_TAPS)
        return GFIR_ERR_TAPS;
    if (nfreqs < 2 || ((nfreqs - 1) & (nfreqs - 2)) != 0 || nfreqs - 1 > GFIR_MAX_TAPS)
        return GFIR_ERR_ARG;
    /* a grid coarser than the filter is long samples the response of the
     * taps wrapped around it: the DFT sees only k mod n */
    return wrapped_magnitudes(taps, ntaps, 2 * (nfreqs - 1), mag);
}
