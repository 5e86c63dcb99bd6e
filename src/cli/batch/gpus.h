/*
 * gpus.h - the GPUs a `gfir batch` run spreads its files over: --gpu N,
 * --gpus all|LIST, or by default every visible GPU where the backend may be
 * CUDA (cuda or auto). Each GPU gets a group of workers, and each worker
 * keeps its plans on its group's GPU; every worker takes its next files from
 * the one queue of the shard, so a GPU whose files finish early takes more
 * and none idles while files wait.
 */
#ifndef GFIR_CLI_BATCH_GPUS_H
#define GFIR_CLI_BATCH_GPUS_H

#include "batch/batch.h"
#include "message.h"

#include <stddef.h>

typedef struct batch_groups {
    unsigned workers;           /* files in flight */
    unsigned n;                 /* GPUs, 0: none (plans on the default device) */
    int gpu[BATCH_MAX_JOBS];    /* worker i works on gpu[i % n] */
} batch_groups;

/* The workers and GPUs for ntodo files: -j (else two per CPU this process
 * may use, at most BATCH_MAX_JOBS, and at least one per GPU), never more
 * workers than files. */
void batch_groups_choose(const batch_options *bo, size_t ntodo, batch_groups *g);

/* -v: "4 files in flight on 2 GPUs: 0, 1", where there are GPUs. */
void batch_groups_tell(const batch_groups *g);

/* "; per GPU: 0: 12 files, 1: 11" (and ", CPU: n" for files whose plans
 * AUTO put on the CPU) onto line, from the files each group wrote on its
 * GPU; nothing when no file ran on a GPU. */
void batch_groups_say(const batch_groups *g, const size_t *on_gpu, size_t on_cpu,
                      cli_text *line);

#endif
