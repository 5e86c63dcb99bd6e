/*
 * filter.c - the filter chain: stages as given on the command line, designed
 * at a sample rate for a signal's channels (sets.h, layout.h, shape.h) and
 * folded into one filter, scaled as --gain and --normalize say.
 */
#include "filter/filter.h"
#include "filter/ceiling.h"
#include "filter/layout.h"
#include "filter/measure.h"
#include "filter/mix.h"
#include "filter/preset.h"
#include "filter/sets.h"
#include "filter/shape.h"
#include "message.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_OVERRIDES 32
#define PATH_LEN 4096
/* Taps beyond which --normalize is measured while the plans are made: where
 * the measurement's transforms pay for a thread (design/loudness.c). */
#define DEFER_TAPS 16384

cli_filter *cli_filter_new(void)
{
    cli_filter *f = calloc(1, sizeof(cli_filter));
    if (f) {
        f->normalize = CLI_NORMALIZE_DEFAULT;
        f->true_stereo = CLI_TRUE_STEREO_DEFAULT;
        f->max_taps = CEILING_DEFAULT_TAPS;
    }
    return f;
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
    g->normalize = f->normalize;
    g->true_stereo = f->true_stereo;
    g->trim = f->trim;
    g->trim_db = f->trim_db;
    g->min_phase = f->min_phase;
    g->mix = f->mix;
    g->wet_db = f->wet_db;
    g->dry_db = f->dry_db;
    g->dry = f->dry;
    g->max_taps = f->max_taps;
    g->verbose = f->verbose;
    return g;
}

/* An IR stage, or a route through at least one IR file (one of plain
 * wires only is a mixer, whose gains are the user's). */
static int stage_has_ir(const cli_stage *s)
{
    for (size_t t = 0; s->kind == STAGE_ROUTE && t < s->nterms; t++)
        if (s->terms[t].file)
            return 1;
    return s->kind == STAGE_IR;
}

int cli_filter_has_ir(const cli_filter *f)
{
    for (size_t i = 0; i < f->chain.nstages; i++)
        if (stage_has_ir(&f->chain.stages[i]))
            return 1;
    return 0;
}

