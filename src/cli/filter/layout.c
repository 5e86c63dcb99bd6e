/*
 * layout.c - channel layouts and routed chains folded (layout.h).
 */
#include "filter/layout.h"
#include "message.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int add_path(stage_design *sd, unsigned in, unsigned out, unsigned set, double gain)
{
    gfir_path *p = realloc(sd->paths, (sd->npaths + 1) * sizeof *p);
    if (!p)
        return cli_error("out of memory");
    sd->paths = p;
    sd->paths[sd->npaths++] = (gfir_path){in, out, set, (float)gain};
    return 0;
}

static int ir_refused(const char *name, unsigned n, unsigned width)
{
    return cli_error("IR '%s' has %u channels but the signal has %u; an IR takes 1 channel "
                     "(it filters every channel), %u (one to one), any number on a mono "
                     "signal (one output each), or 4 on a stereo signal (true stereo); for "
                     "other layouts give one file per output (--ir a.wav,b.wav) or a "
                     "[route] in a preset", name, n, width, width);
}

/* One file of n channels on a signal of *width channels. */
static int layout_one(const cli_stage *s, unsigned n, cli_true_stereo order, unsigned *width,
                      stage_design *sd)
{
    /* LL, LR, RL, RR: from input (first letter) to output (second) */
    static const unsigned in_major[4][2] = {{0, 0}, {0, 1}, {1, 0}, {1, 1}};
    static const unsigned out_major[4][2] = {{0, 0}, {1, 0}, {0, 1}, {1, 1}};
    unsigned w = *width;
    if (n == 1) {
        sd->inputs = sd->outputs = w;
        return 0;
    }
    if (w == 0)
        w = n;
    if (n == w) {
        sd->layout = "one to one";
    } else if (w == 1) {
        for (unsigned k = 0; k < n; k++)
            if (add_path(sd, 0, k, k, 1.0))
                return 1;
        sd->layout = n == 2 ? "mono to stereo" : "mono to one output per IR channel";
    } else if (w == 2 && n == 4) {
        const unsigned(*pairs)[2] = order == CLI_TRUE_STEREO_OUT_MAJOR ? out_major : in_major;
        for (unsigned k = 0; k < 4; k++)
            if (add_path(sd, pairs[k][0], pairs[k][1], k, 1.0))
                return 1;
        sd->layout = order == CLI_TRUE_STEREO_OUT_MAJOR ? "true stereo: LL, RL, LR, RR"
                                                        : "true stereo: LL, LR, RL, RR";
    } else {
        return ir_refused(s->path, n, w);
    }
    sd->inputs = w;
    sd->outputs = sd->paths ? (w == 1 ? n : 2) : w;
    *width = sd->outputs;
    return 0;
}

/* A list: file k, of file_sets[k] channels from set first[k] on, makes output k. */
static int layout_list(const cli_stage *s, const unsigned *file_sets, unsigned *width,
                       stage_design *sd)
{
    const unsigned m = (unsigned)s->nfiles;
    unsigned w = *width, first = 0;
    if (w == 0) {
        /* the layout the files suit: rows of one set per input when they
         * agree on a count, else separate files for as many inputs */
        w = file_sets[0];
        for (unsigned k = 1; k < m; k++)
            if (file_sets[k] != w)
                w = 0;
        if (w <= 1)
            w = w == 1 ? m : file_sets[0];
    }
    for (unsigned k = 0; k < m; k++) {
        const unsigned n = file_sets[k];
        if (n == w) {
            for (unsigned c = 0; c < w; c++)
                if (add_path(sd, c, k, first + c, 1.0))
                    return 1;
        } else if (n == 1 && w == m) {
            if (add_path(sd, k, k, first, 1.0))
                return 1;
        } else {
            return cli_error("IR '%s' (output %u of the list) has %u channel%s; on a signal of "
                             "%u, each file of a list needs %u (one per input)%s", s->files[k],
                             k + 1, n, n == 1 ? "" : "s", w, w,
                             w == m ? " or 1 (input k to output k)" : "");
        }
        first += n;
    }
    sd->layout = "one file per output";
    sd->inputs = w;
    sd->outputs = *width = m;
    return 0;
}

int layout_ir(const cli_stage *s, const unsigned *file_sets, cli_true_stereo order,
              unsigned *width, stage_design *sd)
{
    if (s->nfiles > 1)
        return layout_list(s, file_sets, width, sd);
    return layout_one(s, file_sets[0], order, width, sd);
}

