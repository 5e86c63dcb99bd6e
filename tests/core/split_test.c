/*
 * split_test.c - plans split over several devices (core/split.h), run here
 * over CPU sub-plans through the internal entry: many channels, routed
 * matrices with unreached outputs, odd chunkings, in place, flush and
 * reset, each against the float64 reference; how the outputs are divided;
 * and what a split plan refuses, through the public API too.
 */
#include "core/split.h"
#include "gfir.h"
#include "test_util.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

/* float sums of at most 40 products of values in [-1, 1), times gains
 * below 2, against double: errors near 1e-7 relative; 1e-5 leaves room and
 * still catches a misrouted channel or a lost frame (error of order 1) */
#define TOLERANCE 1e-5

static const size_t chunks[] = {1, 7, 97, 13, 64, 29, 211};

typedef struct shape {
    unsigned inputs, outputs, sets;
    size_t ntaps, npaths;
    gfir_path *paths;           /* NULL: channel c through set c (or 0) into output c */
} shape;

/* The whole signal of frames frames through the shape, in double. */
static void reference(const shape *sh, const float *x, size_t frames, const float *h, double *y)
{
    memset(y, 0, frames * sh->outputs * sizeof *y);
    const size_t np = sh->paths ? sh->npaths : sh->inputs;
    for (size_t p = 0; p < np; p++) {
        const gfir_path q = sh->paths ? sh->paths[p]
                                      : (gfir_path){(unsigned)p, (unsigned)p,
                                                    sh->sets == 1 ? 0 : (unsigned)p, 1.0f};
        for (size_t i = 0; i < frames; i++)
            y[i * sh->outputs + q.output] +=
                q.gain * test_reference_at(x, sh->inputs, h + q.taps * sh->ntaps, sh->ntaps, 1,
                                           q.input, i);
    }
}

static gfir_config whole(const shape *sh, size_t block)
{
    gfir_config cfg;
    gfir_config_init(&cfg);
    cfg.channels = sh->inputs;
    cfg.out_channels = sh->paths ? sh->outputs : 0;
    cfg.filter_channels = sh->sets;
    cfg.paths = sh->paths;
    cfg.npaths = sh->paths ? sh->npaths : 0;
    cfg.max_block_frames = block;
    return cfg;
}

/* CPU sub-plans, one kernel each from the list, cycled. */
static void cpu_parts(gfir_config *parts, unsigned n)
{
    const gfir_kernel kernels[] = {GFIR_KERNEL_DIRECT, GFIR_KERNEL_FFT, GFIR_KERNEL_GOLD,
                                   GFIR_KERNEL_AUTO};
    for (unsigned k = 0; k < n; k++) {
        gfir_config_init(&parts[k]);
        parts[k].backend = GFIR_BACKEND_CPU;
        parts[k].kernel = kernels[k % 4];
        parts[k].threads = 1 + k % 2;
    }
}

/* Runs frames frames through a split plan of nparts CPU parts in the odd
 * chunks (from chunk `first` on), in place when asked, and compares. */
static void check(const shape *sh, unsigned nparts, size_t block, size_t frames, size_t first,
                  int in_place, uint64_t seed)
{
    float *x = malloc(frames * sh->inputs * sizeof *x);
    float *h = malloc(sh->sets * sh->ntaps * sizeof *h);
    float *y = malloc(frames * sh->outputs * sizeof *y);
    double *ref = malloc(frames * sh->outputs * sizeof *ref);
    gfir_config parts[8], cfg = whole(sh, block);
    gfir_plan *plan = NULL;
    assert_true(x && h && y && ref && nparts <= 8);
    test_fill(x, frames * sh->inputs, &seed);
    test_fill(h, sh->sets * sh->ntaps, &seed);
    reference(sh, x, frames, h, ref);
    memset(y, 0xff, frames * sh->outputs * sizeof *y); /* NaN: every output must be written */
    cpu_parts(parts, nparts);
    assert_int_equal(gf_split_create(&plan, h, sh->ntaps, &cfg, parts, nparts), GFIR_OK);
    assert_int_equal(gfir_plan_channels(plan), sh->inputs);
    assert_int_equal(gfir_plan_out_channels(plan), sh->outputs);
    assert_int_equal(gfir_plan_latency(plan), 0);
    assert_int_equal(gfir_plan_backend(plan), GFIR_BACKEND_CPU);
    for (size_t done = 0, k = first; done < frames; k++) {
        size_t n = chunks[k % (sizeof chunks / sizeof *chunks)];
        n = n < frames - done ? n : frames - done;
        if (in_place) {
            memcpy(y + done * sh->outputs, x + done * sh->inputs, n * sh->inputs * sizeof *y);
            assert_int_equal(gfir_plan_execute(plan, y + done * sh->outputs,
                                               y + done * sh->outputs, n), GFIR_OK);
        } else {
            assert_int_equal(gfir_plan_execute(plan, x + done * sh->inputs,
                                               y + done * sh->outputs, n), GFIR_OK);
        }
        done += n;
    }
    const double err = test_rel_l2(y, ref, frames * sh->outputs);
    print_message("%u parts, %u -> %u: rel. L2 %.3g\n", nparts, sh->inputs, sh->outputs, err);
    assert_true(err < TOLERANCE);
    gfir_plan_destroy(plan);
    free(x), free(h), free(y), free(ref);
}

