/*
 * shape.c - --ir-trim and --min-phase on a stage's tap sets (shape.h).
 */
#include "filter/shape.h"
#include "message.h"

#include <string.h>

/* What --min-phase promises of the magnitude where it is within 80 dB of
 * its peak; the library aims at half of it. */
#define MIN_PHASE_TOLERANCE_DB 0.1

int shape_trim(stage_design *sd, double trim_db, const char *what, int quiet)
{
    const size_t n = sd->ntaps;
    const size_t cut = gfir_filter_onset(sd->taps, n, sd->nsets, trim_db);
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
