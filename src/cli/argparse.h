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

/*
 * A file name that begins with '-' but cannot be a cluster of short options,
 * because a character in it is no option and it has a '.' ("-v.wav": there
 * is no option '.'), is an operand: getopt would take it apart into -v and
 * an unknown '-.'. cli_names_hide swaps such arguments (not those after
 * "--", nor an option's value) for stand-ins getopt passes by; after the
 * options are parsed, cli_names_restore puts the names back among the
 * operands. A word like "-x" stays an unknown option.
 */
#define CLI_NAMES_MAX 8
typedef struct cli_names {
    char *name[CLI_NAMES_MAX];
    char *stand_in[CLI_NAMES_MAX];
    int n;
} cli_names;
void cli_names_hide(int argc, char **argv, const char *shortopts,
                    const struct option *longopts, cli_names *h);
void cli_names_restore(int argc, char **argv, cli_names *h);

#endif
