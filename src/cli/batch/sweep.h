/*
 * sweep.h - temporary outputs that a killed run left behind (SIGKILL, a
 * lost node, a power cut: nothing got to remove them), removed before the
 * shard runs again: every stale one in the directories of the shard's
 * outputs, done jobs' included (a rerun within a minute of the kill used to
 * keep them, and a job done by then was never looked at again). Another
 * process may be writing there (another shard, a plain `gfir IN OUT`), so a
 * file goes only when output_remove_stale finds its writer gone (output.h).
 */
#ifndef GFIR_CLI_BATCH_SWEEP_H
#define GFIR_CLI_BATCH_SWEEP_H

#include "batch/manifest.h"

#include <stddef.h>

/* Removes the stale temporary files in the directories of jobs[0..njobs)'s
 * outputs, reading each directory once. Returns how many it removed. */
size_t sweep_temporaries(const manifest_job *jobs, size_t njobs);

#endif
