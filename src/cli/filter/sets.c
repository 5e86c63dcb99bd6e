/*
 * sets.c - a stage's tap sets at a rate (sets.h).
 */
#include "filter/sets.h"
#include "filter/ceiling.h"
#include "filter/ir.h"
#include "filter/taps.h"
#include "message.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check_edge(const cli_stage *s, int second, double edge_hz, double rate_hz)
{
    const double nyquist = rate_hz / 2;
    const char *key = s->type == GFIR_LOWPASS || s->type == GFIR_HIGHPASS ? "cutoff_hz"
                      : second                                             ? "high_hz"
                                                                           : "low_hz";
    if (edge_hz >= nyquist)
        return cli_error("preset '%s': %s = %g is at or above Nyquist (%g Hz at a sample rate "
                         "of %g Hz)", s->name, key, edge_hz, nyquist, rate_hz);
    if (edge_hz - s->transition_hz / 2 <= 0 || edge_hz + s->transition_hz / 2 >= nyquist)
        return cli_error("preset '%s': %s = %g with transition_hz = %g leaves the band "
                         "0 to %g Hz", s->name, key, edge_hz, s->transition_hz, nyquist);
    return 0;
}

/* The length kaiserord would give, in double, for a design too long to
 * make: what the refusal names. */
static double kaiser_length(const cli_stage *s, double rate_hz)
{
    const double width = s->transition_hz / (rate_hz / 2.0);
    return ceil((s->attenuation_db - 7.95) / 2.285 / (3.14159265358979323846 * width) + 1.0);
}

static int design_kaiser(const cli_stage *s, double rate_hz, size_t max_taps, unsigned width,
                         float **taps, size_t *ntaps)
{
    char what[256];
    int band = s->type == GFIR_BANDPASS || s->type == GFIR_BANDSTOP;
    gfir_status st;

    if (check_edge(s, 0, s->cutoff1_hz, rate_hz) || (band && check_edge(s, 1, s->cutoff2_hz,
                                                                         rate_hz)))
        return 1;
    st = gfir_design_length(s->type, rate_hz, s->transition_hz, s->attenuation_db, ntaps);
    snprintf(what, sizeof what, "preset '%s' (transition_hz = %g, attenuation_db = %g at %g Hz)",
             s->name, s->transition_hz, s->attenuation_db, rate_hz);
    if (st == GFIR_ERR_TAPS)
        return ceiling_check(max_taps, what, kaiser_length(s, rate_hz), width, "channel") ||
               cli_error("%s: %.0f taps, more than the %zu of a gfir filter", what,
                         kaiser_length(s, rate_hz), (size_t)GFIR_MAX_TAPS);
    if (st == GFIR_OK && ceiling_check(max_taps, what, (double)*ntaps, width, "channel"))
        return 1;
    if (st != GFIR_OK)
        return cli_error("preset '%s': cannot design transition_hz = %g, attenuation_db = %g "
                         "at %g Hz: %s", s->name, s->transition_hz, s->attenuation_db, rate_hz,
                         gfir_strerror(st));
    *taps = malloc(*ntaps * sizeof **taps);
    if (!*taps)
        return cli_error("preset '%s': out of memory for %zu taps", s->name, *ntaps);
    st = gfir_design_kaiser(s->type, rate_hz, s->cutoff1_hz, s->cutoff2_hz, s->transition_hz,
                            s->attenuation_db, *taps, *ntaps);
    if (st != GFIR_OK) {
        free(*taps);
        *taps = NULL;
        return cli_error("preset '%s': design failed: %s", s->name, gfir_strerror(st));
    }
    return 0;
}

/* One IR file, loaded. */
typedef struct loaded {
    const char *path;
    float *taps;                /* channels sets of ntaps */
    size_t ntaps;
    size_t silent;              /* trailing silent frames dropped after them */
    unsigned channels;
} loaded;

static void free_loaded(loaded *l, size_t n)
{
    for (size_t i = 0; l && i < n; i++)
        free(l[i].taps);
    free(l);
}

/* A set's name: the file's (without its directory: --describe lists the
 * stage's whole path), with its channel when it has several. */
