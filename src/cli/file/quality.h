/*
 * quality.h - a codec's quality, the last part of --format, the sox and
 * ffmpeg way: mp3:320k (constant bitrate, ffmpeg's -b:a), mp3:v0 (LAME's
 * variable bitrate -V 0, ffmpeg's -q:a), opus:96k (the whole stream's
 * bitrate, as ffmpeg's -b:a), vorbis:q6 (oggenc -q 6), flac:8 (flac -8).
 * libsndfile sets them through SFC_SET_COMPRESSION_LEVEL, a number from 0
 * (best) to 1 (smallest) that each codec maps its own way, and
 * SFC_SET_BITRATE_MODE; here each is turned back into the codec's own terms.
 */
#ifndef GFIR_CLI_QUALITY_H
#define GFIR_CLI_QUALITY_H

#include <sndfile.h>
#include <stddef.h>

typedef enum {
    QUALITY_DEFAULT,    /* gfir's: LAME -V 2, Opus 64 kbit/s a channel, Vorbis q5, FLAC 5 */
    QUALITY_KBPS,       /* "320k": kbit/s for the whole stream */
    QUALITY_VBR,        /* "v0": LAME's -V, 0 (best) to 9 */
    QUALITY_VORBIS,     /* "q6": oggenc's -q, 0 to 10 */
    QUALITY_LEVEL       /* "8": FLAC's compression level, 0 to 8 */
} quality_kind;

typedef struct codec_quality {
    quality_kind kind;
    double value;
} codec_quality;

/* Reads word as a quality: 0, or -1 when it has none of the shapes above
 * (it may then name samples). */
int quality_parse(const char *word, codec_quality *q);

/* Whether OUTPUT's encoding (out->format, at out's rate and channels) takes
 * q: 0, or one line naming what it takes and 2 (wrong usage). format: the
 * --format given, for the message. */
int quality_check(const codec_quality *q, const SF_INFO *out, const char *format);

/* Sets the encoder of sf, just opened for writing, to q (DEFAULT: gfir's
 * settings). One line and 1 on failure. */
int quality_apply(SNDFILE *sf, const codec_quality *q, const SF_INFO *info, const char *path);

/* "variable bitrate (LAME -V 2)", "constant bitrate 320 kbit/s", ...: the
 * encoder's settings in words, or "" for an encoding without any. */
void quality_describe(const codec_quality *q, const SF_INFO *info, char *buf, size_t size);

#endif
