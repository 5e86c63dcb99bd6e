/*
 * measure.h - --normalize's loudness measured on a thread of its own, so
 * that a long filter's plans are made from its unscaled taps meanwhile and
 * the scale joins them afterwards (filter.h: cli_design_begin). On the
 * 2-core machine a 30-second stereo room's peak took a quarter of the run
 * when the plans waited for it (docs/BENCHMARKS.md).
 */
#ifndef GFIR_CLI_MEASURE_H
#define GFIR_CLI_MEASURE_H

#include "gfir.h"

#include <stddef.h>

typedef struct cli_measure cli_measure;

/* gfir_filter_loudness(taps, ntaps, nsets, paths, npaths, how) begun on a
 * new thread; the arrays must stay unchanged until cli_measure_end. NULL
 * when no thread could be had: the caller measures for itself. */
cli_measure *cli_measure_start(const float *taps, size_t ntaps, unsigned nsets,
                               const gfir_path *paths, size_t npaths, gfir_normalize how);

/* Waits for the measurement and returns what gfir_filter_loudness returned;
 * m is freed. */
double cli_measure_end(cli_measure *m);

#endif
