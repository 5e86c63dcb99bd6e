/*
 * taps.h - filter coefficients from a text file (--taps). Prints its own
 * one-line errors.
 */
#ifndef GFIR_CLI_TAPS_H
#define GFIR_CLI_TAPS_H

#include <stddef.h>
#include <stdio.h>

/* Whitespace- or comma-separated numbers, '#' comments. */
int taps_load_text(const char *path, size_t max_taps, float **taps, size_t *ntaps);
/* The same from an open stream; name is what messages call it. */
int taps_read_text(FILE *fp, const char *name, size_t max_taps, float **taps, size_t *ntaps);

/* Whether the whole of tok is a number, with *v strtod's double for it
 * (whatever it is, finite or not). */
int taps_number(const char *tok, double *v);

#endif
