/*
 * argparse.c - option parsing shared by gfir's parsers (argparse.h).
 */
#include "argparse.h"
#include "message.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cli_args_hint(const cli_args *a)
{
    fprintf(stderr, "%s   (%s for more)\n", a->usage, a->help);
}

int cli_usage_error(const cli_args *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cli_vmessage(fmt, ap);
    va_end(ap);
    cli_args_hint(a);
    return 2;
}

int cli_arg_double(const cli_args *a, const char *opt, const char *arg, double *out)
{
    char *end;
    double v = strtod(arg, &end);
    if (end == arg || *end || !isfinite(v))
        return cli_usage_error(a, "%s %s: not a number", opt, arg);
    *out = v;
    return 0;
}

int cli_arg_whole(const cli_args *a, const char *opt, const char *arg, unsigned long long lo,
                  unsigned long long hi, unsigned long long *out)
{
    char *end;
    unsigned long long v;
    errno = 0;
    v = strtoull(arg, &end, 10);
    if (end == arg || *end || errno || arg[0] == '-' || arg[0] == '+' || v < lo || v > hi)
        return cli_usage_error(a, "%s %s: want a whole number from %llu to %llu", opt, arg, lo,
                               hi);
    *out = v;
    return 0;
}

int cli_arg_choice(const cli_args *a, const char *opt, const char *arg,
                   const char *const *names, int *out)
{
    for (int i = 0; names[i]; i++) {
        if (!strcmp(arg, names[i])) {
            *out = i;
            return 0;
        }
    }
    return cli_usage_error(a, "%s %s: unknown value (%s lists the choices)", opt, arg, a->help);
}

int cli_arg_backend(const cli_args *a, const char *arg, gfir_backend *out)
{
    if (gfir_backend_from_name(arg, out) != GFIR_OK)
        return cli_usage_error(a, "--backend %s: unknown backend (auto, cpu, cuda)", arg);
    return 0;
}

int cli_arg_kernel(const cli_args *a, const char *arg, gfir_kernel *out)
{
    if (gfir_kernel_from_name(arg, out) != GFIR_OK)
        return cli_usage_error(a, "--kernel %s: unknown kernel (gfir --help lists them)", arg);
    return 0;
}

int cli_next_option(const cli_args *a, int argc, char **argv, const char *shortopts,
                    const struct option *longopts)
{
    int c;
    opterr = 0;
    c = getopt_long(argc, argv, shortopts, longopts, NULL);
    if (c == '?') {
        if (optopt) {
            char opt[3] = {'-', (char)optopt, '\0'};
            cli_usage_error(a, "unknown option '%s'", opt);
        } else {
            cli_usage_error(a, "unknown option '%s'", argv[optind - 1]);
        }
        return CLI_ARGS_BAD;
    }
    if (c == ':') {
        cli_usage_error(a, "option '%s' needs a value", argv[optind - 1]);
        return CLI_ARGS_BAD;
    }
    return c;
}
