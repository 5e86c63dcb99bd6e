/*
 * plot.c - --response FILE.svg: the magnitude response in dB over log
 * frequency, one curve per filter channel (with a legend below the plot when
 * there are several), band edges marked, 0 dB drawn. The dB axis is fitted
 * to the loudest curve, so a loud impulse response stays in the frame. Each
 * curve is read off one FFT of its tap set, so a reverb of a million taps
 * plots in a fraction of a second. Written by OUTPUT's rules
 * (file/output.h): whole or not at all, never over INPUT; the names in it
 * are escaped.
 */
#include "inspect/inspect.h"
#include "message.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The linear grid the curves are read off: a power of two of points from 0
 * Hz to Nyquist, at least 4 per tap (so the narrowest lobe of the response
 * spans 8 of them and its peak is not missed), within these bounds. */
#define GRID_MIN ((size_t)1 << 12)
#define GRID_MAX ((size_t)1 << 20)

#define SVG_W 800
#define SVG_H 480
#define PLOT_L 70
#define PLOT_R 770
#define PLOT_T 40
#define PLOT_B 420
#define COLUMNS (PLOT_R - PLOT_L)
#define DB_SPAN 130             /* dB from the top of the axis to its bottom */
#define LEGEND_ROW_H 18
#define LEGEND_ENTRY_W 100
#define LEGEND_PER_ROW ((PLOT_R - PLOT_L) / LEGEND_ENTRY_W)

/* Eight colours, then the same eight dashed. */
static const char *const colors[] = {"#1f5fbf", "#2a9d3a", "#d08a00", "#8e44ad",
                                     "#c0392b", "#17a2b8", "#6d4c41", "#e84393"};
#define NCOLORS (sizeof colors / sizeof colors[0])

typedef struct axes {
    double f_lo, f_hi, db_lo, db_hi;
} axes;

static double x_of(const axes *a, double freq)
{
    return PLOT_L + (PLOT_R - PLOT_L) * log10(freq / a->f_lo) / log10(a->f_hi / a->f_lo);
}

