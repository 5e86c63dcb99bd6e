/*
 * fft_nonuniform_test.c - the CPU's zero-latency FFT engine (non-uniformly
 * partitioned convolution) against a float64 direct convolution: tap counts
 * from 1 to 2^20 on and around the partitions' boundaries, every chunking
 * (whole, 1, 2, 7, 997, random), in place and not, 1 to 6 channels with
 * shared and per-channel taps, schemes the rule does not pick, worker
 * threads, flush and reset, which FFT engine a latency budget selects, and
 * AUTO's choice between this engine and direct.
 *
 * The engine adds no latency: out[i] is compared with the reference's y[i]
 * directly, and outputs are poisoned with NaN first so an output left
 * unwritten fails. For long filters the reference is evaluated at a sample
 * of output indices (the first and last ones, and random ones between), each
 * an exact float64 sum.
 *
 * Tolerances (the project's): relative L2 error 1e-5 up to 65536 taps, 1e-4
 * beyond.
 */
#include "core/swap.h"
#include "cpu/fft_nonuniform.h"
#include "gfir.h"
#include "test_util.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "stream_check.h"

/* Reference sums above this many multiply-adds use a sample of indices. */
#define FULL_REFERENCE_MACS 3e7
#define SAMPLED_INDICES 400

typedef struct nu_case {
    unsigned channels;
    unsigned filter_channels;
    size_t ntaps;
    size_t frames;
    size_t max_block;
    enum chunking chunking;
    int in_place;
    unsigned threads;
    const gf_nu_scheme *scheme; /* NULL: the rule's */
} nu_case;

static double tolerance_for(size_t ntaps)
{
    return ntaps <= 65536 ? 1e-5 : 1e-4;
}

static gfir_plan *make_plan(const nu_case *tc, const float *taps)
{
    gfir_plan *plan = NULL;
    gfir_config cfg;
    gfir_config_init(&cfg);
    cfg.channels = tc->channels;
    cfg.filter_channels = tc->filter_channels;
    cfg.backend = GFIR_BACKEND_CPU;
    cfg.kernel = GFIR_KERNEL_FFT;
    cfg.max_block_frames = tc->max_block;
    cfg.threads = tc->threads;
    assert_int_equal(gfir_plan_create(&plan, taps, tc->ntaps, &cfg), GFIR_OK);
    assert_int_equal(gfir_plan_kernel(plan), GFIR_KERNEL_FFT);
    assert_int_equal(gfir_plan_latency(plan), 0);
    if (tc->scheme) {
        plan->engine->destroy(plan);
        assert_int_equal(gf_cpu_fft_nonuniform_create_scheme(plan, tc->scheme), GFIR_OK);
        assert_int_equal(gf_engine_finish(plan, taps), GFIR_OK);
    }
    return plan;
}

/* Streams the case's frames through the plan in its chunking. */
static void stream(gfir_plan *plan, const nu_case *tc, const float *x, float *y, uint64_t *rng)
{
    const size_t ch = tc->channels;
    if (tc->in_place)
        memcpy(y, x, tc->frames * ch * sizeof *y);
    else
        for (size_t i = 0; i < tc->frames * ch; i++)
            y[i] = NAN;
    for (size_t done = 0; done < tc->frames;) {
        const size_t n = next_chunk(tc->chunking, tc->frames - done, rng);
        const float *in = (tc->in_place ? y : x) + done * ch;
        assert_int_equal(gfir_plan_execute(plan, in, y + done * ch, n), GFIR_OK);
        done += n;
    }
}

/* Relative L2 error of y against the reference, over every output or, for
 * long filters, over a sample of them. */
static double compare(const nu_case *tc, const float *x, const float *taps, const float *y,
                      uint64_t *rng)
{
    const size_t ch = tc->channels, n = tc->frames;
    const int full = (double)n * (double)(tc->ntaps < n ? tc->ntaps : n) * ch <
                     FULL_REFERENCE_MACS;
    const size_t count = full ? n : SAMPLED_INDICES;
    double num = 0.0, den = 0.0;
    for (size_t s = 0; s < count; s++) {
        size_t i;
        if (full)
            i = s;
        else if (s < 32)
            i = s;
        else if (s < 96)
            i = n - 1 - (s - 32);
        else
            i = (size_t)(test_uniform(rng) * (double)n);
        for (unsigned c = 0; c < ch; c++) {
            const double r =
                test_reference_at(x, tc->channels, taps, tc->ntaps, tc->filter_channels, c, i);
            const double d = (double)y[i * ch + c] - r;
            num += d * d;
            den += r * r;
        }
    }
    return sqrt(num) / sqrt(den);
}

/* Runs one case and returns its output (frames x channels), which the
 * caller frees; fails unless the error is under the tolerance. */
