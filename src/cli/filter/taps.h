/*
 * taps.h - filter coefficients from a text file (--taps). Prints its own
 * one-line errors.
 */
#ifndef GFIR_CLI_TAPS_H
#define GFIR_CLI_TAPS_H

#include <stddef.h>

/* Whitespace- or comma-separated numbers, '#' comments. */
int taps_load_text(const char *path, float **taps, size_t *ntaps);

#endif
