/*
 * policy_test.c - AUTO's choices (src/core/policy.c) as a caller sees them:
 * the latency budget is never exceeded when AUTO chooses, whatever the budget
 * (0, a period, any); a named kernel is honoured and reports its latency; a
 * plan made with the defaults is the exact causal convolution with latency 0
 * for short and long filters alike; and the device start-up rule keeps short
 * jobs on the CPU.
 */
#include "gfir.h"
#include "test_util.h"

#include "core/plan.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static float *random_taps(size_t n, uint64_t seed)
{
    float *taps = malloc(n * sizeof *taps);
    assert_non_null(taps);
    test_fill(taps, n, &seed);
    return taps;
}

static gfir_plan *make(const float *taps, size_t ntaps, gfir_backend backend,
                       gfir_kernel kernel, size_t block, size_t budget)
{
    gfir_plan *plan = NULL;
    gfir_config cfg;
    gfir_config_init(&cfg);
    cfg.backend = backend;
    cfg.kernel = kernel;
    cfg.max_block_frames = block;
    cfg.max_latency_frames = budget;
    cfg.channels = 2;
    assert_int_equal(gfir_plan_create(&plan, taps, ntaps, &cfg), GFIR_OK);
    return plan;
}

/* AUTO on the CPU, over tap counts, call sizes and budgets: the latency the
 * plan reports is within the budget and is what its engine states (the
 * choices themselves are policy_golden_test's). */
static void auto_respects_every_budget(void **state)
{
    static const size_t ntaps[] = {1, 15, 63, 191, 192, 255, 1023, 4095, 65535};
    static const size_t blocks[] = {64, 256, 4096, 65536};
    const size_t periods[] = {0, 63, 64, 100, 256, 4096, GFIR_LATENCY_ANY};
    float *taps = random_taps(65535, 5);
    (void)state;
    for (size_t b = 0; b < sizeof blocks / sizeof blocks[0]; b++) {
        for (size_t p = 0; p < sizeof periods / sizeof periods[0]; p++) {
            for (size_t t = 0; t < sizeof ntaps / sizeof ntaps[0]; t++) {
                const size_t budget = periods[p];
                gfir_plan *plan = make(taps, ntaps[t], GFIR_BACKEND_CPU, GFIR_KERNEL_AUTO,
                                       blocks[b], budget);
                const size_t latency = gfir_plan_latency(plan);
                if (budget != GFIR_LATENCY_ANY && latency > budget)
                    fail_msg("%zu taps, block %zu: latency %zu over the budget %zu", ntaps[t],
                             blocks[b], latency, budget);
                assert_int_equal(latency, plan->engine->latency(plan));
                gfir_plan_destroy(plan);
            }
        }
    }
    free(taps);
}

/* With no budget a long filter in large blocks takes the FFT (files) at the
 * offline partition, 65536 for 65535 taps; with the default budget it never
 * adds latency. */
static void budgets_at_the_ends(void **state)
{
    float *taps = random_taps(65535, 6);
    gfir_plan *plan;
    (void)state;
    plan = make(taps, 65535, GFIR_BACKEND_CPU, GFIR_KERNEL_AUTO, 65536, GFIR_LATENCY_ANY);
    assert_int_equal(gfir_plan_kernel(plan), GFIR_KERNEL_FFT);
    assert_int_equal(gfir_plan_latency(plan), 65536);
    gfir_plan_destroy(plan);
    plan = make(taps, 65535, GFIR_BACKEND_CPU, GFIR_KERNEL_AUTO, 65536, 0);
    assert_int_equal(gfir_plan_latency(plan), 0);
    gfir_plan_destroy(plan);
    plan = make(taps, 65535, GFIR_BACKEND_AUTO, GFIR_KERNEL_AUTO, 256, 0);
    assert_int_equal(gfir_plan_latency(plan), 0);
    gfir_plan_destroy(plan);
    free(taps);
}

/* A small budget does not trap a long filter in short uniform partitions:
 * 2^20 taps at a 256-frame budget take the zero-latency engine. */
static void long_filters_under_small_budgets(void **state)
{
    const size_t ntaps = (size_t)1 << 20;
    float *taps = random_taps(ntaps, 9);
    gfir_plan *plan;
    (void)state;
    plan = make(taps, ntaps, GFIR_BACKEND_CPU, GFIR_KERNEL_AUTO, 256, 256);
    assert_int_equal(gfir_plan_kernel(plan), GFIR_KERNEL_FFT);
    assert_string_equal(plan->engine->name, "cpu-fft-zero-latency");
    assert_int_equal(gfir_plan_latency(plan), 0);
    gfir_plan_destroy(plan);
    free(taps);
}

/* A named FFT kernel runs within the budget where its partitions allow, and
 * says what it adds. */
