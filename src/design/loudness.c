/*
 * loudness.c - how loud a filter of several tap sets and paths is, for a
 * normalisation (its peak gain over frequency, or its gain for white noise),
 * and where an impulse response's sound begins, for a trim: what the command
 * line's --normalize and --ir-trim and the convolver plugin's controls share.
 */
#include "gfir.h"
#include "design/peak.h"
#include "cpu/pool.h"

#include <math.h>
#include <stdlib.h>

/* Taps a set beyond which threads pay for a peak's transforms (a thread's
 * start costs about what 2^14 taps' transform does). */
#define PARALLEL_TAPS 16384

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

/* Each output's paths: output o's sets and gains at first[o] up to
 * first[o + 1] (set o alone without paths), and its loudness into level[o]. */
typedef struct outputs_job {
    const float *taps;
    size_t ntaps;
    gfir_normalize how;
    const gf_spectra *sp;
    size_t *first;
    unsigned *sets;
    double *gains, *level;
} outputs_job;

static outputs_job *job_make(unsigned outputs, const gfir_path *paths, size_t npaths)
{
    const size_t n = paths ? npaths : outputs;
    outputs_job *job = calloc(1, sizeof *job);
    if (!job)
        return NULL;
    job->first = calloc(outputs + 1, sizeof *job->first);
    job->sets = malloc(n * sizeof *job->sets);
    job->gains = malloc(n * sizeof *job->gains);
    job->level = calloc(outputs, sizeof *job->level);
    if (!job->first || !job->sets || !job->gains || !job->level)
        return job;
    for (size_t k = 0; k < n; k++)
        job->first[(paths ? paths[k].output : k) + 1]++;
    for (unsigned o = 0; o < outputs; o++)
        job->first[o + 1] += job->first[o];
    for (size_t k = 0, *at = job->first; k < n; k++) {
        const unsigned o = paths ? paths[k].output : (unsigned)k;
        /* placed after the ones before it: first[o] counts up, then back */
        job->sets[at[o]] = paths ? paths[k].taps : (unsigned)k;
        job->gains[at[o]++] = paths ? paths[k].gain : 1.0;
    }
    for (unsigned o = outputs; o > 0; o--)
        job->first[o] = job->first[o - 1];
    job->first[0] = 0;
    return job;
}

static void job_free(outputs_job *job)
{
    if (!job)
        return;
    free(job->first);
    free(job->sets);
    free(job->gains);
    free(job->level);
    free(job);
}

/* Output o's loudness; a negative status without memory. */
static void output_level(void *arg, size_t o)
{
    outputs_job *job = arg;
    const size_t from = job->first[o], to = job->first[o + 1];
    double v = 0;
    if (job->how == GFIR_NORMALIZE_ENERGY) {
        for (size_t k = from; k < to; k++)
            v += job->gains[k] * job->gains[k] *
                 energy(job->taps + (size_t)job->sets[k] * job->ntaps, job->ntaps);
        v = sqrt(v);
    } else if (to > from) {
        gf_peak_result r;
        v = gf_spectra_peak(job->sp, job->sets + from, job->gains + from, (unsigned)(to - from),
                            &r) == GFIR_OK ? r.peak : GFIR_ERR_NOMEM;
    }
    job->level[o] = v;
}

double gfir_filter_loudness(const float *taps, size_t ntaps, unsigned nsets,
                            const gfir_path *paths, size_t npaths, gfir_normalize how)
{
    unsigned outputs, workers;
    double loudest = GFIR_ERR_NOMEM;
    outputs_job *job = NULL;
    gf_pool *pool = NULL;
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
    job = job_make(outputs, paths, npaths);
    if (!job || !job->level)
        goto done;
    job->taps = taps;
    job->ntaps = ntaps;
    job->how = how;
    /* the transforms, then the outputs, each a task on the processors the
     * process may use: long filters are where this costs */
    workers = (nsets > outputs ? nsets : outputs);
    workers = (workers < gf_cpu_count() ? workers : gf_cpu_count()) - 1;
    if (how == GFIR_NORMALIZE_PEAK && ntaps > PARALLEL_TAPS && workers &&
        gf_pool_create(&pool, workers) != GFIR_OK)
        pool = NULL;
    if (how == GFIR_NORMALIZE_PEAK && !(job->sp = gf_spectra_make(taps, ntaps, nsets, pool)))
        goto done;
    if (pool)
        gf_pool_run(pool, output_level, job, outputs);
    else
        for (unsigned o = 0; o < outputs; o++)
            output_level(job, o);
    loudest = 0;
    for (unsigned o = 0; o < outputs; o++) {
        if (job->level[o] < 0) {
            loudest = job->level[o];
            break;
        }
        loudest = job->level[o] > loudest ? job->level[o] : loudest;
    }
done:
    if (job)
        gf_spectra_free((gf_spectra *)job->sp);
    job_free(job);
    if (pool)
        gf_pool_destroy(pool);
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
