/*
 * prepare_test.c - gfir_backend_prepare() where no device starts: on this
 * machine's CPU-only builds and on CUDA builds without a GPU (the GPU's own
 * cases are tests/cuda/startup_test.c). Its arguments are checked; the CPU
 * has nothing to start; a backend that is absent says so at the latest once
 * its start-up has ended, and the create that follows fails exactly as a
 * create in a process that never prepared (status and sentence, compared
 * with a child process's); AUTO still gives a CPU plan.
 */
#define _POSIX_C_SOURCE 200809L
#include "gfir.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

static const float taps[3] = {0.5f, -0.25f, 0.125f};

typedef struct create_result {
    gfir_status status;
    char detail[512];
} create_result;

static create_result create_cuda(void)
{
    gfir_config cfg;
    gfir_plan *plan = NULL;
    create_result r;
    gfir_config_init(&cfg);
    cfg.backend = GFIR_BACKEND_CUDA;
    r.status = gfir_plan_create(&plan, taps, 3, &cfg);
    snprintf(r.detail, sizeof r.detail, "%s", gfir_plan_error_detail(NULL));
    gfir_plan_destroy(plan);
    return r;
}

/* A CUDA create in a process that never prepared: a child's, through a pipe. */
static create_result create_cuda_unprepared(void)
{
    create_result r;
    int fds[2];
    pid_t pid;
    int wstatus;
    assert_int_equal(pipe(fds), 0);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        r = create_cuda();
        _exit(write(fds[1], &r, sizeof r) == (ssize_t)sizeof r ? 0 : 1);
    }
    close(fds[1]);
    assert_int_equal(read(fds[0], &r, sizeof r), (ssize_t)sizeof r);
    close(fds[0]);
    assert_int_equal(waitpid(pid, &wstatus, 0), pid);
    assert_true(WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0);
    return r;
}

static void test_arguments(void **state)
{
    (void)state;
    assert_int_equal(gfir_backend_prepare((gfir_backend)42, 0), GFIR_ERR_ARG);
    assert_int_equal(gfir_backend_prepare(GFIR_BACKEND_CPU, -1), GFIR_ERR_ARG);
    assert_int_equal(gfir_backend_prepare(GFIR_BACKEND_CUDA, -1), GFIR_ERR_ARG);
    assert_int_equal(gfir_backend_prepare(GFIR_BACKEND_AUTO, -1), GFIR_ERR_ARG);
    assert_int_equal(gfir_backend_prepare(GFIR_BACKEND_CPU, 0), GFIR_OK);
    assert_int_equal(gfir_backend_prepare(GFIR_BACKEND_CPU, 0), GFIR_OK);
}

/* Without a usable device: "unavailable" (at once without CUDA in the build,
 * once the start-up thread has looked with it), and the create after it as
 * today's. The child that shows today's runs first, before this process has
 * a thread that a fork could catch inside the CUDA runtime; the start-up is
 * then this process's first CUDA call. */
static void test_absent_device(void **state)
{
    const create_result before = create_cuda_unprepared();
    create_result after;
    gfir_status st;
    (void)state;
    st = gfir_backend_prepare(GFIR_BACKEND_CUDA, 0);
    if (gfir_backend_available(GFIR_BACKEND_CUDA))
        skip(); /* a device: tests/cuda/startup_test.c */
    assert_true(st == GFIR_OK || st == GFIR_ERR_UNAVAILABLE);
    /* the thread ends within seconds; then the outcome is known */
    for (int i = 0; i < 10000 && st == GFIR_OK; i++) {
        const struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
        st = gfir_backend_prepare(GFIR_BACKEND_CUDA, 0);
    }
    assert_int_equal(st, GFIR_ERR_UNAVAILABLE);
    after = create_cuda();
    assert_int_equal(after.status, GFIR_ERR_UNAVAILABLE);
    assert_int_equal(after.status, before.status);
    assert_string_equal(after.detail, before.detail);
    /* asking again changes nothing */
    assert_int_equal(gfir_backend_prepare(GFIR_BACKEND_CUDA, 0), GFIR_ERR_UNAVAILABLE);
    after = create_cuda();
    assert_string_equal(after.detail, before.detail);
}

/* AUTO prepares what it might use, and a plan still comes from the CPU. */
static void test_auto_falls_back(void **state)
{
    gfir_config cfg;
    gfir_plan *plan = NULL;
    float x[6] = {1, 2, 3, 4, 5, 6}, y[6];
    (void)state;
    if (gfir_backend_available(GFIR_BACKEND_CUDA))
        skip();
    assert_int_equal(gfir_backend_prepare(GFIR_BACKEND_AUTO, 0), GFIR_OK);
    assert_int_equal(gfir_backend_prepare(GFIR_BACKEND_AUTO, 0), GFIR_OK);
    gfir_config_init(&cfg);
    cfg.expected_frames = (size_t)1 << 30; /* worth a device, were there one */
    cfg.max_block_frames = 1 << 16;
    assert_int_equal(gfir_plan_create(&plan, taps, 3, &cfg), GFIR_OK);
    assert_int_equal(gfir_plan_backend(plan), GFIR_BACKEND_CPU);
    assert_int_equal(gfir_plan_execute(plan, x, y, 6), GFIR_OK);
    assert_float_equal(y[2], 0.5f * 3 - 0.25f * 2 + 0.125f * 1, 1e-6);
    gfir_plan_destroy(plan);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_absent_device),
        cmocka_unit_test(test_arguments),
        cmocka_unit_test(test_auto_falls_back),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
