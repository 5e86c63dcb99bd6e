/*
 * metadata.h - what INPUT says about itself besides its samples: its tags
 * (title, artist, ...: libsndfile's SF_STR_*) and its channel layout
 * (SFC_GET_CHANNEL_MAP_INFO: a WAVE_FORMAT_EXTENSIBLE mask, an AIFF or CAF
 * layout), copied to OUTPUT where its format holds them. What OUTPUT could
 * not keep is found by reading OUTPUT back, and said in a note.
 */
#ifndef GFIR_CLI_METADATA_H
#define GFIR_CLI_METADATA_H

#include <sndfile.h>
#include <stddef.h>

typedef struct file_metadata {
    char *tags[SF_STR_LAST + 1];    /* by SF_STR_* type; NULL when absent */
    int *layout;                    /* SF_CHANNEL_MAP_* per channel, or NULL */
    int channels;
} file_metadata;

/* INPUT's tags and layout. One line and 1 when out of memory. */
int metadata_read(SNDFILE *in, int channels, file_metadata *m);
/* Hands them to OUTPUT, opened for writing and not yet written to. */
void metadata_write(SNDFILE *out, const file_metadata *m);
/* Reads the finished OUTPUT (a regular file) back; a note unless quiet for
 * each tag or layout its format did not keep. */
void metadata_check(const char *path, const file_metadata *m, int quiet);
/* "; tags title, artist; layout FL FR FC LFE BL BR", or "" when none: for -v. */
void metadata_describe(const file_metadata *m, char *buf, size_t size);
void metadata_free(file_metadata *m);

#endif
