/*
 * ceiling.h - the most taps a filter may have (--max-taps), counted as the
 * convolutions it runs: taps times paths (a filter without paths: times the
 * channels it filters). Checked before each thing is allocated: a design's
 * length, a taps file's coefficients, an IR's frames and its resampled
 * length, each stage, the chain as folded. A refusal names the count, the
 * memory it would take and how to raise the ceiling.
 */
#ifndef GFIR_CLI_CEILING_H
#define GFIR_CLI_CEILING_H

#include <stddef.h>

/* 2^25 taps x paths: a 10 s hall at 192 kHz is 1.9 M taps a path, 7.7 M as
 * true stereo (4 paths), 15.4 M on 8 channels; twice that fits, in about
 * half a GB. A 64-million-tap design (transition_hz = 0.01) does not. */
#define CEILING_DEFAULT_TAPS ((size_t)1 << 25)

/* Memory a plan takes per tap of each path, about (measured: CPU FFT plans
 * from 2.4 M to 64 M taps, one and two channels). */
#define CEILING_BYTES_PER_TAP 16

/* ntaps x units (paths, or channels: unit_name says which, singular) within
 * max_taps: 0, or one line naming what (a preset, a file, "the chain") and 1. */
int ceiling_check(size_t max_taps, const char *what, double ntaps, size_t units,
                  const char *unit_name);

/* "512 MB", "2.1 GB": bytes for a message. */
void ceiling_bytes(double bytes, char *buf, size_t len);

#endif
