/*
 * describe.c - --describe: a designed chain's stages, taps and latency, the
 * plans that run it, its paths, and its passband ripple and stopband
 * attenuation as measured on its response (one FFT grid per tap set, so a
 * reverb of a million taps is measured as fast as it is read).
 */
#include "inspect/inspect.h"
#include "message.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MEASURE_POINTS 4096
#define MAX_BANDS 64

/* ---- bands: where each designed stage passes and stops ---------------------- */

typedef struct band {
    double lo_hz, hi_hz;
} band;

/* Appends the stage's passbands (pass = 1) or stopbands (pass = 0), the
 * transition bands excluded. Taps and IR stages have no bands. */
static size_t stage_bands(const cli_stage *s, double nyquist, int pass, band *out)
{
    const double h = s->transition_hz / 2, f1 = s->cutoff1_hz, f2 = s->cutoff2_hz;
    int low_passes;
    if (s->kind != STAGE_DESIGN)
        return 0;
    switch (s->type) {
    case GFIR_LOWPASS:
    case GFIR_HIGHPASS:
        low_passes = (s->type == GFIR_LOWPASS) == pass;
        out[0] = low_passes ? (band){0, f1 - h} : (band){f1 + h, nyquist};
        return 1;
    case GFIR_BANDPASS:
    case GFIR_BANDSTOP:
        if ((s->type == GFIR_BANDPASS) == pass) {
            out[0] = (band){f1 + h, f2 - h};
            return 1;
        }
        out[0] = (band){0, f1 - h};
        out[1] = (band){f2 + h, nyquist};
        return 2;
    }
    return 0;
}

static int in_bands(const band *b, size_t n, double f)
{
    for (size_t i = 0; i < n; i++)
        if (f >= b[i].lo_hz && f <= b[i].hi_hz)
            return 1;
    return 0;
}

/* The chain passes where every designed stage passes and stops where any stops. */
static int in_chain_passband(const cli_filter *f, double nyquist, double freq)
{
    band b[2];
    int any = 0;
    for (size_t i = 0; i < f->chain.nstages; i++) {
        size_t n = stage_bands(&f->chain.stages[i], nyquist, 1, b);
        if (n && !in_bands(b, n, freq))
            return 0;
        any |= n > 0;
    }
    return any;
}

static int in_chain_stopband(const cli_filter *f, double nyquist, double freq)
{
    band b[2];
    for (size_t i = 0; i < f->chain.nstages; i++) {
        size_t n = stage_bands(&f->chain.stages[i], nyquist, 0, b);
        if (in_bands(b, n, freq))
            return 1;
    }
    return 0;
}

/* ---- --describe ------------------------------------------------------------- */

static void describe_stage(const cli_options *o, size_t i, const cli_stage *s,
                           const cli_design *d)
{
    const stage_design *sd = &d->stages[i];
    static const char *const type_names[] = {"lowpass", "highpass", "bandpass", "bandstop"};
    char name[256], path[4096 * 4];
    /* names come from files and the command line: shown as messages show them */
    cli_escape(s->name, name, sizeof name);
    cli_escape(s->path ? s->path : "", path, sizeof path);
    printf("  %zu. %-20s ", i + 1, name);
    if (s->kind == STAGE_DESIGN && (s->type == GFIR_LOWPASS || s->type == GFIR_HIGHPASS))
        printf("%s at %g Hz, transition %g Hz, %g dB", type_names[s->type], s->cutoff1_hz,
               s->transition_hz, s->attenuation_db);
    else if (s->kind == STAGE_DESIGN)
        printf("%s %g to %g Hz, transition %g Hz, %g dB", type_names[s->type], s->cutoff1_hz,
               s->cutoff2_hz, s->transition_hz, s->attenuation_db);
    else if (s->kind == STAGE_ROUTE)
        printf("route of %u input%s to %u output%s", s->route_inputs,
               s->route_inputs == 1 ? "" : "s", s->route_outputs, s->route_outputs == 1 ? "" : "s");
    else
        printf("%s '%s'", s->kind == STAGE_IR ? (s->nfiles > 1 ? "impulse responses"
                                                                : "impulse response")
                                               : "taps from",
               path);
    printf(": %zu tap%s", sd->ntaps, sd->ntaps == 1 ? "" : "s");
    if (sd->nsets > 1)
        printf(" x %u %s", sd->nsets, s->kind == STAGE_IR && s->nfiles == 1 ? "channels" : "sets");
    if (sd->layout)
        printf(", %s", sd->layout);
    if (sd->paths)
        printf(" (%zu path%s, %u channel%s to %u)", sd->npaths, sd->npaths == 1 ? "" : "s",
               sd->inputs, sd->inputs == 1 ? "" : "s", sd->outputs);
    printf("\n");
    if (o->filter->trim && (s->kind == STAGE_IR || s->kind == STAGE_ROUTE))
        printf("     --ir-trim %g cut %zu frames (%.2f ms) of leading silence\n",
               o->filter->trim_db, sd->trimmed, 1000.0 * (double)sd->trimmed / d->rate_hz);
    if (o->filter->min_phase)
        printf("     minimum phase: magnitude kept to within %.3f dB (where within 80 dB of "
               "its peak)\n", sd->minphase_db);
}

