/*
 * format.h - the output file's format (libsndfile's SF_INFO).
 */
#ifndef GFIR_CLI_FORMAT_H
#define GFIR_CLI_FORMAT_H

#include <sndfile.h>

/* Fills *out (rate and channels from *in) from format ("CONTAINER[:SAMPLES]",
 * or NULL for OUTPUT's extension and INPUT's samples). One line and 1 when
 * no such format exists; a note unless quiet when it falls back. */
int format_choose(const char *format, const char *output, int quiet, const SF_INFO *in,
                  SF_INFO *out);

#endif
