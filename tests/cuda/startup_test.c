/*
 * startup_test.c - CUDA started ahead of the first plan (src/cuda/startup.c,
 * gfir_backend_prepare) on a device: a process may end at any moment of a
 * start-up; AUTO counts only what is left of it; prepared from several
 * threads at once and twice over, the device starts once and the plan made
 * after it filters as the float64 reference says. Exits 77 (skipped)
 * without a usable CUDA device.
 *
 * The processes forked here fork before this one has made any CUDA call or
 * thread, so no child inherits a runtime caught half way.
 */
#define _POSIX_C_SOURCE 200809L
#include "cuda/startup.h"
#include "cuda/tuning.h"
#include "gfir.h"

#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "test_util.h"

#define FRAMES 20000
#define CHANNELS 2
#define NTAPS 33

static void sleep_ms(int ms)
{
    const struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

/* What AUTO picks for a short stereo file with one tap: its CPU work is far
 * below CUDA's full start-up, and above none. */
static gfir_backend auto_backend_for_short_file(void)
{
    static const float one = 1.0f;
    gfir_config cfg;
    gfir_plan *plan = NULL;
    gfir_backend b;
    gfir_config_init(&cfg);
    cfg.channels = CHANNELS;
    cfg.max_block_frames = 1 << 16;
    cfg.max_latency_frames = GFIR_LATENCY_ANY;
    cfg.expected_frames = 48000 * 10;
    if (gfir_plan_create(&plan, &one, 1, &cfg) != GFIR_OK)
        return (gfir_backend)-1;
    b = gfir_plan_backend(plan);
    gfir_plan_destroy(plan);
    return b;
}

/* Runs fn in a child process; its exit status (-1: not a normal exit, or
 * no child). */
static int in_child(int (*fn)(int), int arg)
{
    int wstatus;
    pid_t pid;
    fflush(NULL);
    pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0)
        exit(fn(arg)); /* exit, not _exit: the runtime's handlers run */
    if (waitpid(pid, &wstatus, 0) != pid)
        return -1;
    return WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1;
}

static int cuda_usable(int unused)
{
    (void)unused;
    return gfir_backend_available(GFIR_BACKEND_CUDA);
}

static int prepare_then_exit(int ms)
{
    if (gfir_backend_prepare(GFIR_BACKEND_CUDA, 0) != GFIR_OK)
        return 2;
    sleep_ms(ms);
    return 0;
}

static int auto_unprepared(int unused)
{
    (void)unused;
    return (int)auto_backend_for_short_file();
}

static int auto_prepared(int unused)
{
    (void)unused;
    if (gfir_backend_prepare(GFIR_BACKEND_AUTO, 0) != GFIR_OK)
        return 100;
    gf_cuda_prepare_wait(0);
    if (gf_cuda_startup_s(0) != 0.0)
        return 101;
    return (int)auto_backend_for_short_file();
}

/* Ending a process at any point of a start-up, at exit's handlers too: a
 * normal exit, status 0, each time. */
static void test_exit_during_startup(void **state)
{
    static const int delays_ms[] = {0, 0, 1, 2, 5, 10, 20, 40, 80, 160, 320};
    (void)state;
    for (size_t i = 0; i < sizeof delays_ms / sizeof delays_ms[0]; i++) {
        printf("# exit %d ms into a start-up\n", delays_ms[i]);
        assert_int_equal(in_child(prepare_then_exit, delays_ms[i]), 0);
    }
}

/* With the start-up still to come AUTO leaves a short file on the CPU; once
 * prepared, nothing is left to weigh and the device takes it. */
static void test_auto_counts_what_remains(void **state)
{
    (void)state;
    assert_int_equal(in_child(auto_unprepared, 0), GFIR_BACKEND_CPU);
    assert_int_equal(in_child(auto_prepared, 0), GFIR_BACKEND_CUDA);
}

static void *prepare_thread(void *arg)
{
    (void)arg;
    return (void *)(size_t)(gfir_backend_prepare(GFIR_BACKEND_CUDA, 0) != GFIR_OK);
}

/* Four threads and then this one prepare at once; what is left only
 * shrinks; the plan made next filters exactly; preparing after it is
 * harmless and the plan still right. */
static void test_prepare_then_create(void **state)
{
    pthread_t threads[4];
    float taps[NTAPS], *x = malloc(sizeof(float) * FRAMES * CHANNELS);
    float *y = malloc(sizeof(float) * FRAMES * CHANNELS);
    double *ref = malloc(sizeof(double) * FRAMES * CHANNELS);
    uint64_t seed = 28;
    gfir_config cfg;
    gfir_plan *plan = NULL;
    double left;
    (void)state;
    assert_non_null(x);
    assert_non_null(y);
    assert_non_null(ref);
    test_fill(taps, NTAPS, &seed);
    test_fill(x, (size_t)FRAMES * CHANNELS, &seed);
    test_reference(x, FRAMES, CHANNELS, taps, NTAPS, 1, ref);

    for (int i = 0; i < 4; i++)
        assert_int_equal(pthread_create(&threads[i], NULL, prepare_thread, NULL), 0);
    assert_int_equal(gfir_backend_prepare(GFIR_BACKEND_CUDA, 0), GFIR_OK);
    left = gf_cuda_startup_s(0);
    assert_true(left >= 0.0 && left <= GF_CUDA_STARTUP_S);
    for (int i = 0; i < 4; i++) {
        void *failed;
        assert_int_equal(pthread_join(threads[i], &failed), 0);
        assert_null(failed);
    }
    assert_true(gf_cuda_startup_s(0) <= left);

    gfir_config_init(&cfg);
    cfg.channels = CHANNELS;
    cfg.backend = GFIR_BACKEND_CUDA;
    cfg.kernel = GFIR_KERNEL_DIRECT;
    assert_int_equal(gfir_plan_create(&plan, taps, NTAPS, &cfg), GFIR_OK);
    assert_true(gf_cuda_startup_s(0) == 0.0);
    assert_int_equal(gfir_backend_prepare(GFIR_BACKEND_CUDA, 0), GFIR_OK);
    assert_int_equal(gfir_backend_prepare(GFIR_BACKEND_AUTO, 0), GFIR_OK);
    assert_int_equal(gfir_plan_execute(plan, x, y, FRAMES / 2), GFIR_OK);
    assert_int_equal(gfir_backend_prepare(GFIR_BACKEND_CUDA, 0), GFIR_OK);
    assert_int_equal(gfir_plan_execute(plan, x + FRAMES / 2 * CHANNELS,
                                       y + FRAMES / 2 * CHANNELS, FRAMES - FRAMES / 2),
                     GFIR_OK);
    assert_true(test_rel_l2(y, ref, (size_t)FRAMES * CHANNELS) < 1e-5);
    gfir_plan_destroy(plan);
    free(x);
    free(y);
    free(ref);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        /* the forking cases first, while this process has no CUDA yet */
        cmocka_unit_test(test_exit_during_startup),
        cmocka_unit_test(test_auto_counts_what_remains),
        cmocka_unit_test(test_prepare_then_create),
    };
    /* a child looks, so this process stays free of CUDA until its tests */
    if (in_child(cuda_usable, 0) != 1)
        return 77;
    return cmocka_run_group_tests(tests, NULL, NULL);
}
