/*
 * swap_cuda_test.c - swapping a running plan's filter (gfir_plan_swap) on
 * the CUDA backend, against the crossfade in float64, with the harness of
 * the CPU's swap_test (tests/common/swap_check.h): a new random filter every
 * 10 ms at 48 kHz, fades of 0 to 5 ms, random calls.
 *
 * The 60 s case on the direct kernel and the delay-line engine
 * (small calls: live audio), 10 s of it on the whole-signal FFT engine,
 * whose filters each plan a cuFFT transform (milliseconds); then each textbook
 * kernel, the FFT engine's partitioned form and its pipelined big calls
 * (fades across the lanes' sub-blocks), the delay-line engine's long
 * filters and native paths, routed lane plans, and streaming calls on
 * device memory (staged and in place) during fades. Exits 77 (skipped)
 * without a usable CUDA device; `swap_cuda_test --quick` runs short
 * signals of every kind, for compute-sanitizer.
 */
#include "gfir.h"
#include "test_util.h"

#include "core/plan.h"

#include <cuda_runtime_api.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "swap_check.h"

#define RATE 48000
#define EVERY (RATE / 100)

static int quick; /* --quick: a second of signal at most */

static swap_case gpu_case(const char *name, gfir_kernel kernel, size_t ntaps, size_t block,
                          size_t seconds)
{
    const swap_case tc = {.name = name, .backend = GFIR_BACKEND_CUDA, .kernel = kernel,
                          .inputs = 1, .sets = 1, .ntaps = ntaps, .block = block,
                          .frames = (quick ? 1 : seconds) * RATE, .every = EVERY, .fade_min = 0,
                          .fade_max = RATE / 200, .max_call = 1000};
    return tc;
}

/* The engine the policy gave the case's plan. */
static void expect_engine(const swap_case *tc, const char *engine)
{
    float *taps = calloc(tc->sets * tc->ntaps, sizeof *taps);
    assert_non_null(taps);
    taps[0] = 1.0f;
    gfir_plan *plan = swap_plan(tc, taps);
    if (strcmp(plan->engine->name, engine))
        fail_msg("%s: engine %s, expected %s", tc->name, plan->engine->name, engine);
    gfir_plan_destroy(plan);
    free(taps);
}

static void test_sixty_seconds(void **state)
{
    (void)state;
    swap_case tc = gpu_case("cuda direct, stereo, 127 taps", GFIR_KERNEL_DIRECT, 127, 4096, 60);
    tc.inputs = tc.sets = 2;
    swap_check(&tc);

    /* 10 s: each of its filters plans a cuFFT transform of its own (milliseconds) */
    tc = gpu_case("cuda fft, mono, 1000 taps", GFIR_KERNEL_FFT, 1000, 4096, 10);
    expect_engine(&tc, "cuda-fft");
    swap_check(&tc);

    tc = gpu_case("cuda delay line, stereo, 300 taps, periods of 256", GFIR_KERNEL_FFT, 300, 256,
                  60);
    tc.inputs = tc.sets = 2;
    tc.max_call = 256;
    expect_engine(&tc, "cuda-fdl");
    swap_check(&tc);
}

static void test_textbook_kernels(void **state)
{
    (void)state;
    static const gfir_kernel kernels[] = {GFIR_KERNEL_BASIC, GFIR_KERNEL_CONSTANT,
                                          GFIR_KERNEL_TILED, GFIR_KERNEL_CACHED};
    static const char *const names[] = {"cuda basic", "cuda constant", "cuda tiled",
                                        "cuda cached"};
    for (size_t k = 0; k < 4; k++) {
        swap_case tc = gpu_case(names[k], kernels[k], 200, 2048, 2);
        tc.inputs = tc.sets = 2;
        swap_check(&tc);
    }
}

/* Long filters: the FFT engine's partitions, big calls cut into the lanes'
 * pipelined sub-blocks with fades across them, the delay line's many
 * partitions. */
