/*
 * fdl_test.c - the CUDA delay-line engine (src/cuda/fdl.c, kernels/fdl)
 * against a float64 reference: tap counts from 1 to 480,000 across partition
 * sizes 16 to 2048, calls of every size (whole periods, 1, 7, 997, random),
 * 1 to 128 channels, routed layouts (mono to stereo, 3 to 5, 1 to 128 with a
 * filter each), reset and flush. Long filters are checked at sampled outputs
 * (the start, the end, random places), each against a float64 dot product.
 * Tolerance 1e-5 up to 65,536 taps, 1e-4 beyond (float accumulation over
 * longer sums). Exit 77 (skipped) where no GPU is usable. `fdl_test --quick`
 * runs small cases of every kind, for compute-sanitizer.
 */
#include "gfir.h"
#include "test_util.h"

#include "core/plan.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#define SAMPLED 400

static int quick; /* --quick: short filters and signals only */

typedef struct fdl_case {
    unsigned inputs, outputs, sets;
    size_t npaths;
    const gfir_path *paths;     /* NULL: channel to channel */
    size_t ntaps, block, frames;
    size_t chunk;               /* 0: random sizes up to 3 blocks */
    int full_size;              /* kept whole by --quick: the far partitions' cases */
} fdl_case;

static double tolerance(size_t ntaps)
{
    return ntaps <= 65536 ? 1e-5 : 1e-4;
}

/* Output i of output o, in float64, from the paths (or channel o). */
static double reference_at(const fdl_case *tc, const float *x, const float *taps, unsigned o,
                           size_t i)
{
    double y = 0.0;
    const size_t np = tc->paths ? tc->npaths : 1;
    for (size_t p = 0; p < np; p++) {
        gfir_path q = tc->paths ? tc->paths[p]
                                : (gfir_path){o, o, tc->sets == 1 ? 0 : o, 1.0f};
        if (q.output != o)
            continue;
        const float *h = taps + (size_t)q.taps * tc->ntaps;
        double acc = 0.0;
        for (size_t k = 0; k <= i && k < tc->ntaps; k++)
            acc += (double)h[k] * (double)x[(i - k) * tc->inputs + q.input];
        y += (double)q.gain * acc;
    }
    return y;
}

static gfir_plan *make(const fdl_case *tc, const float *taps)
{
    gfir_plan *plan = NULL;
    gfir_config cfg;
    gfir_config_init(&cfg);
    cfg.channels = tc->inputs;
    cfg.out_channels = tc->paths ? tc->outputs : 0;
    cfg.filter_channels = tc->sets;
    cfg.paths = tc->paths;
    cfg.npaths = tc->paths ? tc->npaths : 0;
    cfg.backend = GFIR_BACKEND_CUDA;
    cfg.kernel = GFIR_KERNEL_FFT;
    cfg.max_block_frames = tc->block;
    assert_int_equal(gfir_plan_create(&plan, taps, tc->ntaps, &cfg), GFIR_OK);
    assert_string_equal(plan->engine->name, "cuda-fdl");
    assert_int_equal(gfir_plan_latency(plan), 0);
    return plan;
}

static void stream(gfir_plan *plan, const fdl_case *tc, const float *x, float *y,
                   uint64_t *rng)
{
    for (size_t done = 0; done < tc->frames;) {
        size_t n = tc->chunk ? tc->chunk : (size_t)(test_uniform(rng) * 3.0 * tc->block);
        n = n < tc->frames - done ? n : tc->frames - done;
        assert_int_equal(gfir_plan_execute(plan, x + done * tc->inputs,
                                           y + done * tc->outputs, n),
                         GFIR_OK);
        done += n;
    }
}

/* Relative L2 over every output, or over sampled ones for long work. */
static double compare(const fdl_case *tc, const float *x, const float *taps, const float *y,
                      uint64_t *rng)
{
    const int full = (double)tc->frames * (double)tc->ntaps * tc->outputs < 3e8;
    const size_t count = full ? tc->frames : SAMPLED;
    double num = 0.0, den = 0.0;
    for (size_t s = 0; s < count; s++) {
        size_t i = full ? s
                   : s < 40 ? s
                   : s < 80 ? tc->frames - 1 - (s - 40)
                            : (size_t)(test_uniform(rng) * (double)tc->frames);
        for (unsigned o = 0; o < tc->outputs; o++) {
            if (!full && tc->outputs > 8 && o % 17 != (unsigned)s % 17)
                continue; /* many outputs: a spread of them at each sampled frame */
            const double r = reference_at(tc, x, taps, o, i);
            const double d = (double)y[i * tc->outputs + o] - r;
            num += d * d;
            den += r * r;
        }
    }
    return sqrt(num) / sqrt(den);
}

