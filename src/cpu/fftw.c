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
static pthread_once_t planner_hooks_once = PTHREAD_ONCE_INIT;
static int wisdom_imported;

/* Our lock orders gfir's own planning; a host process may plan with the same
 * libfftw3f on its own threads (Ardour's export analysis, another plugin), and
 * FFTW's planner and plan destruction share global state, so two threads
 * planning at once corrupt its heap. FFTW's threads library installs its own
 * lock around every planner call in the process, whoever makes it. */
static void make_planner_thread_safe(void)
{
    fftwf_make_planner_thread_safe();
}

/* at load, before the host's threads could be half-way through a plan when
 * the hooks arrive; again (once) at first use where no constructor ran */
__attribute__((constructor)) static void planner_hooks_at_load(void)
{
    pthread_once(&planner_hooks_once, make_planner_thread_safe);
}

static void planner_lock_take(void)
{
    pthread_once(&planner_hooks_once, make_planner_thread_safe);
    pthread_mutex_lock(&planner_lock);
}

/* How a plan is made: from wisdom or FFTW_ESTIMATE, or by measuring what
 * wisdom lacks (FFTW_MEASURE times candidate algorithms once per shape and
 * machine, up to seconds a size). The caller says whether measuring pays
 * for its work (tuning.h, gf_cpu_fftw_measure_pays); GFIR_FFTW_PLANNER
 * overrides it: "estimate" never measures nor touches the wisdom file
 * (tests, one-shot runs), "measure" measures every size (to fill a cache
 * ahead of short jobs). */
enum { PLAN_ESTIMATE, PLAN_WISDOM, PLAN_MEASURE };

static int planner_mode(int measure)
{
    const char *env = getenv("GFIR_FFTW_PLANNER");
    if (env && strcmp(env, "estimate") == 0)
        return PLAN_ESTIMATE;
    if (env && strcmp(env, "measure") == 0)
        return PLAN_MEASURE;
    return measure ? PLAN_MEASURE : PLAN_WISDOM;
}

/* How each transform was planned in this process (gf_fftw_counts). */
static gf_fftw_count counts;

/* On every plan an engine executes, which may be inside an audio callback:
 * FFTW's buffered solvers allocate their buffers inside fftwf_execute once
 * they pass 64 KiB (FFTW 3.3.10, ESTIMATE and MEASURE alike chose them for
 * the sliced transforms' in-place rows from 256 points on). */
#define EXECUTE_FLAGS FFTW_NO_BUFFERING

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

/* Takes the planner lock and, unless the mode is PLAN_ESTIMATE, reads the
 * wisdom file once per process; returns the mode. */
static int planner_begin(int measure)
{
    int mode = planner_mode(measure);
    planner_lock_take();
    if (mode != PLAN_ESTIMATE && !wisdom_imported) {
        char path[4096];
        if (wisdom_path(path, sizeof path, 0))
            fftwf_import_wisdom_from_filename(path);
        wisdom_imported = 1;
    }
    return mode;
}

/* Counts one transform planned: from wisdom, by measuring, or estimated. */
static void count(fftwf_plan plan, int how)
{
    if (!plan)
        return;
    if (how == PLAN_WISDOM)
        counts.from_wisdom++;
    else if (how == PLAN_MEASURE)
        counts.measured++;
    else
        counts.estimated++;
}

