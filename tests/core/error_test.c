/*
 * error_test.c - every documented error path: a bad argument gives its
 * documented negative gfir_status, *plan is NULL after a failed create, the
 * failure is explained by gfir_plan_error_detail(NULL), and nothing crashes.
 * Also the parts of the API that cannot fail: names, sentences, the version.
 * The design functions' errors are checked with their designs, in design_test.c.
 */
#include "gfir.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#define NTAPS 5

/* A pointer that is not NULL and not a plan: create must overwrite it. */
static gfir_plan *const NOT_A_PLAN = (gfir_plan *)&NOT_A_PLAN;

static const float good_taps[2 * NTAPS] = {0.1f, 0.2f, 0.4f, 0.2f, 0.1f,
                                           0.5f, -0.25f, 0.125f, 0.0f, 1.0f};

static gfir_config cpu_config(unsigned channels, unsigned filter_channels)
{
    gfir_config cfg;
    gfir_config_init(&cfg);
    cfg.channels = channels;
    cfg.filter_channels = filter_channels;
    cfg.backend = GFIR_BACKEND_CPU;
    return cfg;
}

/*
 * A create that must fail with want: *plan must come back NULL, and the
 * thread's detail must say something. what names the case in a failure.
 */
static void expect_create_fails(const char *what, gfir_status want, const float *taps,
                                size_t ntaps, const gfir_config *cfg)
{
    gfir_plan *plan = NOT_A_PLAN;
    gfir_status got = gfir_plan_create(&plan, taps, ntaps, cfg);
    const char *detail = gfir_plan_error_detail(NULL);
    if (got != want)
        fail_msg("%s: gfir_plan_create gave %d (%s), want %d (%s)", what, got,
                 gfir_strerror(got), want, gfir_strerror(want));
    if (plan != NULL)
        fail_msg("%s: *plan was not set to NULL on failure", what);
    if (detail == NULL || detail[0] == '\0')
        fail_msg("%s: gfir_plan_error_detail(NULL) is empty after a failed create", what);
}

static void test_create_null_pointers(void **state)
{
    (void)state;
    gfir_config cfg = cpu_config(1, 1);
    gfir_plan *plan = NOT_A_PLAN;

    assert_int_equal(gfir_plan_create(NULL, good_taps, NTAPS, &cfg), GFIR_ERR_NULL);
    assert_string_not_equal(gfir_plan_error_detail(NULL), "");
    expect_create_fails("taps NULL", GFIR_ERR_NULL, NULL, NTAPS, &cfg);
    expect_create_fails("cfg NULL", GFIR_ERR_NULL, good_taps, NTAPS, NULL);
    assert_int_equal(gfir_plan_create(&plan, NULL, NTAPS, NULL), GFIR_ERR_NULL);
    assert_null(plan);
}

static void test_create_channels(void **state)
{
    (void)state;
    gfir_config cfg = cpu_config(0, 1);
    expect_create_fails("channels 0", GFIR_ERR_CHANNELS, good_taps, NTAPS, &cfg);
    cfg = cpu_config(GFIR_MAX_CHANNELS + 1, 1);
    expect_create_fails("channels MAX+1", GFIR_ERR_CHANNELS, good_taps, NTAPS, &cfg);
    cfg = cpu_config(~0u, 1);
    expect_create_fails("channels UINT_MAX", GFIR_ERR_CHANNELS, good_taps, NTAPS, &cfg);

    /* The edge itself is legal: the limit is inclusive. */
    gfir_plan *plan = NULL;
    cfg = cpu_config(GFIR_MAX_CHANNELS, 1);
    assert_int_equal(gfir_plan_create(&plan, good_taps, NTAPS, &cfg), GFIR_OK);
    assert_non_null(plan);
    gfir_plan_destroy(plan);
}

