/*
 * segment.h - a manifest row's part of its INPUT: `offset` and `duration`
 * in seconds (Lhotse's cuts, NeMo's manifests) or `start` and `end` in
 * frames (end exclusive); a duration without an offset is NeMo's length of
 * the whole file, not a segment (write offset 0). The output is exactly those frames of the whole
 * reverberated file as --align lays it out: the IR's history from before
 * the segment is in it, and with --align full its tail after it, the input
 * after the segment included. Only the frames that make it are read: from
 * the segment's start less the filter's length.
 */
#ifndef GFIR_CLI_BATCH_SEGMENT_H
#define GFIR_CLI_BATCH_SEGMENT_H

#include "cli.h"
#include "file/render.h"

#include <sndfile.h>

#include <stddef.h>
#include <stdint.h>

typedef enum segment_unit { SEGMENT_NONE, SEGMENT_SECONDS, SEGMENT_FRAMES } segment_unit;

typedef struct segment {
    segment_unit unit;
    int has_from, has_to;       /* which ends the row gave (else INPUT's start or end) */
    double offset_s, duration_s;
    uint64_t start, end;
} segment;

/* The row's values (NULL where absent) into *s. 0, or 1 with why. */
int segment_parse(const char *offset, const char *duration, const char *start, const char *end,
                  segment *s, char *why, size_t nwhy);

/* What to do for INPUT of `frames` frames at rate_hz through a filter of
 * ntaps taps, aligned as align says. */
typedef struct segment_plan {
    uint64_t from, to;          /* INPUT's frames of the segment, [from, to) */
    uint64_t seek;              /* the first frame read */
    uint64_t read;              /* frames read from there */
    uint64_t drop;              /* filtered frames (aligned as --align causal) dropped first */
    uint64_t frames;            /* frames written */
} segment_plan;

/* 0, or 1 with why (the segment is empty or ends after INPUT). */
int segment_resolve(const segment *s, unsigned rate_hz, uint64_t frames, cli_align align,
                    size_t ntaps, segment_plan *p, char *why, size_t nwhy);

/* A segment's row (else nothing): INPUT (named input, open as in) seeked
 * to the first frame the segment needs, and t told how much to read, drop
 * and write. 0, or 1 after one line. */
int segment_seek(const segment *s, const char *input, cli_align align, SNDFILE *in,
                 const SF_INFO *info, size_t ntaps, render_target *t);

/* The segment as it enters a receipt's recipe ("--offset 1.5 --duration 2"),
 * written to buf; "" for none. */
void segment_describe(const segment *s, char *buf, size_t n);
/* x in the fewest digits (6 at least) that read back as x, as the recipes
 * write numbers. */
void segment_shortest(char *buf, size_t n, double x);

#endif
