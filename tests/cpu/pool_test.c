/*
 * pool_test.c - the CPU worker pool: every task of every job runs exactly
 * once, across many back-to-back jobs of varied sizes (where a worker still
 * holding an old job would run a task twice or with the wrong function), with
 * more threads than cores and with none.
 *
 * It catches lost, repeated and unfinished tasks. The generation tag in
 * pool.c guards a narrower window (a worker descheduled between taking a job
 * and claiming its first task while the next job starts), which this test
 * reaches only by chance: removing the tag was not caught in three runs.
 */
#include "cpu/pool.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#define MAX_TASKS 64

typedef struct job {
    _Atomic int runs[MAX_TASKS];
    int id;
} job;

static void count_task(void *arg, size_t t)
{
    job *j = arg;
    atomic_fetch_add(&j->runs[t], 1);
}

/* A different function for odd jobs: a stale worker would count in the wrong place. */
static void count_task_twice(void *arg, size_t t)
{
    job *j = arg;
    atomic_fetch_add(&j->runs[t], 2);
}

static void run_jobs(unsigned workers)
{
    gf_pool *pool;
    static job jobs[2];
    uint32_t rng = 12345;
    assert_int_equal(gf_pool_create(&pool, workers), GFIR_OK);
    for (int i = 0; i < 20000; i++) {
        job *j = &jobs[i & 1];
        rng = rng * 1664525u + 1013904223u;
        size_t ntasks = (rng >> 16) % (MAX_TASKS + 1);
        for (int t = 0; t < MAX_TASKS; t++)
            atomic_store(&j->runs[t], 0);
        gf_pool_run(pool, (i & 1) ? count_task_twice : count_task, j, ntasks);
        for (size_t t = 0; t < MAX_TASKS; t++) {
            int want = t < ntasks ? ((i & 1) ? 2 : 1) : 0;
            if (atomic_load(&j->runs[t]) != want)
                fail_msg("workers=%u job %d task %zu ran %d, want %d", workers, i, t,
                         atomic_load(&j->runs[t]), want);
        }
    }
    gf_pool_destroy(pool);
}

static void test_no_workers(void **state)
{
    (void)state;
    run_jobs(0);
}

static void test_one_worker(void **state)
{
    (void)state;
    run_jobs(1);
}

static void test_oversubscribed(void **state)
{
    (void)state;
    run_jobs(4 * gf_cpu_count());
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_workers),
        cmocka_unit_test(test_one_worker),
        cmocka_unit_test(test_oversubscribed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
