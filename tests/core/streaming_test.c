/*
 * streaming_test.c - the streaming contract in one place: feeding a signal in
 * chunks of any size (1, 2, 7, 997, random), in place or not, shared or
 * per-channel taps, 1 to 8 channels, gives the samples of a float64 direct
 * convolution of the whole signal.
 *
 * Tolerance: relative L2 error 1e-5. Float32 products summed over up to 4097
 * terms of random sign leave errors near sqrt(ntaps) * 2^-24 relative to the
 * output, about 4e-6 at worst here; 1e-5 is the bound the library promises.
 */
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

static const size_t tap_counts[] = {1, 2, 3, 7, 31, 32, 33, 255, 1023, 4097};
#define NTAPCOUNTS (sizeof tap_counts / sizeof tap_counts[0])

/* Every chunking, tap count and kernel, stereo with per-channel taps. */
static void test_chunkings(void **state)
{
    (void)state;
    for (int k = 0; k < 2; k++) {
        for (size_t t = 0; t < NTAPCOUNTS; t++) {
            for (int how = WHOLE; how <= RANDOM; how++) {
                stream_case tc = {GFIR_BACKEND_CPU, k ? GFIR_KERNEL_DIRECT : GFIR_KERNEL_GOLD,
                                  2, 2, tap_counts[t], 0, 0, (enum chunking)how, 0};
                /* long enough to cross several blocks and the whole history */
                tc.frames = 2 * tap_counts[t] + 3001;
                if (how == ONES && tap_counts[t] > 255)
                    tc.frames = tap_counts[t] + 500; /* keep one-frame calls affordable */
                check(&tc);
            }
        }
    }
}

/* 1 to 8 channels, shared and per-channel taps, in place and not. */
static void test_channels(void **state)
{
    (void)state;
    for (unsigned ch = 1; ch <= 8; ch++) {
        for (int per = 0; per < 2; per++) {
            for (int inplace = 0; inplace < 2; inplace++) {
                stream_case tc = {GFIR_BACKEND_CPU, GFIR_KERNEL_DIRECT, ch, per ? ch : 1, 63,
                                  5003, 0, RANDOM, inplace};
                check(&tc);
                tc.chunking = SEVENS;
                tc.ntaps = 4097;
                tc.frames = 9001;
                check(&tc);
            }
        }
    }
}

/* Tiny and odd max_block_frames: calls are split, never refused. */
static void test_block_splitting(void **state)
{
    (void)state;
    static const size_t blocks[] = {1, 3, 64, 1000, 65537};
    for (size_t b = 0; b < sizeof blocks / sizeof blocks[0]; b++) {
        stream_case tc = {GFIR_BACKEND_CPU, GFIR_KERNEL_DIRECT, 3, 3, 257, 7919, blocks[b],
                          RANDOM, b & 1};
        check(&tc);
    }
}

/* Large blocks with many taps take the threaded path. */
static void test_threaded(void **state)
{
    (void)state;
    stream_case tc = {GFIR_BACKEND_CPU, GFIR_KERNEL_DIRECT, 6, 6, 1023, 1 << 16, 1 << 15,
                      PRIME997, 0};
    check(&tc);
    tc.chunking = WHOLE;
    tc.in_place = 1;
    check(&tc);
}

/* reset forgets the history: a second pass gives the first pass's output. */
static void test_reset(void **state)
{
    (void)state;
    uint64_t rng = 42;
    enum { N = 3000, T = 129 };
    float taps[T], x[N * 2], y1[N * 2], y2[N * 2];
    gfir_plan *plan;
    gfir_config cfg;
    test_fill(taps, T, &rng);
    test_fill(x, N * 2, &rng);
    gfir_config_init(&cfg);
    cfg.channels = 2;
    cfg.backend = GFIR_BACKEND_CPU;
    assert_int_equal(gfir_plan_create(&plan, taps, T, &cfg), GFIR_OK);
    assert_int_equal(gfir_plan_execute(plan, x, y1, N), GFIR_OK);
    assert_int_equal(gfir_plan_reset(plan), GFIR_OK);
    assert_int_equal(gfir_plan_execute(plan, x, y2, N), GFIR_OK);
    assert_memory_equal(y1, y2, sizeof y1);
    gfir_plan_destroy(plan);
}

/* flush feeds silence: it yields the tail of the full convolution. */
static void test_flush_tail(void **state)
{
    (void)state;
    uint64_t rng = 7;
    enum { N = 500, T = 301 };
    float taps[T], x[N + T - 1], y[N + T - 1];
    double ref[N + T - 1];
    gfir_plan *plan;
    gfir_config cfg;
    test_fill(taps, T, &rng);
    test_fill(x, N, &rng);
    memset(x + N, 0, (T - 1) * sizeof *x);
    test_reference(x, N + T - 1, 1, taps, T, 1, ref);
    gfir_config_init(&cfg);
    cfg.backend = GFIR_BACKEND_CPU;
    assert_int_equal(gfir_plan_create(&plan, taps, T, &cfg), GFIR_OK);
    assert_int_equal(gfir_plan_execute(plan, x, y, N), GFIR_OK);
    assert_int_equal(gfir_plan_flush(plan, y + N, T - 1), GFIR_OK);
    gfir_plan_destroy(plan);
    assert_true(test_rel_l2(y, ref, N + T - 1) < TOLERANCE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chunkings),  cmocka_unit_test(test_channels),
        cmocka_unit_test(test_block_splitting), cmocka_unit_test(test_threaded),
        cmocka_unit_test(test_reset),      cmocka_unit_test(test_flush_tail),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
