/*
 * file.h - the offline job: INPUT through the filter into OUTPUT.
 */
#ifndef GFIR_CLI_FILE_H
#define GFIR_CLI_FILE_H

#include "cli.h"

#include <sndfile.h>

int cli_run_file(const cli_options *o);
/* Opens INPUT for reading: one line and 1 when it is missing, a directory,
 * empty, not sound or without frames. */
int cli_open_input(const char *path, SNDFILE **sf, SF_INFO *info);
/* A sound file's sample rate, channels and length, without reading it. */
int cli_input_shape(const char *path, double *rate_hz, unsigned *channels, size_t *frames);

#endif
