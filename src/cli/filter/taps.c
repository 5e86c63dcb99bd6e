/*
 * taps.c - filter coefficients as text (--taps).
 */
#include "filter/taps.h"
#include "gfir.h"
#include "message.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int push_tap(float **taps, size_t *n, size_t *cap, double v)
{
    if (*n == *cap) {
        size_t grow = *cap ? *cap * 2 : 256;
        float *t = realloc(*taps, grow * sizeof *t);
        if (!t)
            return -1;
        *taps = t;
        *cap = grow;
    }
    (*taps)[(*n)++] = (float)v;
    return 0;
}

/* Numbers separated by whitespace, commas or newlines; '#' starts a comment. */
int taps_load_text(const char *path, float **taps, size_t *ntaps)
{
    FILE *fp = fopen(path, "r");
    char *line = NULL;
    size_t linecap = 0, cap = 0, lineno = 0;
    int rc = 1;

    *taps = NULL;
    *ntaps = 0;
    if (!fp)
        return cli_error("cannot open taps file '%s': %s", path, strerror(errno));
    while (getline(&line, &linecap, fp) >= 0) {
        lineno++;
        line[strcspn(line, "#")] = '\0';
        for (char *tok = strtok(line, " \t\r\n,"); tok; tok = strtok(NULL, " \t\r\n,")) {
            char *end;
            double v = strtod(tok, &end);
            if (end == tok || *end) {
                cli_error("taps file '%s' line %zu: '%s' is not a number", path, lineno, tok);
                goto done;
            }
            if (!isfinite(v) || fabs(v) > 3.4e38) {
                cli_error("taps file '%s' line %zu: '%s' is not a finite number", path, lineno,
                          tok);
                goto done;
            }
            if (push_tap(taps, ntaps, &cap, v)) {
                cli_error("taps file '%s': out of memory at line %zu", path, lineno);
                goto done;
            }
        }
    }
    if (ferror(fp)) {
        cli_error("cannot read taps file '%s': %s", path, strerror(errno));
        goto done;
    }
    if (*ntaps == 0) {
        cli_error("taps file '%s' has no coefficients", path);
        goto done;
    }
    if (*ntaps > GFIR_MAX_TAPS) {
        cli_error("taps file '%s' has %zu coefficients; at most %zu are allowed", path, *ntaps,
                  (size_t)GFIR_MAX_TAPS);
        goto done;
    }
    rc = 0;
done:
    free(line);
    fclose(fp);
    if (rc) {
        free(*taps);
        *taps = NULL;
        *ntaps = 0;
    }
    return rc;
}