static void test_long_and_big(void **state)
{
    (void)state;
    swap_case tc = gpu_case("cuda fft partitioned, 60000 taps", GFIR_KERNEL_FFT, 60000, 65536, 2);
    tc.inputs = tc.sets = 2;
    tc.every = 20000;
    tc.fade_max = 20000;
    tc.max_call = 70000;
    tc.sampled = 1;
    swap_check(&tc);

    tc = gpu_case("cuda fft pipelined, 3000 taps", GFIR_KERNEL_FFT, 3000, 1 << 18, 8);
    tc.inputs = tc.sets = 2;
    tc.every = 150000;
    tc.fade_min = 50000;
    tc.fade_max = 150000;
    tc.max_call = 300000;
    tc.sampled = 1;
    swap_check(&tc);

    tc = gpu_case("cuda direct pipelined, 255 taps", GFIR_KERNEL_DIRECT, 255, 1 << 18, 8);
    tc.every = 150000;
    tc.fade_min = 50000;
    tc.fade_max = 150000;
    tc.max_call = 300000;
    swap_check(&tc);

    tc = gpu_case("cuda delay line, 100000 taps, periods of 64", GFIR_KERNEL_FFT, 100000, 64, 2);
    tc.max_call = 200;
    tc.sampled = 1;
    expect_engine(&tc, "cuda-fdl");
    swap_check(&tc);

    /* A live caller's 32-frame periods, every call whole and on a block's
     * boundary: outside fades each replays the block graph (mapped memory,
     * far partitions past 4096 taps), captured again after every fade. */
    tc = gpu_case("cuda delay line, 20000 taps, whole periods of 32", GFIR_KERNEL_FFT, 20000, 32,
                  2);
    tc.max_call = 32;
    tc.whole_calls = 1;
    tc.sampled = 1;
    expect_engine(&tc, "cuda-fdl");
    swap_check(&tc);
}

static void test_routed(void **state)
{
    (void)state;
    static const gfir_path three_to_two[] = {
        {0, 0, 0, 0.7f}, {1, 0, 1, -0.4f}, {1, 1, 0, 1.0f}, {2, 1, 1, 0.5f}, {0, 1, 1, 0.25f},
    };
    static const gfir_kernel kernels[] = {GFIR_KERNEL_FFT, GFIR_KERNEL_DIRECT, GFIR_KERNEL_FFT};
    static const size_t blocks[] = {256, 4096, 4096};
    static const char *const names[] = {"cuda delay line, native paths", "cuda direct, routed",
                                        "cuda fft, routed"};
    for (size_t k = 0; k < 3; k++) {
        swap_case tc = gpu_case(names[k], kernels[k], 700, blocks[k], 2);
        tc.inputs = 3;
        tc.outputs = 2;
        tc.sets = 2;
        tc.paths = three_to_two;
        tc.npaths = 5;
        tc.max_call = blocks[k] == 256 ? 256 : 3000;
        swap_check(&tc);
    }
}

/* Streaming calls on device memory: each call's input copied to the device
 * as planar rows (stride 1, so calls longer than the filter run in place
 * from the caller's rows) or interleaved frames, filtered there on a stream
 * of the test's own, copied back. */
static float *d_in, *d_out;
static cudaStream_t stream;
static int planar;
static unsigned channels;

static gfir_status device_execute(gfir_plan *plan, const float *in, float *out, size_t n)
{
    const size_t ch = channels;
    float *h = malloc(n * ch * sizeof *h);
    gfir_status st;
    assert_non_null(h);
    for (size_t i = 0; i < n; i++)
        for (size_t c = 0; c < ch; c++)
            h[planar ? c * n + i : i * ch + c] = in[i * ch + c];
    assert_int_equal(cudaMemcpyAsync(d_in, h, n * ch * sizeof *h, cudaMemcpyHostToDevice, stream),
                     cudaSuccess);
    st = planar ? gfir_plan_execute_device(plan, d_in, 1, n, d_out, 1, n, n, stream)
                : gfir_plan_execute_device(plan, d_in, ch, 1, d_out, ch, 1, n, stream);
    assert_int_equal(cudaMemcpyAsync(h, d_out, n * ch * sizeof *h, cudaMemcpyDeviceToHost, stream),
                     cudaSuccess);
    assert_int_equal(cudaStreamSynchronize(stream), cudaSuccess);
    for (size_t i = 0; i < n; i++)
        for (size_t c = 0; c < ch; c++)
            out[i * ch + c] = h[planar ? c * n + i : i * ch + c];
    free(h);
    return st;
}

