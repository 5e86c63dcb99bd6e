/*
 * pool.c - see pool.h.
 *
 * The claim counter carries the job's generation in its high bits, so a worker
 * still holding an old job can never claim a task of a newer one: its
 * compare-and-swap sees another generation and it stops.
 */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "cpu/pool.h"
#include "cpu/ftz.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#define TASK_BITS 40
#define TASK_MASK ((UINT64_C(1) << TASK_BITS) - 1)

struct gf_pool {
    pthread_mutex_t mu;
    pthread_cond_t wake;    /* a new job, or quit */
    pthread_cond_t done;    /* the last task of the job finished */
    pthread_t *threads;
    unsigned nthreads;
    int quit;
    /* the current job, written under mu */
    uint64_t gen;
    gf_task_fn fn;
    void *arg;
    size_t ntasks;
    _Atomic uint64_t next;  /* gen << TASK_BITS | next unclaimed task */
    _Atomic size_t finished;
};

/* Claims and runs tasks of job `gen` until none is left. */
static void work(gf_pool *p, uint64_t gen, gf_task_fn fn, void *arg, size_t ntasks)
{
    uint64_t v = atomic_load(&p->next);
    for (;;) {
        if (v >> TASK_BITS != (gen & (UINT64_MAX >> TASK_BITS)) || (v & TASK_MASK) >= ntasks)
            return;
        if (!atomic_compare_exchange_weak(&p->next, &v, v + 1))
            continue;
        fn(arg, (size_t)(v & TASK_MASK));
        if (atomic_fetch_add(&p->finished, 1) + 1 == ntasks) {
            pthread_mutex_lock(&p->mu);
            pthread_cond_signal(&p->done);
            pthread_mutex_unlock(&p->mu);
        }
        v = atomic_load(&p->next);
    }
}

static void *worker_main(void *vp)
{
    gf_pool *p = vp;
    uint64_t seen = 0;
    gf_ftz_enter(); /* this thread only ever runs our tasks */
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (!p->quit && p->gen == seen)
            pthread_cond_wait(&p->wake, &p->mu);
        if (p->quit)
            break;
        seen = p->gen;
        gf_task_fn fn = p->fn;
        void *arg = p->arg;
        size_t ntasks = p->ntasks;
        pthread_mutex_unlock(&p->mu);
        work(p, seen, fn, arg, ntasks);
        pthread_mutex_lock(&p->mu);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

gfir_status gf_pool_create(gf_pool **out, unsigned workers)
{
    gf_pool *p = calloc(1, sizeof *p);
    *out = NULL;
    if (!p)
        return GFIR_ERR_NOMEM;
    if (pthread_mutex_init(&p->mu, NULL) || pthread_cond_init(&p->wake, NULL) ||
        pthread_cond_init(&p->done, NULL)) {
        free(p);
        return GFIR_ERR_NOMEM;
    }
    p->threads = calloc(workers ? workers : 1, sizeof *p->threads);
    if (!p->threads) {
        gf_pool_destroy(p);
        return GFIR_ERR_NOMEM;
    }
    for (; p->nthreads < workers; p->nthreads++) {
        if (pthread_create(&p->threads[p->nthreads], NULL, worker_main, p)) {
            gf_pool_destroy(p);
            return GFIR_ERR_NOMEM;
        }
    }
    *out = p;
    return GFIR_OK;
}

void gf_pool_run(gf_pool *p, gf_task_fn fn, void *arg, size_t ntasks)
{
    uint64_t gen;
    if (ntasks == 0)
        return;
    pthread_mutex_lock(&p->mu);
    gen = ++p->gen;
    p->fn = fn;
    p->arg = arg;
    p->ntasks = ntasks;
    atomic_store(&p->finished, 0);
    atomic_store(&p->next, (gen & (UINT64_MAX >> TASK_BITS)) << TASK_BITS);
    if (ntasks > 1)
        pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->mu);

    work(p, gen, fn, arg, ntasks);

    if (atomic_load(&p->finished) < ntasks) {
        pthread_mutex_lock(&p->mu);
        while (atomic_load(&p->finished) < ntasks)
            pthread_cond_wait(&p->done, &p->mu);
        pthread_mutex_unlock(&p->mu);
    }
}

void gf_pool_destroy(gf_pool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    p->quit = 1;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->mu);
    for (unsigned i = 0; i < p->nthreads; i++)
        pthread_join(p->threads[i], NULL);
    free(p->threads);
    pthread_cond_destroy(&p->wake);
    pthread_cond_destroy(&p->done);
    pthread_mutex_destroy(&p->mu);
    free(p);
}

unsigned gf_cpu_count(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return (unsigned)CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (unsigned)n : 1;
}
