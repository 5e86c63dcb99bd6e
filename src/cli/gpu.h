/*
 * gpu.h - naming GPUs on the command line: --gpu N (gfir, gfir batch) and
 * gfir batch's --gpus all|LIST. An ordinal is one of the CUDA devices this
 * process sees, as gfir_config.device takes it: CUDA_VISIBLE_DEVICES hides
 * and renumbers devices before gfir counts them, so with
 * CUDA_VISIBLE_DEVICES=2,3 the GPUs are 0 and 1.
 */
#ifndef GFIR_CLI_GPU_H
#define GFIR_CLI_GPU_H

#include "argparse.h"

#include <stddef.h>

/* The most GPUs one list names. */
#define CLI_MAX_GPUS 64

/* The GPUs spec names ("all", or ordinals separated by commas; max 1
 * for --gpu, which takes one ordinal) among visible ones, into
 * ordinals[0..*n). opt is the option, for the message; no_gpu says why
 * none is visible. 0, or 2 with why set when spec is no such list (wrong
 * usage), or 1 when this host lacks a GPU it names (the same command runs
 * on a host that has it). Pure: the count is given, so that every answer
 * can be tested without a GPU. */
int cli_gpu_list(const char *opt, const char *spec, int max, int visible, const char *no_gpu,
                 int *ordinals, int *n, char *why, size_t len);

/* The CUDA devices this process may use now (gfir_backend_devices). */
int cli_gpus_visible(void);
/* Why this process sees no GPU, for a message. */
const char *cli_no_gpu_reason(void);

/* --gpu N or --gpus LIST: 0 and the ordinals set, else one line and the
 * exit code (2 wrong usage, 1 a GPU this host lacks). Without host, only
 * the spelling is checked ("all" then names none): parsers check the host
 * once every usage error has had its say. */
int cli_arg_gpus(const cli_args *a, const char *opt, const char *arg, int max, int host,
                 int *ordinals, int *n);

#endif