static void many_channels(void **state)
{
    (void)state;
    const shape per_channel = {300, 300, 300, 37, 0, NULL};
    const shape shared = {513, 513, 1, 5, 0, NULL};
    check(&per_channel, 3, 64, 501, 0, 0, 11);
    check(&per_channel, 2, 97, 333, 3, 1, 12); /* in place */
    check(&shared, 4, 50, 260, 1, 0, 13);
    check(&shared, 1, 50, 123, 2, 0, 14);      /* one part is a plain plan */
}

/* A random matrix: 37 inputs, 41 outputs of which the last 9 and every
 * seventh get no path, 5 tap sets, an input used many times; fewer outputs
 * than parts; whole ranges that no path reaches. */
static void routed_matrix(void **state)
{
    (void)state;
    enum { INPUTS = 37, OUTPUTS = 41, NPATHS = 400 };
    gfir_path paths[NPATHS];
    uint64_t rng = 77;
    for (size_t p = 0; p < NPATHS; p++) {
        unsigned o;
        do
            o = (unsigned)(test_uniform(&rng) * (OUTPUTS - 9));
        while (o % 7 == 3);
        paths[p] = (gfir_path){(unsigned)(test_uniform(&rng) * INPUTS), o,
                               (unsigned)(test_uniform(&rng) * 5),
                               (float)(2.0 * test_uniform(&rng) - 1.0)};
    }
    const shape sh = {INPUTS, OUTPUTS, 5, 40, NPATHS, paths};
    for (unsigned nparts = 1; nparts <= 6; nparts++)
        check(&sh, nparts, 61, 389, nparts, 0, 100 + nparts);
    /* more parts than outputs: some get none */
    const shape two = {3, 2, 5, 40, 6, paths};
    for (size_t p = 0; p < 6; p++)
        paths[p] = (gfir_path){(unsigned)(p % 3), (unsigned)(p % 2), (unsigned)(p % 5),
                               0.5f + (float)p};
    check(&two, 5, 16, 100, 0, 0, 200);
    /* a heavy output before unreached ones: the ranges after it have no
     * path, and are silence without a sub-plan */
    const shape heavy = {4, 5, 5, 40, 11, paths};
    for (size_t p = 0; p < 11; p++)
        paths[p] = (gfir_path){(unsigned)(p % 4), p == 0 ? 0u : 1u, (unsigned)(p % 5),
                               1.5f - 0.25f * (float)p};
    check(&heavy, 3, 16, 100, 0, 0, 300);
}

/* flush pulls out the tail as silence would, and reset starts afresh. */
static void flush_and_reset(void **state)
{
    (void)state;
    enum { CH = 9, NTAPS = 23, FRAMES = 60, TAIL = 40 };
    const shape sh = {CH, CH, CH, NTAPS, 0, NULL};
    float x[(FRAMES + TAIL) * CH] = {0}, h[CH * NTAPS], y[(FRAMES + TAIL) * CH];
    double ref[(FRAMES + TAIL) * CH];
    gfir_config parts[3], cfg = whole(&sh, 32);
    gfir_plan *plan = NULL;
    uint64_t rng = 5;
    test_fill(x, FRAMES * CH, &rng); /* the tail's inputs stay zero */
    test_fill(h, CH * NTAPS, &rng);
    reference(&sh, x, FRAMES + TAIL, h, ref);
    cpu_parts(parts, 3);
    assert_int_equal(gf_split_create(&plan, h, NTAPS, &cfg, parts, 3), GFIR_OK);
    for (int round = 0; round < 2; round++) {
        assert_int_equal(gfir_plan_execute(plan, x, y, FRAMES), GFIR_OK);
        assert_int_equal(gfir_plan_flush(plan, y + FRAMES * CH, TAIL), GFIR_OK);
        assert_true(test_rel_l2(y, ref, (FRAMES + TAIL) * CH) < TOLERANCE);
        assert_int_equal(gfir_plan_reset(plan), GFIR_OK);
    }
    gfir_plan_destroy(plan);
}

/* Outputs are divided by work: 512 channels over two parts are 256 each
 * (a failing second part names its range), and a matrix whose first
 * output takes most paths gives that output a part alone. */
