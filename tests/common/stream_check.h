/*
 * stream_check.h - one streaming case: a random signal fed to a plan in
 * chunks of a given pattern, compared with a float64 convolution of the whole
 * signal. Shared by the CPU and CUDA streaming tests (include after cmocka.h).
 */
#ifndef GF_TEST_STREAM_CHECK_H
#define GF_TEST_STREAM_CHECK_H

#include "gfir.h"
#include "test_util.h"

#include <stdlib.h>
#include <string.h>

#define TOLERANCE 1e-5

enum chunking { WHOLE, ONES, TWOS, SEVENS, PRIME997, RANDOM };
static const char *const chunk_names[] = {"whole", "1", "2", "7", "997", "random"};

typedef struct stream_case {
    gfir_backend backend;
    gfir_kernel kernel;
    unsigned channels;
    unsigned filter_channels;
    size_t ntaps;
    size_t frames;
    size_t max_block;
    enum chunking chunking;
    int in_place;
} stream_case;

static inline size_t next_chunk(enum chunking how, size_t left, uint64_t *rng)
{
    size_t n;
    switch (how) {
    case WHOLE: n = left; break;
    case ONES: n = 1; break;
    case TWOS: n = 2; break;
    case SEVENS: n = 7; break;
    case PRIME997: n = 997; break;
    default: n = (size_t)(test_uniform(rng) * 3000.0); break; /* 0 included */
    }
    return n < left ? n : left;
}

/* Runs one case; returns the relative L2 error against the float64 reference. */
static inline double run_case(const stream_case *tc)
{
    uint64_t rng = 0x9E3779B97F4A7C15ULL ^ (tc->ntaps * 131 + tc->channels * 7 + tc->chunking);
    const size_t nsamp = tc->frames * tc->channels;
    float *taps = malloc(tc->ntaps * tc->filter_channels * sizeof *taps);
    float *x = malloc(nsamp * sizeof *x);
    float *y = malloc(nsamp * sizeof *y);
    double *ref = malloc(nsamp * sizeof *ref);
    gfir_plan *plan = NULL;
    gfir_config cfg;
    assert_non_null(taps);
    assert_non_null(x);
    assert_non_null(y);
    assert_non_null(ref);

    test_fill(taps, tc->ntaps * tc->filter_channels, &rng);
    test_fill(x, nsamp, &rng);
    test_reference(x, tc->frames, tc->channels, taps, tc->ntaps, tc->filter_channels, ref);

    gfir_config_init(&cfg);
    cfg.channels = tc->channels;
    cfg.filter_channels = tc->filter_channels;
    cfg.backend = tc->backend;
    cfg.kernel = tc->kernel;
    cfg.max_block_frames = tc->max_block;
    assert_int_equal(gfir_plan_create(&plan, taps, tc->ntaps, &cfg), GFIR_OK);

    if (tc->in_place)
        memcpy(y, x, nsamp * sizeof *y);
    else
        for (size_t i = 0; i < nsamp; i++)
            y[i] = NAN; /* poison: every output must be written */

    for (size_t done = 0; done < tc->frames;) {
        size_t n = next_chunk(tc->chunking, tc->frames - done, &rng);
        const float *in = (tc->in_place ? y : x) + done * tc->channels;
        assert_int_equal(gfir_plan_execute(plan, in, y + done * tc->channels, n), GFIR_OK);
        done += n;
    }
    gfir_plan_destroy(plan);

    double err = test_rel_l2(y, ref, nsamp);
    free(taps);
    free(x);
    free(y);
    free(ref);
    return err;
}

static inline void check(const stream_case *tc)
{
    double err = run_case(tc);
    if (!(err < TOLERANCE)) {
        fail_msg("%s/%s ch=%u fch=%u ntaps=%zu frames=%zu block=%zu chunks=%s inplace=%d: "
                 "rel L2 %.3g >= %.0e",
                 gfir_backend_name(tc->backend), gfir_kernel_name(tc->kernel), tc->channels,
                 tc->filter_channels, tc->ntaps, tc->frames, tc->max_block,
                 chunk_names[tc->chunking], tc->in_place, err, TOLERANCE);
    }
}

/* Flush yields the tail of the full convolution; reset forgets the history,
 * so a second pass gives the first pass's output bit for bit. */
static inline void check_reset_and_flush(gfir_backend backend, gfir_kernel kernel, size_t n,
                                         size_t ntaps, uint64_t seed)
{
    const size_t total = n + ntaps - 1;
    float *taps = malloc(ntaps * sizeof *taps), *x = calloc(total, sizeof *x);
    float *y1 = malloc(total * sizeof *y1), *y2 = malloc(total * sizeof *y2);
    double *ref = malloc(total * sizeof *ref);
    gfir_plan *plan;
    gfir_config cfg;
    assert_true(taps && x && y1 && y2 && ref);
    test_fill(taps, ntaps, &seed);
    test_fill(x, n, &seed); /* then zeros: the tail's input */
    test_reference(x, total, 1, taps, ntaps, 1, ref);
    gfir_config_init(&cfg);
    cfg.backend = backend;
    cfg.kernel = kernel;
    assert_int_equal(gfir_plan_create(&plan, taps, ntaps, &cfg), GFIR_OK);
    assert_int_equal(gfir_plan_backend(plan), backend);
    assert_int_equal(gfir_plan_execute(plan, x, y1, n), GFIR_OK);
    assert_int_equal(gfir_plan_flush(plan, y1 + n, ntaps - 1), GFIR_OK);
    assert_true(test_rel_l2(y1, ref, total) < TOLERANCE);
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

/* Big calls pipelined over the CUDA backend's sub-blocks and two streams, as
 * one call, in place in random chunks, and mono in 997-frame chunks. */
static inline void check_pipelined(gfir_kernel kernel, int quick)
{
    stream_case tc = {GFIR_BACKEND_CUDA, kernel, 6, 1, 255, 1 << 19, 1 << 18, WHOLE, 0};
    if (quick)
        tc.frames = 1 << 17, tc.max_block = 1 << 17;
    check(&tc);
    tc.chunking = RANDOM;
    tc.in_place = 1;
    tc.filter_channels = 6;
    check(&tc);
    tc.chunking = PRIME997;
    tc.channels = tc.filter_channels = 1;
    check(&tc);
}

#endif
