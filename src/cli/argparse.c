/*
 * argparse.c - option parsing shared by gfir's parsers (argparse.h).
 */
#include "argparse.h"
#include "message.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cli_args_hint(const cli_args *a)
{
    cli_line("%s   (%s for more)", a->usage, a->help);
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

/* Whether word (after its '-') is a cluster getopt takes as options: every
 * character an option, up to one that takes a value (the rest of it).
 * *value_next: the last takes its value from the next argument. */
static int is_cluster(const char *word, const char *shortopts, int *value_next)
{
    *value_next = 0;
    for (const char *c = word; *c; c++) {
        const char *o = *c == ':' ? NULL : strchr(shortopts, *c);
        if (!o)
            return 0;
        if (o[1] == ':') {
            *value_next = c[1] == '\0';
            return 1;
        }
    }
    return 1;
}

/* Whether "--name" (no '=') takes the next argument as its value. */
static int long_takes_next(const char *name, const struct option *longopts)
{
    const size_t len = strlen(name);
    for (const struct option *o = longopts; o->name; o++)
        if (!strncmp(o->name, name, len) && o->has_arg == required_argument)
            return 1;
    return 0;
}

void cli_names_hide(int argc, char **argv, const char *shortopts,
                    const struct option *longopts, cli_names *h)
{
    h->n = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int value_next;
        if (!strcmp(a, "--"))
            return;
        if (a[0] != '-' || a[1] == '\0')
            continue;
        if (a[1] == '-') {
            i += !strchr(a, '=') && long_takes_next(a + 2, longopts);
            continue;
        }
        if (is_cluster(a + 1, shortopts, &value_next)) {
            i += value_next;
            continue;
        }
        if (strchr(a, '.') && h->n < CLI_NAMES_MAX) {
            char *stand_in = strdup(a + 1); /* no '-': an operand to getopt */
            if (!stand_in)
                return;
            h->name[h->n] = argv[i];
            h->stand_in[h->n++] = stand_in;
            argv[i] = stand_in;
        }
    }
}

void cli_names_restore(int argc, char **argv, cli_names *h)
{
    for (int k = 0; k < h->n; k++) {
        for (int i = 1; i < argc; i++)
            if (argv[i] == h->stand_in[k])
                argv[i] = h->name[k];
        free(h->stand_in[k]);
    }
    h->n = 0;
}
