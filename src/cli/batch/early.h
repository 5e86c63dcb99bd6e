/*
 * early.h - `gfir batch --early-ms MS`: beside each output, KEY.early.EXT,
 * the input through the same filter cut MS ms after its direct path: the
 * early-reverberation target that dereverberation and robust-ASR recipes
 * train against. The direct path is found as --ir-trim finds where to cut:
 * the first tap within EARLY_ONSET_DB of the largest (of any channel's set)
 * of the filter as folded and scaled (so --normalize scales both outputs
 * alike). The taps after it are zeros, not dropped: the filter keeps its
 * length, and the early output has the main one's length and alignment,
 * its segment included.
 */
#ifndef GFIR_CLI_BATCH_EARLY_H
#define GFIR_CLI_BATCH_EARLY_H

#include "batch/batch.h"
#include "batch/manifest.h"
#include "file/metadata.h"

#include <sndfile.h>
#include <stddef.h>

/* The direct path: the first tap within 20 dB of the largest. */
#define EARLY_ONSET_DB (-20.0)

/* output's early twin, KEY.early.EXT, into buf. 0, or 1 when it is too long. */
int early_path(const char *output, char *buf, size_t n);

/* Renders j's early output beside output (the main one's path: its scratch
 * file with --tar, whose early twin is a scratch file too) on GPU gpu where
 * its plans take one, in out_info's format with meta's tags. 0, or 1 after
 * one line. */
int early_render(const batch_options *bo, const manifest_job *j, const char *output,
                 int scratch, size_t block, int gpu, const SF_INFO *out_info,
                 const file_metadata *meta);

#endif
