/*
 * sweep.h - temporary outputs that a killed run of this shard left behind
 * (SIGKILL, a lost node, a power cut: nothing got to remove them), removed
 * before the shard runs again. Safe because no other process writes this
 * shard's outputs: the manifest names each output once, and the shard's
 * receipts lock keeps a second process of the shard out.
 */
#ifndef GFIR_CLI_BATCH_SWEEP_H
#define GFIR_CLI_BATCH_SWEEP_H

#include "batch/manifest.h"

#include <stddef.h>

/* Removes the temporary files beside the outputs of jobs[todo[0..ntodo)],
 * reading each directory once. Returns how many it removed. */
size_t sweep_temporaries(const manifest_job *jobs, const size_t *todo, size_t ntodo);

#endif
