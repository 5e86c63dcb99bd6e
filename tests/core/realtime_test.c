/*
 * realtime_test.c - execute allocates nothing and takes no locks, the promise
 * that lets it run in an audio callback: with the CPU backend and threads = 1,
 * for the gold, direct and FFT kernels (the uniform engine within a latency
 * budget, the zero-latency non-uniform one without, up to 2^20 taps and
 * through its longest partitions' cycles), at audio block sizes and at full
 * blocks, in odd chunks. The same for gfir_plan_swap, the calls that run a
 * crossfade (the first one after a swap included) and gfir_plan_retired. The link wraps malloc, calloc, realloc,
 * pthread_mutex_lock and pthread_cond_wait (-Wl,--wrap) so every call the
 * library makes to them is counted while execute runs.
 */
#include "gfir.h"
#include "test_util.h"

#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>

#include <cmocka.h>

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
int __real_pthread_mutex_lock(pthread_mutex_t *m);
int __real_pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m);

static int armed;
static int forbidden_calls;

void *__wrap_malloc(size_t n)
{
    forbidden_calls += armed;
    return __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t size)
{
    forbidden_calls += armed;
    return __real_calloc(n, size);
}

void *__wrap_realloc(void *p, size_t n)
{
    forbidden_calls += armed;
    return __real_realloc(p, n);
}

int __wrap_pthread_mutex_lock(pthread_mutex_t *m)
{
    forbidden_calls += armed;
    return __real_pthread_mutex_lock(m);
}

int __wrap_pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
    forbidden_calls += armed;
    return __real_pthread_cond_wait(c, m);
}

/* frames of stereo random signal through a plan, in odd chunks (1 to 1001
 * frames), then a flush and a reset, all of it armed. */
static void run(gfir_kernel kernel, size_t max_latency, size_t ntaps, size_t block,
                unsigned threads, size_t frames)
{
    enum { CH = 2 };
    uint64_t rng = ntaps + block;
    float *taps = malloc(ntaps * sizeof *taps);
    float *x = malloc(frames * CH * sizeof *x), *y = malloc(frames * CH * sizeof *y);
    gfir_plan *plan;
    gfir_config cfg;
    assert_true(taps && x && y);
    test_fill(taps, ntaps, &rng);
    test_fill(x, frames * CH, &rng);
    gfir_config_init(&cfg);
    cfg.channels = CH;
    cfg.backend = GFIR_BACKEND_CPU;
    cfg.kernel = kernel;
    cfg.max_block_frames = block;
    cfg.threads = threads;
    cfg.max_latency_frames = max_latency;
    assert_int_equal(gfir_plan_create(&plan, taps, ntaps, &cfg), GFIR_OK);
    free(taps);

    forbidden_calls = 0;
    armed = 1;
    for (size_t done = 0, n = 1; done < frames; done += n, n = n * 3 % 1001 + 1) {
        n = n < frames - done ? n : frames - done;
        if (gfir_plan_execute(plan, x + done * CH, y + done * CH, n) != GFIR_OK)
            break;
    }
    gfir_plan_flush(plan, y, block < frames ? block : frames);
    gfir_plan_reset(plan);
    armed = 0;
    if (forbidden_calls)
        fail_msg("kernel %s, latency budget %zu, %zu taps, block %zu, threads %u: %d calls to "
                 "malloc/calloc/realloc/pthread_mutex_lock/pthread_cond_wait inside execute",
                 gfir_kernel_name(kernel), max_latency, ntaps, block, threads, forbidden_calls);
    gfir_plan_destroy(plan);
    free(x);
    free(y);
}

static void test_one_thread(void **state)
{
    (void)state;
    static const gfir_kernel kernels[] = {GFIR_KERNEL_GOLD, GFIR_KERNEL_DIRECT, GFIR_KERNEL_FFT,
                                          GFIR_KERNEL_FFT};
    /* The FFT kernel twice: the uniform engine, then the non-uniform one. */
    static const size_t budgets[] = {0, 0, GFIR_LATENCY_ANY, 0};
    static const size_t taps[] = {1, 255, 4097};
    static const size_t blocks[] = {64, 256, 4096};
    for (size_t k = 0; k < 4; k++)
        for (size_t t = 0; t < 3; t++)
            for (size_t b = 0; b < 3; b++)
                run(kernels[k], budgets[k], taps[t], blocks[b], 1, 20000);
}

/* The non-uniform engine's long filters, whose largest partitions' work is
 * spread over many calls: two full cycles of the longest (65536 frames). */
