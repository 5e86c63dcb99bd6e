/*
 * routespec.c - a [route] line into its terms (routespec.h).
 *
 * Words are split at white space and around '*'; a word that starts with +
 * or - before a letter (-in2) is that operator and the rest. A term is
 * factors joined by '*', and it must name one input.
 */
#include "filter/routespec.h"
#include "gfir.h"
#include "message.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct words {
    char *buf;
    char **w;                   /* into buf; a line of any length (a sum of 1024 inputs) */
    size_t n, at;
} words;

static void words_free(words *ws)
{
    free(ws->buf);
    free(ws->w);
    ws->buf = NULL;
    ws->w = NULL;
}

static int split(const char *where, const char *text, words *ws)
{
    size_t len = strlen(text);
    char *out = malloc(3 * len + 1), *o;
    /* words are separated, so at most half the rewritten text's bytes, plus one */
    ws->w = malloc((3 * len / 2 + 2) * sizeof *ws->w);
    ws->buf = NULL;
    ws->n = ws->at = 0;
    if (!out || !ws->w) {
        free(out);
        free(ws->w);
        ws->w = NULL;
        return cli_error("out of memory");
    }
    /* '*' becomes a word of its own; a sign before a name its own word too */
    o = out;
    for (const char *p = text; *p; p++) {
        const int starts_word = p == text || isspace((unsigned char)p[-1]) || p[-1] == '*';
        if (*p == '*') {
            *o++ = ' ';
            *o++ = '*';
            *o++ = ' ';
        } else if ((*p == '+' || *p == '-') && starts_word && isalpha((unsigned char)p[1])) {
            *o++ = *p;
            *o++ = ' ';
        } else {
            *o++ = *p;
        }
    }
    *o = '\0';
    ws->buf = out;
    ws->n = ws->at = 0;
    for (char *save, *tok = strtok_r(out, " \t", &save); tok;
         tok = strtok_r(NULL, " \t", &save))
        ws->w[ws->n++] = tok;
    if (ws->n == 0) {
        words_free(ws);
        return cli_error("%s: empty; write the sum of its inputs, as in1 * ir.wav", where);
    }
    return 0;
}

static const char *peek(const words *ws)
{
    return ws->at < ws->n ? ws->w[ws->at] : NULL;
}

static int is_op(const char *w)
{
    return w && (!strcmp(w, "+") || !strcmp(w, "-"));
}

/* A number, maybe with dB written on it or as the next word: 1 and *linear
 * set (dB made linear), else 0 with nothing taken. */
static int number(words *ws, double *linear, int *db)
{
    const char *w = peek(ws);
    char *end;
    double v;
    if (!w)
        return 0;
    v = strtod(w, &end);
    if (end == w || !isfinite(v) || (*end && strcasecmp(end, "db")))
        return 0;
    ws->at++;
    *db = *end != '\0';
    if (!*db && peek(ws) && !strcasecmp(peek(ws), "db")) {
        ws->at++;
        *db = 1;
    }
    *linear = *db ? pow(10.0, v / 20.0) : v;
    return 1;
}

/* inN: 1 and *channel (from 0), else 0. */
static int input_name(const char *w, unsigned *channel)
{
    char *end;
    unsigned long n;
    if (strncmp(w, "in", 2) || !isdigit((unsigned char)w[2]))
        return 0;
    n = strtoul(w + 2, &end, 10);
    if (*end || n == 0 || n > GFIR_MAX_CHANNELS)
        return 0;
    *channel = (unsigned)n - 1;
    return 1;
}

/* FILE or FILE[K] into the term. */
static int source(const char *where, const char *w, route_term *t)
{
    const size_t len = strlen(w);
    const char *open = strrchr(w, '[');
    size_t name_len = len;
    t->channel = ROUTE_WHOLE_FILE;
    if (len > 2 && w[len - 1] == ']' && open && open > w) {
        char *end;
        unsigned long k = strtoul(open + 1, &end, 10);
        if (end != w + len - 1 || !isdigit((unsigned char)open[1]) || k == 0 ||
            k > GFIR_MAX_CHANNELS)
            return cli_error("%s: '%s': a channel is FILE[K], K from 1", where, w);
        t->channel = (unsigned)k - 1;
        name_len = (size_t)(open - w);
    }
    t->file = strndup(w, name_len);
    return t->file ? 0 : cli_error("out of memory");
}