static void test_create_filter_channels(void **state)
{
    (void)state;
    gfir_config cfg = cpu_config(2, 0);
    expect_create_fails("filter_channels 0", GFIR_ERR_CHANNELS, good_taps, NTAPS, &cfg);
    cfg = cpu_config(3, 2);
    expect_create_fails("filter_channels 2 of 3", GFIR_ERR_CHANNELS, good_taps, NTAPS, &cfg);
    cfg = cpu_config(1, 2);
    expect_create_fails("filter_channels 2 of 1", GFIR_ERR_CHANNELS, good_taps, NTAPS, &cfg);
    cfg = cpu_config(2, 3);
    expect_create_fails("filter_channels 3 of 2", GFIR_ERR_CHANNELS, good_taps, NTAPS, &cfg);
}

static void test_create_tap_count(void **state)
{
    (void)state;
    gfir_config cfg = cpu_config(1, 1);
    expect_create_fails("ntaps 0", GFIR_ERR_TAPS, good_taps, 0, &cfg);
    /* The count is refused before any tap is read, so a short array is safe. */
    expect_create_fails("ntaps MAX+1", GFIR_ERR_TAPS, good_taps, GFIR_MAX_TAPS + 1, &cfg);
    expect_create_fails("ntaps SIZE_MAX", GFIR_ERR_TAPS, good_taps, (size_t)-1, &cfg);
}

/* A filter whose taps times channels (or paths) pass GFIR_MAX_PLAN_TAPS is
 * refused with its own status before a tap is read or a byte allocated (so
 * a short array is safe), and the detail names the count; one tap fewer per
 * path fits the count (checked without making that plan: it would take GBs). */
static void test_create_too_large(void **state)
{
    (void)state;
    const size_t per_channel = GFIR_MAX_PLAN_TAPS / GFIR_MAX_CHANNELS;
    gfir_config cfg = cpu_config(GFIR_MAX_CHANNELS, 1);
    expect_create_fails("ntaps x 1024 channels", GFIR_ERR_TOO_LARGE, good_taps, per_channel + 1,
                        &cfg);
    assert_non_null(strstr(gfir_plan_error_detail(NULL), "1048577 taps x 1024 channels"));

    static gfir_path paths[16384];
    for (unsigned i = 0; i < 16384; i++)
        paths[i] = (gfir_path){i % 2, i % 3, 0, 0.5f};
    cfg = cpu_config(2, 1);
    cfg.out_channels = 3;
    cfg.paths = paths;
    cfg.npaths = 16384;
    expect_create_fails("ntaps x 16384 paths", GFIR_ERR_TOO_LARGE, good_taps,
                        GFIR_MAX_PLAN_TAPS / 16384 + 1, &cfg);
    assert_non_null(strstr(gfir_plan_error_detail(NULL), "65537 taps x 16384 paths"));
    /* the same count on one channel is a plain over-long tap set */
    cfg = cpu_config(1, 1);
    expect_create_fails("ntaps on one channel", GFIR_ERR_TAPS, good_taps, GFIR_MAX_TAPS + 1,
                        &cfg);
}

/* A non-finite value at the first, a middle and the last tap of each filter
 * channel, for shared and per-channel taps: the whole set must be checked. */
static void test_create_nonfinite_taps(void **state)
{
    (void)state;
    const float bad[] = {NAN, INFINITY, -INFINITY};
    const size_t where[] = {0, NTAPS / 2, NTAPS - 1};
    char what[96];

    for (unsigned fch = 1; fch <= 2; fch++) {
        gfir_config cfg = cpu_config(2, fch);
        for (unsigned f = 0; f < fch; f++) {
            for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
                for (size_t w = 0; w < sizeof where / sizeof where[0]; w++) {
                    float taps[2 * NTAPS];
                    memcpy(taps, good_taps, sizeof taps);
                    taps[f * NTAPS + where[w]] = bad[b];
                    snprintf(what, sizeof what, "tap %zu of filter %u/%u = %g", where[w], f,
                             fch, (double)bad[b]);
                    expect_create_fails(what, GFIR_ERR_TAPS, taps, NTAPS, &cfg);
                }
            }
        }
    }
}

