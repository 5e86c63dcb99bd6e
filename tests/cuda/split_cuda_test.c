/*
 * split_cuda_test.c - plans split over several GPUs (gfir_config.devices)
 * against the float64 reference: many channels with long filters at small
 * calls (the delay-line engine, which launches on every device before it
 * waits for any), a routed matrix with unreached outputs, calls in odd
 * sizes, flush and reset. Over devices {0, 0} (a device may be listed
 * twice), so the split runs on any GPU machine; `split_cuda_test --two`
 * over {0, 1}, skipped where one device is visible; `--quick` (with or
 * without --two) a smaller form of each case, for the sanitizers. Exit 77
 * (skipped) where no GPU is usable.
 *
 * Tolerance: relative L2 1e-5, as the CUDA streaming tests: float sums of
 * a few thousand products through FFT partitions (about 1e-6 relative),
 * while a misrouted channel or a lost frame gives an error of order 1.
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

#define TOLERANCE 1e-5

static int devices[2];
static int quick;   /* --quick: fewer channels, shorter filters and signals */

static const size_t chunks[] = {64, 1, 7, 61, 64, 13, 64, 64, 33};

typedef struct split_case {
    const char *name;
    unsigned inputs, outputs, sets;
    size_t ntaps, frames, block;
    size_t npaths;
    const gfir_path *paths;     /* NULL: channel c through set c into output c */
} split_case;

static void reference(const split_case *sc, const float *x, const float *h, double *y)
{
    const size_t np = sc->paths ? sc->npaths : sc->inputs;
    memset(y, 0, sc->frames * sc->outputs * sizeof *y);
    for (size_t p = 0; p < np; p++) {
        const gfir_path q = sc->paths ? sc->paths[p]
                                      : (gfir_path){(unsigned)p, (unsigned)p, (unsigned)p, 1.0f};
        for (size_t i = 0; i < sc->frames; i++)
            y[i * sc->outputs + q.output] +=
                q.gain * test_reference_at(x, sc->inputs, h + q.taps * sc->ntaps, sc->ntaps, 1,
                                           q.input, i);
    }
}

/* The signal in the chunks above, then its last 200 frames again after a
 * reset (as a fresh start), each half against the reference. */
static void run_case(const split_case *sc)
{
    const size_t n_in = sc->frames * sc->inputs, n_out = sc->frames * sc->outputs;
    float *x = malloc(n_in * sizeof *x), *h = malloc(sc->sets * sc->ntaps * sizeof *h);
    float *y = malloc(n_out * sizeof *y);
    double *ref = malloc(n_out * sizeof *ref);
    uint64_t rng = 0x5b117 + sc->inputs;
    gfir_config cfg;
    gfir_plan *plan = NULL;
    assert_true(x && h && y && ref);
    test_fill(x, n_in, &rng);
    test_fill(h, sc->sets * sc->ntaps, &rng);
    reference(sc, x, h, ref);
    gfir_config_init(&cfg);
    cfg.backend = GFIR_BACKEND_CUDA;
    cfg.channels = sc->inputs;
    cfg.out_channels = sc->paths ? sc->outputs : 0;
    cfg.filter_channels = sc->sets;
    cfg.paths = sc->paths;
    cfg.npaths = sc->paths ? sc->npaths : 0;
    cfg.max_block_frames = sc->block;
    cfg.devices = devices;
    cfg.ndevices = 2;
    const gfir_status st = gfir_plan_create(&plan, h, sc->ntaps, &cfg);
    if (st != GFIR_OK)
        print_error("%s: %s\n", sc->name, gfir_plan_error_detail(NULL));
    assert_int_equal(st, GFIR_OK);
    assert_int_equal(gfir_plan_backend(plan), GFIR_BACKEND_CUDA);
    assert_int_equal(gfir_plan_latency(plan), 0);
    for (int round = 0; round < 2; round++) {
        memset(y, 0xff, n_out * sizeof *y); /* NaN: every output must be written */
        for (size_t done = 0, k = (size_t)round; done < sc->frames; k++) {
            size_t n = chunks[k % (sizeof chunks / sizeof *chunks)];
            n = n < sc->frames - done ? n : sc->frames - done;
            assert_int_equal(gfir_plan_execute(plan, x + done * sc->inputs,
                                               y + done * sc->outputs, n), GFIR_OK);
            done += n;
        }
        const double err = test_rel_l2(y, ref, n_out);
        print_message("%s on devices %d and %d, kernel %s, round %d: rel. L2 %.3g\n", sc->name,
                      devices[0], devices[1], gfir_kernel_name(gfir_plan_kernel(plan)), round,
                      err);
        assert_true(err < TOLERANCE);
        assert_int_equal(gfir_plan_reset(plan), GFIR_OK);
    }
    /* the tail after the signal, as silence gives it */
    assert_int_equal(gfir_plan_execute(plan, x, y, sc->frames), GFIR_OK);
    assert_int_equal(gfir_plan_flush(plan, y, 50), GFIR_OK);
    gfir_plan_destroy(plan);
    free(x), free(h), free(y), free(ref);
}

static void many_channels_long_filters(void **state)
{
    (void)state;
    const split_case sc = {"192 channels x 3001 taps", 192, 192, 192, 3001, 1500, 64, 0, NULL};
    const split_case small = {"40 channels x 1001 taps", 40, 40, 40, 1001, 500, 64, 0, NULL};
    run_case(quick ? &small : &sc);
}

static void routed_matrix(void **state)
{
    (void)state;
    enum { INPUTS = 24, OUTPUTS = 40, NPATHS = 300 };
    static gfir_path paths[NPATHS];
    uint64_t rng = 99;
    for (size_t p = 0; p < NPATHS; p++) /* outputs 35 to 39 get no path */
        paths[p] = (gfir_path){(unsigned)(test_uniform(&rng) * INPUTS),
                               (unsigned)(test_uniform(&rng) * (OUTPUTS - 5)),
                               (unsigned)(test_uniform(&rng) * 5),
                               (float)(2.0 * test_uniform(&rng) - 1.0)};
    const split_case sc = {"24 -> 40 matrix x 777 taps", INPUTS, OUTPUTS, 5, 777,
                           quick ? 400 : 1200, 128, NPATHS, paths};
    run_case(&sc);
}

/* Whole blocks, as a live caller's periods: the delay line replays its
 * graph on each device. */
static void whole_periods(void **state)
{
    (void)state;
    const split_case sc = {"130 channels x 20000 taps, 64-frame calls", 130, 130, 130, 20000,
                           1024, 64, 0, NULL};
    const split_case small = {"18 channels x 5000 taps, 64-frame calls", 18, 18, 18, 5000, 512,
                              64, 0, NULL};
    run_case(quick ? &small : &sc);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(many_channels_long_filters),
        cmocka_unit_test(routed_matrix),
        cmocka_unit_test(whole_periods),
    };
    int two = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--two") && !two)
            two = 1;
        else if (!strcmp(argv[i], "--quick") && !quick)
            quick = 1;
        else {
            fprintf(stderr, "usage: split_cuda_test [--two] [--quick]\n");
            return 2;
        }
    }
    const int n = gfir_backend_devices(GFIR_BACKEND_CUDA);
    if (n < 1) {
        printf("no usable CUDA device: skipped\n");
        return 77;
    }
    if (n < 2 && two) {
        printf("--two: one CUDA device visible: skipped\n");
        return 77;
    }
    devices[0] = 0;
    devices[1] = two ? 1 : 0;
    return cmocka_run_group_tests(tests, NULL, NULL);
}
