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