cli_normalize cli_filter_normalize(const cli_filter *f)
{
    if (f->normalize != CLI_NORMALIZE_DEFAULT)
        return f->normalize;
    /* a recorded room is as loud as it was recorded: at its loudest
     * frequency, hall.wav is 14 dB above unity */
    return cli_filter_has_ir(f) ? CLI_NORMALIZE_PEAK : CLI_NORMALIZE_NONE;
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
        for (char *save, *item = strtok_r(colon + 1, ",", &save); item;
             item = strtok_r(NULL, ",", &save)) {
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

/* An IR named by a bare name that is not here may lie beside the presets
 * (hall.wav), so the README's commands work from any directory. */
static char *find_ir(const char *name, void *unused)
{
    char found[PATH_LEN];
    (void)unused;
    return strdup(preset_find_beside(name, found, sizeof found) ? found : name);
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
    if (kind == STAGE_IR && stage_set_files(s, path, find_ir, NULL)) {
        stage_drop_last(&f->chain);
        return 1;
    }
    return remember(f, kind, path);
}

/* ---- the fold ------------------------------------------------------------------ */

/* Folds every stage's channel c (or its only set) into out: the chain of
 * stages without paths, where sets are shared or one per channel. */
static int fold_channel(const cli_design *d, unsigned c, float *out)
{
    size_t n = d->stages[0].ntaps;
    float *tmp = malloc(d->ntaps * sizeof *tmp);
    if (!tmp)
        return cli_error("out of memory folding %zu taps", d->ntaps);
    memcpy(out, d->stages[0].taps + (d->stages[0].nsets > 1 ? c : 0) * n, n * sizeof *out);
    for (size_t i = 1; i < d->nstages; i++) {
        const size_t m = d->stages[i].ntaps;
        const float *b = d->stages[i].taps + (d->stages[i].nsets > 1 ? c : 0) * m;
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

static int routed(const cli_design *d)
{
    for (size_t i = 0; i < d->nstages; i++)
        if (d->stages[i].paths)
            return 1;
    return 0;
}

static int fold_design(cli_design *d)
{
    if (routed(d))
        return layout_fold(d);
    d->filter_channels = 1;
    for (size_t i = 0; i < d->nstages; i++)
        if (d->stages[i].nsets > 1)
            d->filter_channels = d->stages[i].nsets;
    d->taps = malloc((size_t)d->filter_channels * d->ntaps * sizeof *d->taps);
    if (!d->taps)
        return cli_error("out of memory for %u x %zu taps", d->filter_channels, d->ntaps);
    for (unsigned c = 0; c < d->filter_channels; c++)
        if (fold_channel(d, c, d->taps + c * d->ntaps))
            return 1;
    return 0;
}

/* ---- gain --------------------------------------------------------------------- */

static const char *const normalize_names[] = {"none", "peak", "energy"};

/* Scaled taps past the largest float would make every output infinite. */
static int scale_taps(const cli_filter *f, const cli_design *d, float *taps, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const double v = taps[i] * d->scale;
        if (!(fabs(v) <= FLT_MAX)) {
            if (f->gain_db != 0)
                return cli_error("--gain %g makes the filter's taps overflow (tap %zu would be "
                                 "%g)", f->gain_db, i, v);
            return cli_error("--normalize %s makes the filter's taps overflow (tap %zu would "
                             "be %g)", normalize_names[d->normalize], i, v);
        }
        taps[i] = (float)v;
    }
    return 0;
}

/* How loud the whole filter is by the measure (gfir_filter_loudness): its
 * loudest output's peak over frequency, or gain for white noise. */
static double loudness(const cli_design *d, cli_normalize how)
{
    cli_taps whole;
    cli_design_whole(d, &whole);
    return gfir_filter_loudness(whole.taps, whole.ntaps, whole.nsets, whole.paths, whole.npaths,
                                (gfir_normalize)how);
}

/* The scale once the loudness is known (level; unused without a
 * normalisation), applied to the taps. */
static int scale_by(const cli_filter *f, cli_design *d, double level)
{
    if (d->normalize != CLI_NORMALIZE_NONE) {
        if (level < 0)
            return cli_error("--normalize %s: measuring %zu taps: %s",
                             normalize_names[d->normalize], d->ntaps,
                             gfir_strerror((gfir_status)level));
        if (!(level > 0))
            return cli_error("--normalize %s: the filter is silent at every output",
                             normalize_names[d->normalize]);
        d->scale /= level;
    }
    /* an unfolded chain takes the scale in its first stage */
    return (d->taps && scale_taps(f, d, d->taps, (size_t)d->filter_channels * d->ntaps)) ||
           scale_taps(f, d, d->stages[0].taps, (size_t)d->stages[0].nsets * d->stages[0].ntaps);
}

/* With defer, a long folded filter's loudness is measured on a thread of its
 * own (measure.h) and its taps stay unscaled until cli_design_settle. */
static int scale_design(const cli_filter *f, cli_design *d, int defer)
{
    d->scale = pow(10.0, f->gain_db / 20.0);
    d->normalize = cli_filter_normalize(f);
    if (d->normalize == CLI_NORMALIZE_NONE)
        return scale_by(f, d, 1);
    /* with --dry, the wet sound's: the dry signal keeps its level */
    if (d->wet_loudness > 0)
        return scale_by(f, d, d->wet_loudness);
    if (defer && d->taps && d->ntaps > DEFER_TAPS) {
        cli_taps whole;
        cli_design_whole(d, &whole);
        d->measure = cli_measure_start(whole.taps, whole.ntaps, whole.nsets, whole.paths,
                                       whole.npaths, (gfir_normalize)d->normalize);
        if (d->measure)
            return 0;
    }
    return scale_by(f, d, loudness(d, d->normalize));
}

int cli_design_settle(const cli_filter *f, cli_design *d, double *plans_gain)
{
    double level;
    *plans_gain = 1;
    if (!d->measure)
        return 0;
    level = cli_measure_end(d->measure);
    d->measure = NULL;
    if (scale_by(f, d, level))
        return 1;
    *plans_gain = d->scale;
    return 0;
}

/* ---- one stage ------------------------------------------------------------------ */


/* Stage i of f at the rate, its layout on *width channels. */
static int design_stage(const cli_filter *f, size_t i, unsigned *width, int quiet,
                        cli_design *d)
{
    const cli_stage *s = &f->chain.stages[i];
    stage_design *sd = &d->stages[i];
    unsigned *file_sets = NULL, *term_set = NULL;
    int rc = 1;

    if (sets_load(f, s, d->rate_hz, *width, quiet, sd, &file_sets, &term_set))
        goto done;
    if (s->kind == STAGE_IR ? layout_ir(s, file_sets, f->true_stereo, width, sd)
        : s->kind == STAGE_ROUTE ? layout_route(s, term_set, width, sd)
                                 : (sd->inputs = sd->outputs = *width, 0))
        goto done;
    if (f->trim && stage_has_ir(s) &&
        shape_trim(sd, f->trim_db, s->path ? s->path : s->name, quiet))
        goto done;
    if (f->min_phase && shape_min_phase(sd, s->path ? s->path : s->name, quiet))
        goto done;
    d->has_ir |= stage_has_ir(s);
    /* linear phase until made minimum phase: the delay --align same removes */
    if ((s->kind == STAGE_DESIGN || s->kind == STAGE_TAPS) && !f->min_phase)
        d->delay_frames += (sd->ntaps - 1) / 2;
    rc = 0;
done:
    free(file_sets);
    free(term_set);
    return rc;
}

/* The convolutions a stage, or the folded chain, runs: a path each, a tap
 * set each at least, else a channel each (0: not known yet). */
static size_t convolutions(size_t npaths, unsigned nsets, unsigned channels)
{
    size_t n = npaths ? npaths : channels;
    return n > nsets ? n : (nsets ? nsets : 1);
}

/* Stage i, then the chain as folded, within --max-taps. */
static int check_stage_size(const cli_filter *f, const cli_design *d, size_t i)
{
    const stage_design *sd = &d->stages[i];
    char what[256];
    snprintf(what, sizeof what, "stage '%s'", f->chain.stages[i].name);
    return ceiling_check(f->max_taps, what, (double)sd->ntaps,
                         convolutions(sd->npaths, sd->nsets, sd->inputs),
                         sd->npaths ? "path" : "channel");
}

static int check_chain_size(const cli_filter *f, const cli_design *d)
{
    size_t most = d->npaths ? d->npaths : convolutions(0, d->filter_channels, d->inputs);
    const char *unit = d->npaths ? "path" : "channel";
    for (size_t i = 0; !d->taps && i < d->nstages; i++) {
        const stage_design *sd = &d->stages[i];
        const size_t n = convolutions(sd->npaths, sd->nsets, sd->inputs);
        if (n > most) {
            most = n;
            unit = sd->npaths ? "path" : "channel";
        }
    }
    if (d->nstages == 1)
        return 0; /* the stage's own check said all */
    return ceiling_check(f->max_taps, "the chain", (double)d->ntaps, most, unit);
}

/* Stages before the first that fixed the width (a signal of unknown
 * channels) run on what that one takes in; 1 when none did. */
static void settle_width(cli_design *d)
{
    size_t first = 0;
    while (first < d->nstages && d->stages[first].inputs == 0)
        first++;
    const unsigned width = first < d->nstages ? d->stages[first].inputs : 1;
    for (size_t i = 0; i < first; i++)
        d->stages[i].inputs = d->stages[i].outputs = width;
}

/* Options for impulse responses on a chain without one would do nothing. */
static int check_ir_options(const cli_filter *f, const cli_design *d)
{
    if (f->trim && !d->has_ir)
        return cli_error("--ir-trim applies to impulse responses, and the chain has none");
    return 0;
}

static void free_names(char **names, size_t n);

/* Drops the fold, keeping the stages. */
static void unfold(cli_design *d)
{
    free(d->taps);
    free(d->paths);
    free_names(d->path_names, d->npaths ? d->npaths : d->filter_channels);
    d->taps = NULL;
    d->paths = NULL;
    d->path_names = NULL;
    d->npaths = 0;
    d->filter_channels = 0;
}

/* --wet and --dry on the chain's one --ir (mix.h). --normalize measures the
 * wet chain first, so the dry signal is at --dry dB (then --gain) whatever
 * the room's level. */
static int mix_design(const cli_filter *f, cli_design *d)
{
    const double wet = pow(10.0, f->wet_db / 20.0);
    const double dry = f->dry ? pow(10.0, f->dry_db / 20.0) : 0;
    double norm = 1;
    size_t k = d->nstages, count = 0;
    for (size_t i = 0; i < d->nstages; i++) {
        if (f->chain.stages[i].kind == STAGE_IR) {
            k = i;
            count++;
        }
    }
    if (count != 1)
        return cli_error("--wet and --dry apply to one impulse response (--ir), and the chain "
                         "has %zu", count);
    if (mix_check(&d->stages[k], f->chain.stages[k].path ? f->chain.stages[k].path
                                                          : f->chain.stages[k].name))
        return 1;
    if (cli_filter_normalize(f) != CLI_NORMALIZE_NONE) {
        if (fold_design(d))
            return 1;
        d->wet_loudness = loudness(d, cli_filter_normalize(f));
        unfold(d);
        if (d->wet_loudness < 0)
            return cli_error("--normalize: measuring %zu taps: %s", d->ntaps,
                             gfir_strerror((gfir_status)d->wet_loudness));
        if (!(d->wet_loudness > 0))
            return cli_error("--normalize: the filter is silent at every output");
        norm = 1 / d->wet_loudness;
    }
    mix_stage(&d->stages[k], wet, dry / norm);
    return 0;
}

static int check_true_stereo(const cli_filter *f, const cli_design *d)
{
    if (f->true_stereo == CLI_TRUE_STEREO_DEFAULT)
        return 0;
    for (size_t i = 0; i < d->nstages; i++)
        if (d->stages[i].layout && !strncmp(d->stages[i].layout, "true stereo", 11))
            return 0;
    return cli_error("--true-stereo applies to a 4-channel IR on a stereo signal, and there is "
                     "none here");
}

/* The stages at rate_hz; folded into d->taps when fold is set (or when
 * --normalize must measure the whole chain). */
static int build(const cli_filter *f, double rate_hz, unsigned channels, int quiet, int fold,
                 int defer, cli_design *d)
{
    unsigned width = channels;
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
    d->stages = calloc(f->chain.nstages, sizeof *d->stages);
    if (!d->stages) {
        cli_error("out of memory");
        goto done;
    }
    fold = fold || cli_filter_normalize(f) != CLI_NORMALIZE_NONE;
    d->ntaps = 1;
    for (size_t i = 0; i < f->chain.nstages; i++) {
        if (design_stage(f, i, &width, quiet, d) || check_stage_size(f, d, i))
            goto done;
        /* unfolded, the chain's length only sizes the alignment */
        if (fold && d->stages[i].ntaps - 1 > GFIR_MAX_TAPS - d->ntaps) {
            cli_error("the chain is longer than %zu taps", (size_t)GFIR_MAX_TAPS);
            goto done;
        }
        d->ntaps += d->stages[i].ntaps - 1;
        d->dropped += d->stages[i].dropped;
    }
    settle_width(d);
    d->inputs = d->stages[0].inputs;
    d->outputs = d->stages[d->nstages - 1].outputs;
    if (check_true_stereo(f, d) || check_ir_options(f, d) || check_chain_size(f, d))
        goto done;
    if (!d->has_ir && !f->min_phase)
        d->delay_frames = (d->ntaps - 1) / 2;
    if ((f->mix && mix_design(f, d)) || (fold && (fold_design(d) || check_chain_size(f, d))) ||
        scale_design(f, d, defer && fold))
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
    return build(f, rate_hz, channels, quiet, 1, 0, d);
}

int cli_design_begin(const cli_filter *f, double rate_hz, unsigned channels, int quiet,
                     cli_design *d)
{
    return build(f, rate_hz, channels, quiet, 1, 1, d);
}

int cli_design_stages(const cli_filter *f, double rate_hz, unsigned channels, int quiet,
                      cli_design *d)
{
    if (build(f, rate_hz, channels, quiet, 0, 0, d))
        return 1;
    /* --normalize measured the folded chain; it runs unfolded */
    free(d->taps);
    d->taps = NULL;
    return 0;
}

static void free_names(char **names, size_t n)
{
    for (size_t i = 0; names && i < n; i++)
        free(names[i]);
    free(names);
}

void cli_design_free(cli_design *d)
{
    if (d->measure) /* its thread reads the taps */
        (void)cli_measure_end(d->measure);
    for (size_t i = 0; d->stages && i < d->nstages; i++) {
        stage_design *sd = &d->stages[i];
        free(sd->taps);
        free(sd->paths);
        free_names(sd->set_names, sd->nsets);
    }
    free(d->stages);
    free(d->taps);
    free(d->paths);
    free_names(d->path_names, d->npaths ? d->npaths : d->filter_channels);
    memset(d, 0, sizeof *d);
}

void cli_design_whole(const cli_design *d, cli_taps *t)
{
    *t = (cli_taps){d->taps, d->ntaps, d->filter_channels, d->inputs, d->outputs, d->paths,
                    d->npaths};
}

void cli_design_stage(const cli_design *d, size_t i, cli_taps *t)
{
    const stage_design *sd = &d->stages[i];
    *t = (cli_taps){sd->taps, sd->ntaps, sd->nsets, sd->inputs, sd->outputs, sd->paths,
                    sd->npaths};
}
