/*
 * filter.c - the filter chain: stages as given on the command line, designed
 * at a sample rate and folded into one tap set.
 */
#include "filter/filter.h"
#include "filter/ir.h"
#include "filter/preset.h"
#include "filter/taps.h"
#include "message.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_OVERRIDES 32

cli_filter *cli_filter_new(void)
{
    return calloc(1, sizeof(cli_filter));
}

void cli_filter_free(cli_filter *f)
{
    if (!f)
        return;
    while (f->chain.nstages)
        stage_drop_last(&f->chain);
    free(f->chain.stages);
    for (size_t i = 0; i < f->nspecs; i++)
        free(f->specs[i].arg);
    free(f->specs);
    free(f);
}

/* Remembers an option that added stages, for cli_filter_renew. */
static int remember(cli_filter *f, stage_kind kind, const char *arg)
{
    cli_filter_spec *s = realloc(f->specs, (f->nspecs + 1) * sizeof *s);
    if (!s)
        return cli_error("out of memory");
    f->specs = s;
    s[f->nspecs].kind = kind;
    s[f->nspecs].arg = strdup(arg);
    if (!s[f->nspecs].arg)
        return cli_error("out of memory");
    f->nspecs++;
    return 0;
}

cli_filter *cli_filter_renew(const cli_filter *f)
{
    cli_filter *g = cli_filter_new();
    int rc = g ? 0 : cli_error("out of memory");
    for (size_t i = 0; !rc && i < f->nspecs; i++)
        rc = f->specs[i].kind == STAGE_DESIGN ? cli_filter_add_preset(g, f->specs[i].arg)
                                             : cli_filter_add_file(g, f->specs[i].kind,
                                                                   f->specs[i].arg);
    if (rc) {
        cli_filter_free(g);
        return NULL;
    }
    g->gain_db = f->gain_db;
    g->normalize_peak = f->normalize_peak;
    return g;
}

int cli_filter_has_ir(const cli_filter *f)
{
    for (size_t i = 0; i < f->chain.nstages; i++)
        if (f->chain.stages[i].kind == STAGE_IR)
            return 1;
    return 0;
}