int gf_fftw_pair_make(gf_fftw_pair *pair, int n, float *real_in, fftwf_complex *spec,
                      float *real_out, int measure)
{
    const unsigned wise = FFTW_MEASURE | EXECUTE_FLAGS | FFTW_WISDOM_ONLY;
    const int mode = planner_begin(measure);
    int learnt = 0;

    pair->fwd = pair->inv = NULL;
    if (mode != PLAN_ESTIMATE) {
        pair->fwd = fftwf_plan_dft_r2c_1d(n, real_in, spec, wise);
        pair->inv = fftwf_plan_dft_c2r_1d(n, spec, real_out, wise);
        count(pair->fwd, PLAN_WISDOM);
        count(pair->inv, PLAN_WISDOM);
    }
    if (mode == PLAN_MEASURE) {
        if (!pair->fwd) {
            pair->fwd = fftwf_plan_dft_r2c_1d(n, real_in, spec, FFTW_MEASURE | EXECUTE_FLAGS);
            count(pair->fwd, PLAN_MEASURE);
            learnt = 1;
        }
        if (!pair->inv) {
            pair->inv = fftwf_plan_dft_c2r_1d(n, spec, real_out, FFTW_MEASURE | EXECUTE_FLAGS);
            count(pair->inv, PLAN_MEASURE);
            learnt = 1;
        }
        if (learnt && pair->fwd && pair->inv)
            wisdom_save();
    }
    /* ESTIMATE always succeeds for sizes FFTW supports; it is the fallback. */
    if (!pair->fwd) {
        pair->fwd = fftwf_plan_dft_r2c_1d(n, real_in, spec, FFTW_ESTIMATE | EXECUTE_FLAGS);
        count(pair->fwd, PLAN_ESTIMATE);
    }
    if (!pair->inv) {
        pair->inv = fftwf_plan_dft_c2r_1d(n, spec, real_out, FFTW_ESTIMATE | EXECUTE_FLAGS);
        count(pair->inv, PLAN_ESTIMATE);
    }
    pthread_mutex_unlock(&planner_lock);
    if (pair->fwd && pair->inv)
        return 1;
    gf_fftw_pair_destroy(pair);
    return 0;
}

void gf_fftw_pair_destroy(gf_fftw_pair *pair)
{
    planner_lock_take();
    if (pair->fwd)
        fftwf_destroy_plan(pair->fwd);
    if (pair->inv)
        fftwf_destroy_plan(pair->inv);
    pthread_mutex_unlock(&planner_lock);
    pair->fwd = pair->inv = NULL;
}

fftwf_plan gf_fftw_many_make(int n, int howmany, fftwf_complex *in, int istride, int idist,
                             fftwf_complex *out, int ostride, int odist, int sign, int measure)
{
    const unsigned wise = FFTW_MEASURE | EXECUTE_FLAGS | FFTW_WISDOM_ONLY;
    const int mode = planner_begin(measure);
    fftwf_plan plan = NULL;
    if (mode != PLAN_ESTIMATE) {
        plan = fftwf_plan_many_dft(1, &n, howmany, in, NULL, istride, idist, out, NULL, ostride,
                                   odist, sign, wise);
        count(plan, PLAN_WISDOM);
    }
    if (!plan && mode == PLAN_MEASURE) {
        plan = fftwf_plan_many_dft(1, &n, howmany, in, NULL, istride, idist, out, NULL, ostride,
                                   odist, sign, FFTW_MEASURE | EXECUTE_FLAGS);
        count(plan, PLAN_MEASURE);
        if (plan)
            wisdom_save();
    }
    if (!plan) {
        plan = fftwf_plan_many_dft(1, &n, howmany, in, NULL, istride, idist, out, NULL, ostride,
                                   odist, sign, FFTW_ESTIMATE | EXECUTE_FLAGS);
        count(plan, PLAN_ESTIMATE);
    }
    pthread_mutex_unlock(&planner_lock);
    return plan;
}

fftwf_plan gf_fftw_r2c_once(int n, float *in, fftwf_complex *out)
{
    fftwf_plan plan;
    planner_lock_take();
    plan = fftwf_plan_dft_r2c_1d(n, in, out, FFTW_ESTIMATE);
    pthread_mutex_unlock(&planner_lock);
    return plan;
}

void gf_fftw_plan_destroy(fftwf_plan plan)
{
    if (!plan)
        return;
    planner_lock_take();
    fftwf_destroy_plan(plan);
    pthread_mutex_unlock(&planner_lock);
}

void gf_fftw_counts(gf_fftw_count *out)
{
    planner_lock_take();
    *out = counts;
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