static void named_fft_fits_the_budget(void **state)
{
    float *taps = random_taps(4095, 7);
    gfir_plan *plan;
    (void)state;
    plan = make(taps, 4095, GFIR_BACKEND_CPU, GFIR_KERNEL_FFT, 4096, 1000);
    assert_int_equal(gfir_plan_kernel(plan), GFIR_KERNEL_FFT);
    assert_int_equal(gfir_plan_latency(plan), 512);
    gfir_plan_destroy(plan);
    /* Below the smallest partition: the zero-latency engine. */
    plan = make(taps, 4095, GFIR_BACKEND_CPU, GFIR_KERNEL_FFT, 4096, 63);
    assert_int_equal(gfir_plan_kernel(plan), GFIR_KERNEL_FFT);
    assert_int_equal(gfir_plan_latency(plan), 0);
    gfir_plan_destroy(plan);
    plan = make(taps, 4095, GFIR_BACKEND_CPU, GFIR_KERNEL_DIRECT, 4096, GFIR_LATENCY_ANY);
    assert_int_equal(gfir_plan_kernel(plan), GFIR_KERNEL_DIRECT);
    assert_int_equal(gfir_plan_latency(plan), 0);
    gfir_plan_destroy(plan);
    free(taps);
}

/* What a program that knows only gfir.h gets with the defaults: the exact
 * causal convolution, latency 0, for 1 to 6 channels, shared or per-channel
 * taps, short and long filters, any chunking, in place or not. */
static void defaults_are_exact(void **state)
{
    static const size_t ntaps[] = {1, 7, 255, 1000, 4097};
    uint64_t rng = 11;
    (void)state;
    for (unsigned ch = 1; ch <= 6; ch += 5) {
        for (unsigned shared = 0; shared < 2; shared++) {
            for (size_t t = 0; t < sizeof ntaps / sizeof ntaps[0]; t++) {
                const unsigned fch = shared ? 1 : ch;
                const size_t frames = 6000, n = frames * ch;
                float *h = random_taps(ntaps[t] * fch, rng++);
                float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
                double *ref = malloc(n * sizeof *ref);
                gfir_plan *plan;
                gfir_config cfg;
                assert_true(x && y && ref);
                test_fill(x, n, &rng);
                test_reference(x, frames, ch, h, ntaps[t], fch, ref);
                gfir_config_init(&cfg);
                cfg.channels = ch;
                cfg.filter_channels = fch;
                assert_int_equal(gfir_plan_create(&plan, h, ntaps[t], &cfg), GFIR_OK);
                assert_int_equal(gfir_plan_latency(plan), 0);
                memcpy(y, x, n * sizeof *y); /* in place, in chunks of 1 to 1000 */
                for (size_t done = 0; done < frames;) {
                    size_t m = 1 + (size_t)(test_uniform(&rng) * 1000.0);
                    m = m < frames - done ? m : frames - done;
                    assert_int_equal(gfir_plan_execute(plan, y + done * ch, y + done * ch, m),
                                     GFIR_OK);
                    done += m;
                }
                if (!(test_rel_l2(y, ref, n) < 1e-5))
                    fail_msg("%u ch, %u tap sets, %zu taps: rel L2 %g", ch, fch, ntaps[t],
                             test_rel_l2(y, ref, n));
                gfir_plan_destroy(plan);
                free(h);
                free(x);
                free(y);
                free(ref);
            }
        }
    }
}

/* A short job of known length stays on the CPU rather than start a device;
 * the CPU has nothing to start. First in the group: once a test has made a
 * plan on a GPU, that device is started and costs nothing more. */
static void short_jobs_stay_on_the_cpu(void **state)
{
    float taps[1] = {1.0f};
    gfir_plan *plan;
    gfir_config cfg;
    (void)state;
    gfir_config_init(&cfg);
    cfg.channels = 2;
    cfg.max_block_frames = 65536;
    cfg.max_latency_frames = GFIR_LATENCY_ANY;
    cfg.expected_frames = 48000; /* one second, one tap: microseconds of CPU work */
    assert_int_equal(gfir_plan_create(&plan, taps, 1, &cfg), GFIR_OK);
    assert_int_equal(gfir_plan_backend(plan), GFIR_BACKEND_CPU);
    assert_null(plan->engine->backend->startup_s);
    gfir_plan_destroy(plan);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(short_jobs_stay_on_the_cpu),
        cmocka_unit_test(auto_respects_every_budget),
        cmocka_unit_test(budgets_at_the_ends),
        cmocka_unit_test(named_fft_fits_the_budget),
        cmocka_unit_test(long_filters_under_small_budgets),
        cmocka_unit_test(defaults_are_exact),
    };
    setenv("GFIR_FFTW_PLANNER", "estimate", 1);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