static char *set_name(const loaded *l, unsigned c)
{
    const char *slash = strrchr(l->path, '/'), *base = slash ? slash + 1 : l->path;
    const size_t len = strlen(base) + 32;
    char *name = malloc(len);
    if (!name)
        return NULL;
    if (l->channels == 1)
        snprintf(name, len, "%s", base);
    else
        snprintf(name, len, "%s channel %u", base, c + 1);
    return name;
}

/* sd's sets: `pick` (file, channel) pairs of files, padded to the longest;
 * pick[i].file < 0 is a unit impulse (a plain wire). */
typedef struct pick {
    long file;
    unsigned channel;
} pick;

static int gather(const cli_stage *s, size_t max_taps, const loaded *files, const pick *picks,
                  size_t npicks, stage_design *sd)
{
    char what[256];
    size_t n = 1, whole = 1; /* the longest set, and the longest with its silence */
    for (size_t i = 0; i < npicks; i++) {
        const loaded *l = picks[i].file >= 0 ? &files[picks[i].file] : NULL;
        if (l && l->ntaps > n)
            n = l->ntaps;
        if (l && l->ntaps + l->silent > whole)
            whole = l->ntaps + l->silent;
    }
    sd->dropped = whole - n;
    if (npicks > GFIR_MAX_PATHS)
        return cli_error("more than %d tap sets in one stage", GFIR_MAX_PATHS);
    /* every set padded to the longest */
    snprintf(what, sizeof what, "stage '%s'", s->name);
    if (ceiling_check(max_taps, what, (double)n, npicks, "tap set"))
        return 1;
    sd->taps = calloc(npicks * n, sizeof *sd->taps);
    sd->set_names = calloc(npicks, sizeof *sd->set_names);
    if (!sd->taps || !sd->set_names)
        return cli_error("out of memory for %zu tap sets of %zu taps", npicks, n);
    sd->ntaps = n;
    sd->nsets = (unsigned)npicks;
    for (size_t i = 0; i < npicks; i++) {
        float *set = sd->taps + i * n;
        if (picks[i].file < 0) {
            set[0] = 1.0f;
            if (!(sd->set_names[i] = strdup("a plain wire")))
                return cli_error("out of memory");
            continue;
        }
        const loaded *l = &files[picks[i].file];
        memcpy(set, l->taps + (size_t)picks[i].channel * l->ntaps, l->ntaps * sizeof *set);
        if (!(sd->set_names[i] = set_name(l, picks[i].channel)))
            return cli_error("out of memory");
    }
    return 0;
}

static int load_files(const cli_filter *f, const char *const *paths, size_t n, double rate_hz,
                      int quiet, loaded **out)
{
    loaded *l = calloc(n, sizeof *l);
    double taps = 0; /* of the files read so far, every channel's */
    *out = l;
    if (!l)
        return cli_error("out of memory");
    for (size_t i = 0; i < n; i++) {
        l[i].path = paths[i];
        if (taps_load_ir(paths[i], rate_hz, quiet, f->verbose, f->max_taps, &l[i].taps,
                         &l[i].ntaps, &l[i].channels, &l[i].silent))
            return 1;
        /* each file is within the ceiling; together they must be too */
        taps += (double)l[i].ntaps * l[i].channels;
        if (i > 0 && ceiling_check(f->max_taps, "the IR files read so far", taps, 1, "channel"))
            return 1;
    }
    return 0;
}

/* Every channel of every file, one file after another. */
static int load_ir(const cli_filter *f, const cli_stage *s, double rate_hz, int quiet,
                   stage_design *sd,
                   unsigned **file_sets)
{
    loaded *files = NULL;
    pick *picks = NULL;
    size_t npicks = 0;
    int rc = 1;
    if (load_files(f, (const char *const *)s->files, s->nfiles, rate_hz, quiet, &files))
        goto done;
    *file_sets = malloc(s->nfiles * sizeof **file_sets);
    for (size_t i = 0; i < s->nfiles; i++)
        npicks += files[i].channels;
    picks = malloc(npicks * sizeof *picks);
    if (!*file_sets || !picks) {
        cli_error("out of memory");
        goto done;
    }
    npicks = 0;
    for (size_t i = 0; i < s->nfiles; i++) {
        (*file_sets)[i] = files[i].channels;
        for (unsigned c = 0; c < files[i].channels; c++)
            picks[npicks++] = (pick){(long)i, c};
    }
    rc = gather(s, f->max_taps, files, picks, npicks, sd);
done:
    free(picks);
    free_loaded(files, s->nfiles);
    return rc;
}