int layout_route(const cli_stage *s, const unsigned *term_set, unsigned *width,
                 stage_design *sd)
{
    if (*width && *width != s->route_inputs)
        return cli_error("preset '%s' routes %u input channel%s, but the signal has %u there%s",
                         s->name, s->route_inputs, s->route_inputs == 1 ? "" : "s", *width,
                         *width > s->route_inputs ? " (set inputs = N in its [route] to take "
                                                    "N and leave those it does not name)" : "");
    for (size_t t = 0; t < s->nterms; t++)
        if (add_path(sd, s->terms[t].input, s->terms[t].output, term_set[t], s->terms[t].gain))
            return 1;
    sd->inputs = s->route_inputs;
    sd->outputs = *width = s->route_outputs;
    return 0;
}

/* ---- folding a chain with paths --------------------------------------------- */

/* The fold so far: entry e carries input in[e] to output out[e] through
 * taps e (ntaps each). */
typedef struct matrix {
    size_t n, cap, ntaps;
    unsigned *in, *out;
    float *taps;
    char **names;
} matrix;

static void matrix_free(matrix *m)
{
    for (size_t e = 0; e < m->n; e++)
        free(m->names[e]);
    free(m->in);
    free(m->out);
    free(m->taps);
    free(m->names);
    memset(m, 0, sizeof *m);
}

/* An entry of zeros (and no names) for in -> out; its index, or -1. */
static long matrix_add(matrix *m, unsigned in, unsigned out)
{
    if (m->n == m->cap) {
        const size_t cap = m->cap ? 2 * m->cap : 8;
        unsigned *i2 = realloc(m->in, cap * sizeof *i2);
        if (i2)
            m->in = i2;
        unsigned *o2 = realloc(m->out, cap * sizeof *o2);
        if (o2)
            m->out = o2;
        char **n2 = realloc(m->names, cap * sizeof *n2);
        if (n2)
            m->names = n2;
        float *t2 = realloc(m->taps, cap * m->ntaps * sizeof *t2);
        if (t2)
            m->taps = t2;
        if (!i2 || !o2 || !n2 || !t2)
            return -1;
        m->cap = cap;
    }
    m->in[m->n] = in;
    m->out[m->n] = out;
    m->names[m->n] = NULL;
    memset(m->taps + m->n * m->ntaps, 0, m->ntaps * sizeof *m->taps);
    return (long)m->n++;
}

/* names becomes "names + more" unless more is already in it. */
static int add_name(char **names, const char *more)
{
    size_t len;
    char *joined;
    if (!more || (*names && strstr(*names, more)))
        return 0;
    len = (*names ? strlen(*names) + 3 : 0) + strlen(more) + 1;
    joined = malloc(len);
    if (!joined)
        return -1;
    snprintf(joined, len, "%s%s%s", *names ? *names : "", *names ? " + " : "", more);
    free(*names);
    *names = joined;
    return 0;
}

/* Stage path k of sd, with its one-set and one-to-one forms spelled out. */
static gfir_path stage_path(const stage_design *sd, size_t k)
{
    if (sd->paths)
        return sd->paths[k];
    return (gfir_path){(unsigned)k, (unsigned)k, sd->nsets == 1 ? 0 : (unsigned)k, 1.0f};
}

static size_t stage_npaths(const stage_design *sd)
{
    return sd->paths ? sd->npaths : sd->inputs;
}

/* next = sd after cur: every path of sd from channel j continues every entry
 * of cur into j. scratch holds next->ntaps floats. */
