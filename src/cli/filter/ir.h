/*
 * ir.h - impulse responses in sound files (--ir), resampled with libsoxr when
 * their rate differs from the signal's. Prints its own one-line errors.
 */
#ifndef GFIR_CLI_IR_H
#define GFIR_CLI_IR_H

#include <stddef.h>

/* An IR at rate_hz: *channels tap sets of *ntaps, one after another, its
 * trailing digital silence dropped (said with verbose): *silent frames at
 * rate_hz, which the offline alignment still counts (filter.h). Within
 * max_taps taps x channels (ceiling.h), as read and as resampled. quiet
 * silences the notes (that it was resampled, that silence was dropped). */
int taps_load_ir(const char *path, double rate_hz, int quiet, int verbose, size_t max_taps,
                 float **taps, size_t *ntaps, unsigned *channels, size_t *silent);

#endif
