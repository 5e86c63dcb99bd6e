/*
 * shape.c - --ir-trim and --min-phase on a stage's tap sets (shape.h).
 */
#include "filter/shape.h"
#include "message.h"

#include <math.h>
#include <string.h>

/* What --min-phase promises of the magnitude where it is within 80 dB of
 * its peak; the library aims at half of it. */
#define MIN_PHASE_TOLERANCE_DB 0.1

size_t shape_onset(const float *taps, size_t n, unsigned nsets, double level_db)
{
    const size_t total = (size_t)nsets * n;
    double peak = 0, level;
    size_t onset = n;
    for (size_t i = 0; i < total; i++)
        peak = fabs(taps[i]) > peak ? fabs(taps[i]) : peak;
    if (!(peak > 0))
        return n;
    level = peak * pow(10.0, level_db / 20.0);
    for (unsigned c = 0; c < nsets; c++)
        for (size_t i = 0; i < onset; i++)
            if (fabs(taps[(size_t)c * n + i]) >= level) {
                onset = i;
                break;
            }
    return onset;
}

int shape_trim(stage_design *sd, double trim_db, const char *what, int quiet)
{
    const size_t n = sd->ntaps;
    const size_t cut = shape_onset(sd->taps, n, sd->nsets, trim_db);
    if (cut == n)
        return cli_error("--ir-trim: IR '%s' is silent", what);
    if (cut > 0) {
        for (unsigned c = 0; c < sd->nsets; c++)
            memmove(sd->taps + (size_t)c * (n - cut), sd->taps + (size_t)c * n + cut,
                    (n - cut) * sizeof *sd->taps);
        sd->ntaps = n - cut;
    }
    sd->trimmed = cut;
    cli_note(quiet, "note: --ir-trim %g: %zu frame%s of leading silence cut from IR '%s', "
             "%zu frame%s less latency", trim_db, cut, cut == 1 ? "" : "s", what, cut,
             cut == 1 ? "" : "s");
    return 0;
}

int shape_min_phase(stage_design *sd, const char *what, int quiet)
{
    double worst = 0;
    for (unsigned c = 0; c < sd->nsets; c++) {
        double moved = 0;
        float *set = sd->taps + (size_t)c * sd->ntaps;
        gfir_status st = gfir_design_minimum_phase(set, sd->ntaps, set, &moved);
        if (st != GFIR_OK)
            return cli_error("--min-phase: '%s': %s", what, gfir_strerror(st));
        worst = moved > worst ? moved : worst;
    }
    sd->minphase_db = worst;
    if (worst > MIN_PHASE_TOLERANCE_DB)
        cli_note(quiet, "note: --min-phase: '%s' keeps its magnitude only to within %.2f dB "
                 "(where it is within 80 dB of its peak): its zeros lie too near the unit "
                 "circle for the method's finest grid", what, worst);
    return 0;
}