static void test_nonuniform_long(void **state)
{
    (void)state;
    static const size_t taps[] = {65537, (size_t)1 << 20};
    static const size_t blocks[] = {64, 256};
    for (size_t t = 0; t < 2; t++)
        for (size_t b = 0; b < 2; b++)
            run(GFIR_KERNEL_FFT, 0, taps[t], blocks[b], 1, 3 * 65536 + 1000);
}

/* Blocks below the threading threshold never touch the pool, whatever
 * `threads` says: an audio-sized plan is safe with the default too. */
static void test_default_threads_small_blocks(void **state)
{
    (void)state;
    run(GFIR_KERNEL_DIRECT, 0, 255, 256, 0, 20000);
    run(GFIR_KERNEL_FFT, GFIR_LATENCY_ANY, 4097, 256, 0, 20000);
    run(GFIR_KERNEL_FFT, 0, 65537, 256, 0, 20000);
}

/* Filters swapped in every few calls while the plan runs, armed from the
 * first swap to the last retired filter collected; only making and
 * destroying the filters is not. */
static void run_swaps(gfir_kernel kernel, size_t max_latency, size_t ntaps, size_t block,
                      size_t frames)
{
    enum { CH = 2, FILTERS = 4 };
    uint64_t rng = ntaps * 7 + block;
    float *taps = malloc(CH * ntaps * sizeof *taps);
    float *x = malloc(frames * CH * sizeof *x), *y = malloc(frames * CH * sizeof *y);
    gfir_filter *f[FILTERS], *back[FILTERS + 1];
    size_t nback = 0, swaps = 0, busy = 0;
    gfir_plan *plan;
    gfir_config cfg;
    assert_true(taps && x && y);
    test_fill(x, frames * CH, &rng);
    gfir_config_init(&cfg);
    cfg.channels = CH;
    cfg.filter_channels = CH;
    cfg.backend = GFIR_BACKEND_CPU;
    cfg.kernel = kernel;
    cfg.max_block_frames = block;
    cfg.threads = 1;
    cfg.max_latency_frames = max_latency;
    test_fill(taps, CH * ntaps, &rng);
    assert_int_equal(gfir_plan_create(&plan, taps, ntaps, &cfg), GFIR_OK);
    for (size_t i = 0; i < FILTERS; i++) {
        test_fill(taps, CH * ntaps, &rng);
        assert_int_equal(gfir_filter_create(&f[i], plan, taps, ntaps), GFIR_OK);
    }
    free(taps);

    forbidden_calls = 0;
    armed = 1;
    for (size_t done = 0, n = 1, call = 0; done < frames; done += n, n = n * 3 % 1001 + 1) {
        n = n < frames - done ? n : frames - done;
        if (++call % 3 == 0 && swaps < FILTERS) {
            const gfir_status st = gfir_plan_swap(plan, f[swaps], call % 4 ? 3000 : 0);
            swaps += st == GFIR_OK;
            busy += st == GFIR_ERR_BUSY;
        }
        if (gfir_plan_execute(plan, x + done * CH, y + done * CH, n) != GFIR_OK)
            break;
        for (gfir_filter *old; nback <= FILTERS && (old = gfir_plan_retired(plan));)
            back[nback++] = old;
    }
    armed = 0;
    if (forbidden_calls)
        fail_msg("kernel %s, latency budget %zu, %zu taps, block %zu: %d calls to "
                 "malloc/calloc/realloc/pthread_mutex_lock/pthread_cond_wait while swapping",
                 gfir_kernel_name(kernel), max_latency, ntaps, block, forbidden_calls);
    assert_int_equal(swaps, FILTERS);
    assert_true(busy > 0);
    assert_true(nback >= FILTERS - 1);
    for (size_t i = 0; i < nback; i++)
        gfir_filter_destroy(back[i]);
    gfir_plan_destroy(plan);
    free(x);
    free(y);
}

static void test_swaps(void **state)
{
    (void)state;
    static const gfir_kernel kernels[] = {GFIR_KERNEL_GOLD, GFIR_KERNEL_DIRECT, GFIR_KERNEL_FFT,
                                          GFIR_KERNEL_FFT};
    static const size_t budgets[] = {0, 0, GFIR_LATENCY_ANY, 0};
    static const size_t taps[] = {255, 4097};
    for (size_t k = 0; k < 4; k++)
        for (size_t t = 0; t < 2; t++)
            run_swaps(kernels[k], budgets[k], taps[t], 256, 30000);
    /* the zero-latency engine's long partitions, in flight at each swap,
     * whose blocks are made for the incoming filter over the calls before
     * its fade begins: levels of 1024 and 8192 */
    run_swaps(GFIR_KERNEL_FFT, 0, 65536, 64, 3 * 65536);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_thread),
        cmocka_unit_test(test_nonuniform_long),
        cmocka_unit_test(test_default_threads_small_blocks),
        cmocka_unit_test(test_swaps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