static void test_device_calls(void **state)
{
    (void)state;
    static const gfir_kernel kernels[] = {GFIR_KERNEL_DIRECT, GFIR_KERNEL_FFT, GFIR_KERNEL_FFT};
    static const size_t blocks[] = {4096, 4096, 256};
    static const char *const names[] = {"cuda direct, device calls", "cuda fft, device calls",
                                        "cuda delay line, device calls"};
    channels = 2;
    assert_int_equal(cudaStreamCreate(&stream), cudaSuccess);
    assert_int_equal(cudaMalloc((void **)&d_in, 3000 * channels * sizeof(float)), cudaSuccess);
    assert_int_equal(cudaMalloc((void **)&d_out, 3000 * channels * sizeof(float)), cudaSuccess);
    for (size_t k = 0; k < 3; k++)
        for (planar = 0; planar < 2; planar++) {
            swap_case tc = gpu_case(names[k], kernels[k], 400, blocks[k], 2);
            tc.inputs = tc.sets = channels;
            tc.max_call = 3000;
            tc.execute = device_execute;
            swap_check(&tc);
        }
    cudaFree(d_in);
    cudaFree(d_out);
    cudaStreamDestroy(stream);
}

/* Filters outlive their plan, and a reset ends a fade with the new filter. */
static void test_lifetimes(void **state)
{
    (void)state;
    enum { NT = 500, N = 4096 };
    static const size_t blocks[] = {4096, 256};
    uint64_t rng = 21;
    float a[NT], b[NT], x[N], y[N];
    double want[N];
    for (size_t k = 0; k < 2; k++) {
        gfir_plan *plan = NULL;
        gfir_filter *f = NULL, *spare = NULL;
        gfir_config cfg;
        test_fill(a, NT, &rng);
        test_fill(b, NT, &rng);
        test_fill(x, N, &rng);
        gfir_config_init(&cfg);
        cfg.backend = GFIR_BACKEND_CUDA;
        cfg.kernel = GFIR_KERNEL_FFT;
        cfg.max_block_frames = blocks[k];
        assert_int_equal(gfir_plan_create(&plan, a, NT, &cfg), GFIR_OK);
        assert_int_equal(gfir_filter_create(&f, plan, b, NT), GFIR_OK);
        assert_int_equal(gfir_filter_create(&spare, plan, a, NT / 2), GFIR_OK);
        assert_int_equal(gfir_plan_execute(plan, x, y, 1000), GFIR_OK);
        assert_int_equal(gfir_plan_swap(plan, f, 5000), GFIR_OK);
        assert_int_equal(gfir_plan_execute(plan, x, y, 100), GFIR_OK);
        assert_int_equal(gfir_plan_swap(plan, spare, 0), GFIR_ERR_BUSY);
        assert_int_equal(gfir_plan_reset(plan), GFIR_OK);
        for (size_t done = 0; done < N; done += blocks[k])
            assert_int_equal(gfir_plan_execute(plan, x + done, y + done, blocks[k]), GFIR_OK);
        test_reference(x, N, 1, b, NT, 1, want);
        assert_true(test_rel_l2(y, want, N) < SWAP_TOLERANCE);
        gfir_filter *old = gfir_plan_retired(plan);
        assert_non_null(old);
        gfir_plan_destroy(plan);
        gfir_filter_destroy(old);
        gfir_filter_destroy(spare);
    }
}

int main(int argc, char **argv)
{
    quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    if (!gfir_backend_available(GFIR_BACKEND_CUDA)) {
        printf("swap_cuda_test: no usable CUDA device; skipped\n");
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sixty_seconds), cmocka_unit_test(test_textbook_kernels),
        cmocka_unit_test(test_long_and_big),  cmocka_unit_test(test_routed),
        cmocka_unit_test(test_device_calls),  cmocka_unit_test(test_lifetimes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
