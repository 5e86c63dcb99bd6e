/*
 * pool.h - the CPU backend's worker threads.
 *
 * gfir_pool_run() splits a job into tasks that the calling thread and the
 * workers claim one at a time from a shared counter. The caller waits only for
 * tasks another thread has claimed: a worker that is slow to wake (its core
 * busy with another process) finds nothing left and the call never waits for
 * it. OpenMP's barrier, by contrast, waits for every thread of the team, which
 * made threaded blocks 20 times slower than one thread on a loaded 2-core
 * machine.
 */
#ifndef GFIR_POOL_H
#define GFIR_POOL_H

#include "gfir.h"

#include <stddef.h>

typedef struct gfir_pool gfir_pool;
typedef void (*gfir_task_fn)(void *arg, size_t task);

/* Starts `workers` threads besides the caller's (0 is allowed: no threads).
 * Workers run with denormals flushed to zero. */
gfir_status gfir_pool_create(gfir_pool **pool, unsigned workers);

/* Runs fn(arg, t) for t in [0, ntasks) and returns when all have run. One
 * caller at a time per pool. */
void gfir_pool_run(gfir_pool *pool, gfir_task_fn fn, void *arg, size_t ntasks);

void gfir_pool_destroy(gfir_pool *pool);

/* Processors this process may run on (at least 1). */
unsigned gfir_cpu_count(void);

#endif
