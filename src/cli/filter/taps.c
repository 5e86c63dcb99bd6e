/*
 * taps.c - filter coefficients as text (--taps).
 *
 * Read a character at a time into a token of bounded length, and at most
 * TAPS_MAX_BYTES in all, so a file of any content (/dev/zero, one endless
 * line) costs memory for the coefficients it holds and nothing more.
 *
 * A long filter's text is on the critical path of a file's run: 262143
 * taps took 40 ms before the first block was filtered (perf, 2026-11-27),
 * mostly strtod and getc's locking. Bytes come from the stream in chunks,
 * and plain decimals take Clinger's exact fast path (parse_plain), which
 * gives strtod's very double; anything else goes to strtod.
 */
#include "filter/taps.h"
#include "gfir.h"
#include "message.h"

#include <errno.h>
#include <float.h>
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

/* Powers of ten a double holds exactly. */
static const double exact_pow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                     1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                     1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
#define MAX_EXACT_POW10 22

/* The value of a plain decimal token ([sign] digits [. digits] [e [sign]
 * digits]) whose significant digits make an integer m up to 2^53 and whose
 * scale is a power of ten up to 10^22: both are exact doubles, so one
 * division or multiplication rounds the true value once, to nearest, as
 * strtod does (Clinger, 1990). 1 with *out set, or 0 for any other token,
 * which strtod then reads. Only where double arithmetic is evaluated in
 * double (FLT_EVAL_METHOD 0): x87's extended registers would round twice. */
static int parse_plain(const char *s, double *out)
{
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD == 0
    uint64_t m = 0;
    long scale = 0, e = 0;
    int neg = 0, eneg = 0, digits = 0, any = 0, point = 0;
    double v;
    if (*s == '+' || *s == '-')
        neg = *s++ == '-';
    for (;; s++) {
        if (*s == '.' && !point) {
            point = 1;
            continue;
        }
        if (*s < '0' || *s > '9')
            break;
        any = 1;
        scale -= point;
        if (m == 0 && *s == '0')
            continue; /* a leading zero: no significant digit */
        if (++digits > 19)
            return 0;
        m = m * 10 + (uint64_t)(*s - '0');
    }
    if (!any)
        return 0;
    if (*s == 'e' || *s == 'E') {
        s++;
        if (*s == '+' || *s == '-')
            eneg = *s++ == '-';
        if (*s < '0' || *s > '9')
            return 0;
        for (; *s >= '0' && *s <= '9'; s++)
            if ((e = e * 10 + (*s - '0')) > 1000)
                return 0;
        scale += eneg ? -e : e;
    }
    if (*s || m > (UINT64_C(1) << 53) || scale < -MAX_EXACT_POW10 || scale > MAX_EXACT_POW10)
        return 0;
    v = (double)m;
    v = scale < 0 ? v / exact_pow10[-scale] : v * exact_pow10[scale];
    *out = neg ? -v : v;
    return 1;
#else
    (void)s;
    (void)out;
    return 0;
#endif
}

int taps_number(const char *tok, double *v)
{
    char *end;
    if (parse_plain(tok, v))
        return 1;
    *v = strtod(tok, &end);
    return end != tok && !*end;
}

static int is_separator(int c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ',';
}

/* One token: a finite number a float can hold, appended. */
static int take(const char *name, size_t lineno, const char *tok, size_t max_taps, float **taps,
                size_t *ntaps, size_t *cap)
{
    double v;
    if (!taps_number(tok, &v))
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

/* The stream's bytes a chunk at a time: getc takes the stream's lock for
 * every byte. */
typedef struct byte_source {
    FILE *fp;
    size_t at, len;
    unsigned char buf[1 << 14];
} byte_source;

static int next_byte(byte_source *b)
{
    if (b->at == b->len) {
        b->len = fread(b->buf, 1, sizeof b->buf, b->fp);
        b->at = 0;
        if (b->len == 0)
            return EOF;
    }
    return b->buf[b->at++];
}

int taps_read_text(FILE *fp, const char *name, size_t max_taps, float **taps, size_t *ntaps)
{
    const uint64_t max_bytes = (uint64_t)max_taps * TAPS_BYTES_PER_TAP;
    byte_source src;
    char tok[TOKEN_MAX + 1];
    size_t len = 0, cap = 0, lineno = 1;
    uint64_t bytes = 0;
    int c, comment = 0, rc = 1;

    src.fp = fp;
    src.at = src.len = 0;
    *taps = NULL;
    *ntaps = 0;
    for (;;) {
        c = next_byte(&src);
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