static float *run_check(const nu_case *tc)
{
    uint64_t rng = 0x9E3779B97F4A7C15ULL ^ (tc->ntaps * 131 + tc->channels * 7 + tc->chunking +
                                             tc->max_block * 1009);
    const size_t ch = tc->channels;
    float *taps = malloc(tc->ntaps * tc->filter_channels * sizeof *taps);
    float *x = malloc(tc->frames * ch * sizeof *x), *y = malloc(tc->frames * ch * sizeof *y);
    gfir_plan *plan;
    double err;
    assert_true(taps && x && y);
    test_fill(taps, tc->ntaps * tc->filter_channels, &rng);
    test_fill(x, tc->frames * ch, &rng);
    plan = make_plan(tc, taps);
    stream(plan, tc, x, y, &rng);
    gfir_plan_destroy(plan);
    err = compare(tc, x, taps, y, &rng);
    if (!(err < tolerance_for(tc->ntaps)))
        fail_msg("non-uniform ch=%u fch=%u ntaps=%zu frames=%zu block=%zu chunks=%s "
                 "inplace=%d threads=%u scheme=%s: rel L2 %.3g >= %.0e",
                 tc->channels, tc->filter_channels, tc->ntaps, tc->frames, tc->max_block,
                 chunk_names[tc->chunking], tc->in_place, tc->threads,
                 tc->scheme ? "forced" : "rule", err, tolerance_for(tc->ntaps));
    printf("  ch=%u ntaps=%zu chunks=%s: rel L2 %.2e\n", tc->channels, tc->ntaps,
           chunk_names[tc->chunking], err);
    free(taps);
    free(x);
    return y;
}

static void check_case(const nu_case *tc)
{
    free(run_check(tc));
}

/* Short filters, where the direct head and the first levels do everything,
 * on and around the heads' lengths (128 for calls below 256 frames, 256
 * from there) and where the second level begins (past 4096 and 8192 taps),
 * in every chunking: whole grid blocks take the head in the frequency
 * domain, shorter segments directly, and 997-frame calls mix the two. */
static void test_short_filters(void **state)
{
    (void)state;
    static const size_t ntaps[] = {1,   2,   63,  64,   65,   127,  128,  129,
                                   255, 256, 257, 513, 1000, 4096, 4097, 8193};
    static const size_t blocks[] = {128, 1024};
    for (size_t t = 0; t < sizeof ntaps / sizeof ntaps[0]; t++)
        for (int how = WHOLE; how <= RANDOM; how++) {
            nu_case tc = {2, how & 1 ? 2 : 1, ntaps[t], ntaps[t] + 2500, blocks[(t + how) % 2],
                          (enum chunking)how, how & 2 ? 1 : 0, 1, NULL};
            check_case(&tc);
        }
}

/* 32769 taps (the third level's first, one-tap partitions), 65537 and 2^20,
 * every chunking, several cycles of the longest partition; the large
 * blocks' heads. */
static void test_long_filters(void **state)
{
    (void)state;
    for (int how = WHOLE; how <= RANDOM; how++) {
        nu_case tc = {1, 1, 32769, 32769 + 30000, 2048, (enum chunking)how, how & 1, 1, NULL};
        check_case(&tc);
    }
    for (int how = WHOLE; how <= RANDOM; how++) {
        nu_case tc = {2, 2, 65537, 65537 + 40000, 4096, (enum chunking)how, how & 1, 1, NULL};
        check_case(&tc);
    }
    /* heads of 1024 (blocks from 16384) and 4096 (from 65536), on and just
     * past twice their length, where they begin */
    for (int how = WHOLE; how <= RANDOM; how++) {
        const size_t ntaps = how & 1 ? 8193 : 2048;
        nu_case tc = {2, 2, ntaps, ntaps + 50000, how & 2 ? 65536 : 16384, (enum chunking)how,
                      how & 1, 1, NULL};
        check_case(&tc);
    }
    for (int how = WHOLE; how <= RANDOM; how++) {
        const size_t n = (size_t)1 << 20;
        nu_case tc = {2, how & 1 ? 2 : 1, n, n + 3 * 65536 + 1001, 65536, (enum chunking)how,
                      how == RANDOM, 1, NULL};
        check_case(&tc);
    }
}

/* 1 to 6 channels, shared and per-channel taps. */
static void test_channels(void **state)
{
    (void)state;
    for (unsigned ch = 1; ch <= 6; ch++)
        for (int per = 0; per < 2; per++) {
            nu_case tc = {ch, per ? ch : 1, 3001, 9001, 256, RANDOM, per, 1, NULL};
            check_case(&tc);
        }
}

/* Schemes the rule would not pick: a small head, doubling sizes, a level
 * as large as the head, the smallest four-step level, filters that end on
 * and just past a level's first tap. */
