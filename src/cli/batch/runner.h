/*
 * runner.h - a shard's jobs run: those not done yet, on a few workers, each
 * keeping the plans of its last few filters (reset between files, not
 * rebuilt) and running its file through render.h's reader, filter and writer
 * threads. Jobs are taken in the order of their filters, so a worker mostly
 * finds its plans made. The calling thread gathers what the workers finish:
 * one line per failed job, receipts appended in groups, a progress bar on a
 * terminal and a summary at the end.
 */
#ifndef GFIR_CLI_BATCH_RUNNER_H
#define GFIR_CLI_BATCH_RUNNER_H

#include "batch/batch.h"
#include "batch/manifest.h"
#include "batch/receipt.h"
#include "batch/shard.h"

/* The exit code: 0 when every job of m is done, else 1. */
int batch_run(const batch_options *bo, const shard *sh, const manifest *m, receipt_book *book);
/* j's filter as the command line and its row give it, or NULL after one line. */
struct cli_filter *batch_filter_for(const batch_options *bo, const manifest_job *j);

#endif
