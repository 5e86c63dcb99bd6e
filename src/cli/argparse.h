/*
 * argparse.h - what gfir's option parsers (gfir's own and gfir batch's) share:
 * usage errors, whole numbers, numbers and choices, and getopt's complaints.
 * Each prints one line on stderr and then the command's usage line, and
 * returns 2, the exit status for wrong usage.
 */
#ifndef GFIR_CLI_ARGPARSE_H
#define GFIR_CLI_ARGPARSE_H

#include "gfir.h"

#include <getopt.h>

typedef struct cli_args {
    const char *usage;          /* "usage: gfir [options] INPUT OUTPUT" */
    const char *help;           /* where the whole page is: "gfir --help" */
} cli_args;

/* The usage line and where help is, on stderr. */
void cli_args_hint(const cli_args *a);
int cli_usage_error(const cli_args *a, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* 0 and *out set, or a usage error. */
int cli_arg_double(const cli_args *a, const char *opt, const char *arg, double *out);
int cli_arg_whole(const cli_args *a, const char *opt, const char *arg, unsigned long long lo,
                  unsigned long long hi, unsigned long long *out);
int cli_arg_choice(const cli_args *a, const char *opt, const char *arg,
                   const char *const *names, int *out);
/* --backend and --kernel by the library's names. */
int cli_arg_backend(const cli_args *a, const char *arg, gfir_backend *out);
int cli_arg_kernel(const cli_args *a, const char *arg, gfir_kernel *out);

/* getopt_long, with one-line complaints about unknown options and missing
 * values: the next option, -1 after the last, or CLI_ARGS_BAD once the
 * complaint is printed (exit with 2). */
#define CLI_ARGS_BAD (-2)
int cli_next_option(const cli_args *a, int argc, char **argv, const char *shortopts,
                    const struct option *longopts);

#endif
