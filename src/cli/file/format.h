/*
 * format.h - the output file's format (libsndfile's SF_INFO) and the settings
 * of its encoder.
 */
#ifndef GFIR_CLI_FORMAT_H
#define GFIR_CLI_FORMAT_H

#include <sndfile.h>
#include <stddef.h>

#include "file/quality.h"

/* Fills *out (rate and channels from *in) from format
 * ("CONTAINER[:SAMPLES][:QUALITY]", or NULL for OUTPUT's extension). The samples are --format's, else the codec
 * the extension names (.mp3, .opus), else INPUT's where the container holds
 * them, else the nearest the container has (with a note unless quiet when
 * INPUT's lossless samples do not fit). has_layout: INPUT records a channel
 * layout, so WAV output becomes WAVE_FORMAT_EXTENSIBLE to keep it. One line
 * and 1 when no such format exists, 2 (wrong usage) for a quality that the
 * encoding cannot take (quality.h). */
int format_choose(const char *format, const char *output, int quiet, const SF_INFO *in,
                  int has_layout, SF_INFO *out);

/* Sets the encoder's quality (MP3, Vorbis, Opus, FLAC: quality.h) from
 * format's last part, else gfir's defaults, on a file just opened for
 * writing, before its first frame. One line and 1 on failure. */
int format_configure(SNDFILE *out, const SF_INFO *info, const char *format, const char *path);
/* The quality format asks for (DEFAULT without one; format may be NULL). */
void format_quality(const char *format, codec_quality *q);

#define FORMAT_LABEL_LEN 32
/* A format's short name for messages: "WAV", "FLAC", "MP3", "Ogg Opus", ...,
 * written into buf, which is returned (the caller's: gfir batch's workers
 * name formats at once). */
const char *format_label(int format, char buf[FORMAT_LABEL_LEN]);

/* "WAV, pcm16", "MP3, variable bitrate (LAME -V 2)", ...: what -v says of
 * OUTPUT written as info with --format format (or NULL). */
void format_describe(const SF_INFO *info, const char *format, char *buf, size_t size);

#endif
