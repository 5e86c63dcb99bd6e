/*
 * claims.h - the files a batch manifest's rows write and read, checked on
 * the file system: compared by identity (output_identity: device and inode
 * where the file exists, else its canonical name), however spelt. Each
 * output is a regular file or a new name, appears once, and is not standard
 * output, the manifest, anything under the receipts directory or its row's
 * input; no row's input, IR or taps file is another row's output, nor any
 * output a file that a job reads. manifest.c parses the rows; this keeps
 * what they claimed so far.
 */
#ifndef GFIR_CLI_BATCH_CLAIMS_H
#define GFIR_CLI_BATCH_CLAIMS_H

#include "file/output.h"

#include <stddef.h>
#include <stdint.h>

/* What a job does with a file: it writes an output and reads the rest. */
typedef enum file_role { ROLE_OUTPUT, ROLE_INPUT, ROLE_IR, ROLE_TAPS } file_role;

/* Files by identity, as two independent 64-bit hashes of it: a false match
 * needs both to collide (about n^2 / 2^129 for n files), and no name need
 * be kept. */
typedef struct seen_entry {
    uint64_t h1, h2;
    size_t line;                /* the first line that named it; 0: the command line */
    file_role role;
    int used;
} seen_entry;

typedef struct seen_set {
    seen_entry *slots;
    size_t cap, count;
} seen_set;

typedef struct claims {
    seen_set outputs;           /* every output so far */
    seen_set reads;             /* every input, IR and taps file so far */
    const char *receipts_given; /* the receipts directory as given, for messages */
    char manifest_key[OUTPUT_PATH_LEN];   /* the manifest's identity */
    char receipts[OUTPUT_PATH_LEN];       /* the receipts directory, canonical */
    char out_key[OUTPUT_PATH_LEN];        /* the current row's output's identity */
    char key[OUTPUT_PATH_LEN];            /* scratch: a file's identity */
    char *last_read, *last_read_key;      /* the last IR or taps file, and its identity */
} claims;

/* No claims yet, for the manifest and the receipts directory named so. */
void claims_init(claims *c, const char *manifest, const char *receipts);
/* A file the command line's filter reads (every row without a filter of its
 * own does). 1 without memory. */
int claims_add_read(claims *c, const char *path, file_role role);
/* The output and input of line's row; recorded when they may be. 0, or 1
 * with why the line is bad (or out of memory) in why. */
int claims_row(claims *c, size_t line, const char *input, const char *output, char *why,
               size_t len);
/* An IR or taps file the row (whose output claims_row took last) reads; path
 * may be NULL. 0, or 1 with why. */
int claims_read(claims *c, size_t line, const char *path, file_role role, const char *output,
                char *why, size_t len);
void claims_free(claims *c);

#endif