static void test_create_unknown_enums(void **state)
{
    (void)state;
    const int bad_values[] = {-1, 3, 8, 99, 0x7fffffff};
    for (size_t i = 0; i < sizeof bad_values / sizeof bad_values[0]; i++) {
        char what[64];
        gfir_config cfg = cpu_config(1, 1);
        cfg.backend = (gfir_backend)bad_values[i];
        snprintf(what, sizeof what, "backend %d", bad_values[i]);
        expect_create_fails(what, GFIR_ERR_ARG, good_taps, NTAPS, &cfg);

        if (bad_values[i] == 3)
            continue; /* 3 is a kernel (basic) */
        cfg = cpu_config(1, 1);
        cfg.kernel = (gfir_kernel)bad_values[i];
        snprintf(what, sizeof what, "kernel %d", bad_values[i]);
        expect_create_fails(what, GFIR_ERR_ARG, good_taps, NTAPS, &cfg);
    }
}

/* The CPU backend has gold, direct (and possibly fft), never the CUDA family. */
static void test_create_kernel_cpu_lacks(void **state)
{
    (void)state;
    const gfir_kernel cuda_only[] = {GFIR_KERNEL_BASIC, GFIR_KERNEL_CONSTANT, GFIR_KERNEL_TILED,
                                     GFIR_KERNEL_CACHED};
    for (size_t i = 0; i < sizeof cuda_only / sizeof cuda_only[0]; i++) {
        gfir_config cfg = cpu_config(2, 1);
        cfg.kernel = cuda_only[i];
        expect_create_fails(gfir_kernel_name(cuda_only[i]), GFIR_ERR_UNSUPPORTED, good_taps,
                            NTAPS, &cfg);
    }
}

static void test_create_max_block_frames(void **state)
{
    (void)state;
    gfir_config cfg = cpu_config(2, 1);
    cfg.max_block_frames = (size_t)-1;
    expect_create_fails("max_block_frames SIZE_MAX", GFIR_ERR_ARG, good_taps, NTAPS, &cfg);
}

/* Asking for CUDA by name on a machine (or build) without it is UNAVAILABLE;
 * where a GPU is usable the same request must succeed instead. */
static void test_create_cuda_availability(void **state)
{
    (void)state;
    gfir_config cfg = cpu_config(2, 1);
    cfg.backend = GFIR_BACKEND_CUDA;
    if (gfir_backend_available(GFIR_BACKEND_CUDA)) {
        gfir_plan *plan = NULL;
        assert_int_equal(gfir_plan_create(&plan, good_taps, NTAPS, &cfg), GFIR_OK);
        assert_int_equal(gfir_plan_backend(plan), GFIR_BACKEND_CUDA);
        gfir_plan_destroy(plan);
    } else {
        expect_create_fails("cuda without a GPU", GFIR_ERR_UNAVAILABLE, good_taps, NTAPS, &cfg);
        /* AUTO never picks an absent backend, even for blocks worth a GPU. */
        gfir_plan *plan = NULL;
        cfg.backend = GFIR_BACKEND_AUTO;
        cfg.max_block_frames = 1 << 16;
        assert_int_equal(gfir_plan_create(&plan, good_taps, NTAPS, &cfg), GFIR_OK);
        assert_int_equal(gfir_plan_backend(plan), GFIR_BACKEND_CPU);
        gfir_plan_destroy(plan);
    }
    assert_int_equal(gfir_backend_available(GFIR_BACKEND_CPU), 1);
    assert_int_equal(gfir_backend_available((gfir_backend)42), 0);
    assert_int_equal(gfir_backend_devices(GFIR_BACKEND_CPU), 1);
    assert_int_equal(gfir_backend_devices((gfir_backend)42), 0);
    assert_int_equal(gfir_backend_devices(GFIR_BACKEND_AUTO), 0);
    /* CUDA: devices exactly where it is available */
    assert_int_equal(gfir_backend_devices(GFIR_BACKEND_CUDA) > 0,
                     gfir_backend_available(GFIR_BACKEND_CUDA));
}

/* A failure must not be remembered into a later success, nor the reverse:
 * details follow the last create on this thread. */
