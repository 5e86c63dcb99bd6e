/*
 * fft_test.c - the CPU FFT kernel (partitioned overlap-save) against a float64
 * direct convolution: every partition size AUTO can choose, odd chunkings, in
 * place, 1 to 6 channels, per-channel taps, threads, flush and reset, filters
 * up to 2^21 taps, the partitions of offline plans (no latency budget) beyond
 * the block, and the latency the plan reports.
 *
 * The kernel's output is the causal convolution delayed by exactly
 * gfir_plan_latency() frames, so every check feeds the signal, flushes that
 * many frames more, and compares out[L + i] with the reference's y[i]; the
 * first L outputs must be exactly zero.
 *
 * Tolerances: relative L2 error 1e-5 up to 65536 taps, 1e-4 beyond (the
 * project's rule for fast paths: longer float32 sums and transforms round more).
 * For long filters the reference is evaluated at a sample of output indices
 * (the first and last ones, and random ones between), each an exact float64
 * sum, which keeps the test to seconds.
 */
#include "cpu/engine.h"
#include "cpu/tuning.h"
#include "gfir.h"
#include "test_util.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

/* Reference sums above this many multiply-adds use a sample of indices. */
#define FULL_REFERENCE_MACS 30000000.0
#define SAMPLED_INDICES 400

enum chunking { WHOLE, ONES, SEVENS, PRIME997, RANDOM };
static const char *const chunk_names[] = {"whole", "1", "7", "997", "random"};

typedef struct fft_case {
    unsigned channels;
    unsigned filter_channels;
    size_t ntaps;
    size_t frames;
    size_t max_block;
    enum chunking chunking;
    int in_place;
    unsigned threads;
} fft_case;

/* Set while test_offline_partitions runs: its plans have no latency budget
 * (a file's), and P follows the offline rule. */
static int offline_plans;

/* A budget of one block (at least the smallest partition), so the rule's P
 * follows the block; offline, none. */
static size_t budget_of(const fft_case *tc)
{
    if (offline_plans)
        return GFIR_LATENCY_ANY;
    return tc->max_block < 64 ? 64 : tc->max_block;
}

static size_t next_chunk(enum chunking how, size_t left, uint64_t *rng)
{
    size_t n;
    switch (how) {
    case WHOLE: n = left; break;
    case ONES: n = 1; break;
    case SEVENS: n = 7; break;
    case PRIME997: n = 997; break;
    default: n = (size_t)(test_uniform(rng) * 5000.0); break; /* 0 included */
    }
    return n < left ? n : left;
}

static gfir_plan *make_plan(const fft_case *tc, const float *taps)
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
    /* this engine, at its rule's partition: the caller accepts its latency */
    cfg.max_latency_frames = budget_of(tc);
    assert_int_equal(gfir_plan_create(&plan, taps, tc->ntaps, &cfg), GFIR_OK);
    assert_int_equal(gfir_plan_kernel(plan), GFIR_KERNEL_FFT);
    return plan;
}

/* Streams frames of x, then latency frames of flush, through the plan in the
 * case's chunking; y gets (frames + latency) x channels samples. */
static void stream(gfir_plan *plan, const fft_case *tc, const float *x, float *y, size_t total,
                   uint64_t *rng)
{
    const size_t ch = tc->channels;
    if (tc->in_place)
        memcpy(y, x, tc->frames * ch * sizeof *y);
    else
        for (size_t i = 0; i < total * ch; i++)
            y[i] = NAN; /* poison: every output must be written */
    for (size_t done = 0; done < tc->frames;) {
        size_t n = next_chunk(tc->chunking, tc->frames - done, rng);
        const float *in = (tc->in_place ? y : x) + done * ch;
        assert_int_equal(gfir_plan_execute(plan, in, y + done * ch, n), GFIR_OK);
        done += n;
    }
    for (size_t done = tc->frames; done < total;) {
        size_t n = next_chunk(tc->chunking, total - done, rng);
        assert_int_equal(gfir_plan_flush(plan, y + done * ch, n), GFIR_OK);
        done += n;
    }
}

