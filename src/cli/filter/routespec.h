/*
 * routespec.h - the lines of a preset's [route] section, one per output:
 *
 *     out2 = in1 * hall.wav[2] + in2 * 0.5 * room.wav - 6 dB
 *
 * Each term takes one input (inN, from 1) through at most one IR file (a
 * name without spaces or '*'; FILE[K] takes its channel K, from 1), times
 * any factors (a number, or a number then dB); a term with no file is a
 * plain wire. Terms are joined by + or - (a - term has its sign inverted);
 * + or - and a number of dB after a term is that term's gain. A line goes
 * on on the next lines, indented (preset.c joins them). Prints its own
 * one-line errors.
 */
#ifndef GFIR_CLI_ROUTESPEC_H
#define GFIR_CLI_ROUTESPEC_H

#include "filter/stage.h"

#include <stddef.h>

/* Appends the terms of `text`, the line of output `output` (from 0), to
 * *terms (with file names as written). where names the line in messages
 * ("preset 'x' [route] out2"). 0, or 1 after one line. */
int routespec_parse(const char *where, const char *text, unsigned output, route_term **terms,
                    size_t *nterms);

#endif
