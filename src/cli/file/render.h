/*
 * render.h - one job's work: an open INPUT through a chain of plans into
 * OUTPUT, as `gfir INPUT OUTPUT` does once and `gfir batch` does for every
 * line of a manifest, on plans it keeps from file to file.
 *
 * The writer drops the frames that alignment removes (the engine's latency
 * and, for --align same, the filter's delay), the tail makes them up at the
 * end, 8- and 16-bit output is dithered and clipping counted, and OUTPUT
 * appears whole or not at all (output.h). Reading, filtering and writing
 * overlap (pipeline.h).
 */
#ifndef GFIR_CLI_RENDER_H
#define GFIR_CLI_RENDER_H

#include "chain.h"
#include "file/metadata.h"
#include "progress.h"

#include <sndfile.h>
#include <stdint.h>

typedef struct render_target {
    const char *output;         /* OUTPUT */
    const SF_INFO *info;        /* its format (format_choose) */
    const file_metadata *meta;  /* INPUT's tags and layout, or NULL */
    cli_align align;            /* same, causal or full */
    int no_dither;
    size_t block;               /* frames per block */
    int whole_input;            /* an INPUT that ends short of what its header promised
                                   fails, OUTPUT as it was (gfir batch: no job's output
                                   comes from a damaged file); else it is filtered as far
                                   as it goes and frames_in tells */
    /* A segment (gfir batch): INPUT, already seeked, is read for seg_read
     * frames only; the writer drops seg_drop frames more than alignment's
     * and writes seg_frames frames, the tail that seg_read's end owes
     * included. seg_frames 0: the whole file, as align says. */
    uint64_t seg_read, seg_drop, seg_frames;
    int scratch;                /* OUTPUT is a scratch file (output_file.scratch) */
    int rate_hz;                /* OUTPUT's rate when INPUT is resampled to it (--rate,
                                   resample.h), else 0: INPUT's */
    const char *format;         /* --format, for its encoder's quality, or NULL */
} render_target;

typedef struct render_result {
    uint64_t written;           /* frames */
    uint64_t clipped;           /* samples clipped */
    float clip_peak;            /* largest magnitude among them, else 0 */
    float peak;                 /* largest magnitude written, before clipping */
    uint64_t frames_in;         /* frames read from INPUT, at its rate */
    /* samples that were not finite: INPUT's (filtered as silence) and the
     * output's (an overflow), each with the first one's interleaved index */
    uint64_t nonfinite_in, first_nonfinite_in;
    uint64_t nonfinite_out, first_nonfinite_out;
    int streamed;               /* OUTPUT was written straight through (a pipe, a device) */
    uint64_t bytes;             /* else the file as written, before its rename: its size */
    int64_t mtime_ns;           /* and modification time, since the epoch */
    int clips;                  /* its samples were held to full scale (integer formats):
                                   NaN went out as silence, infinities as full scale */
} render_result;

/*
 * OUTPUT's format (format_choose's for INPUT, already in *out_info) again
 * where chain routes to other channels than INPUT's: the same choice for
 * chain->out_channels, its notes not said twice, and INPUT's channel layout
 * dropped from meta (it described channels that are not there any more).
 * 0, or 1 after one line (a format that cannot hold so many channels).
 */
int render_route_format(const char *format, const char *output, const SF_INFO *in_info,
                        const cli_chain *chain, file_metadata *meta, SF_INFO *out_info);

/*
 * Filters in (named input in messages, `channels` channels) through chain,
 * new or reset, into t->output, whose t->info has the chain's out_channels.
 * pg, when not NULL, follows the input frames read. 0, or 1 after one line
 * on stderr; OUTPUT is then as it was.
 */
int render_file(SNDFILE *in, const char *input, unsigned channels, cli_chain *chain,
                const render_target *t, progress *pg, render_result *res);

#endif
