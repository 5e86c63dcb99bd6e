/*
 * sets.h - one stage's tap sets at a sample rate: a Kaiser design, text
 * coefficients, an IR file's channels (or every channel of a list of files,
 * one file after another), or the sources a [route] names (each file's
 * channel once, and a unit impulse for a plain wire). Sets of one stage
 * share a length: shorter ones end in zeros. Prints its own one-line errors.
 */
#ifndef GFIR_CLI_SETS_H
#define GFIR_CLI_SETS_H

#include "filter/filter.h"

/*
 * Fills sd->taps, ntaps, nsets and set_names with stage s at rate_hz. For
 * an IR stage *file_sets gets each file's channels (s->nfiles of them); for
 * a route *term_set gets the set each term takes (s->nterms); both are
 * malloc'd, else NULL. quiet silences notes (resampling). Within f's
 * --max-taps: a design or taps file counted on width channels (0: not known
 * yet, 1), an IR on its own. 0, or 1 after one line.
 */
int sets_load(const cli_filter *f, const cli_stage *s, double rate_hz, unsigned width, int quiet,
              stage_design *sd, unsigned **file_sets, unsigned **term_set);

#endif
