/*
 * channels_test.c - the channel limit (gfir.h's GFIR_MAX_CHANNELS): a plan
 * of 1024 channels, one tap set each, and one of 1024 inputs routed to 1024
 * outputs in another order, filter random signals in odd chunks on every CPU
 * kernel as the float64 reference does; 1025 channels (in or out) are
 * refused before anything is allocated.
 */
#include "gfir.h"
#include "test_util.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#define CHANNELS 1024u
#define NTAPS 7
#define FRAMES 211
/* float sums of 7 products of values in [-1, 1) (FFT: a few rounding
 * passes more) lie within 1e-6 of double's; 1e-5 leaves room and still
 * catches a wrong channel, whose error is of order 1 */
#define TOLERANCE 1e-5

static const size_t chunks[] = {1, 7, 97, 13, 64, 29};

/* out[i][o] through the plan, the signal fed in the chunks above, cycled. */
static void run_chunked(gfir_plan *plan, const float *x, float *y, unsigned in_ch,
                        unsigned out_ch)
{
    size_t done = 0;
    for (size_t k = 0; done < FRAMES; k++) {
        size_t n = chunks[k % (sizeof chunks / sizeof *chunks)];
        if (n > FRAMES - done)
            n = FRAMES - done;
        assert_int_equal(gfir_plan_execute(plan, x + done * in_ch, y + done * out_ch, n),
                         GFIR_OK);
        done += n;
    }
}

static void per_channel_taps(void **state)
{
    (void)state;
    const gfir_kernel kernels[] = {GFIR_KERNEL_GOLD, GFIR_KERNEL_DIRECT, GFIR_KERNEL_FFT};
    uint64_t rng = 0x1024c4a7;
    float *x = malloc(sizeof *x * FRAMES * CHANNELS), *h = malloc(sizeof *h * NTAPS * CHANNELS);
    float *y = malloc(sizeof *y * FRAMES * CHANNELS);
    double *ref = malloc(sizeof *ref * FRAMES * CHANNELS);
    assert_true(x && h && y && ref);
    test_fill(x, (size_t)FRAMES * CHANNELS, &rng);
    test_fill(h, (size_t)NTAPS * CHANNELS, &rng);
    test_reference(x, FRAMES, CHANNELS, h, NTAPS, CHANNELS, ref);
    for (size_t k = 0; k < sizeof kernels / sizeof *kernels; k++) {
        gfir_config cfg;
        gfir_plan *plan = NULL;
        gfir_config_init(&cfg);
        cfg.channels = cfg.filter_channels = CHANNELS;
        cfg.backend = GFIR_BACKEND_CPU;
        cfg.kernel = kernels[k];
        cfg.threads = 2;
        cfg.max_block_frames = 64;
        assert_int_equal(gfir_plan_create(&plan, h, NTAPS, &cfg), GFIR_OK);
        assert_int_equal(gfir_plan_channels(plan), CHANNELS);
        run_chunked(plan, x, y, CHANNELS, CHANNELS);
        const double err = test_rel_l2(y, ref, (size_t)FRAMES * CHANNELS);
        print_message("%s: rel. L2 %.3g\n", gfir_kernel_name(kernels[k]), err);
        assert_true(err < TOLERANCE);
        gfir_plan_destroy(plan);
    }
    free(x), free(h), free(y), free(ref);
}

/* Input c into output (c * 389) mod 1024 (389 is odd, so a permutation),
 * through tap set c mod 3 with a gain; a routed plan past 256 outputs. */
static void routed_permutation(void **state)
{
    (void)state;
    uint64_t rng = 0x40e7;
    float *x = malloc(sizeof *x * FRAMES * CHANNELS), h[3 * NTAPS];
    float *y = malloc(sizeof *y * FRAMES * CHANNELS);
    double *ref = malloc(sizeof *ref * FRAMES * CHANNELS);
    gfir_path *paths = malloc(sizeof *paths * CHANNELS);
    assert_true(x && y && ref && paths);
    test_fill(x, (size_t)FRAMES * CHANNELS, &rng);
    test_fill(h, 3 * NTAPS, &rng);
    for (unsigned c = 0; c < CHANNELS; c++) {
        paths[c] = (gfir_path){c, (c * 389u) % CHANNELS, c % 3, 0.25f + (float)(c % 5)};
        for (size_t i = 0; i < FRAMES; i++)
            ref[i * CHANNELS + paths[c].output] =
                paths[c].gain * test_reference_at(x, CHANNELS, h + (c % 3) * NTAPS, NTAPS, 1,
                                                  c, i);
    }
    gfir_config cfg;
    gfir_plan *plan = NULL;
    gfir_config_init(&cfg);
    cfg.channels = cfg.out_channels = CHANNELS;
    cfg.filter_channels = 3;
    cfg.paths = paths;
    cfg.npaths = CHANNELS;
    cfg.backend = GFIR_BACKEND_CPU;
    cfg.threads = 1;
    cfg.max_block_frames = 50;
    assert_int_equal(gfir_plan_create(&plan, h, NTAPS, &cfg), GFIR_OK);
    run_chunked(plan, x, y, CHANNELS, CHANNELS);
    assert_true(test_rel_l2(y, ref, (size_t)FRAMES * CHANNELS) < TOLERANCE);
    gfir_plan_destroy(plan);
    free(x), free(y), free(ref), free(paths);
}

static void refused_past_1024(void **state)
{
    (void)state;
    float h[NTAPS] = {0.5f, -0.25f, 0.125f, 1, 0, 0, 0};
    gfir_path path = {0, 1024, 0, 1.0f};
    gfir_config cfg;
    gfir_plan *plan = NULL;
    assert_int_equal(GFIR_MAX_CHANNELS, 1024);
    gfir_config_init(&cfg);
    cfg.channels = 1025;
    cfg.backend = GFIR_BACKEND_CPU;
    assert_int_equal(gfir_plan_create(&plan, h, NTAPS, &cfg), GFIR_ERR_CHANNELS);
    assert_null(plan);
    assert_non_null(strstr(gfir_plan_error_detail(NULL), "1 to 1024"));
    cfg.channels = 2;
    cfg.out_channels = 1025;
    cfg.paths = &path;
    cfg.npaths = 1;
    assert_int_equal(gfir_plan_create(&plan, h, NTAPS, &cfg), GFIR_ERR_CHANNELS);
    cfg.out_channels = 1024; /* output 1024 is one past the last */
    assert_int_equal(gfir_plan_create(&plan, h, NTAPS, &cfg), GFIR_ERR_CHANNELS);
    path.output = 1023;
    assert_int_equal(gfir_plan_create(&plan, h, NTAPS, &cfg), GFIR_OK);
    gfir_plan_destroy(plan);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(per_channel_taps),
        cmocka_unit_test(routed_permutation),
        cmocka_unit_test(refused_past_1024),
    };
    setenv("GFIR_FFTW_PLANNER", "estimate", 1);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
