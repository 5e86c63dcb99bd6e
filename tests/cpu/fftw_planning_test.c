/*
 * fftw_planning_test.c - FFTW measures a transform only where the measured
 * plan repays its planning (tuning.c, gf_cpu_fftw_measure_pays): a short
 * file with a long filter and an empty cache is planned with FFTW_ESTIMATE
 * (measuring its transforms of 131072 points took 3 s of a 3.5-s run) and
 * leaves no wisdom, while a stream or a long job measures and saves its
 * wisdom, which every later job of that size reuses. What each plan did is
 * read from fftw.c's counts and the wisdom file in a cache directory of the
 * test's own.
 */
#include "cpu/fftw.h"
#include "gfir.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmocka.h>

#define FIVE_SECONDS ((size_t)5 * 48000)

static char cache_dir[] = "/tmp/gfir-planning-XXXXXX";
static char wisdom[256];

/* What planning a stereo file plan of ntaps taps did: the counts' change. */
static gf_fftw_count plan_job(size_t ntaps, size_t max_latency, size_t expected_frames)
{
    static float taps[262143];
    gf_fftw_count before, after;
    gfir_config cfg;
    gfir_plan *plan = NULL;
    for (size_t i = 0; i < ntaps; i++)
        taps[i] = (float)((i * 2654435761u) % 1000) / 1000.0f - 0.5f;
    gfir_config_init(&cfg);
    cfg.channels = 2;
    cfg.backend = GFIR_BACKEND_CPU;
    cfg.kernel = GFIR_KERNEL_FFT;
    cfg.max_latency_frames = max_latency;
    cfg.expected_frames = expected_frames;
    gf_fftw_counts(&before);
    assert_int_equal(gfir_plan_create(&plan, taps, ntaps, &cfg), GFIR_OK);
    gf_fftw_counts(&after);
    gfir_plan_destroy(plan);
    after.from_wisdom -= before.from_wisdom;
    after.measured -= before.measured;
    after.estimated -= before.estimated;
    return after;
}

static int wisdom_saved(void)
{
    return access(wisdom, F_OK) == 0;
}

/* Partitions of 65536, pairs of 131072 points, used 8 times */
static void short_file_long_filter_estimates(void **unused)
{
    gf_fftw_count c;
    (void)unused;
    c = plan_job(262143, GFIR_LATENCY_ANY, FIVE_SECONDS);
    assert_int_equal(c.measured, 0);
    assert_int_equal(c.from_wisdom, 0);
    assert_int_equal(c.estimated, 2);
    assert_false(wisdom_saved());
    /* the zero-latency engine's levels, to 65536, likewise */
    c = plan_job(262143, 0, FIVE_SECONDS);
    assert_int_equal(c.measured, 0);
    assert_true(c.estimated > 2);
    assert_false(wisdom_saved());
}

/* 1023 taps: partitions of 1024, pairs of 2048 points, which repay
 * measuring after about 140000 uses */
static void long_job_measures_and_later_jobs_reuse_it(void **unused)
{
    gf_fftw_count c;
    (void)unused;
    c = plan_job(1023, GFIR_LATENCY_ANY, FIVE_SECONDS);
    assert_int_equal(c.measured, 0);
    assert_int_equal(c.estimated, 2);
    c = plan_job(1023, GFIR_LATENCY_ANY, (size_t)1 << 30);
    assert_int_equal(c.measured, 2);
    assert_true(wisdom_saved());
    c = plan_job(1023, GFIR_LATENCY_ANY, FIVE_SECONDS);
    assert_int_equal(c.from_wisdom, 2);
    assert_int_equal(c.measured + c.estimated, 0);
}

/* A stream's work is unbounded: pairs of 8192 points save a third a use */
static void stream_measures(void **unused)
{
    gf_fftw_count c;
    (void)unused;
    c = plan_job(4095, GFIR_LATENCY_ANY, 0);
    assert_int_equal(c.measured, 2);
    c = plan_job(4095, GFIR_LATENCY_ANY, FIVE_SECONDS);
    assert_int_equal(c.from_wisdom, 2);
}

/* GFIR_FFTW_PLANNER=measure fills a cache ahead of short jobs; =estimate
 * leaves even wisdom alone */
static void environment_overrides(void **unused)
{
    gf_fftw_count c;
    (void)unused;
    setenv("GFIR_FFTW_PLANNER", "estimate", 1);
    c = plan_job(4095, GFIR_LATENCY_ANY, 0);
    assert_int_equal(c.estimated, 2);
    assert_int_equal(c.from_wisdom + c.measured, 0);
    setenv("GFIR_FFTW_PLANNER", "measure", 1);
    c = plan_job(511, GFIR_LATENCY_ANY, FIVE_SECONDS);
    assert_int_equal(c.measured, 2);
    unsetenv("GFIR_FFTW_PLANNER");
    c = plan_job(511, GFIR_LATENCY_ANY, FIVE_SECONDS);
    assert_int_equal(c.from_wisdom, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(short_file_long_filter_estimates),
        cmocka_unit_test(long_job_measures_and_later_jobs_reuse_it),
        cmocka_unit_test(stream_measures),
        cmocka_unit_test(environment_overrides),
    };
    int failed;
    if (!mkdtemp(cache_dir))
        return 1;
    snprintf(wisdom, sizeof wisdom, "%s/gfir/fftw-wisdom", cache_dir);
    setenv("XDG_CACHE_HOME", cache_dir, 1);
    unsetenv("GFIR_FFTW_PLANNER");
    failed = cmocka_run_group_tests(tests, NULL, NULL);
    remove(wisdom);
    snprintf(wisdom, sizeof wisdom, "%s/gfir", cache_dir);
    rmdir(wisdom);
    rmdir(cache_dir);
    return failed;
}