/* Relative L2 error of y (delayed by latency) against the reference, over
 * every output or, for long filters, over a sample of them. */
static double compare(const fft_case *tc, const float *x, const float *taps, const float *y,
                      size_t latency, uint64_t *rng)
{
    const size_t ch = tc->channels, n = tc->frames;
    const int full = (double)n * (double)(tc->ntaps < n ? tc->ntaps : n) * ch <
                     FULL_REFERENCE_MACS;
    const size_t count = full ? n : SAMPLED_INDICES;
    double num = 0.0, den = 0.0;
    for (size_t s = 0; s < count; s++) {
        size_t i;
        if (full || n <= SAMPLED_INDICES)
            i = s < n ? s : n - 1;
        else if (s < 32)
            i = s; /* the start, where the delay line is still filling */
        else if (s < 96)
            i = n - 1 - (s - 32); /* the end, where every partition is busy */
        else
            i = (size_t)(test_uniform(rng) * (double)n);
        for (unsigned c = 0; c < ch; c++) {
            double r =
                test_reference_at(x, tc->channels, taps, tc->ntaps, tc->filter_channels, c, i);
            double d = (double)y[(latency + i) * ch + c] - r;
            num += d * d;
            den += r * r;
        }
    }
    return sqrt(num) / sqrt(den);
}

/* Runs one case; fails unless the error is under tolerance, the latency is
 * the partition size and the first latency outputs are zero. */
static void check(const fft_case *tc, double tolerance)
{
    uint64_t rng = 0x9E3779B97F4A7C15ULL ^ (tc->ntaps * 131 + tc->channels * 7 + tc->chunking +
                                             tc->max_block * 1009);
    const size_t ch = tc->channels;
    float *taps = malloc(tc->ntaps * tc->filter_channels * sizeof *taps);
    float *x = malloc(tc->frames * ch * sizeof *x);
    gfir_plan *plan;
    size_t latency, total;
    float *y;
    double err;

    assert_non_null(taps);
    assert_non_null(x);
    test_fill(taps, tc->ntaps * tc->filter_channels, &rng);
    test_fill(x, tc->frames * ch, &rng);
    plan = make_plan(tc, taps);
    latency = gfir_plan_latency(plan);
    assert_int_equal(latency, gf_cpu_fft_partition(tc->ntaps, tc->max_block, budget_of(tc)));
    total = tc->frames + latency;
    y = malloc(total * ch * sizeof *y);
    assert_non_null(y);

    stream(plan, tc, x, y, total, &rng);
    gfir_plan_destroy(plan);
    for (size_t i = 0; i < latency * ch; i++)
        if (y[i] != 0.0f)
            fail_msg("output %zu inside the latency is %g, not 0", i, (double)y[i]);
    err = compare(tc, x, taps, y, latency, &rng);
    if (!(err < tolerance))
        fail_msg("fft ch=%u fch=%u ntaps=%zu frames=%zu block=%zu (P=%zu) chunks=%s "
                 "inplace=%d threads=%u: rel L2 %.3g >= %.0e",
                 tc->channels, tc->filter_channels, tc->ntaps, tc->frames, tc->max_block,
                 latency, chunk_names[tc->chunking], tc->in_place, tc->threads, err, tolerance);
    printf("  ch=%u ntaps=%zu P=%zu chunks=%s: rel L2 %.2e\n", tc->channels, tc->ntaps,
           latency, chunk_names[tc->chunking], err);
    free(taps);
    free(x);
    free(y);
}

/* Every partition size the rule can give, each with a filter of one
 * partition, of a partial one and of several (partial last) partitions. */
static void test_partition_sizes(void **state)
{
    (void)state;
    for (size_t p = 64; p <= 32768; p *= 2) {
        const size_t ntaps[] = {p / 2 + 3, p, 3 * p + 5};
        for (size_t t = 0; t < 3; t++) {
            fft_case tc = {1, 1, ntaps[t], 0, p, RANDOM, 0, 1};
            tc.frames = ntaps[t] + 2 * p + 101;
            check(&tc, 1e-5);
        }
    }
}

