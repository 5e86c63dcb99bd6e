/*
 * cuda_test.c - every CUDA kernel against the CPU gold path, and the CUDA
 * streaming backend against the float64 reference. Exits 77 (skipped) when no
 * CUDA device is usable, so CI without a GPU never counts it as passed.
 *
 * Kernels: ntaps {1, 2, 3, 5, 31, 32, 33, 255, 256, 1023, 4097, 16383},
 * channels {1, 2, 6}, shared and per-channel taps, output lengths that are no
 * multiple of any block size, random data, outputs poisoned with NaN first.
 * Tolerance: relative L2 1e-5 up to 4097 taps (float32 sums of random-sign
 * terms; see streaming_test.c), 3e-5 at 16383 where sqrt(ntaps) * 2^-24 alone
 * is near 8e-6.
 *
 * `cuda_test --quick` runs a smaller set, for compute-sanitizer's memcheck;
 * `cuda_test --kernels` only the kernels, for racecheck (which is slow on the
 * many small launches of the streaming cases).
 */
#define _POSIX_C_SOURCE 200809L
#include "cpu/direct.h"
#include "kernels.h"

#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "stream_check.h"

static int quick;

typedef struct named_kernel {
    const char *name;
    cudaError_t (*launch)(const gf_conv_args *, cudaStream_t);
} named_kernel;

static const named_kernel kernels[] = {
    {"basic", gf_launch_basic}, {"constant", gf_launch_constant},
    {"tiled", gf_launch_tiled}, {"cached", gf_launch_cached},
    {"direct", gf_launch_direct},
};

#define CHECK_CUDA(call) assert_int_equal((call), cudaSuccess)