static int names_a_file(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

/* The first ':' in spec whose prefix passes `accept`, or NULL. */
static char *colon_after(char *spec, int (*accept)(const char *prefix))
{
    for (char *colon = strchr(spec, ':'); colon; colon = strchr(colon + 1, ':')) {
        int ok;
        *colon = '\0';
        ok = accept(spec);
        *colon = ':';
        if (ok)
            return colon;
    }
    return NULL;
}

static int plain_name(const char *prefix)
{
    return !strchr(prefix, '/');
}

/* Where NAME ends in NAME:key=value,...: at the first ':' before which stands
 * an existing file, else a preset name (no '/'), else at the first ':'; so
 * paths and values alike may hold '/' and ':'. NULL when there is none or
 * the whole of spec names a file. */
static char *name_end(char *spec)
{
    if (names_a_file(spec))
        return NULL;
    char *colon = colon_after(spec, names_a_file);
    if (!colon)
        colon = colon_after(spec, plain_name);
    return colon ? colon : strchr(spec, ':');
}

/* NAME[:key=value,...]; a key may name one section as section.key. */
int cli_filter_add_preset(cli_filter *f, const char *spec)
{
    preset_override ov[MAX_OVERRIDES];
    size_t nov = 0;
    int rc = 1;
    char *copy = strdup(spec);
    if (!copy)
        return cli_error("out of memory");
    char *colon = name_end(copy);
    if (colon) {
        *colon = '\0';
        for (char *item = strtok(colon + 1, ","); item; item = strtok(NULL, ",")) {
            char *eq = strchr(item, '=');
            if (!eq || eq == item || !eq[1]) {
                cli_error("preset '%s': '%s' is not key=value", copy, item);
                goto done;
            }
            if (nov == MAX_OVERRIDES) {
                cli_error("preset '%s': more than %d overrides", copy, MAX_OVERRIDES);
                goto done;
            }
            *eq = '\0';
            char *dot = strchr(item, '.');
            ov[nov].section = dot ? item : NULL;
            if (dot)
                *dot = '\0';
            ov[nov].key = dot ? dot + 1 : item;
            ov[nov].value = eq + 1;
            nov++;
        }
    }
    if (!copy[0]) {
        cli_error("--preset needs a name, as in --preset lowpass");
        goto done;
    }
    rc = preset_load(&f->chain, copy, ov, nov) || remember(f, STAGE_DESIGN, spec);
done:
    free(copy);
    return rc;
}

int cli_filter_add_file(cli_filter *f, stage_kind kind, const char *path)
{
    cli_stage *s = stage_append(&f->chain);
    if (!s)
        return cli_error("out of memory");
    s->kind = kind;
    s->name = strdup(kind == STAGE_IR ? "ir" : "taps");
    s->path = strdup(path);
    if (!s->name || !s->path) {
        stage_drop_last(&f->chain);
        return cli_error("out of memory");
    }
    return remember(f, kind, path);
}

static const char *edge_key(const cli_stage *s, int second)
{
    if (s->type == GFIR_LOWPASS || s->type == GFIR_HIGHPASS)
        return "cutoff_hz";
    return second ? "high_hz" : "low_hz";
}

static int check_edge(const cli_stage *s, int second, double edge_hz, double rate_hz)
{
    const double nyquist = rate_hz / 2;
    if (edge_hz >= nyquist)
        return cli_error("preset '%s': %s = %g is at or above Nyquist (%g Hz at a sample rate "
                         "of %g Hz)", s->name, edge_key(s, second), edge_hz, nyquist, rate_hz);
    if (edge_hz - s->transition_hz / 2 <= 0 || edge_hz + s->transition_hz / 2 >= nyquist)
        return cli_error("preset '%s': %s = %g with transition_hz = %g leaves the band "
                         "0 to %g Hz", s->name, edge_key(s, second), edge_hz,
                         s->transition_hz, nyquist);
    return 0;
}

static int design_stage(const cli_stage *s, double rate_hz, float **taps, size_t *ntaps)
{
    int band = s->type == GFIR_BANDPASS || s->type == GFIR_BANDSTOP;
    gfir_status st;

    if (check_edge(s, 0, s->cutoff1_hz, rate_hz) || (band && check_edge(s, 1, s->cutoff2_hz,
                                                                         rate_hz)))
        return 1;
    st = gfir_design_length(s->type, rate_hz, s->transition_hz, s->attenuation_db, ntaps);
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

/* Folds every stage's channel c (or its only channel) into out. */
static int fold_channel(const cli_design *d, unsigned c, float *out)
{
    size_t n = d->stage_ntaps[0];
    float *tmp = malloc(d->ntaps * sizeof *tmp);
    if (!tmp)
        return cli_error("out of memory folding %zu taps", d->ntaps);
    memcpy(out, d->stage_taps[0] + (d->stage_channels[0] > 1 ? c : 0) * n, n * sizeof *out);
    for (size_t i = 1; i < d->nstages; i++) {
        const size_t m = d->stage_ntaps[i];
        const float *b = d->stage_taps[i] + (d->stage_channels[i] > 1 ? c : 0) * m;
        gfir_fold(out, n, b, m, tmp);
        n += m - 1;
        memcpy(out, tmp, n * sizeof *out);
    }
    free(tmp);
    for (size_t i = 0; i < n; i++)
        if (!isfinite(out[i]))
            return cli_error("the chain's stages overflow when folded into one filter (tap %zu); "
                             "their taps are too large", i);
    return 0;
}

/* Scaled taps past the largest float would make every output infinite. */
static int scale_taps(const cli_filter *f, float *taps, size_t n, double scale)
{
    for (size_t i = 0; i < n; i++) {
        const double v = taps[i] * scale;
        if (!(fabs(v) <= FLT_MAX)) {
            if (f->gain_db != 0)
                return cli_error("--gain %g makes the filter's taps overflow (tap %zu would be "
                                 "%g)", f->gain_db, i, v);
            return cli_error("--normalize peak makes the filter's taps overflow (tap %zu would "
                             "be %g)", i, v);
        }
        taps[i] = (float)v;
    }
    return 0;
}

static int scale_design(const cli_filter *f, cli_design *d)
{
    d->scale = pow(10.0, f->gain_db / 20.0);
    if (f->normalize_peak) {
        double peak = 0;
        for (unsigned c = 0; c < d->filter_channels; c++) {
            double p = gfir_response_peak(d->taps + c * d->ntaps, d->ntaps);
            if (p < 0 || p > peak)
                peak = p;
            if (p < 0)
                break;
        }
        if (peak < 0)
            return cli_error("--normalize peak: out of memory measuring %zu taps", d->ntaps);
        if (!(peak > 0))
            return cli_error("--normalize peak: the filter's response is zero everywhere");
        d->scale /= peak;
    }
    /* an unfolded chain takes the scale in its first stage */
    return (d->taps && scale_taps(f, d->taps, (size_t)d->filter_channels * d->ntaps, d->scale)) ||
           scale_taps(f, d->stage_taps[0], (size_t)d->stage_channels[0] * d->stage_ntaps[0],
                      d->scale);
}

static int fold_design(cli_design *d)
{
    d->taps = malloc((size_t)d->filter_channels * d->ntaps * sizeof *d->taps);
    if (!d->taps)
        return cli_error("out of memory for %u x %zu taps", d->filter_channels, d->ntaps);
    for (unsigned c = 0; c < d->filter_channels; c++)
        if (fold_channel(d, c, d->taps + c * d->ntaps))
            return 1;
    return 0;
}

/* The stages at rate_hz; folded into d->taps when fold is set (or when
 * --normalize peak must measure the whole chain). */
static int build(const cli_filter *f, double rate_hz, unsigned channels, int quiet, int fold,
                 cli_design *d)
{
    float **stage_taps;
    int rc = 1;

    memset(d, 0, sizeof *d);
    d->rate_hz = rate_hz;
    d->nstages = f->chain.nstages;
    if (f->chain.nstages == 0)
        return cli_error("no filter given: use --preset, --taps or --ir (gfir --help)");
    /* checked here too, before any design is sized, for callers that did not */
    if (!(rate_hz >= CLI_MIN_RATE_HZ && rate_hz <= CLI_MAX_RATE_HZ))
        return cli_error("cannot design at %g Hz: gfir designs at %g to %g Hz", rate_hz,
                         CLI_MIN_RATE_HZ, CLI_MAX_RATE_HZ);
    d->stage_taps = stage_taps = calloc(f->chain.nstages, sizeof *stage_taps);
    d->stage_ntaps = calloc(f->chain.nstages, sizeof *d->stage_ntaps);
    d->stage_channels = calloc(f->chain.nstages, sizeof *d->stage_channels);
    if (!stage_taps || !d->stage_ntaps || !d->stage_channels) {
        cli_error("out of memory");
        goto done;
    }
    fold = fold || f->normalize_peak;
    d->filter_channels = 1;
    d->ntaps = 1;
    for (size_t i = 0; i < f->chain.nstages; i++) {
        const cli_stage *s = &f->chain.stages[i];
        d->stage_channels[i] = 1;
        if (s->kind == STAGE_DESIGN) {
            if (design_stage(s, rate_hz, &stage_taps[i], &d->stage_ntaps[i]))
                goto done;
            d->delay_frames += (d->stage_ntaps[i] - 1) / 2;
        } else if (s->kind == STAGE_TAPS) {
            if (taps_load_text(s->path, &stage_taps[i], &d->stage_ntaps[i]))
                goto done;
            d->delay_frames += (d->stage_ntaps[i] - 1) / 2;
        } else {
            if (taps_load_ir(s->path, rate_hz, quiet, &stage_taps[i], &d->stage_ntaps[i],
                             &d->stage_channels[i]))
                goto done;
            d->has_ir = 1;
        }
        const unsigned sc = d->stage_channels[i];
        if (sc > 1 && channels && sc != channels) {
            cli_error("IR '%s' has %u channels but the signal has %u; an IR needs 1 channel "
                      "or one per signal channel", s->path, sc, channels);
            goto done;
        }
        if (sc > 1 && d->filter_channels > 1 && sc != d->filter_channels) {
            cli_error("IR '%s' has %u channels but an earlier stage has %u", s->path, sc,
                      d->filter_channels);
            goto done;
        }
        if (sc > 1)
            d->filter_channels = sc;
        /* unfolded, the chain's length only sizes the alignment */
        if (fold && d->stage_ntaps[i] - 1 > GFIR_MAX_TAPS - d->ntaps) {
            cli_error("the chain is longer than %zu taps", (size_t)GFIR_MAX_TAPS);
            goto done;
        }
        d->ntaps += d->stage_ntaps[i] - 1;
    }
    if (!d->has_ir)
        d->delay_frames = (d->ntaps - 1) / 2;
    if ((fold && fold_design(d)) || scale_design(f, d))
        goto done;
    rc = 0;
done:
    if (rc)
        cli_design_free(d);
    return rc;
}

int cli_design_build(const cli_filter *f, double rate_hz, unsigned channels, int quiet,
                     cli_design *d)
{
    return build(f, rate_hz, channels, quiet, 1, d);
}

int cli_design_stages(const cli_filter *f, double rate_hz, unsigned channels, int quiet,
                      cli_design *d)
{
    if (build(f, rate_hz, channels, quiet, 0, d))
        return 1;
    /* --normalize peak measured the folded chain; it runs unfolded */
    free(d->taps);
    d->taps = NULL;
    return 0;
}

void cli_design_free(cli_design *d)
{
    if (d->stage_taps)
        for (size_t i = 0; i < d->nstages; i++)
            free(d->stage_taps[i]);
    free(d->stage_taps);
    free(d->stage_ntaps);
    free(d->stage_channels);
    free(d->taps);
    memset(d, 0, sizeof *d);
}
