/*
 * response.c - looking at a designed chain: --describe (stages, taps, latency,
 * measured passband ripple and stopband attenuation) and --response (an SVG
 * of the magnitude response in dB over log frequency, band edges marked),
 * plus the peak magnitude that --normalize peak divides by.
 */
#include "filter.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MEASURE_POINTS 4096
#define MAX_SUBPOINTS 16
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
    for (size_t i = 0; i < f->nstages; i++) {
        size_t n = stage_bands(&f->stages[i], nyquist, 1, b);
        if (n && !in_bands(b, n, freq))
            return 0;
        any |= n > 0;
    }
    return any;
}

static int in_chain_stopband(const cli_filter *f, double nyquist, double freq)
{
    band b[2];
    for (size_t i = 0; i < f->nstages; i++) {
        size_t n = stage_bands(&f->stages[i], nyquist, 0, b);
        if (in_bands(b, n, freq))
            return 1;
    }
    return 0;
}

static double to_db(double mag)
{
    return mag > 1e-15 ? 20 * log10(mag) : -300;
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

/* The engine latency of the plan a file run makes (its block size, backend
 * and kernel), or -1 when no such plan can be made here. */
static long plan_latency(const cli_options *o, const cli_design *d)
{
    gfir_config cfg;
    gfir_plan *plan;
    long latency;
    gfir_config_init(&cfg);
    cfg.channels = d->filter_channels;
    cfg.filter_channels = d->filter_channels;
    cfg.max_block_frames = o->block_frames ? o->block_frames : CLI_FILE_BLOCK_FRAMES;
    cfg.backend = o->backend;
    cfg.kernel = o->kernel;
    if (gfir_plan_create(&plan, d->taps, d->ntaps, &cfg) != GFIR_OK)
        return -1;
    latency = (long)gfir_plan_latency(plan);
    gfir_plan_destroy(plan);
    return latency;
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
            double db = to_db(gfir_response_magnitude(h, d->ntaps, freq, d->rate_hz));
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

int cli_describe(const cli_options *o, const cli_design *d)
{
    const cli_filter *f = o->filter;
    const long latency = plan_latency(o, d);
    printf("chain at %g Hz: %zu stage%s, folded into %zu taps", d->rate_hz, d->nstages,
           d->nstages == 1 ? "" : "s", d->ntaps);
    if (d->filter_channels > 1)
        printf(" x %u channels", d->filter_channels);
    printf("\n");
    for (size_t i = 0; i < f->nstages; i++)
        describe_stage(i, &f->stages[i], d);
    if (f->gain_db != 0 || f->normalize_peak)
        printf("scaled by %+.2f dB (%s)\n", to_db(d->scale),
               f->normalize_peak ? "--normalize peak and --gain" : "--gain");
    printf("latency: %s delay %zu frames (%.2f ms)", d->has_ir ? "designed stages'" : "filter",
           d->delay_frames, 1000.0 * d->delay_frames / d->rate_hz);
    if (latency >= 0)
        printf(", removed by --align same; engine latency %ld frames (files)\n", latency);
    else
        printf(", removed by --align same; engine latency unknown (%s)\n",
               gfir_plan_error_detail(NULL));
    describe_measurements(f, d);
    return 0;
}

/* ---- --response FILE.svg ---------------------------------------------------- */

#define SVG_W 800
#define SVG_H 480
#define PLOT_L 70
#define PLOT_R 770
#define PLOT_T 40
#define PLOT_B 420

typedef struct axes {
    double f_lo, f_hi, db_lo, db_hi;
} axes;

static double x_of(const axes *a, double freq)
{
    return PLOT_L + (PLOT_R - PLOT_L) * log10(freq / a->f_lo) / log10(a->f_hi / a->f_lo);
}

static double y_of(const axes *a, double db)
{
    if (db < a->db_lo)
        db = a->db_lo;
    return PLOT_T + (PLOT_B - PLOT_T) * (a->db_hi - db) / (a->db_hi - a->db_lo);
}

static void svg_grid(FILE *fp, const axes *a)
{
    static const double steps[] = {1, 2, 5};
    for (double decade = 1; decade <= a->f_hi; decade *= 10) {
        for (int i = 0; i < 3; i++) {
            double freq = decade * steps[i];
            if (freq < a->f_lo || freq > a->f_hi)
                continue;
            double x = x_of(a, freq);
            fprintf(fp, "<line x1='%.1f' y1='%d' x2='%.1f' y2='%d' stroke='#ddd'/>\n", x, PLOT_T,
                    x, PLOT_B);
            fprintf(fp, "<text x='%.1f' y='%d' text-anchor='middle'>%g%s</text>\n", x,
                    PLOT_B + 18, freq >= 1000 ? freq / 1000 : freq, freq >= 1000 ? "k" : "");
        }
    }
    for (double db = a->db_hi; db >= a->db_lo; db -= 20) {
        double y = y_of(a, db);
        fprintf(fp, "<line x1='%d' y1='%.1f' x2='%d' y2='%.1f' stroke='#ddd'/>\n", PLOT_L, y,
                PLOT_R, y);
        fprintf(fp, "<text x='%d' y='%.1f' text-anchor='end'>%g</text>\n", PLOT_L - 6, y + 4, db);
    }
    fprintf(fp, "<rect x='%d' y='%d' width='%d' height='%d' fill='none' stroke='#444'/>\n",
            PLOT_L, PLOT_T, PLOT_R - PLOT_L, PLOT_B - PLOT_T);
    fprintf(fp, "<text x='%d' y='%d' text-anchor='middle'>frequency (Hz)</text>\n",
            (PLOT_L + PLOT_R) / 2, PLOT_B + 42);
    fprintf(fp, "<text x='18' y='%d' text-anchor='middle' transform='rotate(-90 18 %d)'>"
            "magnitude (dB)</text>\n", (PLOT_T + PLOT_B) / 2, (PLOT_T + PLOT_B) / 2);
}

static void svg_edges(FILE *fp, const axes *a, const cli_filter *f)
{
    for (size_t i = 0; i < f->nstages; i++) {
        const cli_stage *s = &f->stages[i];
        int band = s->type == GFIR_BANDPASS || s->type == GFIR_BANDSTOP;
        if (s->kind != STAGE_DESIGN)
            continue;
        for (int e = 0; e <= band; e++) {
            double freq = e ? s->cutoff2_hz : s->cutoff1_hz;
            if (freq < a->f_lo || freq > a->f_hi)
                continue;
            double x = x_of(a, freq);
            fprintf(fp, "<line x1='%.1f' y1='%d' x2='%.1f' y2='%d' stroke='#c33' "
                    "stroke-dasharray='5,4'/>\n", x, PLOT_T, x, PLOT_B);
            fprintf(fp, "<text x='%.1f' y='%d' fill='#c33' text-anchor='middle'>%g Hz</text>\n",
                    x, PLOT_T - 6 - 14 * (int)((i * 2 + e) % 2), freq);
        }
    }
}

/* One point per pixel column: the largest magnitude among a few frequencies
 * across the column, so stopband lobes narrower than a pixel are not missed
 * (the envelope is what an attenuation figure promises). */
static void svg_curve(FILE *fp, const axes *a, const float *h, size_t ntaps, double rate_hz,
                      const char *color)
{
    const int columns = PLOT_R - PLOT_L;
    const double budget = 2e7 / ((double)columns * (double)ntaps);
    const int sub = budget >= MAX_SUBPOINTS ? MAX_SUBPOINTS : budget >= 1 ? (int)budget : 1;
    fprintf(fp, "<polyline fill='none' stroke='%s' stroke-width='1.2' points='", color);
    for (int k = 0; k <= columns; k++) {
        double peak_db = -300;
        for (int j = 0; j < sub; j++) {
            double t = (k + (sub > 1 ? (double)j / sub - 0.5 : 0)) / columns;
            double freq = a->f_lo * pow(a->f_hi / a->f_lo, t < 0 ? 0 : t > 1 ? 1 : t);
            double db = to_db(gfir_response_magnitude(h, ntaps, freq, rate_hz));
            peak_db = db > peak_db ? db : peak_db;
        }
        fprintf(fp, "%d,%.1f ", PLOT_L + k, y_of(a, peak_db));
    }
    fprintf(fp, "'/>\n");
}

int cli_write_response_svg(const char *path, const cli_filter *f, const cli_design *d)
{
    static const char *const colors[] = {"#1f5fbf", "#2a9d3a", "#d08a00", "#8e44ad"};
    const double nyquist = d->rate_hz / 2;
    axes a = {nyquist / 2000 > 10 ? 10 : nyquist / 2000, nyquist, -120, 10};
    FILE *fp = fopen(path, "w");
    if (!fp)
        return cli_error("cannot write response plot '%s': %s", path, strerror(errno));
    if (d->scale > 1)
        a.db_hi = 10 * ceil(to_db(d->scale) / 10 + 1);
    a.db_lo = a.db_hi - 130;
    fprintf(fp, "<svg xmlns='http://www.w3.org/2000/svg' width='%d' height='%d' "
            "font-family='sans-serif' font-size='12'>\n", SVG_W, SVG_H);
    fprintf(fp, "<rect width='100%%' height='100%%' fill='white'/>\n");
    fprintf(fp, "<text x='%d' y='16' font-size='14'>", PLOT_L);
    for (size_t i = 0; i < f->nstages; i++)
        fprintf(fp, "%s%s", i ? " + " : "", f->stages[i].name);
    fprintf(fp, ": %zu taps at %g Hz</text>\n", d->ntaps, d->rate_hz);
    svg_grid(fp, &a);
    for (unsigned c = 0; c < d->filter_channels && c < 4; c++)
        svg_curve(fp, &a, d->taps + c * d->ntaps, d->ntaps, d->rate_hz, colors[c]);
    svg_edges(fp, &a, f);
    fprintf(fp, "</svg>\n");
    if (fclose(fp) != 0)
        return cli_error("cannot write response plot '%s': %s", path, strerror(errno));
    return 0;
}

/* ---- peak magnitude by FFT ---------------------------------------------------- */

/* In-place radix-2 FFT of n (a power of two) complex values, re/im apart,
 * with twiddles from a table of n / 2 (cos, sin) pairs. */
static void fft(double *re, double *im, const double *tw, size_t n)
{
    for (size_t i = 1, j = 0; i < n; i++) {
        size_t bit = n >> 1;
        for (; j & bit; bit >>= 1)
            j ^= bit;
        j ^= bit;
        if (i < j) {
            double t = re[i];
            re[i] = re[j];
            re[j] = t;
            t = im[i];
            im[i] = im[j];
            im[j] = t;
        }
    }
    for (size_t len = 2; len <= n; len <<= 1) {
        const size_t half = len / 2, stride = n / len;
        for (size_t i = 0; i < n; i += len) {
            for (size_t k = 0; k < half; k++) {
                const double wr = tw[2 * k * stride], wi = tw[2 * k * stride + 1];
                const size_t a = i + k, b = a + half;
                const double tr = re[b] * wr - im[b] * wi, ti = re[b] * wi + im[b] * wr;
                re[b] = re[a] - tr;
                im[b] = im[a] - ti;
                re[a] += tr;
                im[a] += ti;
            }
        }
    }
}

/* Zero-padded to at least 8x the length (4x for long filters), so the grid is
 * fine enough to see the narrowest peak of the response. -1 without memory. */
double cli_peak_magnitude(const float *taps, size_t ntaps)
{
    const double two_pi = 6.283185307179586476925286766559;
    size_t n = 8192;
    double *re, *im, *tw, peak = 0;
    while (n < ntaps * (ntaps > ((size_t)1 << 20) ? 4 : 8))
        n <<= 1;
    re = calloc(n, sizeof *re);
    im = calloc(n, sizeof *im);
    tw = malloc(n * sizeof *tw);
    if (!re || !im || !tw) {
        peak = -1;
        goto done;
    }
    for (size_t k = 0; k < n / 2; k++) {
        tw[2 * k] = cos(two_pi * (double)k / (double)n);
        tw[2 * k + 1] = -sin(two_pi * (double)k / (double)n);
    }
    for (size_t i = 0; i < ntaps; i++)
        re[i] = taps[i];
    fft(re, im, tw, n);
    for (size_t k = 0; k <= n / 2; k++) {
        double m = sqrt(re[k] * re[k] + im[k] * im[k]);
        if (m > peak)
            peak = m;
    }
done:
    free(re);
    free(im);
    free(tw);
    return peak;
}