/* Odd chunk sizes, in place and not, with the delay line several deep. */
static void test_chunkings(void **state)
{
    (void)state;
    for (int how = WHOLE; how <= RANDOM; how++) {
        for (int inplace = 0; inplace < 2; inplace++) {
            fft_case tc = {2, 2, 1000, 6007, 256, (enum chunking)how, inplace, 1};
            check(&tc, 1e-5);
        }
    }
    /* Tiny blocks (P is 64 above them) and blocks that are not powers of two. */
    static const size_t blocks[] = {1, 7, 100, 997, 5000};
    for (size_t b = 0; b < sizeof blocks / sizeof blocks[0]; b++) {
        fft_case tc = {1, 1, 777, 4001, blocks[b], PRIME997, (int)(b & 1), 1};
        check(&tc, 1e-5);
    }
    /* Filters far shorter than the partition, down to one tap. */
    static const size_t short_taps[] = {1, 2, 3, 31};
    for (size_t t = 0; t < sizeof short_taps / sizeof short_taps[0]; t++) {
        fft_case tc = {2, 1, short_taps[t], 3001, 4096, SEVENS, 0, 1};
        check(&tc, 1e-5);
    }
}

/* 1 to 6 channels, shared and per-channel taps, one thread and three (from
 * two channels on, the long filter's blocks are shared out a channel per
 * task, with fewer, as many and more channels than threads). */
static void test_channels(void **state)
{
    (void)state;
    for (unsigned ch = 1; ch <= 6; ch++) {
        for (int per = 0; per < 2; per++) {
            fft_case tc = {ch, per ? ch : 1, 513, 4003, 128, RANDOM, per, 1};
            check(&tc, 1e-5);
            tc.ntaps = 70000;
            tc.frames = 90011;
            tc.max_block = 8192;
            tc.threads = 3;
            tc.in_place = !per;
            check(&tc, 1e-5);
        }
    }
}

/* Long filters: 65536 taps under 1e-5; 2^20 and 2^21 under 1e-4, with the
 * latency still the partition size, not the filter length. */
static void test_long_filters(void **state)
{
    (void)state;
    fft_case tc = {2, 2, 65536, 65536 + 20000, 4096, RANDOM, 0, 0};
    check(&tc, 1e-5);
    /* Threaded: stereo a channel per task, mono by ranges of bins. */
    tc = (fft_case){2, 2, (size_t)1 << 20, ((size_t)1 << 20) + 9000, 32768, PRIME997, 1, 4};
    check(&tc, 1e-4);
    tc = (fft_case){1, 1, (size_t)1 << 21, ((size_t)1 << 21) + 9000, 32768, RANDOM, 0, 2};
    check(&tc, 1e-4);
}

/* Large calls of several channels: with threads each channel runs the whole
 * call (many blocks) as one task, writing its own plane; the output must be
 * bit for bit the one-thread plan's, which runs the very same arithmetic a
 * block at a time, and within 1e-5 of float64 (in place too, and with calls
 * of every size, so stretches and blocks mix). A plan on one thread never
 * splits, and nor do the small calls below the work threshold. */