static void test_detail_follows_last_create(void **state)
{
    (void)state;
    gfir_config cfg = cpu_config(0, 1);
    gfir_plan *plan = NULL;
    char first[256];

    expect_create_fails("channels 0", GFIR_ERR_CHANNELS, good_taps, NTAPS, &cfg);
    snprintf(first, sizeof first, "%s", gfir_plan_error_detail(NULL));
    cfg = cpu_config(1, 1);
    expect_create_fails("ntaps 0", GFIR_ERR_TAPS, good_taps, 0, &cfg);
    assert_string_not_equal(first, gfir_plan_error_detail(NULL));

    assert_int_equal(gfir_plan_create(&plan, good_taps, NTAPS, &cfg), GFIR_OK);
    assert_string_equal(gfir_plan_error_detail(plan), "");
    gfir_plan_destroy(plan);
}

static void test_execute_errors(void **state)
{
    (void)state;
    gfir_config cfg = cpu_config(2, 2);
    gfir_plan *plan = NULL;
    float in[2 * 3] = {1, 0, 0, 1, 0, 0}, out[2 * 3];

    assert_int_equal(gfir_plan_create(&plan, good_taps, NTAPS, &cfg), GFIR_OK);
    assert_int_equal(gfir_plan_execute(NULL, in, out, 3), GFIR_ERR_NULL);
    assert_int_equal(gfir_plan_execute(plan, NULL, out, 3), GFIR_ERR_NULL);
    assert_int_equal(gfir_plan_execute(plan, in, NULL, 3), GFIR_ERR_NULL);
    assert_int_equal(gfir_plan_flush(NULL, out, 3), GFIR_ERR_NULL);
    assert_int_equal(gfir_plan_flush(plan, NULL, 3), GFIR_ERR_NULL);
    assert_int_equal(gfir_plan_reset(NULL), GFIR_ERR_NULL);

    /* Zero frames is a legal call that changes nothing: the impulse that
     * follows still meets an empty history. */
    assert_int_equal(gfir_plan_execute(plan, in, out, 0), GFIR_OK);
    assert_int_equal(gfir_plan_flush(plan, out, 0), GFIR_OK);
    assert_int_equal(gfir_plan_execute(plan, in, out, 3), GFIR_OK);
    /* channel 0: impulse at frame 0 -> h0; channel 1: impulse at frame 1 -> h1 delayed */
    const float want[2 * 3] = {good_taps[0], 0.0f,
                               good_taps[1], good_taps[NTAPS + 0],
                               good_taps[2], good_taps[NTAPS + 1]};
    assert_memory_equal(out, want, sizeof want);
    gfir_plan_destroy(plan);
}

/* Device calls need a plan on the CUDA backend: a CPU plan (every plan of a
 * build without CUDA) refuses them, saying why, before touching a pointer. */
static void test_device_calls_on_the_cpu(void **state)
{
    (void)state;
    gfir_config cfg = cpu_config(2, 1);
    gfir_plan *plan = NULL;
    float buf[64];
    assert_int_equal(gfir_plan_execute_device(NULL, buf, 2, 1, buf + 32, 2, 1, 8, NULL),
                     GFIR_ERR_NULL);
    assert_int_equal(gfir_plan_flush_device(NULL, buf, 2, 1, 8, NULL), GFIR_ERR_NULL);
    assert_int_equal(gfir_plan_set_taps_device(NULL, buf, NULL), GFIR_ERR_NULL);
    assert_int_equal(gfir_plan_convolve_device(NULL, buf, 1, 8, 8, buf + 32, 1, 16, 0, 12, NULL),
                     GFIR_ERR_NULL);
    assert_int_equal(gfir_plan_create(&plan, good_taps, NTAPS, &cfg), GFIR_OK);
    assert_int_equal(gfir_plan_execute_device(plan, buf, 2, 1, buf + 32, 2, 1, 8, NULL),
                     GFIR_ERR_UNAVAILABLE);
    assert_non_null(strstr(gfir_plan_error_detail(plan), "device memory"));
    assert_int_equal(gfir_plan_flush_device(plan, buf, 2, 1, 8, NULL), GFIR_ERR_UNAVAILABLE);
    assert_int_equal(gfir_plan_set_taps_device(plan, buf, NULL), GFIR_ERR_UNAVAILABLE);
    assert_int_equal(gfir_plan_convolve_device(plan, buf, 1, 8, 8, buf + 32, 1, 16, 0, 12, NULL),
                     GFIR_ERR_UNAVAILABLE);
    /* the plan is unharmed */
    float in[2] = {1.0f, 2.0f}, out[2];
    assert_int_equal(gfir_plan_execute(plan, in, out, 1), GFIR_OK);
    assert_true(out[0] == good_taps[0] && out[1] == 2.0f * good_taps[0]);
    gfir_plan_destroy(plan);
}