static void check(const fdl_case *given, uint64_t seed)
{
    fdl_case shrunk = *given;
    const fdl_case *tc = &shrunk;
    uint64_t rng = seed;
    if (quick && !given->full_size) {
        shrunk.ntaps = shrunk.ntaps < 3000 ? shrunk.ntaps : 3000;
        shrunk.frames = shrunk.frames < 4 * shrunk.block + 300 ? shrunk.frames
                                                               : 4 * shrunk.block + 300;
    } else if (quick) { /* far blocks 0 to 4: the first far outputs, a boundary after */
        shrunk.frames = shrunk.frames < 9000 ? shrunk.frames : 9000;
    }
    float *taps = malloc(tc->sets * tc->ntaps * sizeof *taps);
    float *x = malloc(tc->frames * tc->inputs * sizeof *x);
    float *y = malloc(tc->frames * tc->outputs * sizeof *y);
    gfir_plan *plan;
    assert_true(taps && x && y);
    test_fill(taps, tc->sets * tc->ntaps, &rng);
    test_fill(x, tc->frames * tc->inputs, &rng);
    for (size_t i = 0; i < tc->frames * tc->outputs; i++)
        y[i] = NAN;
    plan = make(tc, taps);
    stream(plan, tc, x, y, &rng);
    const double err = compare(tc, x, taps, y, &rng);
    if (!(err < tolerance(tc->ntaps)))
        fail_msg("%u in, %u out, %zu paths, %zu taps, block %zu, chunk %zu: rel L2 %g",
                 tc->inputs, tc->outputs, tc->paths ? tc->npaths : (size_t)tc->inputs,
                 tc->ntaps, tc->block, tc->chunk, err);
    if (getenv("GFIR_TEST_VERBOSE"))
        printf("  %zu taps, block %zu, chunk %zu, %u outputs: rel L2 %.3g\n", tc->ntaps,
               tc->block, tc->chunk, tc->outputs, err);
    gfir_plan_destroy(plan);
    free(taps);
    free(x);
    free(y);
}

static void taps_and_partitions(void **state)
{
    static const size_t ntaps[] = {1, 15, 16, 17, 63, 64, 65, 1000, 4097, 65537};
    static const size_t blocks[] = {16, 64, 128, 2048};
    (void)state;
    for (size_t b = 0; b < sizeof blocks / sizeof blocks[0]; b++)
        for (size_t t = 0; t < sizeof ntaps / sizeof ntaps[0]; t++) {
            fdl_case tc = {2, 2, 2, 0, NULL, ntaps[t], blocks[b], 20000, blocks[b], 0};
            check(&tc, b * 100 + t);
        }
}

/* Filters longer than 4P = 8192 taps at partitions of at most P / 8 take far
 * partitions of P = 2048 (src/cuda/fdl_far.h) beyond their first 2P taps:
 * lengths just past the threshold and across far partitions' ends, calls
 * of every size (whole blocks replay the block graph, others launch one by
 * one, and a signal mixes both), many channels. --quick, for the
 * sanitizers, keeps the lengths and the first 9000 frames of a few. */
static void far_partitions(void **state)
{
    static const size_t ntaps[] = {8193, 10240, 12289};
    static const size_t blocks[] = {16, 32, 256};
    (void)state;
    for (size_t b = 0; b < sizeof blocks / sizeof blocks[0]; b++)
        for (size_t t = 0; t < sizeof ntaps / sizeof ntaps[0]; t++) {
            if (quick && (b != 1 || t == 1))
                continue;
            fdl_case tc = {2, 2, 2, 0, NULL, ntaps[t], blocks[b], 30011, 0, 1};
            check(&tc, 1100 + b * 10 + t);
            fdl_case whole = {2, 2, 2, 0, NULL, ntaps[t], blocks[b], 30011, blocks[b], 1};
            check(&whole, 1150 + b * 10 + t);
        }
    fdl_case wide = {64, 64, 64, 0, NULL, 20000, 32, 24000, 32, !quick};
    check(&wide, 1190);
    fdl_case one = {1, 1, 1, 0, NULL, 9000, 32, 20000, 1, 1};
    check(&one, 1191);
}

static void every_chunking(void **state)
{
    static const size_t chunks[] = {1, 7, 64, 997, 0};
    (void)state;
    for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
        fdl_case tc = {3, 3, 1, 0, NULL, 5000, 64, 12000, chunks[c], 0};
        check(&tc, 700 + c);
    }
}

static void long_filters(void **state)
{
    (void)state;
    fdl_case tc = {2, 2, 2, 0, NULL, 480000, 64, 600000, 64, 0};
    check(&tc, 801);
    fdl_case wide = {2, 2, 1, 0, NULL, (size_t)1 << 20, 256, (size_t)1 << 21, 0, 0};
    check(&wide, 802);
}

