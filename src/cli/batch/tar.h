/*
 * tar.h - `gfir batch --tar DIR`: outputs packed into tar shards, as
 * WebDataset and Lhotse Shar read them, instead of a file each. A job
 * renders to a scratch file in $TMPDIR (node-local under Slurm); the
 * gathering thread appends it to the open shard as KEY.EXT (KEY: the row's
 * output less its extension), then KEY.json (its receipt), through
 * libarchive. A shard is a temporary file beside its name until it holds
 * --shard-size outputs or bytes (or the run ends); then it is synced,
 * renamed to DIR/shard-K-of-N-PPPPPP.tar and the rename synced, and only
 * then are its jobs' receipts appended (each naming the shard, with its size
 * and time) and a line listing its keys. A shard whole on disk without
 * receipts (the process died between) is removed by the next run of the
 * same K/N before it packs anything, and its jobs made again: every key
 * once across the shards a run leaves.
 */
#ifndef GFIR_CLI_BATCH_TAR_H
#define GFIR_CLI_BATCH_TAR_H

#include "batch/batch.h"
#include "batch/manifest.h"
#include "batch/receipt.h"
#include "batch/shard.h"

typedef struct tar_packer tar_packer;

/* Makes DIR and the scratch directory, removes this shard's shards that no
 * receipt in book vouches for and its stale temporary shards. 0, or 1
 * after one line. */
int tar_open(tar_packer **tp, const batch_options *bo, const shard *sh,
             const receipt_book *book);
/* Where job j renders before it is packed. */
int tar_scratch_path(const tar_packer *tp, const manifest_job *j, char *path, size_t n);
/* Packs j's rendered scratch file (then removed) with its facts; closes
 * the shard when it is full. 0, or 1 after one line (the shard is lost:
 * its jobs are not done). */
int tar_take(tar_packer *tp, receipt_book *book, const manifest_job *j, const receipt_facts *f);
/* Closes the open shard, if any, and removes the scratch directory. */
int tar_finish(tar_packer *tp, receipt_book *book);
/* Frees; a shard still open is removed. */
void tar_close(tar_packer *tp);

#endif