/* The accessors and destroy accept NULL and give neutral values. */
static void test_null_plan_accessors(void **state)
{
    (void)state;
    gfir_plan_destroy(NULL);
    gfir_config_init(NULL);
    assert_int_equal(gfir_plan_latency(NULL), 0);
    assert_int_equal(gfir_plan_ntaps(NULL), 0);
    assert_int_equal(gfir_plan_channels(NULL), 0);
    assert_int_equal(gfir_plan_backend(NULL), GFIR_BACKEND_AUTO);
    assert_int_equal(gfir_plan_kernel(NULL), GFIR_KERNEL_AUTO);
    assert_non_null(gfir_plan_error_detail(NULL));
}

static void test_config_defaults(void **state)
{
    (void)state;
    gfir_config cfg;
    memset(&cfg, 0xA5, sizeof cfg);
    gfir_config_init(&cfg);
    assert_int_equal(cfg.channels, 1);
    assert_int_equal(cfg.filter_channels, 1);
    assert_int_equal(cfg.max_block_frames, 0);
    assert_int_equal(cfg.backend, GFIR_BACKEND_AUTO);
    assert_int_equal(cfg.kernel, GFIR_KERNEL_AUTO);
    assert_int_equal(cfg.threads, 0);
    assert_int_equal(cfg.device, 0);
}

/* Every code has its own non-empty sentence, and unknown values share one
 * that no real code uses. */
static void test_strerror(void **state)
{
    (void)state;
    const gfir_status codes[] = {GFIR_OK,         GFIR_ERR_NULL,        GFIR_ERR_CHANNELS,
                                 GFIR_ERR_TAPS,   GFIR_ERR_ARG,         GFIR_ERR_NOMEM,
                                 GFIR_ERR_UNAVAILABLE, GFIR_ERR_UNSUPPORTED, GFIR_ERR_DEVICE,
                                 GFIR_ERR_BUSY,   GFIR_ERR_TOO_LARGE};
    const size_t n = sizeof codes / sizeof codes[0];
    const char *unknown = gfir_strerror((gfir_status)-1000);

    assert_non_null(unknown);
    assert_string_equal(unknown, gfir_strerror((gfir_status)1));
    assert_string_equal(unknown, gfir_strerror((gfir_status)(GFIR_ERR_TOO_LARGE - 1)));
    for (size_t i = 0; i < n; i++) {
        const char *s = gfir_strerror(codes[i]);
        assert_non_null(s);
        assert_true(s[0] != '\0');
        assert_string_not_equal(s, unknown);
        if (codes[i] != GFIR_OK)
            assert_true(codes[i] < 0);
        for (size_t j = 0; j < i; j++)
            assert_string_not_equal(s, gfir_strerror(codes[j]));
    }
}

static void test_backend_names(void **state)
{
    (void)state;
    const gfir_backend all[] = {GFIR_BACKEND_AUTO, GFIR_BACKEND_CPU, GFIR_BACKEND_CUDA};
    gfir_backend b;

    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        const char *name = gfir_backend_name(all[i]);
        assert_non_null(name);
        b = (gfir_backend)-1;
        assert_int_equal(gfir_backend_from_name(name, &b), GFIR_OK);
        assert_int_equal(b, all[i]);
    }
    assert_string_equal(gfir_backend_name(GFIR_BACKEND_CPU), "cpu");
    assert_null(gfir_backend_name((gfir_backend)-1));
    assert_null(gfir_backend_name((gfir_backend)3));

    b = GFIR_BACKEND_CUDA;
    assert_int_equal(gfir_backend_from_name("gpu", &b), GFIR_ERR_ARG);
    assert_int_equal(gfir_backend_from_name("", &b), GFIR_ERR_ARG);
    assert_int_equal(b, GFIR_BACKEND_CUDA); /* left alone */
    assert_int_equal(gfir_backend_from_name(NULL, &b), GFIR_ERR_NULL);
    assert_int_equal(gfir_backend_from_name("cpu", NULL), GFIR_ERR_NULL);
}

