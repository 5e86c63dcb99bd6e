/*
 * routing_test.c - routed plans (gfir_path) against a float64 reference:
 * mono to stereo, true stereo, and 3 inputs to 5 outputs with random paths
 * and gains (a shared tap set, an input used twice, an output no path
 * reaches), in every chunking, in place where the channel counts allow, on
 * every CPU kernel and, where a GPU is usable, on CUDA's; then the refusals.
 */
#include "gfir.h"
#include "test_util.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#define TOLERANCE 1e-5

typedef struct route_case {
    const char *name;
    unsigned inputs, outputs, sets;
    size_t npaths;
    gfir_path paths[16];
} route_case;

/* y_o[i] = sum over paths p into o of gain_p * sum_k h_{set_p}[k] x_{in_p}[i - k]. */
static void reference(const route_case *rc, const float *x, size_t frames, const float *taps,
                      size_t ntaps, double *y)
{
    memset(y, 0, frames * rc->outputs * sizeof *y);
    for (size_t p = 0; p < rc->npaths; p++) {
        const gfir_path *q = &rc->paths[p];
        const float *h = taps + (size_t)q->taps * ntaps;
        for (size_t i = 0; i < frames; i++) {
            double acc = 0.0;
            for (size_t k = 0; k <= i && k < ntaps; k++)
                acc += (double)h[k] * (double)x[(i - k) * rc->inputs + q->input];
            y[i * rc->outputs + q->output] += (double)q->gain * acc;
        }
    }
}

static gfir_plan *make(const route_case *rc, const float *taps, size_t ntaps, gfir_backend b,
                       gfir_kernel k, size_t budget, size_t block)
{
    gfir_plan *plan = NULL;
    gfir_config cfg;
    gfir_config_init(&cfg);
    cfg.channels = rc->inputs;
    cfg.out_channels = rc->outputs;
    cfg.filter_channels = rc->sets;
    cfg.paths = rc->paths;
    cfg.npaths = rc->npaths;
    cfg.backend = b;
    cfg.kernel = k;
    cfg.max_latency_frames = budget;
    cfg.max_block_frames = block;
    cfg.threads = 1;
    assert_int_equal(gfir_plan_create(&plan, taps, ntaps, &cfg), GFIR_OK);
    assert_int_equal(gfir_plan_channels(plan), rc->inputs);
    assert_int_equal(gfir_plan_out_channels(plan), rc->outputs);
    return plan;
}

/* Streams x through the plan in chunks (0: random sizes), then the latency's
 * worth of flush, and compares with the reference. */
static void run(const route_case *rc, size_t ntaps, gfir_backend b, gfir_kernel k,
                size_t budget, size_t chunk, int in_place, uint64_t seed)
{
    const size_t frames = 3000;
    float *taps = malloc(rc->sets * ntaps * sizeof *taps);
    float *x = malloc(frames * rc->inputs * sizeof *x);
    double *ref = malloc(frames * rc->outputs * sizeof *ref);
    float *y;
    gfir_plan *plan;
    size_t latency, total;
    assert_true(taps && x && ref);
    test_fill(taps, rc->sets * ntaps, &seed);
    test_fill(x, frames * rc->inputs, &seed);
    reference(rc, x, frames, taps, ntaps, ref);
    plan = make(rc, taps, ntaps, b, k, budget, 512);
    latency = gfir_plan_latency(plan);
    total = frames + latency;
    y = malloc(total * (rc->inputs > rc->outputs ? rc->inputs : rc->outputs) * sizeof *y);
    assert_non_null(y);
    for (size_t i = 0; i < total * rc->outputs; i++)
        y[i] = NAN; /* every output must be written */
    if (in_place)
        memcpy(y, x, frames * rc->inputs * sizeof *x);
    for (size_t done = 0; done < frames;) {
        size_t n = chunk ? chunk : 1 + (size_t)(test_uniform(&seed) * 700.0);
        n = n < frames - done ? n : frames - done;
        const float *in = (in_place ? y : x) + done * rc->inputs;
        assert_int_equal(gfir_plan_execute(plan, in, y + done * rc->outputs, n), GFIR_OK);
        done += n;
    }
    if (latency)
        assert_int_equal(gfir_plan_flush(plan, y + frames * rc->outputs, latency), GFIR_OK);
    double err = test_rel_l2(y + latency * rc->outputs, ref, frames * rc->outputs);
    if (!(err < TOLERANCE))
        fail_msg("%s, %zu taps, %s/%s, budget %zu, chunks %zu%s: rel L2 %g", rc->name, ntaps,
                 gfir_backend_name(gfir_plan_backend(plan)),
                 gfir_kernel_name(gfir_plan_kernel(plan)), budget, chunk,
                 in_place ? ", in place" : "", err);
    gfir_plan_destroy(plan);
    free(taps);
    free(x);
    free(ref);
    free(y);
}

static const route_case mono_to_stereo = {
    "mono to stereo", 1, 2, 2, 2, {{0, 0, 0, 1.0f}, {0, 1, 1, 1.0f}}};
static const route_case true_stereo = {
    "true stereo", 2, 2, 4, 4,
    {{0, 0, 0, 1.0f}, {0, 1, 1, 1.0f}, {1, 0, 2, 1.0f}, {1, 1, 3, 1.0f}}};
