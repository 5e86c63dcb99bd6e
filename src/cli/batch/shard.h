/*
 * shard.h - which share of a manifest this process runs. Job i (counting
 * the manifest's jobs from 0, in file order) belongs to shard i mod N: every
 * job has one shard whatever the share is run by, and a manifest that grows
 * at its end keeps every earlier job in its shard.
 *
 * The share comes from --shard K/N, else from the engine that started the
 * process: a Slurm job array (SLURM_ARRAY_TASK_ID, counted from
 * SLURM_ARRAY_TASK_MIN in steps of SLURM_ARRAY_TASK_STEP, N =
 * SLURM_ARRAY_TASK_COUNT) or a Kubernetes Indexed Job (JOB_COMPLETION_INDEX,
 * N from --shards); with none of them the process runs the whole manifest.
 */
#ifndef GFIR_CLI_BATCH_SHARD_H
#define GFIR_CLI_BATCH_SHARD_H

#include <stddef.h>

typedef struct shard {
    unsigned long k, n;         /* shard k of n, 0 <= k < n */
    char source[96];            /* where k and n came from, for messages */
} shard;

/*
 * spec: --shard's value or NULL; shards: --shards or 0. getenv reads the
 * environment (getenv itself, or a table in tests). 0, or 2 after one line
 * on stderr: a usage error.
 */
int shard_choose(const char *spec, unsigned long shards, const char *(*getenv_fn)(const char *),
                 shard *out);

static inline int shard_owns(const shard *s, size_t job_index)
{
    return job_index % s->n == s->k;
}

#endif
