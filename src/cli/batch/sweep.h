/*
 * sweep.h - temporary outputs that a killed run of this shard left behind
 * (SIGKILL, a lost node, a power cut: nothing got to remove them), removed
 * before the shard runs again. Another process may be writing the same
 * outputs (the same manifest run with another N, a plain `gfir IN OUT`), so
 * a file goes only when output_remove_stale finds its writer gone: no lock
 * held, and untouched for a minute.
 */
#ifndef GFIR_CLI_BATCH_SWEEP_H
#define GFIR_CLI_BATCH_SWEEP_H

#include "batch/manifest.h"

#include <stddef.h>

/* Removes the stale temporary files beside the outputs of
 * jobs[todo[0..ntodo)], reading each directory once. Returns how many it
 * removed. */
size_t sweep_temporaries(const manifest_job *jobs, const size_t *todo, size_t ntodo);

#endif
