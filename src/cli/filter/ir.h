/*
 * ir.h - impulse responses in sound files (--ir), resampled with libsoxr when
 * their rate differs from the signal's. Prints its own one-line errors.
 */
#ifndef GFIR_CLI_IR_H
#define GFIR_CLI_IR_H

#include <stddef.h>

/* An IR at rate_hz: *channels tap sets of *ntaps, one after another. quiet
 * silences the note that it was resampled. */
int taps_load_ir(const char *path, double rate_hz, int quiet, float **taps, size_t *ntaps,
                 unsigned *channels);

#endif