/* One term: factors joined by '*'. */
static int term(const char *where, words *ws, double sign, unsigned output, route_term *t)
{
    int have_input = 0;
    memset(t, 0, sizeof *t);
    t->output = output;
    t->gain = sign;
    t->channel = ROUTE_WHOLE_FILE;
    for (;;) {
        const char *w = peek(ws);
        double v;
        int db;
        unsigned in;
        if (!w || is_op(w) || !strcmp(w, "*"))
            return cli_error("%s: a factor is missing%s%s%s", where, w ? " before '" : " at the end",
                             w ? w : "", w ? "'" : "");
        if (number(ws, &v, &db)) {
            t->gain *= v;
        } else if (input_name(w, &in)) {
            if (have_input)
                return cli_error("%s: a term takes one input ('%s' is a second)", where, w);
            t->input = in;
            have_input = 1;
            ws->at++;
        } else if (!strncmp(w, "in", 2) && isdigit((unsigned char)w[2])) {
            return cli_error("%s: '%s': inputs are in1 to in%d", where, w, GFIR_MAX_CHANNELS);
        } else {
            if (t->file)
                return cli_error("%s: a term takes one IR file ('%s' is a second)", where, w);
            if (source(where, w, t))
                return 1;
            ws->at++;
        }
        if (!peek(ws) || strcmp(peek(ws), "*"))
            break;
        ws->at++;
    }
    if (!have_input)
        return cli_error("%s: a term needs an input (in1, in2, ...)", where);
    return 0;
}

static int push(route_term **terms, size_t *nterms, const route_term *t)
{
    route_term *grown = realloc(*terms, (*nterms + 1) * sizeof *grown);
    if (!grown)
        return cli_error("out of memory");
    *terms = grown;
    (*terms)[(*nterms)++] = *t;
    return 0;
}

int routespec_parse(const char *where, const char *text, unsigned output, route_term **terms,
                    size_t *nterms)
{
    words ws;
    route_term t;
    size_t first = *nterms;
    int rc = 1;
    double sign = 1;

    if (split(where, text, &ws))
        return 1;
    if (is_op(peek(&ws)))
        sign = !strcmp(ws.w[ws.at++], "-") ? -1 : 1;
    for (;;) {
        if (term(where, &ws, sign, output, &t))
            goto fail_term;
        if (push(terms, nterms, &t))
            goto fail_term;
        /* a gain on this term: "+ 3 dB", "- 6 dB", "-6dB" */
        for (;;) {
            const size_t at = ws.at;
            double g, s = 1;
            int db = 0;
            if (is_op(peek(&ws)))
                s = !strcmp(ws.w[ws.at++], "-") ? -1 : 1;
            if (peek(&ws) && number(&ws, &g, &db) && db) {
                (*terms)[*nterms - 1].gain *= s > 0 ? g : 1 / g;
                continue;
            }
            ws.at = at;
            break;
        }
        if (!peek(&ws))
            break;
        if (!is_op(peek(&ws))) {
            cli_error("%s: '%s': terms are joined by + or -", where, peek(&ws));
            goto fail;
        }
        sign = !strcmp(ws.w[ws.at++], "-") ? -1 : 1;
        if (!peek(&ws)) {
            cli_error("%s: a term is missing at the end", where);
            goto fail;
        }
    }
    rc = 0;
    goto done;
fail_term:
    free(t.file);
fail:
    for (size_t i = first; i < *nterms; i++)
        free((*terms)[i].file);
    *nterms = first;
done:
    words_free(&ws);
    return rc;
}