static void division(void **state)
{
    (void)state;
    float h[4] = {1, 0.5f, 0.25f, 0.125f};
    gfir_config parts[2], cfg;
    gfir_plan *plan = NULL;
    gfir_config_init(&cfg);
    cfg.channels = 512;
    cpu_parts(parts, 2);
    parts[1].kernel = GFIR_KERNEL_CONSTANT; /* CUDA's only: the CPU refuses it */
    assert_int_equal(gf_split_create(&plan, h, 4, &cfg, parts, 2), GFIR_ERR_UNSUPPORTED);
    assert_null(plan);
    assert_non_null(strstr(gfir_plan_error_detail(NULL), "outputs 256 to 511"));

    gfir_path paths[12];
    for (unsigned p = 0; p < 12; p++)
        paths[p] = (gfir_path){p % 4, p < 9 ? 0 : p - 8, 0, 1.0f};
    cfg.channels = 4;
    cfg.out_channels = 4;
    cfg.paths = paths;
    cfg.npaths = 12;
    assert_int_equal(gf_split_create(&plan, h, 4, &cfg, parts, 2), GFIR_ERR_UNSUPPORTED);
    assert_non_null(strstr(gfir_plan_error_detail(NULL), "outputs 1 to 3"));
}

static void refusals(void **state)
{
    (void)state;
    float h[3] = {1, -0.5f, 0.25f}, x[8] = {1, 2, 3, 4, 5, 6, 7, 8}, y[8];
    gfir_config parts[2], cfg;
    gfir_plan *plan = NULL;
    gfir_filter *f = (gfir_filter *)h;
    gfir_config_init(&cfg);
    cfg.channels = 2;
    cpu_parts(parts, 2);
    assert_int_equal(gf_split_create(&plan, h, 3, &cfg, parts, 2), GFIR_OK);
    assert_int_equal(gfir_filter_create(&f, plan, h, 3), GFIR_ERR_UNSUPPORTED);
    assert_null(f);
    assert_non_null(strstr(gfir_plan_error_detail(NULL), "crossfade"));
    assert_int_equal(gfir_plan_execute_device(plan, x, 2, 1, y, 2, 1, 4, NULL),
                     GFIR_ERR_UNSUPPORTED);
    assert_non_null(strstr(gfir_plan_error_detail(plan), "device-memory"));
    assert_int_equal(gfir_plan_set_taps_device(plan, h, NULL), GFIR_ERR_UNSUPPORTED);
    gfir_plan_destroy(plan);

    /* latencies that differ would misalign the outputs */
    float longer[4096];
    uint64_t rng = 3;
    test_fill(longer, 4096, &rng);
    parts[0].kernel = GFIR_KERNEL_FFT;
    parts[0].max_latency_frames = GFIR_LATENCY_ANY;
    parts[1].kernel = GFIR_KERNEL_DIRECT;
    cfg.max_block_frames = 256;
    assert_int_equal(gf_split_create(&plan, longer, 4096, &cfg, parts, 2), GFIR_ERR_UNSUPPORTED);
    assert_non_null(strstr(gfir_plan_error_detail(NULL), "latencies"));
}

/* The public fields: checked, one device is a plain plan, several need CUDA. */
static void public_devices(void **state)
{
    (void)state;
    float h[3] = {1, -0.5f, 0.25f};
    int devices[GFIR_MAX_DEVICES + 1] = {0};
    gfir_config cfg;
    gfir_plan *plan = NULL;
    gfir_config_init(&cfg);
    assert_null(cfg.devices);
    assert_int_equal(cfg.ndevices, 0);
    cfg.channels = 4;
    cfg.backend = GFIR_BACKEND_CPU;
    cfg.ndevices = 2;
    assert_int_equal(gfir_plan_create(&plan, h, 3, &cfg), GFIR_ERR_NULL);
    cfg.devices = devices;
    cfg.ndevices = 0;
    assert_int_equal(gfir_plan_create(&plan, h, 3, &cfg), GFIR_ERR_ARG);
    cfg.ndevices = GFIR_MAX_DEVICES + 1;
    assert_int_equal(gfir_plan_create(&plan, h, 3, &cfg), GFIR_ERR_ARG);
    devices[1] = -1;
    cfg.ndevices = 2;
    assert_int_equal(gfir_plan_create(&plan, h, 3, &cfg), GFIR_ERR_ARG);
    assert_non_null(strstr(gfir_plan_error_detail(NULL), "devices[1] is -1"));
    devices[1] = 0;
    assert_int_equal(gfir_plan_create(&plan, h, 3, &cfg), GFIR_ERR_ARG); /* CPU, 2 devices */
    assert_non_null(strstr(gfir_plan_error_detail(NULL), "backend is cpu"));
    cfg.ndevices = 1; /* the host's one device: a plain plan */
    assert_int_equal(gfir_plan_create(&plan, h, 3, &cfg), GFIR_OK);
    gfir_plan_destroy(plan);
    if (!gfir_backend_available(GFIR_BACKEND_CUDA)) {
        cfg.ndevices = 2;
        cfg.backend = GFIR_BACKEND_AUTO;
        assert_int_equal(gfir_plan_create(&plan, h, 3, &cfg), GFIR_ERR_UNAVAILABLE);
        assert_null(plan);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(many_channels),  cmocka_unit_test(routed_matrix),
        cmocka_unit_test(flush_and_reset), cmocka_unit_test(division),
        cmocka_unit_test(refusals),       cmocka_unit_test(public_devices),
    };
    setenv("GFIR_FFTW_PLANNER", "estimate", 1);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