/* The files a route names, each once, in order of first use. */
static int route_files(const cli_stage *s, const char ***paths, size_t *n)
{
    *paths = malloc((s->nterms ? s->nterms : 1) * sizeof **paths);
    *n = 0;
    if (!*paths)
        return cli_error("out of memory");
    for (size_t t = 0; t < s->nterms; t++) {
        size_t k = 0;
        if (!s->terms[t].file)
            continue;
        while (k < *n && strcmp((*paths)[k], s->terms[t].file))
            k++;
        if (k == *n)
            (*paths)[(*n)++] = s->terms[t].file;
    }
    return 0;
}

/* Each distinct (file, channel) of the route once, and a wire's impulse once. */
static int load_route(const cli_filter *f, const cli_stage *s, double rate_hz, int quiet,
                      stage_design *sd,
                      unsigned **term_set)
{
    const char **paths = NULL;
    loaded *files = NULL;
    pick *picks = malloc((s->nterms ? s->nterms : 1) * sizeof *picks);
    size_t nfiles = 0, npicks = 0;
    int rc = 1;
    *term_set = malloc((s->nterms ? s->nterms : 1) * sizeof **term_set);
    if (!picks || !*term_set) {
        cli_error("out of memory");
        goto done;
    }
    if (route_files(s, &paths, &nfiles) || load_files(f, paths, nfiles, rate_hz, quiet, &files))
        goto done;
    for (size_t t = 0; t < s->nterms; t++) {
        const route_term *term = &s->terms[t];
        pick want = {-1, 0};
        size_t k = 0;
        if (term->file) {
            while (strcmp(paths[k], term->file))
                k++;
            want.file = (long)k;
            const loaded *l = &files[k];
            if (term->channel == ROUTE_WHOLE_FILE && l->channels > 1) {
                cli_error("preset '%s': IR '%s' has %u channels; name one, as %s[1]", s->name,
                          l->path, l->channels, l->path);
                goto done;
            }
            if (term->channel != ROUTE_WHOLE_FILE && term->channel >= l->channels) {
                cli_error("preset '%s': IR '%s' has %u channel%s; it has no channel %u", s->name,
                          l->path, l->channels, l->channels == 1 ? "" : "s", term->channel + 1);
                goto done;
            }
            want.channel = term->channel == ROUTE_WHOLE_FILE ? 0 : term->channel;
        }
        for (k = 0; k < npicks; k++)
            if (picks[k].file == want.file && picks[k].channel == want.channel)
                break;
        if (k == npicks)
            picks[npicks++] = want;
        (*term_set)[t] = (unsigned)k;
    }
    rc = gather(s, f->max_taps, files, picks, npicks, sd);
done:
    free(paths);
    free(picks);
    free_loaded(files, nfiles);
    return rc;
}

/* A design's or a taps file's one set, named as the stage is. */
static int one_set(const char *name, stage_design *sd)
{
    sd->set_names = calloc(1, sizeof *sd->set_names);
    if (!sd->set_names || !(sd->set_names[0] = strdup(name)))
        return cli_error("out of memory");
    return 0;
}

int sets_load(const cli_filter *f, const cli_stage *s, double rate_hz, unsigned width, int quiet,
              stage_design *sd, unsigned **file_sets, unsigned **term_set)
{
    *file_sets = NULL;
    *term_set = NULL;
    sd->nsets = 1;
    switch (s->kind) {
    case STAGE_DESIGN:
        return design_kaiser(s, rate_hz, f->max_taps, width ? width : 1, &sd->taps,
                             &sd->ntaps) ||
               one_set(s->name, sd);
    case STAGE_TAPS:
        return taps_load_text(s->path, f->max_taps, &sd->taps, &sd->ntaps) ||
               one_set(s->path, sd);
    case STAGE_IR:
        return load_ir(f, s, rate_hz, quiet, sd, file_sets);
    case STAGE_ROUTE:
        return load_route(f, s, rate_hz, quiet, sd, term_set);
    }
    return cli_error("unknown stage");
}
