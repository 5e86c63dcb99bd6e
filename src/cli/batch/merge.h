/*
 * merge.h - every shard's receipts as one JSONL manifest of the outputs, in
 * the manifest's order: the check, after a job array, that every job was
 * done exactly once.
 */
#ifndef GFIR_CLI_BATCH_MERGE_H
#define GFIR_CLI_BATCH_MERGE_H

#include "batch/manifest.h"
#include "batch/receipt.h"

/* Writes one receipt per job of m (the whole manifest) to path, whole or not
 * at all. 0; or 1 after a line per job without a valid receipt (the first
 * few) and a count, and path is not written. path may be no file of the
 * batch's own (the manifest, anything in the receipts directory, a job's
 * input, output, IR or taps), however spelt: one line and 1. */
int batch_merge(const manifest *m, const receipt_book *book, const char *path);
/* path (given as option `what`) is no file that the batch reads or writes:
 * not the manifest, nothing in the receipts directory, no job's input,
 * output, IR or taps file, by identity (output.h), however spelt. One line
 * and 1 when it is one. */
/* text into path (named `what` in messages), whole or not at all: a
 * temporary file renamed, removed on a signal. 0, or 1 after one line. */
int batch_write_whole(const char *what, const char *path, const json_buf *text);
int batch_check_target(const manifest *m, const receipt_book *book, const char *path,
                       const char *what);

#endif