static void test_schemes(void **state)
{
    (void)state;
    static const gf_nu_scheme schemes[] = {
        {16, 3, {32, 2048, 4096}},
        {32, 1, {2048}},
        {64, 1, {64}},
        {64, 7, {128, 256, 512, 1024, 2048, 4096, 8192}},
        {128, 2, {256, 8192}},
    };
    static const size_t ntaps[] = {20000, 4096, 4097, 16385};
    for (size_t s = 0; s < sizeof schemes / sizeof schemes[0]; s++)
        for (size_t t = 0; t < sizeof ntaps / sizeof ntaps[0]; t++) {
            nu_case tc = {2, 2, ntaps[t], ntaps[t] + 20000, 512, (enum chunking)((s + t) % 6),
                          (int)(t & 1), 1, &schemes[s]};
            check_case(&tc);
        }
}

/* Large calls share their channels out to worker threads: the samples are
 * those of one thread, bit for bit, and right. */
static void test_threads(void **state)
{
    (void)state;
    for (unsigned ch = 2; ch <= 3; ch++) {
        nu_case one = {ch, ch, 70000, 90011, 8192, WHOLE, (int)(ch & 1), 1, NULL};
        nu_case many = one;
        float *y1, *y3;
        many.threads = 3;
        y1 = run_check(&one);
        y3 = run_check(&many);
        assert_memory_equal(y1, y3, one.frames * ch * sizeof *y1);
        free(y1);
        free(y3);
    }
}

/* flush gives the tail; reset forgets the history: a second pass gives the
 * first pass's samples bit for bit (stream_check.h). */
static void test_flush_and_reset(void **state)
{
    (void)state;
    static const size_t ntaps[] = {1, 64, 1000, 5000};
    for (size_t t = 0; t < sizeof ntaps / sizeof ntaps[0]; t++)
        check_reset_and_flush(GFIR_BACKEND_CPU, GFIR_KERNEL_FFT, 7001, ntaps[t], 17 + t);
}

/* The FFT kernel is the uniform engine where the latency budget fits one of
 * its partitions, this one (latency 0) below that. */
static void test_latency_budget(void **state)
{
    (void)state;
    static const size_t ntaps[] = {100, 5000, 300000};
    static const size_t blocks[] = {64, 4096};
    static const size_t budgets[] = {0, 1, 63, 64, 100, 4096, GFIR_LATENCY_ANY};
    float *taps = malloc(300000 * sizeof *taps);
    uint64_t rng = 3;
    assert_non_null(taps);
    test_fill(taps, 300000, &rng);
    for (size_t t = 0; t < 3; t++)
        for (size_t b = 0; b < 2; b++)
            for (size_t k = 0; k < sizeof budgets / sizeof budgets[0]; k++) {
                const size_t part = gf_cpu_fft_partition(ntaps[t], blocks[b], budgets[k]);
                gfir_plan *plan;
                gfir_config cfg;
                gfir_config_init(&cfg);
                cfg.backend = GFIR_BACKEND_CPU;
                cfg.kernel = GFIR_KERNEL_FFT;
                cfg.max_block_frames = blocks[b];
                cfg.max_latency_frames = budgets[k];
                assert_int_equal(gfir_plan_create(&plan, taps, ntaps[t], &cfg), GFIR_OK);
                assert_int_equal(gfir_plan_latency(plan), part);
                gfir_plan_destroy(plan);
            }
    free(taps);
}

/* The crossover with direct: the engine's head alone is direct convolution,
 * so short filters stay with direct; long ones go to the engine whatever the
 * call size. */
static void test_preferred(void **state)
{
    (void)state;
    static const size_t blocks[] = {1, 16, 64, 256, 4096, 32768, (size_t)1 << 20};
    for (size_t b = 0; b < sizeof blocks / sizeof blocks[0]; b++) {
        assert_false(gf_cpu_fft_nonuniform_preferred(1, blocks[b]));
        assert_false(gf_cpu_fft_nonuniform_preferred(128, blocks[b]));
        assert_true(gf_cpu_fft_nonuniform_preferred(4096, blocks[b]));
        assert_true(gf_cpu_fft_nonuniform_preferred((size_t)1 << 20, blocks[b]));
    }
}

/* AUTO without a latency budget weighs this engine against direct by its
 * own crossover, and the plan adds no latency either way. */
