/*
 * plot.c - --response FILE.svg: the magnitude response in dB over log
 * frequency, one curve per filter channel, band edges marked. Written by
 * OUTPUT's rules (file/output.h): whole or not at all, never over INPUT.
 */
#include "inspect/inspect.h"
#include "file/output.h"
#include "message.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define MAX_SUBPOINTS 16

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
            double db = inspect_db(gfir_response_magnitude(h, ntaps, freq, rate_hz));
            peak_db = db > peak_db ? db : peak_db;
        }
        fprintf(fp, "%d,%.1f ", PLOT_L + k, y_of(a, peak_db));
    }
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

static void svg_plot(FILE *fp, const cli_filter *f, const cli_design *d)
{
    static const char *const colors[] = {"#1f5fbf", "#2a9d3a", "#d08a00", "#8e44ad"};
    const double nyquist = d->rate_hz / 2;
    axes a = {nyquist / 2000 > 10 ? 10 : nyquist / 2000, nyquist, -120, 10};
    if (d->scale > 1)
        a.db_hi = 10 * ceil(inspect_db(d->scale) / 10 + 1);
    a.db_lo = a.db_hi - 130;
    fprintf(fp, "<svg xmlns='http://www.w3.org/2000/svg' width='%d' height='%d' "
            "font-family='sans-serif' font-size='12'>\n", SVG_W, SVG_H);
    fprintf(fp, "<rect width='100%%' height='100%%' fill='white'/>\n");
    fprintf(fp, "<text x='%d' y='16' font-size='14'>", PLOT_L);
    for (size_t i = 0; i < f->chain.nstages; i++) {
        fputs(i ? " + " : "", fp);
        svg_text(fp, f->chain.stages[i].name);
    }
    fprintf(fp, ": %zu taps at %g Hz</text>\n", d->ntaps, d->rate_hz);
    svg_grid(fp, &a);
    for (unsigned c = 0; c < d->filter_channels && c < 4; c++)
        svg_curve(fp, &a, d->taps + c * d->ntaps, d->ntaps, d->rate_hz, colors[c]);
    svg_edges(fp, &a, f);
    fprintf(fp, "</svg>\n");
}

int cli_write_response_svg(const char *path, const cli_filter *f, const cli_design *d)
{
    output_file of = OUTPUT_FILE_INIT;
    FILE *fp = NULL;
    int fd, rc = 1;

    output_catch_signals();
    if (output_begin_named(&of, "--response", path))
        goto done;
    /* the stream closes its own descriptor; output_commit still needs of.fd */
    fd = dup(of.fd);
    fp = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!fp) {
        if (fd >= 0)
            close(fd);
        cli_error("cannot write response plot '%s': %s", path, strerror(errno));
        goto done;
    }
    svg_plot(fp, f, d);
    rc = fclose(fp) != 0;
    if (rc)
        cli_error("cannot write response plot '%s': %s", path, strerror(errno));
    else
        rc = output_commit(&of);
done:
    output_end(&of);
    return rc;
}
