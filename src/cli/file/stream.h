/*
 * stream.h - a sound file written where nothing can be rewritten: a pipe, a
 * FIFO, a terminal. libsndfile writes AU and FLAC there itself but refuses
 * WAV, whose header it writes only once it knows the length. gfir knows the
 * output's length before it starts (or knows that it cannot know it), so for
 * WAV it writes the header first and the samples after it.
 */
#ifndef GFIR_CLI_STREAM_H
#define GFIR_CLI_STREAM_H

#include <sndfile.h>
#include <stdint.h>

/* For stream_open: the output's length is known only at its end. */
#define STREAM_FRAMES_UNKNOWN UINT64_MAX

/* Opens *sf for writing info's format (rate, channels, container and samples)
 * on fd. frames: what will be written, or STREAM_FRAMES_UNKNOWN, for which a
 * WAV header says 0xFFFFFFFF bytes, as streaming writers do. name: OUTPUT,
 * for messages. One line and 1 on failure. */
int stream_open(int fd, const char *name, SF_INFO *info, uint64_t frames, SNDFILE **sf);

#endif