static int matrix_apply(const matrix *cur, const stage_design *sd, unsigned inputs,
                        matrix *next, float *scratch)
{
    long *at = malloc((size_t)sd->outputs * inputs * sizeof *at);
    if (!at)
        return cli_error("out of memory folding the chain's paths");
    for (size_t i = 0; i < (size_t)sd->outputs * inputs; i++)
        at[i] = -1;
    for (size_t k = 0; k < stage_npaths(sd); k++) {
        const gfir_path p = stage_path(sd, k);
        const float *h = sd->taps + (size_t)p.taps * sd->ntaps;
        for (size_t e = 0; e < cur->n; e++) {
            long *slot = &at[(size_t)p.output * inputs + cur->in[e]];
            if (cur->out[e] != p.input)
                continue;
            if (*slot < 0 && (*slot = matrix_add(next, cur->in[e], p.output)) < 0)
                goto oom;
            if (gfir_fold(cur->taps + e * cur->ntaps, cur->ntaps, h, sd->ntaps, scratch) !=
                GFIR_OK)
                goto oom;
            float *t = next->taps + (size_t)*slot * next->ntaps;
            for (size_t i = 0; i < next->ntaps; i++)
                t[i] += p.gain * scratch[i];
            if (add_name(&next->names[*slot], cur->names[e]) ||
                add_name(&next->names[*slot], sd->set_names ? sd->set_names[p.taps] : NULL))
                goto oom;
        }
    }
    free(at);
    return 0;
oom:
    free(at);
    return cli_error("out of memory folding the chain's paths");
}

typedef struct place {
    unsigned out, in;
    size_t entry;
} place;

static int by_output(const void *a, const void *b)
{
    const place *p = a, *q = b;
    if (p->out != q->out)
        return p->out < q->out ? -1 : 1;
    return p->in < q->in ? -1 : p->in > q->in;
}

/* The fold into d, its paths in order of output, then input. */
static int matrix_take(matrix *m, cli_design *d)
{
    place *order = malloc(m->n * sizeof *order);
    int one_to_one = m->n == d->inputs && d->outputs == d->inputs;
    d->taps = malloc(m->n * m->ntaps * sizeof *d->taps);
    d->paths = malloc(m->n * sizeof *d->paths);
    d->path_names = calloc(m->n, sizeof *d->path_names);
    if (!order || !d->taps || !d->paths || !d->path_names) {
        free(order);
        return cli_error("out of memory for %zu paths of %zu taps", m->n, m->ntaps);
    }
    for (size_t e = 0; e < m->n; e++)
        order[e] = (place){m->out[e], m->in[e], e};
    qsort(order, m->n, sizeof *order, by_output);
    for (size_t k = 0; k < m->n; k++) {
        const size_t e = order[k].entry;
        memcpy(d->taps + k * m->ntaps, m->taps + e * m->ntaps, m->ntaps * sizeof *d->taps);
        d->paths[k] = (gfir_path){m->in[e], m->out[e], (unsigned)k, 1.0f};
        d->path_names[k] = m->names[e];
        m->names[e] = NULL;
        one_to_one &= m->in[e] == k && m->out[e] == k;
    }
    free(order);
    d->filter_channels = (unsigned)m->n;
    d->npaths = m->n;
    d->ntaps = m->ntaps;
    /* what the library runs without paths, and faster */
    if (one_to_one) {
        free(d->paths);
        d->paths = NULL;
        d->npaths = 0;
    }
    return 0;
}

int layout_fold(cli_design *d)
{
    matrix cur = {0}, next = {0};
    float *scratch = NULL;
    int rc = 1;

    cur.ntaps = 1;
    for (unsigned c = 0; c < d->inputs; c++) {
        long e = matrix_add(&cur, c, c);
        if (e < 0)
            goto oom;
        cur.taps[e] = 1.0f;
    }
    for (size_t i = 0; i < d->nstages; i++) {
        const stage_design *sd = &d->stages[i];
        next.ntaps = cur.ntaps + sd->ntaps - 1;
        float *s = realloc(scratch, next.ntaps * sizeof *s);
        if (!s)
            goto oom;
        scratch = s;
        if (matrix_apply(&cur, sd, d->inputs, &next, scratch))
            goto done;
        matrix_free(&cur);
        cur = next;
        memset(&next, 0, sizeof next);
    }
    for (size_t i = 0; i < cur.n * cur.ntaps; i++)
        if (!isfinite(cur.taps[i])) {
            cli_error("the chain's stages overflow when folded into one filter (tap %zu); "
                      "their taps are too large", i % cur.ntaps);
            goto done;
        }
    if (cur.n == 0) {
        cli_error("no path of the chain reaches an output");
        goto done;
    }
    d->outputs = d->stages[d->nstages - 1].outputs;
    rc = matrix_take(&cur, d);
    goto done;
oom:
    cli_error("out of memory folding the chain's paths");
done:
    matrix_free(&cur);
    matrix_free(&next);
    free(scratch);
    return rc;
}
