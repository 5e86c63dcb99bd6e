/*
 * file.h - the offline job: INPUT through the filter into OUTPUT.
 */
#ifndef GFIR_CLI_FILE_H
#define GFIR_CLI_FILE_H

#include "cli.h"

int cli_run_file(const cli_options *o);
/* A sound file's sample rate, channels and length, without reading it. */
int cli_input_shape(const char *path, double *rate_hz, unsigned *channels, size_t *frames);

#endif
