/*
 * resample.h - INPUT read at another rate (--rate), through libsoxr's very
 * high quality resampler as the reader asks for frames.
 *
 * The resampling happens before the filter: the filter is then designed
 * (cutoffs in Hz, an IR resampled) and run at the output's rate, and the
 * frames the job counts, aligns and writes are OUTPUT's. Downsampling, the
 * common case, also filters fewer frames this way.
 */
#ifndef GFIR_CLI_RESAMPLE_H
#define GFIR_CLI_RESAMPLE_H

#include <stddef.h>
#include <stdint.h>

/* Where the resampler's input comes from: up to max frames into buf, 0 at
 * the end, -1 on a read error. */
typedef long (*resampler_source)(void *ctx, float *buf, size_t max);

typedef struct resampler resampler;

/* in_rate to out_rate for channels interleaved channels, reading blocks of
 * up to `block` frames from src. NULL after one line on stderr. */
resampler *resampler_create(int in_rate, int out_rate, unsigned channels, size_t block,
                            resampler_source src, void *ctx);
/* Up to max frames at out_rate into buf: the frames given, 0 at the end
 * (libsoxr's tail flushed), -1 when src failed or libsoxr did. */
long resampler_read(resampler *rs, float *buf, size_t max);
void resampler_destroy(resampler *rs);

/* What `frames` frames at in_rate become at out_rate: libsoxr's count,
 * frames x out_rate / in_rate rounded to the nearest. 0 stays 0 (unknown). */
uint64_t resampled_frames(uint64_t frames, int in_rate, int out_rate);

#endif