static void test_calls_by_channel(void **state)
{
    static const struct {
        unsigned channels, filter_channels;
        size_t ntaps, frames, max_block;
        enum chunking chunking;
        int in_place;
    } cases[] = {
        {2, 1, 255, 200003, 65536, WHOLE, 0},   /* P 256: 256 blocks a call */
        {2, 2, 4095, 150001, 65536, RANDOM, 1}, /* P 4096, calls of 0 to 5000 frames */
        {3, 3, 4000, 70001, 20000, WHOLE, 0},  /* calls of the 20000-frame block */
        {2, 2, 70000, 140001, 65536, WHOLE, 1}, /* P 32768: two blocks a call */
        {5, 1, 513, 90001, 30011, WHOLE, 1},
    };
    (void)state;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const unsigned ch = cases[k].channels;
        fft_case tc = {ch, cases[k].filter_channels, cases[k].ntaps, cases[k].frames,
                       cases[k].max_block, cases[k].chunking, cases[k].in_place, 1};
        uint64_t rng = 0x6A09E667F3BCC909ULL + k, rng1, rng2;
        float *taps = malloc(tc.ntaps * tc.filter_channels * sizeof *taps);
        float *x = malloc(tc.frames * ch * sizeof *x), *y1, *y2;
        gfir_plan *one, *two;
        size_t total, latency;
        double err;
        assert_non_null(taps);
        assert_non_null(x);
        test_fill(taps, tc.ntaps * tc.filter_channels, &rng);
        test_fill(x, tc.frames * ch, &rng);
        one = make_plan(&tc, taps);
        tc.threads = 2;
        two = make_plan(&tc, taps);
        latency = gfir_plan_latency(one);
        total = tc.frames + latency;
        y1 = malloc(total * ch * sizeof *y1);
        y2 = malloc(total * ch * sizeof *y2);
        assert_non_null(y1);
        assert_non_null(y2);
        rng1 = rng2 = rng;
        stream(one, &tc, x, y1, total, &rng1);
        stream(two, &tc, x, y2, total, &rng2);
        assert_int_equal(gf_cpu_fft_uniform_split_stretches(one), 0);
        if (gf_cpu_fft_uniform_split_stretches(two) == 0)
            fail_msg("case %zu: no call was shared out a channel per task", k);
        if (memcmp(y1, y2, total * ch * sizeof *y1) != 0)
            fail_msg("case %zu: two threads differ from one", k);
        err = compare(&tc, x, taps, y2, latency, &rng);
        if (!(err < 1e-5))
            fail_msg("case %zu: rel L2 %.3g >= 1e-5", k, err);
        printf("  ch=%u ntaps=%zu P=%zu: %zu stretches by channel, rel L2 %.2e\n", ch, tc.ntaps,
               latency, gf_cpu_fft_uniform_split_stretches(two), err);
        gfir_plan_destroy(one);
        gfir_plan_destroy(two);
        free(taps);
        free(x);
        free(y1);
        free(y2);
    }
}

/* Many channels: the planes stay within 8 MiB (2^21 floats), so a call of
 * 65536 frames of 64 channels goes in two stretches of 32768, and the
 * output is still the one-thread plan's, bit for bit. */
static void test_planes_bounded(void **state)
{
    enum { CH = 64, N = 65536 };
    const size_t samples = (size_t)N * CH;
    fft_case tc = {CH, 1, 513, N, N, WHOLE, 0, 1};
    uint64_t rng = 21;
    float taps[513];
    float *x = malloc(samples * sizeof *x), *y1 = malloc(samples * sizeof *y1);
    float *y2 = malloc(samples * sizeof *y2);
    gfir_plan *one, *two;
    (void)state;
    assert_non_null(x);
    assert_non_null(y1);
    assert_non_null(y2);
    test_fill(taps, 513, &rng);
    test_fill(x, samples, &rng);
    one = make_plan(&tc, taps);
    tc.threads = 2;
    two = make_plan(&tc, taps);
    assert_int_equal(gfir_plan_execute(one, x, y1, N), GFIR_OK);
    assert_int_equal(gfir_plan_execute(two, x, y2, N), GFIR_OK);
    assert_int_equal(gf_cpu_fft_uniform_split_stretches(two), 2);
    if (memcmp(y1, y2, samples * sizeof *y1) != 0)
        fail_msg("64 channels: two threads differ from one");
    gfir_plan_destroy(one);
    gfir_plan_destroy(two);
    free(x);
    free(y1);
    free(y2);
}

/* Calls too small to pay for waking a worker stay on the calling thread. */
static void test_small_calls_stay(void **state)
{
    fft_case tc = {2, 1, 255, 20001, 65536, SEVENS, 0, 2};
    uint64_t rng = 5;
    float taps[255], *x = malloc(tc.frames * 2 * sizeof *x), *y;
    gfir_plan *plan;
    size_t total;
    (void)state;
    assert_non_null(x);
    test_fill(taps, 255, &rng);
    test_fill(x, tc.frames * 2, &rng);
    plan = make_plan(&tc, taps);
    total = tc.frames + gfir_plan_latency(plan);
    y = malloc(total * 2 * sizeof *y);
    assert_non_null(y);
    stream(plan, &tc, x, y, total, &rng);
    assert_int_equal(gf_cpu_fft_uniform_split_stretches(plan), 0);
    gfir_plan_destroy(plan);
    free(x);
    free(y);
}