static double y_of(const axes *a, double db)
{
    db = db < a->db_lo ? a->db_lo : db > a->db_hi ? a->db_hi : db;
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
    if (a->db_lo < 0 && a->db_hi > 0) {
        fprintf(fp, "<line class='zero-db' x1='%d' y1='%.1f' x2='%d' y2='%.1f' stroke='#777' "
                "stroke-width='1.2'/>\n", PLOT_L, y_of(a, 0), PLOT_R, y_of(a, 0));
        if (fmod(a->db_hi, 20) != 0) /* else the grid has labelled it */
            fprintf(fp, "<text x='%d' y='%.1f' text-anchor='end'>0</text>\n", PLOT_L - 6,
                    y_of(a, 0) + 4);
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
    for (size_t i = 0; i < f->chain.nstages; i++) {
        const cli_stage *s = &f->chain.stages[i];
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

static size_t grid_intervals(size_t ntaps)
{
    size_t n = GRID_MIN;
    while (n < 4 * ntaps && n < GRID_MAX)
        n <<= 1;
    return n;
}

static double freq_at(const axes *a, double t)
{
    return a->f_lo * pow(a->f_hi / a->f_lo, t < 0 ? 0 : t > 1 ? 1 : t);
}

/* |H| at freq, linearly between the grid's points around it (mag, n + 1 of
 * them, step Hz apart). */
static double mag_between(const double *mag, size_t n, double step, double freq)
{
    const double x = freq / step;
    size_t j = (size_t)x;
    if (j >= n)
        return mag[n];
    return mag[j] + (x - (double)j) * (mag[j + 1] - mag[j]);
}

/* One point per pixel column: the largest magnitude across the column, so
 * stopband lobes narrower than a pixel are not missed (the envelope is what
 * an attenuation figure promises). That is the largest of the grid's points
 * inside it and of the response at its edges, read between points: the
 * grid is fine enough to see the top of every lobe. A column narrower than
 * the grid's step (low on the log axis) holds no point, and takes its edges
 * exact instead, since a line between two points hides a zero between them.
 * Where the grid was capped below 4 points a tap its edges are read between
 * points still, which keeps the plot's cost its grid's (such a filter's
 * lobes are narrower than the step anyway). */
static void curve_db(const axes *a, const float *h, size_t ntaps, double rate_hz,
                     const double *mag, size_t n, double *db)
{
    const double step = rate_hz / 2 / (double)n;
    const int exact = n >= 4 * ntaps;
    for (int k = 0; k <= COLUMNS; k++) {
        const double lo = freq_at(a, (k - 0.5) / COLUMNS), hi = freq_at(a, (k + 0.5) / COLUMNS);
        size_t j = (size_t)ceil(lo / step), last = (size_t)floor(hi / step);
        double peak;
        if (j > last && exact)
            peak = fmax(gfir_response_magnitude(h, ntaps, lo, rate_hz),
                        gfir_response_magnitude(h, ntaps, hi, rate_hz));
        else
            peak = fmax(mag_between(mag, n, step, lo), mag_between(mag, n, step, hi));
        for (last = last > n ? n : last; j <= last; j++)
            peak = mag[j] > peak ? mag[j] : peak;
        db[k] = inspect_db(peak);
    }
}

/* Every tap set's curve into db, COLUMNS + 1 points each. */
static int curves_db(const axes *a, const cli_design *d, double *db)
{
    const size_t n = grid_intervals(d->ntaps);
    double *mag = malloc((n + 1) * sizeof *mag);
    gfir_status st = mag ? GFIR_OK : GFIR_ERR_NOMEM;
    for (unsigned c = 0; st == GFIR_OK && c < d->filter_channels; c++) {
        const float *h = d->taps + (size_t)c * d->ntaps;
        st = gfir_response_magnitudes(h, d->ntaps, mag, n + 1);
        if (st == GFIR_OK)
            curve_db(a, h, d->ntaps, d->rate_hz, mag, n, db + (size_t)c * (COLUMNS + 1));
    }
    free(mag);
    if (st != GFIR_OK)
        return cli_error("cannot plot the response of %zu taps: %s", d->ntaps,
                         gfir_strerror(st));
    return 0;
}

static void svg_curve(FILE *fp, const axes *a, const double *db, unsigned channel)
{
    fprintf(fp, "<polyline fill='none' stroke='%s' stroke-width='1.2'%s points='",
            colors[channel % NCOLORS], channel >= NCOLORS ? " stroke-dasharray='6,3'" : "");
    for (int k = 0; k <= COLUMNS; k++)
        fprintf(fp, "%d,%.1f ", PLOT_L + k, y_of(a, db[k]));
    fprintf(fp, "'/>\n");
}

/* Text as SVG character data: stage names come from preset files and paths. */
static void svg_text(FILE *fp, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '<': fputs("&lt;", fp); break;
        case '>': fputs("&gt;", fp); break;
        case '&': fputs("&amp;", fp); break;
        case '\'': fputs("&apos;", fp); break;
        case '"': fputs("&quot;", fp); break;
        default:
            /* control characters are not allowed in XML 1.0 */
            fputc((unsigned char)*s < 0x20 ? '?' : *s, fp);
        }
    }
}

/* Legend entries a row holds: "channel N" fits several, a path's
 * "in I -> out O: source" one. */
static unsigned legend_per_row(const cli_design *d)
{
    return d->paths ? 1 : LEGEND_PER_ROW;
}

/* Rows below the axis title: a swatch and "channel N" for each curve, or
 * for a routed filter the path it draws: its input, output and sources. */
static void svg_legend(FILE *fp, const cli_design *d)
{
    const unsigned per_row = legend_per_row(d);
    for (unsigned c = 0; c < d->filter_channels; c++) {
        const double x = PLOT_L + (double)(c % per_row) * LEGEND_ENTRY_W;
        const double y = SVG_H + (double)(c / per_row) * LEGEND_ROW_H + 4;
        fprintf(fp, "<line class='legend' x1='%.0f' y1='%.0f' x2='%.0f' y2='%.0f' stroke='%s' "
                "stroke-width='2'%s/>\n<text class='legend' x='%.0f' y='%.0f'>",
                x, y, x + 24, y, colors[c % NCOLORS],
                c >= NCOLORS ? " stroke-dasharray='6,3'" : "", x + 30, y + 4);
        if (d->paths) {
            fprintf(fp, "in %u &#8594; out %u: ", d->paths[c].input + 1, d->paths[c].output + 1);
            svg_text(fp, d->path_names && d->path_names[c] ? d->path_names[c] : "a plain wire");
        } else {
            fprintf(fp, "channel %u", c + 1);
        }
        fprintf(fp, "</text>\n");
    }
}

/* The dB axis: its top a multiple of 10 at least 1 dB above the loudest
 * point (and never below +10 dB), DB_SPAN deep. */
static void fit_axis(axes *a, const double *db, size_t n)
{
    double top = -300;
    for (size_t i = 0; i < n; i++)
        top = db[i] > top ? db[i] : top;
    a->db_hi = 10 * ceil((top + 1) / 10);
    if (a->db_hi < 10)
        a->db_hi = 10;
    a->db_lo = a->db_hi - DB_SPAN;
}

static void svg_plot(FILE *fp, const cli_filter *f, const cli_design *d, const axes *a,
                     const double *db)
{
    const unsigned nch = d->filter_channels, per_row = legend_per_row(d);
    const unsigned legend_rows = nch > 1 || d->paths ? (nch + per_row - 1) / per_row : 0;
    fprintf(fp, "<svg xmlns='http://www.w3.org/2000/svg' width='%d' height='%u' "
            "font-family='sans-serif' font-size='12'>\n", SVG_W,
            SVG_H + legend_rows * LEGEND_ROW_H);
    fprintf(fp, "<rect width='100%%' height='100%%' fill='white'/>\n");
    fprintf(fp, "<text x='%d' y='16' font-size='14'>", PLOT_L);
    for (size_t i = 0; i < f->chain.nstages; i++) {
        fputs(i ? " + " : "", fp);
        svg_text(fp, f->chain.stages[i].name);
    }
    fprintf(fp, ": %zu taps at %g Hz</text>\n", d->ntaps, d->rate_hz);
    svg_grid(fp, a);
    for (unsigned c = 0; c < nch; c++)
        svg_curve(fp, a, db + c * (COLUMNS + 1), c);
    svg_edges(fp, a, f);
    if (nch > 1 || d->paths)
        svg_legend(fp, d);
    fprintf(fp, "</svg>\n");
}

int cli_plot_write(cli_plot *p, const char *path, const cli_filter *f, const cli_design *d)
{
    const double nyquist = d->rate_hz / 2;
    const unsigned nch = d->filter_channels;
    axes a = {nyquist / 2000 > 10 ? 10 : nyquist / 2000, nyquist, -120, 10};
    double *db = malloc((size_t)nch * (COLUMNS + 1) * sizeof *db);
    FILE *fp;
    int fd, rc = 1;

    if (!db)
        return cli_error("out of memory for the response plot");
    if (curves_db(&a, d, db))
        goto done;
    fit_axis(&a, db, (size_t)nch * (COLUMNS + 1));
    output_catch_signals();
    if (output_begin_named(&p->of, "--response", path))
        goto done;
    /* the stream closes its own descriptor; output_commit still needs of.fd */
    fd = dup(p->of.fd);
    fp = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!fp) {
        if (fd >= 0)
            close(fd);
        cli_error("cannot write response plot '%s': %s", path, strerror(errno));
        goto done;
    }
    svg_plot(fp, f, d, &a, db);
    rc = fclose(fp) != 0;
    if (rc)
        cli_error("cannot write response plot '%s': %s", path, strerror(errno));
done:
    free(db);
    return rc;
}

int cli_plot_commit(cli_plot *p)
{
    return output_commit(&p->of);
}

void cli_plot_end(cli_plot *p)
{
    output_end(&p->of);
}
