/*
 * table.h - a batch manifest's lines as records of named fields. Three
 * layouts, told apart by the first line that is not blank: a JSON object
 * starts JSONL (one object a line, NeMo's manifests); otherwise it is a
 * header, tab-separated (TSV, no quoting) when it holds a tab, else CSV
 * (comma-separated, RFC 4180 quoting, no field running over a line end).
 * Blank lines are skipped; a UTF-8 byte order mark and CRLF line ends are
 * accepted. Lines are streamed: memory does not grow with the file, and a
 * line longer than TABLE_MAX_LINE_BYTES, a NUL byte or more than
 * TABLE_MAX_LINES lines stop the reading with an error (a manifest is text;
 * its fields are paths and short values).
 */
#ifndef GFIR_CLI_BATCH_TABLE_H
#define GFIR_CLI_BATCH_TABLE_H

#include "batch/json.h"

#include <stdio.h>

/* 16 paths of PATH_MAX and the other fields fit a line with room to spare. */
#define TABLE_MAX_LINE_BYTES 65536
/* 16.7 M lines: more jobs than one manifest needs (a larger corpus is
 * several manifests); bounds what a stream of blank lines can cost. */
#define TABLE_MAX_LINES ((size_t)1 << 24)

typedef enum table_layout { TABLE_TSV, TABLE_CSV, TABLE_JSONL } table_layout;

typedef struct table_reader {
    FILE *f;
    table_layout layout;
    size_t line;                /* of the record or error last returned, 1-based */
    char error[160];            /* why the last call failed */
    int io_error;               /* the file could not be read on: stop */
    char **columns;             /* TSV/CSV: the header's names */
    size_t ncolumns;
    char **values;              /* TSV/CSV: this record's, one per column */
    json_object obj;            /* JSONL: this record */
    char *buf;                  /* the line as read */
    size_t bufcap;
    char *fields;               /* TSV/CSV: the line split into NUL-terminated fields */
    size_t fieldscap;
    int started;
} table_reader;

/* Opens path and reads up to its header (TSV/CSV). 0, or 1 with t->error
 * (and t->line when a line is at fault). */
int table_open(table_reader *t, const char *path);
/* The next record: 1 with its fields ready, 0 at the end, -1 when the line
 * is malformed (t->error says why; the next call goes on after it). */
int table_next(table_reader *t);
/* A field of the current record: 1 with *value set (empty fields and JSON
 * null count as absent: 0), -1 when a JSON value is not a string or number. */
int table_get(const table_reader *t, const char *key, const char **value);
void table_close(table_reader *t);

#endif
