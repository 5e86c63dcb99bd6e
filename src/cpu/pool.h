/*
 * pool.h - the CPU backend's worker threads.
 *
 * gf_pool_run() splits a job into tasks that the calling thread and the
 * workers claim one at a time from a shared counter. The caller waits only for
 * tasks another thread has claimed: a worker that is slow to wake (its core
 * busy with another process) finds nothing left and the call never waits for
 * it. OpenMP's barrier, by contrast, waits for every thread of the team, which
 * made threaded blocks 20 times slower than one thread on a loaded 2-core
 * machine.
 */
#ifndef GF_CPU_POOL_H
#define GF_CPU_POOL_H

#include "gfir.h"

#include <stddef.h>

typedef struct gf_pool gf_pool;
typedef void (*gf_task_fn)(void *arg, size_t task);

/* Starts `workers` threads besides the caller's (0 is allowed: no threads).
 * Workers run with denormals flushed to zero. */
gfir_status gf_pool_create(gf_pool **pool, unsigned workers);

/* Runs fn(arg, t) for t in [0, ntasks) and returns when all have run. One
 * caller at a time per pool. */
void gf_pool_run(gf_pool *pool, gf_task_fn fn, void *arg, size_t ntasks);

void gf_pool_destroy(gf_pool *pool);

/* Processors this process may run on (at least 1). */
unsigned gf_cpu_count(void);

#endif