/* One shape through every kernel that can take it. */
static void kernels_case(size_t ntaps, unsigned channels, int shared, size_t n,
                         unsigned block_threads)
{
    uint64_t rng = 0xC0FFEEULL + ntaps * 1009 + channels * 17 + (unsigned)shared + n;
    const unsigned filters = shared ? 1 : channels;
    const size_t stride_taps = (ntaps + GF_TAP_STEP - 1) / GF_TAP_STEP * GF_TAP_STEP;
    const size_t x_stride = n + ntaps - 1 + 3; /* an odd pitch on purpose */
    float *h_hr = calloc(filters * stride_taps, sizeof(float));
    float *h_x = malloc(channels * x_stride * sizeof(float));
    float *h_y = malloc(channels * n * sizeof(float));
    float *h_gold = malloc(channels * n * sizeof(float));
    float *d_hr, *d_x, *d_y;
    assert_non_null(h_hr);
    assert_non_null(h_x);
    assert_non_null(h_y);
    assert_non_null(h_gold);

    for (unsigned f = 0; f < filters; f++)
        test_fill(h_hr + f * stride_taps, ntaps, &rng); /* the padding stays zero */
    test_fill(h_x, channels * x_stride, &rng);
    for (unsigned c = 0; c < channels; c++)
        gf_cpu_gold(h_x + c * x_stride, h_hr + (shared ? 0 : c) * stride_taps, ntaps,
                      h_gold + c * n, n);

    CHECK_CUDA(cudaMalloc((void **)&d_hr, filters * stride_taps * sizeof(float)));
    CHECK_CUDA(cudaMalloc((void **)&d_x, channels * x_stride * sizeof(float)));
    CHECK_CUDA(cudaMalloc((void **)&d_y, channels * n * sizeof(float)));
    CHECK_CUDA(cudaMemcpy(d_hr, h_hr, filters * stride_taps * sizeof(float),
                          cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(d_x, h_x, channels * x_stride * sizeof(float), cudaMemcpyHostToDevice));

    gf_conv_args a = {d_x, x_stride, d_hr, stride_taps, shared, ntaps, d_y, n, n, channels,
                        block_threads, 0, 0, 0};
    for (size_t k = 0; k < sizeof kernels / sizeof kernels[0]; k++) {
        if (kernels[k].launch == gf_launch_constant && !gf_constant_fits(ntaps, filters)) {
            assert_int_equal(kernels[k].launch(&a, 0), cudaErrorInvalidValue);
            continue;
        }
        CHECK_CUDA(cudaMemset(d_y, 0xff, channels * n * sizeof(float))); /* NaN poison */
        CHECK_CUDA(kernels[k].launch(&a, 0));
        CHECK_CUDA(cudaDeviceSynchronize());
        CHECK_CUDA(cudaMemcpy(h_y, d_y, channels * n * sizeof(float), cudaMemcpyDeviceToHost));
        double num = 0.0, den = 0.0;
        for (size_t i = 0; i < channels * n; i++) {
            double d = (double)h_y[i] - h_gold[i];
            num += d * d;
            den += (double)h_gold[i] * h_gold[i];
        }
        double err = sqrt(num / den), tol = ntaps <= 4097 ? 1e-5 : 3e-5;
        if (!(err < tol))
            fail_msg("kernel %s ntaps=%zu channels=%u shared=%d n=%zu threads=%u: rel L2 %.3g",
                     kernels[k].name, ntaps, channels, shared, n, block_threads, err);
        /* windows of a signal are ours alone: the textbook kernels refuse one */
        if (kernels[k].launch != gf_launch_direct) {
            gf_conv_args w = a;
            w.window = 1;
            w.avail = n + ntaps - 1;
            assert_int_equal(kernels[k].launch(&w, 0), cudaErrorInvalidValue);
        }
    }
    cudaFree(d_hr);
    cudaFree(d_x);
    cudaFree(d_y);
    free(h_hr);
    free(h_x);
    free(h_y);
    free(h_gold);
}

static void test_kernels_against_gold(void **state)
{
    (void)state;
    static const size_t taps[] = {1, 2, 3, 5, 31, 32, 33, 255, 256, 1023, 4097, 16383};
    static const unsigned chans[] = {1, 2, 6};
    const size_t ntap_cases = quick ? 9 : sizeof taps / sizeof taps[0];
    for (size_t t = 0; t < ntap_cases; t++)
        for (size_t c = 0; c < 3; c++)
            for (int shared = 0; shared < 2; shared++) {
                /* n: no multiple of 128, 256 or 2048; bigger when taps are few */
                size_t n = (taps[t] > 1023 ? 3001 : 9001) + 2048 * (shared + c);
                if (quick)
                    n = 2333;
                kernels_case(taps[t], chans[c], shared, n, 0);
            }
    /* the textbook block size and a tiny length */
    kernels_case(11, 2, 1, 1000, 128);
    kernels_case(33, 3, 0, 7, 128);
}

static void test_streaming_cuda(void **state)
{
    (void)state;
    static const gfir_kernel ks[] = {GFIR_KERNEL_DIRECT, GFIR_KERNEL_BASIC, GFIR_KERNEL_CONSTANT,
                                     GFIR_KERNEL_TILED, GFIR_KERNEL_CACHED};
    static const size_t taps[] = {1, 33, 255, 4097};
    for (size_t k = 0; k < sizeof ks / sizeof ks[0]; k++)
        for (size_t t = 0; t < sizeof taps / sizeof taps[0]; t++)
            for (int how = WHOLE; how <= RANDOM; how++) {
                if (quick && (how == ONES || taps[t] > 255))
                    continue;
                stream_case tc = {GFIR_BACKEND_CUDA, ks[k], 2, 2, taps[t], 2 * taps[t] + 3001,
                                  0, (enum chunking)how, how & 1};
                if (how == ONES)
                    tc.frames = taps[t] + 300;
                check(&tc);
            }
}

/* Big calls are pipelined over sub-blocks and two streams: same samples. */
static void test_pipelined(void **state)
{
    (void)state;
    check_pipelined(GFIR_KERNEL_DIRECT, quick);
}

/* Pinned caller buffers are copied by the device directly: same samples,
 * in place too, whole and in odd chunks. */
static void test_pinned_buffers(void **state)
{
    (void)state;
    enum { CH = 2, T = 129 };
    const size_t frames = quick ? 150001 : 600001;
    uint64_t rng = 1234;
    float taps[T], *x, *y;
    double *ref = malloc(frames * CH * sizeof *ref);
    assert_non_null(ref);
    assert_int_equal(cudaHostAlloc((void **)&x, frames * CH * sizeof(float), 0), cudaSuccess);
    assert_int_equal(cudaHostAlloc((void **)&y, frames * CH * sizeof(float), 0), cudaSuccess);
    test_fill(taps, T, &rng);
    test_fill(x, frames * CH, &rng);
    test_reference(x, frames, CH, taps, T, 1, ref);
    for (int in_place = 0; in_place < 2; in_place++) {
        gfir_plan *plan;
        gfir_config cfg;
        gfir_config_init(&cfg);
        cfg.channels = CH;
        cfg.backend = GFIR_BACKEND_CUDA;
        cfg.max_block_frames = 1 << 18; /* pipelined over sub-blocks */
        assert_int_equal(gfir_plan_create(&plan, taps, T, &cfg), GFIR_OK);
        float *out = in_place ? x : y;
        for (size_t i = 0; !in_place && i < frames * CH; i++)
            y[i] = NAN;
        for (size_t done = 0, n; done < frames; done += n) {
            n = in_place ? 99991 : frames - done; /* odd chunks, or one call */
            n = n < frames - done ? n : frames - done;
            assert_int_equal(gfir_plan_execute(plan, x + done * CH, out + done * CH, n), GFIR_OK);
        }
        gfir_plan_destroy(plan);
        double err = test_rel_l2(out, ref, frames * CH);
        if (!(err < TOLERANCE))
            fail_msg("pinned in_place=%d: rel L2 %.3g", in_place, err);
    }
    cudaFreeHost(x);
    cudaFreeHost(y);
    free(ref);
}

static void test_reset_and_flush(void **state)
{
    (void)state;
    check_reset_and_flush(GFIR_BACKEND_CUDA, GFIR_KERNEL_AUTO, 5000, 300, 99);
}

static void test_constant_limit(void **state)
{
    (void)state;
    static float taps[2 * 8193];
    gfir_plan *plan;
    gfir_config cfg;
    uint64_t rng = 5;
    test_fill(taps, 2 * 8193, &rng);
    gfir_config_init(&cfg);
    cfg.backend = GFIR_BACKEND_CUDA;
    cfg.kernel = GFIR_KERNEL_CONSTANT;
    cfg.channels = cfg.filter_channels = 2;
    assert_int_equal(gfir_plan_create(&plan, taps, 8193, &cfg), GFIR_ERR_UNSUPPORTED);
    assert_null(plan);
    assert_true(strlen(gfir_plan_error_detail(NULL)) > 0);
    assert_int_equal(gfir_plan_create(&plan, taps, 8192, &cfg), GFIR_OK);
    gfir_plan_destroy(plan);
}

/* One plan on the constant kernel, run by a thread of its own through many
 * calls; the worker only records, the test thread asserts. */
typedef struct constant_run {
    size_t ntaps, frames;
    unsigned channels, filter_channels;
    gfir_status status;
    double err;
} constant_run;

static void *constant_worker(void *arg)
{
    constant_run *r = arg;
    uint64_t rng = 0xC0457ULL + r->ntaps * 7 + r->channels;
    const size_t nsamp = r->frames * r->channels, block = 1024;
    float *taps = malloc(r->filter_channels * r->ntaps * sizeof *taps);
    float *x = malloc(nsamp * sizeof *x), *y = malloc(nsamp * sizeof *y);
    double *ref = malloc(nsamp * sizeof *ref);
    gfir_plan *plan = NULL;
    gfir_config cfg;
    r->status = GFIR_ERR_NOMEM;
    r->err = INFINITY;
    if (!taps || !x || !y || !ref)
        goto done;
    test_fill(taps, r->filter_channels * r->ntaps, &rng);
    test_fill(x, nsamp, &rng);
    test_reference(x, r->frames, r->channels, taps, r->ntaps, r->filter_channels, ref);
    gfir_config_init(&cfg);
    cfg.backend = GFIR_BACKEND_CUDA;
    cfg.kernel = GFIR_KERNEL_CONSTANT;
    cfg.channels = r->channels;
    cfg.filter_channels = r->filter_channels;
    cfg.max_block_frames = block;
    r->status = gfir_plan_create(&plan, taps, r->ntaps, &cfg);
    for (size_t done = 0; done < r->frames && r->status == GFIR_OK; done += block) {
        const size_t n = r->frames - done < block ? r->frames - done : block;
        r->status = gfir_plan_execute(plan, x + done * r->channels, y + done * r->channels, n);
    }
    gfir_plan_destroy(plan);
    if (r->status == GFIR_OK)
        r->err = test_rel_l2(y, ref, nsamp);
done:
    free(taps);
    free(x);
    free(y);
    free(ref);
    return NULL;
}

/* The device has one __constant__ bank for every plan: two plans on the
 * constant kernel, running at once from two threads, each with other taps,
 * must each see only their own. */
static void test_constant_plans_at_once(void **state)
{
    (void)state;
    const size_t frames = quick ? (size_t)1 << 15 : (size_t)1 << 17;
    constant_run runs[2] = {{511, frames, 2, 2, GFIR_OK, 0.0}, {1023, frames, 1, 1, GFIR_OK, 0.0}};
    pthread_t threads[2];
    for (int i = 0; i < 2; i++)
        assert_int_equal(pthread_create(&threads[i], NULL, constant_worker, &runs[i]), 0);
    for (int i = 0; i < 2; i++)
        assert_int_equal(pthread_join(threads[i], NULL), 0);
    for (int i = 0; i < 2; i++) {
        if (runs[i].status != GFIR_OK)
            fail_msg("constant plan %d: %s", i, gfir_strerror(runs[i].status));
        if (!(runs[i].err < TOLERANCE))
            fail_msg("constant plan %d (%zu taps) beside another: rel L2 %.3g", i,
                     runs[i].ntaps, runs[i].err);
    }
}

/* AUTO takes a backend that has the kernel asked for: gold is CPU-only even
 * for blocks CUDA would get, tiled CUDA-only even for blocks it would not. A
 * device that does not exist is a bad argument. */
static void test_auto_respects_the_kernel(void **state)
{
    (void)state;
    static float taps[63];
    gfir_plan *plan;
    gfir_config cfg;
    uint64_t rng = 8;
    test_fill(taps, 63, &rng);
    gfir_config_init(&cfg);
    cfg.channels = 2;
    cfg.max_block_frames = 1 << 16;
    cfg.kernel = GFIR_KERNEL_GOLD;
    assert_int_equal(gfir_plan_create(&plan, taps, 63, &cfg), GFIR_OK);
    assert_int_equal(gfir_plan_backend(plan), GFIR_BACKEND_CPU);
    gfir_plan_destroy(plan);
    cfg.max_block_frames = 256;
    cfg.kernel = GFIR_KERNEL_TILED;
    assert_int_equal(gfir_plan_create(&plan, taps, 63, &cfg), GFIR_OK);
    assert_int_equal(gfir_plan_backend(plan), GFIR_BACKEND_CUDA);
    gfir_plan_destroy(plan);
    cfg.backend = GFIR_BACKEND_CUDA;
    cfg.device = 4096;
    assert_int_equal(gfir_plan_create(&plan, taps, 63, &cfg), GFIR_ERR_ARG);
    assert_null(plan);
    cfg.device = 0; /* and the failure left nothing behind for the next plan */
    assert_int_equal(gfir_plan_create(&plan, taps, 63, &cfg), GFIR_OK);
    float x[256 * 2] = {1.0f}, y[256 * 2];
    assert_int_equal(gfir_plan_execute(plan, x, y, 256), GFIR_OK);
    gfir_plan_destroy(plan);
}

int main(int argc, char **argv)
{
    const int kernels_only = argc > 1 && strcmp(argv[1], "--kernels") == 0;
    quick = kernels_only || (argc > 1 && strcmp(argv[1], "--quick") == 0);
    if (!gfir_backend_available(GFIR_BACKEND_CUDA)) {
        printf("cuda_test: no usable CUDA device here: skipped\n");
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kernels_against_gold), cmocka_unit_test(test_streaming_cuda),
        cmocka_unit_test(test_pipelined),            cmocka_unit_test(test_pinned_buffers),
        cmocka_unit_test(test_reset_and_flush),
        cmocka_unit_test(test_constant_limit),       cmocka_unit_test(test_constant_plans_at_once),
        cmocka_unit_test(test_auto_respects_the_kernel),
    };
    if (kernels_only)
        cmocka_set_test_filter("test_kernels_against_gold");
    return cmocka_run_group_tests(tests, NULL, NULL);
}
