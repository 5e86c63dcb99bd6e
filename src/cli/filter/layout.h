/*
 * layout.h - how a chain's tap sets meet the signal's channels: the layout of
 * each impulse-response stage (every channel, one to one, mono to many, true
 * stereo, one file per output, a preset's [route]), a chain with paths
 * folded into one set of paths (each path of the fold one input through
 * everything between it and one output). Prints its own one-line errors.
 */
#ifndef GFIR_CLI_LAYOUT_H
#define GFIR_CLI_LAYOUT_H

#include "filter/filter.h"

/*
 * The layout of IR stage s, whose sets lie in sd->taps: file k's
 * file_sets[k] channels, one file after another. *width is the signal's
 * channels before the stage (0: not known yet, and the stage's own choice
 * of what suits it best), and after it on return. One file: 1 channel filters
 * every channel; C channels filter C channels one to one; on a mono signal,
 * C channels make C outputs; a 4-channel IR on a stereo signal is true
 * stereo, in the order `order`. A list: file k makes output k, from every
 * input (a file of one channel per input) or from input k alone (a file of
 * one channel, as many inputs as files). One line and 1 when none fits.
 */
int layout_ir(const cli_stage *s, const unsigned *file_sets, cli_true_stereo order,
              unsigned *width, stage_design *sd);

/* The paths of route stage s, term t through set term_set[t]. One line and
 * 1 when the signal has another count of channels than the route reads. */
int layout_route(const cli_stage *s, const unsigned *term_set, unsigned *width,
                 stage_design *sd);

/* Folds d's stages, some of which have paths, into d->taps, d->paths and
 * d->path_names for a signal of d->inputs channels: the paths of the fold
 * are the (input, output) pairs that any chain of paths joins, each with the
 * sum of those chains' filters. Sets d->outputs; one to one when that is
 * what the fold is. One line and 1 on failure. */
int layout_fold(cli_design *d);

#endif
