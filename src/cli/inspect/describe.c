/*
 * describe.c - --describe: a designed chain's stages, taps and latency, and
 * its passband ripple and stopband attenuation as measured on its response.
 */
#include "inspect/inspect.h"
#include "chain.h"
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

static void describe_stage(size_t i, const cli_stage *s, const cli_design *d)
{
    static const char *const type_names[] = {"lowpass", "highpass", "bandpass", "bandstop"};
    printf("  %zu. %-20s ", i + 1, s->name);
    if (s->kind == STAGE_DESIGN && (s->type == GFIR_LOWPASS || s->type == GFIR_HIGHPASS))
        printf("%s at %g Hz, transition %g Hz, %g dB", type_names[s->type], s->cutoff1_hz,
               s->transition_hz, s->attenuation_db);
    else if (s->kind == STAGE_DESIGN)
        printf("%s %g to %g Hz, transition %g Hz, %g dB", type_names[s->type], s->cutoff1_hz,
               s->cutoff2_hz, s->transition_hz, s->attenuation_db);
    else
        printf("%s '%s'", s->kind == STAGE_IR ? "impulse response" : "taps from", s->path);
    printf(": %zu taps", d->stage_ntaps[i]);
    if (d->stage_channels[i] > 1)
        printf(" x %u channels", d->stage_channels[i]);
    printf("\n");
}

/* The plans `gfir INPUT OUTPUT` makes with these options (the same function
 * makes them), one line each: what -v says when the file runs. */
static void describe_plans(const cli_options *o, const cli_design *d, unsigned channels,
                           size_t frames)
{
    const size_t block = o->block_frames ? o->block_frames : CLI_FILE_BLOCK_FRAMES;
    cli_options quiet = *o;
    cli_chain chain;
    char summary[128];
    quiet.verbose = 0;
    quiet.quiet = 1;
    if (!channels)
        channels = d->filter_channels;
    if (cli_chain_create(&quiet, d->rate_hz, channels, block, frames, &chain) != 0) {
        printf("engine: none can be made here (%s)\n", gfir_plan_error_detail(NULL));
        return;
    }
    for (size_t i = 0; i < chain.nplans; i++) {
        cli_plan_summary(chain.plans[i], summary, sizeof summary);
        if (chain.nplans > 1)
            printf("engine, stage %zu: %s\n", i + 1, summary);
        else
            printf("engine: %s (a file of %u channel%s; the writer drops this latency)\n",
                   summary, channels, channels == 1 ? "" : "s");
    }
    cli_chain_destroy(&chain);
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

static void describe_measurements(const cli_filter *f, const cli_design *d)
{
    const double nyquist = d->rate_hz / 2;
    double pass_min = INFINITY, pass_max = -INFINITY, stop_max = -INFINITY;

    for (unsigned c = 0; c < d->filter_channels; c++) {
        const float *h = d->taps + c * d->ntaps;
        for (int k = 0; k <= MEASURE_POINTS; k++) {
            double freq = nyquist * k / MEASURE_POINTS;
            int pass = in_chain_passband(f, nyquist, freq);
            int stop = !pass && in_chain_stopband(f, nyquist, freq);
            if (!pass && !stop)
                continue;
            double db = inspect_db(gfir_response_magnitude(h, d->ntaps, freq, d->rate_hz));
            if (pass) {
                pass_min = db < pass_min ? db : pass_min;
                pass_max = db > pass_max ? db : pass_max;
            } else if (db > stop_max) {
                stop_max = db;
            }
        }
    }
    if (pass_max > -INFINITY) {
        print_bands("passband", f, nyquist, 1);
        printf(": gain %+.4f dB, ripple %.4f dB peak to peak\n", (pass_max + pass_min) / 2,
               pass_max - pass_min);
    }
    if (stop_max > -INFINITY) {
        print_bands("stopband", f, nyquist, 0);
        printf(": attenuation %.1f dB%s\n",
               pass_max > -INFINITY ? pass_max - stop_max : -stop_max,
               pass_max > -INFINITY ? " below the passband" : "");
    }
    if (pass_max == -INFINITY && stop_max == -INFINITY)
        printf("no designed bands: ripple and attenuation not measured\n");
}

int cli_describe(const cli_options *o, const cli_design *d, unsigned channels, size_t frames)
{
    const cli_filter *f = o->filter;
    printf("chain at %g Hz: %zu stage%s, folded into %zu taps", d->rate_hz, d->nstages,
           d->nstages == 1 ? "" : "s", d->ntaps);
    if (d->filter_channels > 1)
        printf(" x %u channels", d->filter_channels);
    printf("\n");
    for (size_t i = 0; i < f->chain.nstages; i++)
        describe_stage(i, &f->chain.stages[i], d);
    if (f->gain_db != 0 || f->normalize_peak)
        printf("scaled by %+.2f dB (%s)\n", inspect_db(d->scale),
               f->normalize_peak ? "--normalize peak and --gain" : "--gain");
    printf("latency: %s delay %zu frames (%.2f ms)", d->has_ir ? "designed stages'" : "filter",
           d->delay_frames, 1000.0 * d->delay_frames / d->rate_hz);
    printf(", removed by --align same\n");
    describe_plans(o, d, channels, frames);
    describe_measurements(f, d);
    return 0;
}
