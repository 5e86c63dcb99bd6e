/*
 * manifest.h - the jobs of a batch manifest, checked line by line.
 *
 * Fields (TSV/CSV columns, JSONL keys): input and output (required), a
 * filter (ir, preset, taps: the command line's syntax; a row with none takes
 * the command line's), and optional gain, align, format, id, seed, and a
 * segment (offset and duration, or start and end: segment.h). An ir
 * naming a directory or list (irset.h) is resolved here to the one IR the
 * job uses. Every line of the manifest is checked, whichever shard runs it,
 * so a bad manifest stops every shard before any output is written. Files
 * are compared by identity (output_identity: device and inode, or the
 * canonical name of one that does not exist yet), however they are spelt:
 * each output is a regular file or a new name, appears once, and is no
 * row's input, IR or taps, not the manifest, and not under the receipts
 * directory (bo->receipts); no input, IR or taps file is another row's
 * output. The default alignment comes from the filter as loaded (a preset
 * may hold an IR stage).
 */
#ifndef GFIR_CLI_BATCH_MANIFEST_H
#define GFIR_CLI_BATCH_MANIFEST_H

#include "batch/batch.h"
#include "batch/segment.h"
#include "batch/shard.h"

#include <stddef.h>

typedef struct manifest_job {
    size_t line;                /* in the manifest, from 1 */
    size_t index;               /* among the manifest's jobs, from 0: the shard's key */
    char *id;                   /* the row's id, else its output */
    char *input, *output;
    char *preset, *taps, *ir;   /* the row's filter (ir: the one file), or all NULL */
    double gain_db;
    cli_align align;            /* resolved: same, causal or full */
    char *format;               /* NULL: from OUTPUT's extension */
    char *filter;               /* the filter as gfir options: the plans' key */
    char *recipe;               /* filter plus alignment and format: what a receipt records */
    segment seg;                /* the part of INPUT (offset/duration or start/end), if any */
    uint64_t seed;              /* the row's seed, else --seed's */
} manifest_job;

typedef struct manifest {
    char *path;
    manifest_job *jobs;         /* this shard's, in manifest order */
    size_t njobs;
    size_t total;               /* jobs in the whole manifest */
} manifest;

/* Reads path's jobs that sh owns. 0; or 1 after one line per bad line
 * ("gfir: MANIFEST:LINE: why", the first few) and a count. */
int manifest_read(const batch_options *bo, const shard *sh, manifest *m);
void manifest_free(manifest *m);

#endif