/* A 2^20-tap filter: within a budget, latency is at most the block (the
 * default one of 4096, or 256); offline, with none, the block bounds nothing
 * and the partition is the offline rule's, 65536. */
static void test_latency_and_block(void **state)
{
    (void)state;
    const size_t ntaps = (size_t)1 << 20;
    float *taps = calloc(ntaps, sizeof *taps);
    gfir_plan *plan;
    gfir_config cfg;
    assert_non_null(taps);
    taps[0] = 1.0f;
    gfir_config_init(&cfg);
    cfg.backend = GFIR_BACKEND_CPU;
    cfg.kernel = GFIR_KERNEL_FFT;
    cfg.max_latency_frames = 1 << 20;
    assert_int_equal(gfir_plan_create(&plan, taps, ntaps, &cfg), GFIR_OK);
    assert_int_equal(gfir_plan_latency(plan), 4096);
    gfir_plan_destroy(plan);
    cfg.max_block_frames = 256;
    assert_int_equal(gfir_plan_create(&plan, taps, ntaps, &cfg), GFIR_OK);
    assert_int_equal(gfir_plan_latency(plan), 256);
    gfir_plan_destroy(plan);
    cfg.max_latency_frames = GFIR_LATENCY_ANY;
    assert_int_equal(gfir_plan_create(&plan, taps, ntaps, &cfg), GFIR_OK);
    assert_int_equal(gfir_plan_latency(plan), 65536);
    gfir_plan_destroy(plan);
    free(taps);
}

/* Offline plans at each branch of the offline rule, with partitions larger
 * than the calls (calls of random size, of one frame, or of a block smaller
 * than P), calls of several hops, and with several partitions: against
 * float64 like every case here. Up to 16384 taps the filter is one
 * partition, the hop N - ntaps + 1 for a transform of N points. */
static void test_offline_partitions(void **state)
{
    static const struct {
        fft_case tc;
        size_t partition;
    } cases[] = {
        {{2, 1, 300, 5003, 256, RANDOM, 0, 1}, 4096 - 299},     /* P past a 256 block */
        {{6, 6, 4095, 3 * 28674 + 5, 65536, WHOLE, 0, 2}, 28674}, /* 32768 points */
        {{2, 1, 1023, 2 * 7170 + 3, 1, ONES, 1, 1}, 7170},      /* 8192 points */
        {{5, 1, 16383, 2 * 49154 + 11, 65536, RANDOM, 0, 1}, 49154}, /* 65536 points */
        {{3, 3, 2, 9001, 997, PRIME997, 0, 1}, 4095},           /* 4096 points */
        {{2, 2, 20001, 30011, 4096, PRIME997, 1, 1}, 4096},     /* five partitions */
        {{2, 1, 40000, 3 * 65536 + 777, 65536, RANDOM, 0, 2}, 65536},
        {{1, 1, 140001, 3 * 65536 + 555, 20000, RANDOM, 0, 1}, 65536}, /* three */
        {{2, 2, 300001, 6 * 65536 + 99, 65536, WHOLE, 1, 2}, 65536},   /* five */
    };
    (void)state;
    offline_plans = 1;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        assert_int_equal(gf_cpu_fft_partition(cases[k].tc.ntaps, cases[k].tc.max_block,
                                              GFIR_LATENCY_ANY),
                         cases[k].partition);
        check(&cases[k].tc, cases[k].tc.ntaps > 65536 ? 1e-4 : 1e-5);
    }
    offline_plans = 0;
}

/* flush yields the whole tail; reset forgets the history and the queued
 * outputs: a second pass gives the first pass's samples bit for bit. */
