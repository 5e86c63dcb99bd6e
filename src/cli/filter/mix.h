/*
 * mix.h - --wet and --dry: an impulse response's output mixed with the signal
 * it was given, as a reverb's mix knob does.
 *
 * The dry signal is a unit impulse at the IR's time zero (its first tap;
 * --ir-trim moves that to where the room begins) added to the IR's filter on
 * each path from an input to the output of the same channel, or to every
 * output of a mono input. That is a sum of linear filters, so it is folded
 * into the IR's taps: the dry sound takes the same stages, alignment, engine
 * and latency as the wet one, and the output is exact.
 */
#ifndef GFIR_CLI_MIX_H
#define GFIR_CLI_MIX_H

#include "filter/filter.h"

/* Whether the IR stage sd (named name) has a dry path for every output: its
 * outputs are its inputs, or its input is mono. One line and 1 if not. */
int mix_check(const stage_design *sd, const char *name);

/* The IR's taps times wet, plus dry at tap 0 on each dry path (linear gains). */
void mix_stage(stage_design *sd, double wet, double dry);

#endif
