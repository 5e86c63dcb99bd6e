/*
 * taps.c - filter coefficients as text (--taps).
 *
 * Read a character at a time into a token of bounded length, and at most
 * TAPS_MAX_BYTES in all, so a file of any content (/dev/zero, one endless
 * line) costs memory for the coefficients it holds and nothing more.
 */
#include "filter/taps.h"
#include "gfir.h"
#include "message.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Longer than any number needs: 17 significant digits, a sign, an exponent. */
#define TOKEN_MAX 64
/* 32 bytes a coefficient at the most coefficients there may be: room for
 * any spacing and comments a real file has. */
#define TAPS_BYTES_PER_TAP 32

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

static int is_separator(int c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ',';
}

/* One token: a finite number a float can hold, appended. */
static int take(const char *name, size_t lineno, const char *tok, size_t max_taps, float **taps,
                size_t *ntaps, size_t *cap)
{
    char *end;
    double v = strtod(tok, &end);
    if (end == tok || *end)
        return cli_error("taps file '%s' line %zu: '%s' is not a number", name, lineno, tok);
    if (!isfinite(v) || fabs(v) > 3.4e38)
        return cli_error("taps file '%s' line %zu: '%s' is not a finite number", name, lineno,
                         tok);
    if (*ntaps == max_taps)
        return cli_error("taps file '%s' has more than %zu coefficients: the ceiling is %zu taps "
                         "(--max-taps N raises it)", name, max_taps, max_taps);
    if (push_tap(taps, ntaps, cap, v))
        return cli_error("taps file '%s': out of memory at line %zu", name, lineno);
    return 0;
}

int taps_read_text(FILE *fp, const char *name, size_t max_taps, float **taps, size_t *ntaps)
{
    const uint64_t max_bytes = (uint64_t)max_taps * TAPS_BYTES_PER_TAP;
    char tok[TOKEN_MAX + 1];
    size_t len = 0, cap = 0, lineno = 1;
    uint64_t bytes = 0;
    int c, comment = 0, rc = 1;

    *taps = NULL;
    *ntaps = 0;
    for (;;) {
        c = getc(fp);
        if (c != EOF && ++bytes > max_bytes) {
            cli_error("taps file '%s' is larger than %llu bytes (%d a tap for the ceiling of %zu "
                      "taps; --max-taps N raises it)", name, (unsigned long long)max_bytes,
                      TAPS_BYTES_PER_TAP, max_taps);
            goto done;
        }
        if (c == EOF || is_separator(c) || (c == '#' && !comment)) {
            tok[len] = '\0';
            if (len && take(name, lineno, tok, max_taps, taps, ntaps, &cap))
                goto done;
            len = 0;
            if (c == EOF)
                break;
            comment = c == '#' || (comment && c != '\n');
            lineno += c == '\n';
            continue;
        }
        if (comment)
            continue;
        if (c < 0x21 || c > 0x7e) {
            cli_error("taps file '%s' line %zu: byte 0x%02x is not text", name, lineno, c);
            goto done;
        }
        if (len == TOKEN_MAX) {
            tok[len] = '\0';
            cli_error("taps file '%s' line %zu: '%.20s...' is not a number", name, lineno, tok);
            goto done;
        }
        tok[len++] = (char)c;
    }
    if (ferror(fp)) {
        cli_error("cannot read taps file '%s': %s", name, strerror(errno));
        goto done;
    }
    if (*ntaps == 0) {
        cli_error("taps file '%s' has no coefficients", name);
        goto done;
    }
    rc = 0;
done:
    if (rc) {
        free(*taps);
        *taps = NULL;
        *ntaps = 0;
    }
    return rc;
}

int taps_load_text(const char *path, size_t max_taps, float **taps, size_t *ntaps)
{
    FILE *fp = fopen(path, "r");
    int rc;
    *taps = NULL;
    *ntaps = 0;
    if (!fp)
        return cli_error("cannot open taps file '%s': %s", path, strerror(errno));
    rc = taps_read_text(fp, path, max_taps, taps, ntaps);
    fclose(fp);
    return rc;
}