/* The plans that filter a file: with OUTPUT the job's own, else those it
 * would make (the same function makes them), one line each: what -v says
 * when the file runs. */
static void describe_plans(const cli_chain *chain)
{
    const unsigned channels = chain->in_channels;
    char summary[128];
    for (size_t i = 0; i < chain->nplans; i++) {
        cli_plan_summary(chain->plans[i], summary, sizeof summary);
        if (chain->nplans > 1)
            printf("engine, stage %zu: %s\n", i + 1, summary);
        else if (chain->out_channels != channels)
            printf("engine: %s (a file of %u channel%s in and %u out; the writer drops this "
                   "latency)\n", summary, channels, channels == 1 ? "" : "s",
                   chain->out_channels);
        else
            printf("engine: %s (a file of %u channel%s; the writer drops this latency)\n",
                   summary, channels, channels == 1 ? "" : "s");
    }
}

static void print_bands(const char *what, const cli_filter *f, double nyquist, int pass)
{
    double step = nyquist / MEASURE_POINTS, start = -1;
    int first = 1;
    printf("%s", what);
    for (int k = 0; k <= MEASURE_POINTS + 1; k++) {
        double freq = k * step;
        int in = k <= MEASURE_POINTS &&
                 (pass ? in_chain_passband(f, nyquist, freq) : in_chain_stopband(f, nyquist, freq));
        if (in && start < 0)
            start = freq;
        if (!in && start >= 0) {
            printf("%s%.0f to %.0f Hz", first ? " " : ", ", start, (k - 1) * step);
            first = 0;
            start = -1;
        }
    }
}

/* Where the measurement grid's point k lies: 1 passband, 0 stopband, -1
 * neither (a transition band, or a chain without designed bands). */
static void classify(const cli_filter *f, double nyquist, signed char *where)
{
    for (int k = 0; k <= MEASURE_POINTS; k++) {
        const double freq = nyquist * k / MEASURE_POINTS;
        where[k] = in_chain_passband(f, nyquist, freq)   ? 1
                   : in_chain_stopband(f, nyquist, freq) ? 0
                                                         : -1;
    }
}

/* A linear-phase stage: a design or taps, what the bands belong to. */
static int is_linear(const cli_stage *s)
{
    return s->kind == STAGE_DESIGN || s->kind == STAGE_TAPS;
}

/* What the bands are measured on. A chain of designs and taps is measured
 * whole (d->taps, its gain included). Where an impulse response or a route
 * colours the whole, its ripple would be the room's: the designs and taps
 * are folded alone into *own (one set of *n taps), without the chain's
 * scale, and *whole is 0. NULL after one line when that fails. */
static const float *measured_taps(const cli_filter *f, const cli_design *d, float **own,
                                  size_t *n, int *whole)
{
    float *h = NULL;
    *own = NULL;
    *n = 0;
    *whole = 1;
    for (size_t i = 0; i < f->chain.nstages; i++)
        *whole &= is_linear(&f->chain.stages[i]);
    if (*whole) {
        *n = d->ntaps;
        return d->taps;
    }
    for (size_t i = 0; i < f->chain.nstages; i++) {
        const stage_design *sd = &d->stages[i];
        float *next;
        if (!is_linear(&f->chain.stages[i]))
            continue;
        next = malloc((*n ? *n + sd->ntaps - 1 : sd->ntaps) * sizeof *next);
        if (!next) {
            free(h);
            cli_error("out of memory measuring the response");
            return NULL;
        }
        gfir_status st = *n ? gfir_fold(h, *n, sd->taps, sd->ntaps, next) : GFIR_OK;
        if (st != GFIR_OK) {
            free(next);
            free(h);
            cli_error("cannot fold the stages to measure the response: %s", gfir_strerror(st));
            return NULL;
        }
        if (!*n)
            memcpy(next, sd->taps, sd->ntaps * sizeof *next);
        *n = *n ? *n + sd->ntaps - 1 : sd->ntaps;
        /* the chain's scale lies in its first stage */
        for (size_t t = 0; i == 0 && t < *n; t++)
            next[t] = (float)(next[t] / d->scale);
        free(h);
        h = next;
    }
    *own = h;
    return h ? h : d->taps;
}

