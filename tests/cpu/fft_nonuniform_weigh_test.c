/*
 * fft_nonuniform_weigh_test.c - the zero-latency FFT engine's unit weights
 * (src/cpu/fft_nonuniform_weigh.c): each unit of a spread level weighs the
 * least time the clock gave it over the passes, each level's units add up
 * in order, and a plan weighed with the real clock still gives the exact
 * convolution.
 *
 * The clock is replaced by one that makes unit i of spread level l take
 * 5 + 3 i + 17 l nanoseconds in one pass and more in the others, so the
 * expected weights are known exactly.
 */
#include "core/plan.h"
#include "cpu/fft_nonuniform_state.h"
#include "gfir.h"
#include "test_util.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

enum { PASSES = 3, FAST_PASS = 1 };

/* The durations the fake clock hands out, in the order of the runs. */
static double *durations;
static size_t nruns, clock_calls;
static double fake_now;

/* Called before and after each unit: the second call of a pair adds that
 * run's duration. */
static double fake_clock(void)
{
    const size_t k = clock_calls++;
    if (k % 2 == 1) {
        assert_true(k / 2 < nruns);
        fake_now += durations[k / 2];
    }
    return fake_now;
}

static double least(size_t l, size_t i)
{
    return 5.0 + 3.0 * (double)i + 17.0 * (double)l;
}

/* 2^20 taps in 64-frame calls: spread levels of 1024, 8192 and 65536. */
static gfir_plan *long_plan(const float *taps, size_t ntaps)
{
    gfir_plan *plan = NULL;
    gfir_config cfg;
    gfir_config_init(&cfg);
    cfg.channels = 2;
    cfg.max_block_frames = 64;
    cfg.backend = GFIR_BACKEND_CPU;
    cfg.kernel = GFIR_KERNEL_FFT;
    cfg.threads = 1;
    assert_int_equal(gfir_plan_create(&plan, taps, ntaps, &cfg), GFIR_OK);
    assert_string_equal(plan->engine->name, "cpu-fft-zero-latency");
    return plan;
}

static void test_least_of_passes(void **state)
{
    (void)state;
    enum { NT = 1 << 20 };
    uint64_t rng = 26;
    float *taps = malloc(NT * sizeof *taps);
    gfir_plan *plan;
    nu_state *st;
    size_t spread = 0, r = 0;
    assert_non_null(taps);
    test_fill(taps, NT, &rng);
    plan = long_plan(taps, NT);
    st = plan->impl;
    nruns = 0;
    for (size_t l = 0; l < st->nlevels; l++)
        if (!st->level[l].sync) {
            nruns += PASSES * st->level[l].nunits;
            spread++;
        }
    assert_int_equal(spread, 3);
    durations = malloc(nruns * sizeof *durations);
    assert_non_null(durations);
    /* level by level, pass by pass, unit by unit: the order of the runs */
    for (size_t l = 0; l < st->nlevels; l++)
        for (int p = 0; !st->level[l].sync && p < PASSES; p++)
            for (size_t i = 0; i < st->level[l].nunits; i++)
                durations[r++] = least(l, i) + (p == FAST_PASS ? 0.0 : 40.0 + 9.0 * p);
    clock_calls = 0;
    fake_now = 1000.0;
    gf_nu_weigh_units(st, fake_clock, PASSES);
    assert_int_equal(clock_calls, 2 * nruns);
    for (size_t l = 0; l < st->nlevels; l++) {
        const nu_level *lv = &st->level[l];
        double before = 0.0;
        if (lv->sync)
            continue;
        for (size_t i = 0; i < lv->nunits; i++) {
            assert_true(lv->units[i].cost == least(l, i));
            assert_true(lv->units[i].cost_before == before);
            before += least(l, i);
        }
        assert_true(lv->total == before);
    }
    free(durations);
    gfir_plan_destroy(plan);
    free(taps);
}

/* Weighing runs a block's units on path 0's buffers and touches nothing a
 * reset does not restore (the filter's spectra above all): a plan weighed
 * again with the real clock and reset gives the exact convolution against
 * float64 (relative L2 error under 1e-4, the engine's tolerance beyond
 * 65536 taps) over the first 70000 frames of a 200000-tap filter, sampled. */
static void test_exact_after_weighing(void **state)
{
    (void)state;
    enum { NT = 200000, N = 70000, SAMPLES = 300 };
    uint64_t rng = 27;
    float *taps = malloc(NT * sizeof *taps), *x = malloc(2 * N * sizeof *x);
    float *y = malloc(2 * N * sizeof *y), got[2 * SAMPLES];
    double want[2 * SAMPLES];
    gfir_plan *plan;
    assert_true(taps && x && y);
    test_fill(taps, NT, &rng);
    test_fill(x, 2 * N, &rng);
    plan = long_plan(taps, NT);
    gf_nu_weigh_units(plan->impl, gf_nu_clock_ns, PASSES);
    assert_int_equal(gfir_plan_reset(plan), GFIR_OK);
    for (size_t i = 0; i < N; i += 64)
        assert_int_equal(gfir_plan_execute(plan, x + 2 * i, y + 2 * i, N - i < 64 ? N - i : 64),
                         GFIR_OK);
    for (size_t s = 0; s < SAMPLES; s++) {
        const size_t i = s < 2 ? (s ? N - 1 : 0) : (size_t)(test_uniform(&rng) * N);
        for (unsigned c = 0; c < 2; c++) {
            want[2 * s + c] = test_reference_at(x, 2, taps, NT, 1, c, i);
            got[2 * s + c] = y[2 * i + c];
        }
    }
    assert_true(test_rel_l2(got, want, 2 * SAMPLES) < 1e-4);
    gfir_plan_destroy(plan);
    free(taps);
    free(x);
    free(y);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_least_of_passes),
        cmocka_unit_test(test_exact_after_weighing),
    };
    setenv("GFIR_FFTW_PLANNER", "estimate", 1);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
