/*
 * loudness.c - how loud a filter of several tap sets and paths is, for a
 * normalisation (its peak gain over frequency, or its gain for white noise),
 * and where an impulse response's sound begins, for a trim: what the command
 * line's --normalize and --ir-trim and the convolver plugin's controls share.
 */
#include "gfir.h"
#include "design/peak.h"

#include <math.h>
#include <stdlib.h>

/* The paths' arguments, checked; *outputs: the count they feed. */
static gfir_status check_paths(unsigned nsets, const gfir_path *paths, size_t npaths,
                               unsigned *outputs)
{
    *outputs = nsets;
    if (!paths)
        return npaths ? GFIR_ERR_ARG : GFIR_OK;
    if (npaths == 0 || npaths > GFIR_MAX_PATHS)
        return GFIR_ERR_ARG;
    *outputs = 0;
    for (size_t k = 0; k < npaths; k++) {
        if (paths[k].taps >= nsets || !isfinite(paths[k].gain) ||
            paths[k].output >= GFIR_MAX_CHANNELS)
            return GFIR_ERR_ARG;
        *outputs = paths[k].output + 1 > *outputs ? paths[k].output + 1 : *outputs;
    }
    return GFIR_OK;
}

static double energy(const float *h, size_t n)
{
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += (double)h[i] * h[i];
    return sum;
}

/* Output o's sets and gains into sets and gains; their count. */
static unsigned output_paths(unsigned o, const gfir_path *paths, size_t npaths, unsigned *sets,
                             double *gains)
{
    unsigned n = 0;
    if (!paths) {
        sets[0] = o;
        gains[0] = 1;
        return 1;
    }
    for (size_t k = 0; k < npaths; k++)
        if (paths[k].output == o) {
            sets[n] = paths[k].taps;
            gains[n++] = paths[k].gain;
        }
    return n;
}

double gfir_filter_loudness(const float *taps, size_t ntaps, unsigned nsets,
                            const gfir_path *paths, size_t npaths, gfir_normalize how)
{
    unsigned outputs, *sets = NULL;
    double *gains = NULL, loudest = GFIR_ERR_NOMEM;
    gf_spectra *sp = NULL;
    gfir_status st;

    if (!taps)
        return GFIR_ERR_NULL;
    if (ntaps == 0 || ntaps > GFIR_MAX_TAPS || nsets == 0 || nsets > GFIR_MAX_PATHS)
        return GFIR_ERR_TAPS;
    if ((st = check_paths(nsets, paths, npaths, &outputs)) != GFIR_OK)
        return st;
    if (how == GFIR_NORMALIZE_NONE)
        return 1;
    if (how != GFIR_NORMALIZE_PEAK && how != GFIR_NORMALIZE_ENERGY)
        return GFIR_ERR_ARG;
    sets = malloc((paths ? npaths : 1) * sizeof *sets);
    gains = malloc((paths ? npaths : 1) * sizeof *gains);
    if (!sets || !gains ||
        (how == GFIR_NORMALIZE_PEAK && !(sp = gf_spectra_make(taps, ntaps, nsets))))
        goto done;
    loudest = 0;
    for (unsigned o = 0; o < outputs; o++) {
        const unsigned n = output_paths(o, paths, npaths, sets, gains);
        double v = 0;
        if (how == GFIR_NORMALIZE_ENERGY) {
            for (unsigned k = 0; k < n; k++)
                v += gains[k] * gains[k] * energy(taps + (size_t)sets[k] * ntaps, ntaps);
            v = sqrt(v);
        } else if (n) {
            gf_peak_result r;
            if (gf_spectra_peak(sp, sets, gains, n, &r) != GFIR_OK) {
                loudest = GFIR_ERR_NOMEM;
                goto done;
            }
            v = r.peak;
        }
        loudest = v > loudest ? v : loudest;
    }
done:
    gf_spectra_free(sp);
    free(sets);
    free(gains);
    return loudest;
}

size_t gfir_filter_onset(const float *taps, size_t ntaps, unsigned nsets, double level_db)
{
    const size_t total = (size_t)nsets * ntaps;
    double peak = 0, level;
    size_t onset = ntaps;
    if (!taps || !(level_db <= 0))
        return ntaps;
    for (size_t i = 0; i < total; i++)
        peak = fabs(taps[i]) > peak ? fabs(taps[i]) : peak;
    if (!(peak > 0))
        return ntaps;
    level = peak * pow(10.0, level_db / 20.0);
    for (unsigned c = 0; c < nsets; c++)
        for (size_t i = 0; i < onset; i++)
            if (fabs(taps[(size_t)c * ntaps + i]) >= level) {
                onset = i;
                break;
            }
    return onset;
}