static int describe_measurements(const cli_filter *f, const cli_design *d)
{
    const double nyquist = d->rate_hz / 2;
    double pass_min = INFINITY, pass_max = -INFINITY, stop_max = -INFINITY;
    signed char where[MEASURE_POINTS + 1];
    double *mag = NULL;
    float *own;
    const float *taps;
    size_t ntaps;
    int any = 0, whole;

    classify(f, nyquist, where);
    for (int k = 0; k <= MEASURE_POINTS; k++)
        any |= where[k] >= 0;
    if (!any) {
        printf("no designed bands: ripple and attenuation not measured\n");
        return 0;
    }
    if (!(taps = measured_taps(f, d, &own, &ntaps, &whole)))
        return 1;
    if (!(mag = malloc((MEASURE_POINTS + 1) * sizeof *mag))) {
        free(own);
        return cli_error("out of memory measuring the response");
    }
    for (unsigned c = 0; c < (whole ? d->filter_channels : 1); c++) {
        /* the grid is exact at its points however long the filter: the taps
         * wrap around it before one small FFT */
        gfir_status st = gfir_response_magnitudes(taps + (size_t)c * ntaps, ntaps, mag,
                                                  MEASURE_POINTS + 1);
        if (st != GFIR_OK) {
            free(mag);
            free(own);
            return cli_error("cannot measure the response of %zu taps: %s", ntaps,
                             gfir_strerror(st));
        }
        for (int k = 0; k <= MEASURE_POINTS; k++) {
            const double db = inspect_db(mag[k]);
            if (where[k] == 1) {
                pass_min = db < pass_min ? db : pass_min;
                pass_max = db > pass_max ? db : pass_max;
            } else if (where[k] == 0 && db > stop_max) {
                stop_max = db;
            }
        }
    }
    free(mag);
    free(own);
    if (pass_max > -INFINITY) {
        print_bands(whole ? "passband" : "designed stages' passband", f, nyquist, 1);
        printf(": gain %+.4f dB, ripple %.4f dB peak to peak\n", (pass_max + pass_min) / 2,
               pass_max - pass_min);
    }
    if (stop_max > -INFINITY) {
        print_bands(whole ? "stopband" : "designed stages' stopband", f, nyquist, 0);
        printf(": attenuation %.1f dB%s\n",
               pass_max > -INFINITY ? pass_max - stop_max : -stop_max,
               pass_max > -INFINITY ? " below the passband" : "");
    }
    return 0;
}

/* Where a path's sound arrives (its first tap within ONSET_DB of its
 * largest: what --ir-trim at that level would cut) and where it peaks (a
 * room's direct sound, a linear-phase filter's centre); how loud it is (its
 * gain for white noise: a route's gains and a plain wire's factor show
 * here) and whether it arrives inverted (its largest tap negative). */
#define ONSET_DB (-60.0)

typedef struct arrival {
    size_t onset, peak;
    double level_db;
    int inverted;
} arrival;

static arrival arrival_of(const float *h, size_t n)
{
    arrival a = {0, 0, 0, 0};
    double energy = 0;
    for (size_t i = 0; i < n; i++) {
        energy += (double)h[i] * h[i];
        if (fabsf(h[i]) > fabsf(h[a.peak]))
            a.peak = i;
    }
    const double level = fabsf(h[a.peak]) * pow(10.0, ONSET_DB / 20);
    while (a.onset < a.peak && fabsf(h[a.onset]) < level)
        a.onset++;
    a.level_db = inspect_db(sqrt(energy));
    a.inverted = h[a.peak] < 0;
    return a;
}

/* Path p's sources: the fold's names, or for a chain without paths the
 * stages' sets for channel c. */
static void path_sources(const cli_design *d, size_t p, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    if (d->path_names) {
        snprintf(buf, len, "%s", d->path_names[p] ? d->path_names[p] : "a plain wire");
        return;
    }
    for (size_t i = 0; i < d->nstages && used < len; i++) {
        const stage_design *sd = &d->stages[i];
        const char *name = sd->set_names ? sd->set_names[sd->nsets > 1 ? p : 0] : NULL;
        if (name && !strstr(buf, name))
            used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? " + " : "", name);
    }
}

