/*
 * args.h - `gfir batch` options (the help page lists them).
 */
#ifndef GFIR_CLI_BATCH_ARGS_H
#define GFIR_CLI_BATCH_ARGS_H

#include "batch/batch.h"

/* argv[0] is "batch". 0 to go on, else the exit code (2 for a usage error,
 * 1 for a preset that does not load); after --help, 0 with
 * bo->engine.answered set: nothing more to do. */
int batch_parse_args(int argc, char **argv, batch_options *bo);

#endif