static void many_channels(void **state)
{
    (void)state;
    fdl_case tc = {128, 128, 128, 0, NULL, 20000, 64, 40000, 64, 0};
    check(&tc, 901);
}

static void routed(void **state)
{
    static const gfir_path stereo[] = {{0, 0, 0, 1.0f}, {0, 1, 1, 1.0f}};
    static const gfir_path matrix[] = {{0, 0, 0, 0.5f}, {1, 0, 1, -0.25f}, {2, 1, 1, 2.0f},
                                       {2, 2, 2, 0.7f}, {0, 2, 3, 1.5f},   {1, 4, 0, -1.0f},
                                       {2, 4, 3, 0.1f}, {1, 1, 2, 0.3f}};
    gfir_path *fan = malloc(128 * sizeof *fan);
    (void)state;
    assert_non_null(fan);
    for (unsigned o = 0; o < 128; o++)
        fan[o] = (gfir_path){0, o, o, 1.0f - (float)o / 256.0f};
    fdl_case a = {1, 2, 2, 2, stereo, 3000, 64, 9000, 0, 0};
    check(&a, 1001);
    fdl_case b = {3, 5, 4, 8, matrix, 2000, 128, 9000, 0, 0};
    check(&b, 1002);
    fdl_case c = {1, 128, 128, 128, fan, 48000, 128, 60000, 128, 0};
    check(&c, 1003);
    free(fan);
}

/* Flush gives the tail; reset gives a second pass identical to the first. */
static void reset_and_flush(void **state)
{
    const size_t ntaps = 3000, n = 5000, total = n + ntaps - 1;
    float *taps = malloc(ntaps * sizeof *taps), *x = calloc(total, sizeof *x);
    float *y1 = malloc(total * sizeof *y1), *y2 = malloc(total * sizeof *y2);
    double *ref = malloc(total * sizeof *ref);
    uint64_t rng = 1234;
    gfir_plan *plan;
    gfir_config cfg;
    (void)state;
    assert_true(taps && x && y1 && y2 && ref);
    test_fill(taps, ntaps, &rng);
    test_fill(x, n, &rng);
    test_reference(x, total, 1, taps, ntaps, 1, ref);
    gfir_config_init(&cfg);
    cfg.backend = GFIR_BACKEND_CUDA;
    cfg.kernel = GFIR_KERNEL_FFT;
    cfg.max_block_frames = 64;
    assert_int_equal(gfir_plan_create(&plan, taps, ntaps, &cfg), GFIR_OK);
    assert_int_equal(gfir_plan_execute(plan, x, y1, n), GFIR_OK);
    assert_int_equal(gfir_plan_flush(plan, y1 + n, ntaps - 1), GFIR_OK);
    assert_true(test_rel_l2(y1, ref, total) < 1e-5);
    assert_int_equal(gfir_plan_reset(plan), GFIR_OK);
    assert_int_equal(gfir_plan_execute(plan, x, y2, n), GFIR_OK);
    assert_int_equal(gfir_plan_flush(plan, y2 + n, ntaps - 1), GFIR_OK);
    assert_memory_equal(y1, y2, total * sizeof(float));
    gfir_plan_destroy(plan);
    free(taps);
    free(x);
    free(y1);
    free(y2);
    free(ref);
}

/* AUTO on CUDA with live-sized calls takes this engine for long filters. */
static void auto_takes_it_for_small_calls(void **state)
{
    float *taps = calloc(100000, sizeof *taps);
    gfir_plan *plan;
    gfir_config cfg;
    (void)state;
    assert_non_null(taps);
    taps[0] = 1.0f;
    gfir_config_init(&cfg);
    cfg.backend = GFIR_BACKEND_CUDA;
    cfg.channels = 2;
    cfg.max_block_frames = 128;
    assert_int_equal(gfir_plan_create(&plan, taps, 100000, &cfg), GFIR_OK);
    assert_int_equal(gfir_plan_kernel(plan), GFIR_KERNEL_FFT);
    assert_string_equal(plan->engine->name, "cuda-fdl");
    assert_int_equal(plan->partition, 128);
    gfir_plan_destroy(plan);
    free(taps);
}

int main(int argc, char **argv)
{
    quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    if (!gfir_backend_available(GFIR_BACKEND_CUDA)) {
        printf("fdl_test: no usable CUDA device; skipped\n");
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(taps_and_partitions), cmocka_unit_test(far_partitions),
        cmocka_unit_test(every_chunking),
        cmocka_unit_test(long_filters),        cmocka_unit_test(many_channels),
        cmocka_unit_test(routed),              cmocka_unit_test(reset_and_flush),
        cmocka_unit_test(auto_takes_it_for_small_calls),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
