/*
 * receipt.h - what is finished: one JSON line per output in a file per
 * shard, DIR/shard-K-of-N.jsonl. A line is written only after its output was
 * renamed into place and the rename synced to disk, so a receipt always
 * names a whole output; an output renamed but not yet receipted when the
 * process died is simply made again. A run skips a job when some shard's
 * receipt names the same input, output and recipe (filter, alignment,
 * format), the output file still has the size and modification time the
 * receipt recorded, and INPUT those it had when the job began (--force: none
 * is skipped). Concatenated in manifest order (--merge), the receipts
 * are a JSONL manifest of the outputs.
 */
#ifndef GFIR_CLI_BATCH_RECEIPT_H
#define GFIR_CLI_BATCH_RECEIPT_H

#include "batch/json.h"
#include "batch/manifest.h"
#include "batch/shard.h"

#include <stdint.h>

/* A finished job, as its receipt records it. */
typedef struct receipt_facts {
    uint64_t frames;            /* written */
    unsigned rate_hz, channels;
    double peak;                /* largest magnitude before clipping */
    uint64_t clipped;           /* samples clipped */
    double seconds;             /* the job's wall time */
    uint64_t bytes;             /* the output file's size, as written */
    int64_t mtime_ns;           /* and modification time, since the epoch */
    uint64_t input_bytes;       /* INPUT's size and modification time when the job */
    int64_t input_mtime_ns;     /* began (receipt_stat_input) */
    /* samples that were not finite: INPUT's (filtered as silence) and the
     * output's (an overflow) */
    uint64_t nonfinite_in, nonfinite_out;
    const char *tar;            /* --tar: the shard the output is a member of (bytes and
                                   mtime_ns are then the shard's), else NULL */
} receipt_facts;

typedef struct receipt {
    char *output, *input, *recipe;
    uint64_t bytes;
    int64_t mtime_ns;
    uint64_t input_bytes;       /* UINT64_MAX: not recorded (an older gfir's receipt) */
    int64_t input_mtime_ns;
    char *text;                 /* the line, without its line end */
    char *tar;                  /* the tar shard holding the output, or NULL: bytes and
                                   mtime_ns are that file's */
} receipt;

typedef struct receipt_book {
    char *dir;
    char *path;                 /* this shard's file, or NULL when only reading */
    char own_name[64];          /* its name in dir */
    int fd;                     /* open on path for appending, locked; -1 when none */
    receipt *items;             /* every shard's receipts */
    size_t nitems, cap;
    size_t *index;              /* open addressing over items by output; SIZE_MAX: empty */
    size_t index_cap;
    int force;                  /* --force: receipts_find finds nothing, every job is redone */
} receipt_book;

/* Reads every shard's receipts in dir. With sh, also creates dir as needed,
 * opens and locks this shard's file (refusing when another process holds it)
 * and cuts off a line that a killed process left half-written. 0, or 1
 * after one line on stderr. */
int receipts_open(receipt_book *b, const char *dir, const shard *sh);
/* The receipt that says j is done and still on disk as recorded, from an
 * INPUT that still has the size and time it had then, or NULL. */
const receipt *receipts_find(const receipt_book *b, const manifest_job *j);
/* INPUT's size and modification time now, into f, for a job about to read
 * it: taken before the reading, so an INPUT changed meanwhile is redone
 * next time rather than taken as done. 0, or 1 when it cannot be stated. */
int receipt_stat_input(const char *input, receipt_facts *f);
/* j's receipt line (with its line end) into out. */
void receipt_format(json_buf *out, const manifest_job *j, const receipt_facts *f);
/* Appends complete lines to this shard's file and syncs them to disk; when
 * either fails, cuts them off again (the jobs they vouch for are not done). */
int receipts_append(receipt_book *b, const char *text, size_t len);
void receipts_close(receipt_book *b);

#endif
