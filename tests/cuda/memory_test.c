/*
 * memory_test.c - a plan that does not fit the GPU's memory fails with
 * GFIR_ERR_NOMEM and a detail that names the memory asked for, the device
 * and what it had free (kernels/cuda_status.h), and the device is usable
 * afterwards. The test takes all but about 256 MB of device 0's free memory
 * itself, then asks for 64 channels of 2^20 taps (several GB on any engine).
 * Exit 77 (skipped) where no GPU is usable.
 */
#include "gfir.h"
#include "test_util.h"

#include <cuda_runtime_api.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#define LEFT_BYTES ((size_t)256 << 20)

static gfir_status make(gfir_plan **plan, const float *taps, size_t ntaps, unsigned channels)
{
    gfir_config cfg;
    gfir_config_init(&cfg);
    cfg.backend = GFIR_BACKEND_CUDA;
    cfg.channels = cfg.filter_channels = channels;
    cfg.max_block_frames = 256;
    return gfir_plan_create(plan, taps, ntaps, &cfg);
}

static void too_large_names_the_memory(void **state)
{
    (void)state;
    const size_t ntaps = (size_t)1 << 20;
    const unsigned channels = 64;
    float *taps = malloc(channels * ntaps * sizeof *taps);
    size_t free_bytes = 0, total = 0;
    void *hog = NULL;
    gfir_plan *plan = NULL;
    uint64_t rng = 8;
    assert_non_null(taps);
    test_fill(taps, channels * ntaps, &rng);
    assert_int_equal(make(&plan, taps, 31, 1), GFIR_OK); /* starts the device */
    gfir_plan_destroy(plan);
    assert_int_equal(cudaMemGetInfo(&free_bytes, &total), cudaSuccess);
    assert_true(free_bytes > LEFT_BYTES);
    assert_int_equal(cudaMalloc(&hog, free_bytes - LEFT_BYTES), cudaSuccess);

    plan = (gfir_plan *)taps;
    const gfir_status st = make(&plan, taps, ntaps, channels);
    const char *why = gfir_plan_error_detail(NULL);
    print_message("%s: %s\n", gfir_strerror(st), why);
    assert_int_equal(st, GFIR_ERR_NOMEM);
    assert_null(plan);
    assert_non_null(strstr(why, "GB of GPU memory asked on device 0"));
    assert_non_null(strstr(why, "GB free of"));

    /* nothing is left behind: with the memory back, the same plan works */
    assert_int_equal(cudaFree(hog), cudaSuccess);
    assert_int_equal(make(&plan, taps, 4096, channels), GFIR_OK);
    gfir_plan_destroy(plan);
    free(taps);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(too_large_names_the_memory),
    };
    if (gfir_backend_devices(GFIR_BACKEND_CUDA) < 1) {
        printf("no usable CUDA device: skipped\n");
        return 77;
    }
    return cmocka_run_group_tests(tests, NULL, NULL);
}