static void test_auto_choice(void **state)
{
    (void)state;
    static const size_t ntaps[] = {1, 100, 200, 383, 384, 1000, 65536};
    static const size_t blocks[] = {16, 64, 4096};
    float *taps = malloc(65536 * sizeof *taps);
    uint64_t rng = 9;
    assert_non_null(taps);
    test_fill(taps, 65536, &rng);
    for (size_t b = 0; b < sizeof blocks / sizeof blocks[0]; b++)
        for (size_t t = 0; t < sizeof ntaps / sizeof ntaps[0]; t++) {
            const int fft = gf_cpu_fft_nonuniform_preferred(ntaps[t], blocks[b]);
            gfir_plan *plan;
            gfir_config cfg;
            gfir_config_init(&cfg);
            cfg.backend = GFIR_BACKEND_CPU;
            cfg.max_block_frames = blocks[b];
            assert_int_equal(gfir_plan_create(&plan, taps, ntaps[t], &cfg), GFIR_OK);
            assert_int_equal(gfir_plan_kernel(plan), fft ? GFIR_KERNEL_FFT : GFIR_KERNEL_DIRECT);
            assert_int_equal(gfir_plan_latency(plan), 0);
            gfir_plan_destroy(plan);
        }
    free(taps);
}

/* A scheme that is not increasing powers of two is refused. */
static void test_bad_scheme(void **state)
{
    (void)state;
    static const gf_nu_scheme bad[] = {{48, 0, {0}}, {64, 2, {256, 256}}, {64, 1, {32}},
                                       {64, 1, {300}}};
    float taps[5000] = {1.0f};
    for (size_t s = 0; s < sizeof bad / sizeof bad[0]; s++) {
        nu_case tc = {1, 1, 5000, 0, 512, WHOLE, 0, 1, NULL};
        gfir_plan *plan = make_plan(&tc, taps);
        plan->engine->destroy(plan);
        assert_int_equal(gf_cpu_fft_nonuniform_create_scheme(plan, &bad[s]), GFIR_ERR_ARG);
        gfir_plan_destroy(plan);
    }
}

/* A swap that waits for the larger levels' blocks begins its fade one grid
 * block (N frames) after a boundary of the longest partition, where every
 * level's block starts (the heaviest call of the cycle), at most 2 P + N
 * frames after the swap: 40000 taps in 64-frame calls have N = 128 and
 * levels of 1024 and 8192. Swaps at frames all around the cycle. */
static void test_fade_start(void **state)
{
    (void)state;
    enum { NT = 40000, CALL = 64, N = 128, P = 8192 };
    uint64_t rng = 31;
    float *taps = malloc(NT * sizeof *taps), x[2 * CALL], y[2 * CALL];
    gf_nu_scheme scheme;
    nu_case tc = {2, 1, NT, 0, CALL, WHOLE, 0, 1, NULL};
    gfir_plan *plan;
    assert_non_null(taps);
    gf_cpu_fft_nonuniform_scheme(NT, CALL, &scheme);
    assert_int_equal(scheme.head, N);
    assert_int_equal(scheme.nlevels, 2);
    assert_int_equal(scheme.sizes[1], P);
    test_fill(taps, NT, &rng);
    test_fill(x, 2 * CALL, &rng);
    plan = make_plan(&tc, taps);
    for (size_t s = 0, frame = 0; s < 12; s++) {
        gfir_filter *f = NULL;
        /* to a random call within the next cycle */
        for (size_t k = 0, n = 1 + (size_t)(test_uniform(&rng) * (2 * P / CALL)); k < n; k++) {
            assert_int_equal(gfir_plan_execute(plan, x, y, CALL), GFIR_OK);
            frame += CALL;
        }
        assert_int_equal(gfir_filter_create(&f, plan, taps, NT), GFIR_OK);
        assert_int_equal(gfir_plan_swap(plan, f, 300), GFIR_OK);
        assert_int_equal(gfir_plan_execute(plan, x, y, CALL), GFIR_OK);
        assert_true(plan->fade_delay > 0 && plan->fade_delay <= 2 * P + N);
        assert_int_equal((frame + plan->fade_delay) % P, N);
        frame += CALL;
        while (plan->incoming) {
            assert_int_equal(gfir_plan_execute(plan, x, y, CALL), GFIR_OK);
            frame += CALL;
        }
        gfir_filter_destroy(gfir_plan_retired(plan));
    }
    gfir_plan_destroy(plan);
    free(taps);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_short_filters), cmocka_unit_test(test_long_filters),
        cmocka_unit_test(test_channels),      cmocka_unit_test(test_schemes),
        cmocka_unit_test(test_threads),       cmocka_unit_test(test_flush_and_reset),
        cmocka_unit_test(test_latency_budget), cmocka_unit_test(test_preferred),
        cmocka_unit_test(test_auto_choice),     cmocka_unit_test(test_bad_scheme),
        cmocka_unit_test(test_fade_start),
    };
    /* Measuring FFT algorithms would dominate the run time. */
    setenv("GFIR_FFTW_PLANNER", "estimate", 1);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
