/*
 * file.h - the offline job: INPUT through the filter into OUTPUT; and INPUT
 * itself, opened once for everything that reads it (a FIFO or a pipe can be
 * read only once).
 */
#ifndef GFIR_CLI_FILE_H
#define GFIR_CLI_FILE_H

#include "cli.h"

#include <sndfile.h>
#include <stdint.h>

typedef struct cli_input {
    const char *path;           /* as given; "-" is standard input */
    SNDFILE *sf;
    SF_INFO info;
    int fd;                     /* what sf reads, closed with it; -1 for standard input */
    int pipe;                   /* not a regular file: its length is known only at its end */
} cli_input;

/* Opens INPUT ("-": standard input) as sound, refuses a rate outside
 * CLI_MIN_RATE_HZ..CLI_MAX_RATE_HZ and a format libsndfile cannot read from
 * a pipe, and says (one line) when a WAV or AIFF file holds less than its
 * header claims. One line and 1 on failure. */
int cli_input_open(const char *path, cli_input *in);
void cli_input_close(cli_input *in);
/* Frames INPUT holds, or 0 when that is known only at the end (a pipe). */
uint64_t cli_input_frames(const cli_input *in);

/* Filters o->input into o->output. */
int cli_run_file(const cli_options *o);
/* The same with INPUT already open; in is read to its end, not closed. */
int cli_run_file_from(const cli_options *o, cli_input *in);

#endif
