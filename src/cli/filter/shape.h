/*
 * shape.h - conditioning a stage's tap sets: --ir-trim cuts an impulse
 * response's leading silence, --min-phase makes every set minimum phase.
 * Prints its own one-line errors and notes.
 */
#ifndef GFIR_CLI_SHAPE_H
#define GFIR_CLI_SHAPE_H

#include "filter/filter.h"

/* Cuts the frames before the first tap of any set within trim_db (< 0) of
 * the largest: one cut for every set, so the paths keep their timing
 * against each other. Records it in sd->trimmed and says so (what: the
 * stage's name), unless quiet. 0, or 1 after one line. */
int shape_trim(stage_design *sd, double trim_db, const char *what, int quiet);

/* Every set of sd made minimum phase (gfir_design_minimum_phase); a note
 * unless quiet where its magnitude moved by more than 0.1 dB. 0, or 1. */
int shape_min_phase(stage_design *sd, const char *what, int quiet);

#endif
