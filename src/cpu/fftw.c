/*
 * fftw.c - FFTW plans and their wisdom file, under one lock (see fftw.h).
 */
#include "cpu/fftw.h"
#include "core/cache.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pthread_mutex_t planner_lock = PTHREAD_MUTEX_INITIALIZER;
static int wisdom_imported;

/* GFIR_FFTW_PLANNER=estimate skips measuring (tests, one-shot runs):
 * FFTW_MEASURE times candidate algorithms once per size and machine. */
static unsigned planner_flags(void)
{
    const char *env = getenv("GFIR_FFTW_PLANNER");
    if (env && strcmp(env, "estimate") == 0)
        return FFTW_ESTIMATE;
    return FFTW_MEASURE;
}

static int wisdom_path(char *path, size_t len, int mkdirs)
{
    return gf_cache_path(path, len, "fftw-wisdom", mkdirs);
}

/* Saves what the planner learnt. Another process may be doing the same, so
 * the file is written under a private name and renamed into place. Failure
 * only costs the next process a new measurement, so it is not reported. */
static void wisdom_save(void)
{
    char path[4096], tmp[4200];
    if (!wisdom_path(path, sizeof path, 1))
        return;
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
    if (fftwf_export_wisdom_to_filename(tmp))
        rename(tmp, path);
    else
        remove(tmp);
}

/* Takes the planner lock and, when measuring, reads the wisdom file once per
 * process; returns the planner flags. */
static unsigned planner_begin(void)
{
    unsigned flags = planner_flags();
    pthread_mutex_lock(&planner_lock);
    if (flags != FFTW_ESTIMATE && !wisdom_imported) {
        char path[4096];
        if (wisdom_path(path, sizeof path, 0))
            fftwf_import_wisdom_from_filename(path);
        wisdom_imported = 1;
    }
    return flags;
}

int gf_fftw_pair_make(gf_fftw_pair *pair, int n, float *real_in, fftwf_complex *spec,
                      float *real_out)
{
    unsigned flags = planner_begin();
    int learnt = 0;

    pair->fwd = pair->inv = NULL;
    if (flags != FFTW_ESTIMATE) {
        pair->fwd = fftwf_plan_dft_r2c_1d(n, real_in, spec, flags | FFTW_WISDOM_ONLY);
        pair->inv = fftwf_plan_dft_c2r_1d(n, spec, real_out, flags | FFTW_WISDOM_ONLY);
        if (!pair->fwd) {
            pair->fwd = fftwf_plan_dft_r2c_1d(n, real_in, spec, flags);
            learnt = 1;
        }
        if (!pair->inv) {
            pair->inv = fftwf_plan_dft_c2r_1d(n, spec, real_out, flags);
            learnt = 1;
        }
        if (learnt && pair->fwd && pair->inv)
            wisdom_save();
    }
    /* ESTIMATE always succeeds for sizes FFTW supports; it is the fallback. */
    if (!pair->fwd)
        pair->fwd = fftwf_plan_dft_r2c_1d(n, real_in, spec, FFTW_ESTIMATE);
    if (!pair->inv)
        pair->inv = fftwf_plan_dft_c2r_1d(n, spec, real_out, FFTW_ESTIMATE);
    pthread_mutex_unlock(&planner_lock);
    if (pair->fwd && pair->inv)
        return 1;
    gf_fftw_pair_destroy(pair);
    return 0;
}

void gf_fftw_pair_destroy(gf_fftw_pair *pair)
{
    pthread_mutex_lock(&planner_lock);
    if (pair->fwd)
        fftwf_destroy_plan(pair->fwd);
    if (pair->inv)
        fftwf_destroy_plan(pair->inv);
    pthread_mutex_unlock(&planner_lock);
    pair->fwd = pair->inv = NULL;
}

fftwf_plan gf_fftw_many_make(int n, int howmany, fftwf_complex *in, int istride, int idist,
                             fftwf_complex *out, int ostride, int odist, int sign)
{
    unsigned flags = planner_begin();
    fftwf_plan plan = NULL;
    if (flags != FFTW_ESTIMATE) {
        plan = fftwf_plan_many_dft(1, &n, howmany, in, NULL, istride, idist, out, NULL, ostride,
                                   odist, sign, flags | FFTW_WISDOM_ONLY);
        if (!plan) {
            plan = fftwf_plan_many_dft(1, &n, howmany, in, NULL, istride, idist, out, NULL,
                                       ostride, odist, sign, flags);
            if (plan)
                wisdom_save();
        }
    }
    if (!plan)
        plan = fftwf_plan_many_dft(1, &n, howmany, in, NULL, istride, idist, out, NULL, ostride,
                                   odist, sign, FFTW_ESTIMATE);
    pthread_mutex_unlock(&planner_lock);
    return plan;
}

fftwf_plan gf_fftw_r2c_once(int n, float *in, fftwf_complex *out)
{
    fftwf_plan plan;
    pthread_mutex_lock(&planner_lock);
    plan = fftwf_plan_dft_r2c_1d(n, in, out, FFTW_ESTIMATE);
    pthread_mutex_unlock(&planner_lock);
    return plan;
}

void gf_fftw_plan_destroy(fftwf_plan plan)
{
    if (!plan)
        return;
    pthread_mutex_lock(&planner_lock);
    fftwf_destroy_plan(plan);
    pthread_mutex_unlock(&planner_lock);
}

float *gf_fftw_floats(size_t a, size_t b, size_t c)
{
    if (b && a > SIZE_MAX / sizeof(float) / b)
        return NULL;
    if (c && a * b > SIZE_MAX / sizeof(float) / c)
        return NULL;
    return fftwf_malloc(a * b * c * sizeof(float));
}