#define MAX_PATHS_LISTED 64

/* Every path: input, output, where it comes from and its latency. */
static void describe_paths(const cli_design *d)
{
    const size_t n = d->paths ? d->npaths : d->inputs;
    char raw[512], sources[2048];
    printf("paths (input -> output: sources; latency to where it starts, %g dB below its "
           "peak, and to its peak; level for white noise):\n", -ONSET_DB);
    for (size_t p = 0; p < n && p < MAX_PATHS_LISTED; p++) {
        const unsigned in = d->paths ? d->paths[p].input : (unsigned)p;
        const unsigned out = d->paths ? d->paths[p].output : (unsigned)p;
        const unsigned set = d->paths ? d->paths[p].taps : d->filter_channels > 1 ? (unsigned)p : 0;
        const arrival a = arrival_of(d->taps + (size_t)set * d->ntaps, d->ntaps);
        path_sources(d, d->paths ? p : set, raw, sizeof raw);
        cli_escape(raw, sources, sizeof sources);
        printf("  in %u -> out %u: %s; starts at %zu frames (%.2f ms), peaks at %zu (%.2f ms); "
               "level %+.1f dB%s\n", in + 1, out + 1, sources, a.onset,
               1000.0 * (double)a.onset / d->rate_hz, a.peak, 1000.0 * (double)a.peak / d->rate_hz,
               a.level_db, a.inverted ? ", inverted" : "");
    }
    if (n > MAX_PATHS_LISTED)
        printf("  and %zu more\n", n - MAX_PATHS_LISTED);
}

static const char *normalize_why(const cli_filter *f, const cli_design *d)
{
    static const char *const names[] = {"none", "peak", "energy"};
    static char why[96];
    snprintf(why, sizeof why, "--normalize %s%s%s", names[d->normalize],
             f->normalize == CLI_NORMALIZE_DEFAULT ? ", the default with an impulse response" : "",
             f->gain_db != 0 ? ", and --gain" : "");
    return why;
}

int cli_describe(const cli_options *o, const cli_design *d, const cli_chain *chain)
{
    const cli_filter *f = o->filter;
    printf("chain at %g Hz: %zu stage%s, folded into %zu taps", d->rate_hz, d->nstages,
           d->nstages == 1 ? "" : "s", d->ntaps);
    if (d->paths)
        printf(" x %u sets: %zu path%s from %u channel%s to %u", d->filter_channels, d->npaths,
               d->npaths == 1 ? "" : "s", d->inputs, d->inputs == 1 ? "" : "s", d->outputs);
    else if (d->filter_channels > 1)
        printf(" x %u channels", d->filter_channels);
    printf("\n");
    for (size_t i = 0; i < f->chain.nstages; i++)
        describe_stage(o, i, &f->chain.stages[i], d);
    if (f->gain_db != 0 || d->normalize != CLI_NORMALIZE_NONE)
        printf("scaled by %+.2f dB (%s)\n", inspect_db(d->scale),
               d->normalize != CLI_NORMALIZE_NONE ? normalize_why(f, d) : "--gain");
    if (f->mix && f->dry)
        printf("mix: the IR's output at %+.2f dB%s, the signal it is given at %+.2f dB at its "
               "time zero\n", f->wet_db, d->normalize != CLI_NORMALIZE_NONE ? " (scaled)" : "",
               f->dry_db);
    else if (f->mix)
        printf("mix: the IR's output at %+.2f dB, no dry signal\n", f->wet_db);
    if (f->min_phase)
        printf("latency: minimum phase, no delay for --align to remove\n");
    else
        printf("latency: %s delay %zu frames (%.2f ms), removed by --align same\n",
               d->has_ir ? "designed stages'" : "filter", d->delay_frames,
               1000.0 * d->delay_frames / d->rate_hz);
    describe_plans(chain);
    if (d->paths || d->filter_channels > 1 || d->has_ir)
        describe_paths(d);
    if (describe_measurements(f, d))
        return 1;
    /* a description cut short is a failure, not a success with less to say */
    const int flushed = fflush(stdout) == 0;
    if (!flushed || ferror(stdout))
        return cli_error("cannot write the description to standard output%s%s",
                         flushed ? "" : ": ", flushed ? "" : strerror(errno));
    return 0;
}