static void test_flush_and_reset(void **state)
{
    (void)state;
    uint64_t rng = 11;
    enum { N = 3000, T = 1500, B = 512, CH = 2 };
    const size_t total = N + T - 1 + B;
    float taps[T], x[N * CH];
    float *y1 = malloc(total * CH * sizeof *y1), *y2 = malloc(total * CH * sizeof *y2);
    double *ref = malloc((N + T - 1) * CH * sizeof *ref);
    float *xfull = calloc((N + T - 1) * CH, sizeof *xfull);
    gfir_plan *plan;
    fft_case tc = {CH, 1, T, N, B, WHOLE, 0, 1};
    assert_non_null(y1);
    assert_non_null(y2);
    assert_non_null(ref);
    assert_non_null(xfull);
    test_fill(taps, T, &rng);
    test_fill(x, N * CH, &rng);
    memcpy(xfull, x, sizeof x);
    test_reference(xfull, N + T - 1, CH, taps, T, 1, ref);

    plan = make_plan(&tc, taps);
    assert_int_equal(gfir_plan_latency(plan), B);
    for (int pass = 0; pass < 2; pass++) {
        float *y = pass ? y2 : y1;
        assert_int_equal(gfir_plan_execute(plan, x, y, 1234), GFIR_OK);
        assert_int_equal(gfir_plan_execute(plan, x + 1234 * CH, y + 1234 * CH, N - 1234),
                         GFIR_OK);
        assert_int_equal(gfir_plan_flush(plan, y + N * CH, total - N), GFIR_OK);
        assert_true(test_rel_l2(y + B * CH, ref, (N + T - 1) * CH) < 1e-5);
        assert_int_equal(gfir_plan_reset(plan), GFIR_OK);
    }
    assert_memory_equal(y1, y2, total * CH * sizeof *y1);
    gfir_plan_destroy(plan);
    free(y1);
    free(y2);
    free(ref);
    free(xfull);
}

/* With FFTW_MEASURE, the first plan of a size leaves wisdom in the cache
 * directory, and a second plan of that size uses it. */
static void test_wisdom_cache(void **state)
{
    (void)state;
    char dir[] = "/tmp/gfir_fft_test_XXXXXX", path[128];
    float taps[300] = {1.0f};
    gfir_plan *plan;
    gfir_config cfg;
    assert_non_null(mkdtemp(dir));
    assert_int_equal(setenv("XDG_CACHE_HOME", dir, 1), 0);
    assert_int_equal(setenv("GFIR_FFTW_PLANNER", "measure", 1), 0);
    gfir_config_init(&cfg);
    cfg.backend = GFIR_BACKEND_CPU;
    cfg.kernel = GFIR_KERNEL_FFT;
    cfg.max_block_frames = 256;
    cfg.max_latency_frames = GFIR_LATENCY_ANY;
    for (int i = 0; i < 2; i++) {
        assert_int_equal(gfir_plan_create(&plan, taps, 300, &cfg), GFIR_OK);
        gfir_plan_destroy(plan);
    }
    snprintf(path, sizeof path, "%s/gfir/fftw-wisdom", dir);
    assert_int_equal(access(path, R_OK), 0);
    remove(path);
    snprintf(path, sizeof path, "%s/gfir", dir);
    rmdir(path);
    rmdir(dir);
    assert_int_equal(setenv("GFIR_FFTW_PLANNER", "estimate", 1), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_partition_sizes), cmocka_unit_test(test_chunkings),
        cmocka_unit_test(test_channels),        cmocka_unit_test(test_long_filters),
        cmocka_unit_test(test_latency_and_block), cmocka_unit_test(test_offline_partitions),
        cmocka_unit_test(test_flush_and_reset),
        cmocka_unit_test(test_wisdom_cache),    cmocka_unit_test(test_calls_by_channel),
        cmocka_unit_test(test_small_calls_stay), cmocka_unit_test(test_planes_bounded),
    };
    /* Measuring FFT algorithms would dominate the run time; the wisdom test
     * turns it back on for one small size. */
    setenv("GFIR_FFTW_PLANNER", "estimate", 1);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
