/*
 * inspect.h - looking at a designed chain without filtering: --describe
 * (stages, taps, latency, measured passband and stopband) and --response
 * (an SVG of the magnitude response).
 */
#ifndef GFIR_CLI_INSPECT_H
#define GFIR_CLI_INSPECT_H

#include "filter/filter.h"

#include <math.h>

/* A magnitude in dB, -300 for silence. */
static inline double inspect_db(double mag)
{
    return mag > 1e-15 ? 20 * log10(mag) : -300;
}

/* Describes d, and the plans a file run makes of it for a file of `channels`
 * channels (0: as many as the filter has) and `frames` frames (0: unknown). */
int cli_describe(const cli_options *o, const cli_design *d, unsigned channels, size_t frames);
int cli_write_response_svg(const char *path, const cli_filter *f, const cli_design *d);

#endif
