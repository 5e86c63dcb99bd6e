/*
 * source.h - a sound file opened so that it is read to the decoder's end,
 * whatever its header says, and from a pipe in any format libsndfile reads.
 *
 * libsndfile stops reading where SF_INFO.frames says the file ends. For an
 * MP3 without a Xing/LAME header (one written to a pipe) that count is
 * mpg123's guess from the first frame's bit rate: a VBR file was cut to a
 * third. Such a file is read here through virtual I/O that cannot seek to
 * its end, so mpg123 does not guess and the decoder runs to its last frame.
 * From a pipe libsndfile reads WAV, AIFF, AU, W64, Ogg and MP3 as they come;
 * any other format (FLAC, CAF, RF64, ...) needs to seek, and is copied first
 * to an unlinked temporary file in $TMPDIR (or /tmp).
 */
#ifndef GFIR_CLI_SOURCE_H
#define GFIR_CLI_SOURCE_H

#include <sndfile.h>

/* How source_open got at the sound. */
typedef struct source_how {
    int spooled;                /* a pipe copied to a temporary file */
    unsigned long long spooled_bytes;
    const char *spool_dir;      /* where that file was (unlinked) */
    int to_the_end;             /* an MP3 whose length only its end tells */
} source_how;

/* Opens fd for reading as sound. fd is owned by the result (closed by
 * source_close) when close_fd, else left open. On failure NULL, fd closed
 * when close_fd, and why[] says what went wrong in words that fit after
 * "cannot read INPUT 'x' as sound: ". */
SNDFILE *source_open(int fd, int close_fd, SF_INFO *info, source_how *how, char *why,
                     size_t why_len);
/* Closes what source_open opened. */
void source_close(SNDFILE *sf);
/* Where sf's tags and channel map are read (sf_get_string, sf_command):
 * sf, or for an MP3 read to its end the file opened as usual. */
SNDFILE *source_tags(SNDFILE *sf);

#endif