static void test_kernel_names(void **state)
{
    (void)state;
    const gfir_kernel all[] = {GFIR_KERNEL_AUTO,     GFIR_KERNEL_GOLD,  GFIR_KERNEL_DIRECT,
                               GFIR_KERNEL_BASIC,    GFIR_KERNEL_CONSTANT, GFIR_KERNEL_TILED,
                               GFIR_KERNEL_CACHED,   GFIR_KERNEL_FFT};
    const size_t n = sizeof all / sizeof all[0];
    gfir_kernel k;

    for (size_t i = 0; i < n; i++) {
        const char *name = gfir_kernel_name(all[i]);
        assert_non_null(name);
        for (size_t j = 0; j < i; j++)
            assert_string_not_equal(name, gfir_kernel_name(all[j]));
        k = (gfir_kernel)-1;
        assert_int_equal(gfir_kernel_from_name(name, &k), GFIR_OK);
        assert_int_equal(k, all[i]);
    }
    assert_string_equal(gfir_kernel_name(GFIR_KERNEL_TILED), "tiled");
    assert_null(gfir_kernel_name((gfir_kernel)-1));
    assert_null(gfir_kernel_name((gfir_kernel)n));

    k = GFIR_KERNEL_FFT;
    assert_int_equal(gfir_kernel_from_name("directx", &k), GFIR_ERR_ARG);
    assert_int_equal(gfir_kernel_from_name("", &k), GFIR_ERR_ARG);
    assert_int_equal(k, GFIR_KERNEL_FFT); /* left alone */
    assert_int_equal(gfir_kernel_from_name(NULL, &k), GFIR_ERR_NULL);
    assert_int_equal(gfir_kernel_from_name("gold", NULL), GFIR_ERR_NULL);
}

/* The macros, the run-time string and the build's project version agree. */
static void test_version(void **state)
{
    (void)state;
    char from_macros[32];
    snprintf(from_macros, sizeof from_macros, "%d.%d.%d", GFIR_VERSION_MAJOR,
             GFIR_VERSION_MINOR, GFIR_VERSION_PATCH);
    assert_non_null(gfir_version_string());
    assert_string_equal(gfir_version_string(), from_macros);
    assert_string_equal(gfir_version_string(), GFIR_PROJECT_VERSION);
    assert_int_equal(GFIR_VERSION_NUMBER, GFIR_VERSION_MAJOR * 10000 +
                                              GFIR_VERSION_MINOR * 100 + GFIR_VERSION_PATCH);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_create_null_pointers),
        cmocka_unit_test(test_create_channels),
        cmocka_unit_test(test_create_filter_channels),
        cmocka_unit_test(test_create_tap_count),
        cmocka_unit_test(test_create_too_large),
        cmocka_unit_test(test_create_nonfinite_taps),
        cmocka_unit_test(test_create_unknown_enums),
        cmocka_unit_test(test_create_kernel_cpu_lacks),
        cmocka_unit_test(test_create_max_block_frames),
        cmocka_unit_test(test_create_cuda_availability),
        cmocka_unit_test(test_detail_follows_last_create),
        cmocka_unit_test(test_execute_errors),
        cmocka_unit_test(test_device_calls_on_the_cpu),
        cmocka_unit_test(test_null_plan_accessors),
        cmocka_unit_test(test_config_defaults),
        cmocka_unit_test(test_strerror),
        cmocka_unit_test(test_backend_names),
        cmocka_unit_test(test_kernel_names),
        cmocka_unit_test(test_version),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
