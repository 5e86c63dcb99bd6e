/*
 * abi_test.c - gfir_config across versions. A program compiled against an
 * older, smaller gfir_config (here: version 0.1's fields behind struct_size,
 * before max_latency_frames existed) must get a working plan with defaults
 * for what it lacks, and gfir_config_init must not write past its struct. A
 * program compiled against a newer, larger one must be served when the fields
 * this library does not know are zero, and refused when they are not.
 */
#include "gfir.h"
#include "test_util.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

/* gfir.h's struct as it stood before max_latency_frames. */
typedef struct old_config {
    size_t struct_size;
    unsigned channels;
    unsigned filter_channels;
    size_t max_block_frames;
    gfir_backend backend;
    gfir_kernel kernel;
    unsigned threads;
    int device;
} old_config;

/* The struct and what lies after it in the caller's memory. */
typedef struct guarded_old {
    old_config cfg;
    unsigned char guard[64];
} guarded_old;

/* A future struct: today's, then a field this library does not know. */
typedef struct new_config {
    gfir_config now;
    size_t future_field;
} new_config;

static const float taps[5] = {0.5f, -0.25f, 0.125f, 0.75f, -0.5f};

/* Filters 64 random frames; the exact convolution, since latency must be 0. */
static void check_plan_works(const gfir_config *cfg, unsigned channels)
{
    enum { FRAMES = 64 };
    float x[FRAMES * 4], y[FRAMES * 4];
    double ref[FRAMES * 4];
    uint64_t rng = 42;
    gfir_plan *plan = NULL;
    test_fill(x, FRAMES * channels, &rng);
    test_reference(x, FRAMES, channels, taps, 5, 1, ref);
    assert_int_equal(gfir_plan_create(&plan, taps, 5, cfg), GFIR_OK);
    assert_int_equal(gfir_plan_latency(plan), 0);
    assert_int_equal(gfir_plan_channels(plan), channels);
    assert_int_equal(gfir_plan_execute(plan, x, y, FRAMES), GFIR_OK);
    assert_true(test_rel_l2(y, ref, FRAMES * channels) < 1e-6);
    gfir_plan_destroy(plan);
}

static void older_struct_gets_defaults(void **state)
{
    guarded_old g;
    (void)state;
    memset(&g, 0xA5, sizeof g);
    gfir_config_init_size((gfir_config *)&g.cfg, sizeof g.cfg);
    for (size_t i = 0; i < sizeof g.guard; i++)
        assert_int_equal(g.guard[i], 0xA5); /* nothing written past the old struct */
    assert_int_equal(g.cfg.struct_size, sizeof g.cfg);
    assert_int_equal(g.cfg.channels, 1);
    assert_int_equal(g.cfg.kernel, GFIR_KERNEL_AUTO);
    g.cfg.channels = 3;
    /* the guard bytes where max_latency_frames lies in today's struct are not
     * read: a budget of 0xA5A5... would let the FFT kernel take a latency */
    g.cfg.kernel = GFIR_KERNEL_FFT;
    g.cfg.backend = GFIR_BACKEND_CPU;
    check_plan_works((const gfir_config *)&g.cfg, 3);
}

static void newer_struct_with_zero_extras_is_served(void **state)
{
    new_config n;
    (void)state;
    memset(&n, 0xA5, sizeof n);
    gfir_config_init_size(&n.now, sizeof n);
    assert_int_equal(n.now.struct_size, sizeof n);
    assert_int_equal(n.future_field, 0); /* init zeroes what it does not know */
    n.now.channels = 2;
    check_plan_works(&n.now, 2);
}

static void newer_struct_asking_for_more_is_refused(void **state)
{
    new_config n;
    gfir_plan *plan = (gfir_plan *)&n; /* must come back NULL */
    (void)state;
    gfir_config_init_size(&n.now, sizeof n);
    n.future_field = 7;
    assert_int_equal(gfir_plan_create(&plan, taps, 5, &n.now), GFIR_ERR_ARG);
    assert_null(plan);
    assert_non_null(strstr(gfir_plan_error_detail(NULL), "newer gfir.h"));
}

/* A newer header's field in either of today's reserved places (before
 * paths, after ndevices) is refused too: padding would have let it through
 * unseen. */
static void reserved_field_set_is_refused(void **state)
{
    (void)state;
    for (int which = 0; which < 2; which++) {
        gfir_config cfg;
        gfir_plan *plan = NULL;
        gfir_config_init(&cfg);
        assert_int_equal(cfg.reserved, 0);
        assert_int_equal(cfg.reserved2, 0);
        *(which ? &cfg.reserved2 : &cfg.reserved) = 1;
        assert_int_equal(gfir_plan_create(&plan, taps, 5, &cfg), GFIR_ERR_ARG);
        assert_null(plan);
        assert_non_null(strstr(gfir_plan_error_detail(NULL), "newer gfir.h"));
    }
}

/* A program built before devices existed: its struct ends at npaths, and
 * whatever lies after it is not read as a device list. */
static void struct_before_devices_gets_one_device(void **state)
{
    union {
        gfir_config cfg;
        unsigned char bytes[sizeof(gfir_config) + 64];
    } u;
    (void)state;
    memset(&u, 0xA5, sizeof u);
    gfir_config_init_size(&u.cfg, offsetof(gfir_config, devices));
    assert_int_equal(u.bytes[offsetof(gfir_config, devices)], 0xA5);
    u.cfg.channels = 2;
    u.cfg.backend = GFIR_BACKEND_CPU;
    check_plan_works(&u.cfg, 2);
}

static void uninitialised_struct_is_refused(void **state)
{
    gfir_config cfg;
    gfir_plan *plan = NULL;
    (void)state;
    memset(&cfg, 0, sizeof cfg); /* no gfir_config_init: struct_size 0 */
    cfg.channels = 1;
    cfg.filter_channels = 1;
    assert_int_equal(gfir_plan_create(&plan, taps, 5, &cfg), GFIR_ERR_ARG);
    assert_null(plan);
    assert_non_null(strstr(gfir_plan_error_detail(NULL), "gfir_config_init"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(older_struct_gets_defaults),
        cmocka_unit_test(newer_struct_with_zero_extras_is_served),
        cmocka_unit_test(newer_struct_asking_for_more_is_refused),
        cmocka_unit_test(reserved_field_set_is_refused),
        cmocka_unit_test(struct_before_devices_gets_one_device),
        cmocka_unit_test(uninitialised_struct_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