/* Output 3 has no path; set 1 serves two paths; input 2 feeds three. */
static const route_case matrix = {
    "3 to 5", 3, 5, 4, 8,
    {{0, 0, 0, 0.5f}, {1, 0, 1, -0.25f}, {2, 1, 1, 2.0f}, {2, 2, 2, 0.7f}, {0, 2, 3, 1.5f},
     {1, 4, 0, -1.0f}, {2, 4, 3, 0.1f}, {1, 1, 2, 0.3f}}};

static void every_layout_and_chunking(void **state)
{
    const route_case *cases[] = {&mono_to_stereo, &true_stereo, &matrix};
    static const size_t chunks[] = {3000, 1, 7, 997, 0};
    (void)state;
    for (size_t c = 0; c < 3; c++)
        for (size_t h = 0; h < sizeof chunks / sizeof chunks[0]; h++)
            run(cases[c], 33, GFIR_BACKEND_CPU, GFIR_KERNEL_DIRECT, 0, chunks[h], 0,
                c * 10 + h);
    run(&true_stereo, 33, GFIR_BACKEND_CPU, GFIR_KERNEL_DIRECT, 0, 0, 1, 99);
    run(&true_stereo, 1000, GFIR_BACKEND_AUTO, GFIR_KERNEL_AUTO, 0, 0, 1, 98);
}

static void every_cpu_kernel(void **state)
{
    static const size_t ntaps[] = {1, 33, 1000};
    (void)state;
    for (size_t t = 0; t < sizeof ntaps / sizeof ntaps[0]; t++) {
        run(&matrix, ntaps[t], GFIR_BACKEND_CPU, GFIR_KERNEL_GOLD, 0, 0, 0, t);
        run(&matrix, ntaps[t], GFIR_BACKEND_CPU, GFIR_KERNEL_DIRECT, 0, 0, 0, t + 1);
        run(&matrix, ntaps[t], GFIR_BACKEND_CPU, GFIR_KERNEL_FFT, GFIR_LATENCY_ANY, 0, 0,
            t + 2);
        run(&matrix, ntaps[t], GFIR_BACKEND_CPU, GFIR_KERNEL_FFT, 0, 0, 0, t + 3);
        run(&matrix, ntaps[t], GFIR_BACKEND_CPU, GFIR_KERNEL_AUTO, 0, 0, 0, t + 4);
    }
}

/* The CUDA backend's kernels, where a GPU is usable (the CUDA tests cover
 * it on the GPU machine; here it is absent and this does nothing). */
static void cuda_kernels_where_usable(void **state)
{
    static const gfir_kernel kernels[] = {GFIR_KERNEL_DIRECT, GFIR_KERNEL_FFT,
                                          GFIR_KERNEL_TILED};
    (void)state;
    if (!gfir_backend_available(GFIR_BACKEND_CUDA))
        return;
    for (size_t k = 0; k < sizeof kernels / sizeof kernels[0]; k++) {
        run(&matrix, 1000, GFIR_BACKEND_CUDA, kernels[k], 0, 0, 0, k);
        run(&mono_to_stereo, 255, GFIR_BACKEND_CUDA, kernels[k], 0, 997, 0, k + 7);
    }
}

static void refusals(void **state)
{
    float taps[8] = {1, 0.5f, 0.25f, 0.125f, 1, 0.5f, 0.25f, 0.125f};
    gfir_path paths[2] = {{0, 0, 0, 1.0f}, {0, 1, 1, 1.0f}};
    gfir_plan *plan = NULL;
    gfir_config cfg;
    float buf[64] = {0};
    (void)state;
    gfir_config_init(&cfg);
    cfg.channels = 1;
    cfg.out_channels = 2;
    cfg.filter_channels = 2;
    cfg.paths = paths;
    cfg.npaths = 2;
    paths[1].taps = 2; /* no tap set 2 */
    assert_int_equal(gfir_plan_create(&plan, taps, 4, &cfg), GFIR_ERR_CHANNELS);
    assert_null(plan);
    paths[1].taps = 1;
    paths[1].output = 2; /* no output 2 */
    assert_int_equal(gfir_plan_create(&plan, taps, 4, &cfg), GFIR_ERR_CHANNELS);
    paths[1].output = 1;
    paths[1].gain = NAN;
    assert_int_equal(gfir_plan_create(&plan, taps, 4, &cfg), GFIR_ERR_ARG);
    paths[1].gain = 1.0f;
    cfg.npaths = 0;
    assert_int_equal(gfir_plan_create(&plan, taps, 4, &cfg), GFIR_ERR_ARG);
    cfg.npaths = 2;
    /* in place needs equal channel counts */
    assert_int_equal(gfir_plan_create(&plan, taps, 4, &cfg), GFIR_OK);
    assert_int_equal(gfir_plan_execute(plan, buf, buf, 8), GFIR_ERR_ARG);
    assert_int_equal(gfir_plan_execute(plan, buf, buf + 16, 8), GFIR_OK);
    gfir_plan_destroy(plan);
    /* without paths, outputs are the inputs */
    cfg.paths = NULL;
    cfg.npaths = 0;
    cfg.filter_channels = 1;
    assert_int_equal(gfir_plan_create(&plan, taps, 4, &cfg), GFIR_ERR_CHANNELS);
    cfg.npaths = 3; /* paths NULL with a count */
    cfg.out_channels = 0;
    assert_int_equal(gfir_plan_create(&plan, taps, 4, &cfg), GFIR_ERR_NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_layout_and_chunking),
        cmocka_unit_test(every_cpu_kernel),
        cmocka_unit_test(cuda_kernels_where_usable),
        cmocka_unit_test(refusals),
    };
    setenv("GFIR_FFTW_PLANNER", "estimate", 1);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
