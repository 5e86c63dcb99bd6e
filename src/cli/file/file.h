/*
 * file.h - the offline job: INPUT through the filter into OUTPUT; and INPUT
 * itself, opened once for everything that reads it (a FIFO or a pipe can be
 * read only once).
 */
#ifndef GFIR_CLI_FILE_H
#define GFIR_CLI_FILE_H

#include "cli.h"

#include <sndfile.h>
#include <stddef.h>
#include <stdint.h>

/* The rate INPUT is filtered and written at: --rate with OUTPUT, else
 * INPUT's own (in_info's). */
int cli_file_rate(const cli_options *o, const SF_INFO *in_info);
/* Filters o->input into o->output. */
int cli_run_file(const cli_options *o);
struct cli_chain;
struct cli_design;
/* Called once the job has checked everything it can before writing (OUTPUT's
 * format, the plans) and before it writes any of OUTPUT, with the plans it
 * will run: 0 to go on, else the job ends there with that code. */
typedef int (*cli_file_ready)(void *ctx, const struct cli_chain *chain);
/* The same with INPUT already open (cli_open_input); in is read to its end,
 * not closed. d: the filter designed already at INPUT's rate for its
 * channels (filter/filter.h), or NULL to design it here. ready may be NULL. */
int cli_run_file_from(const cli_options *o, SNDFILE *in, const SF_INFO *in_info,
                      struct cli_design *d, cli_file_ready ready, void *ctx);

/*
 * Opens INPUT ("-": standard input) for reading: one line and 1 when it is
 * missing, a directory, empty, not sound, without frames, at a rate outside
 * CLI_MIN_RATE_HZ..CLI_MAX_RATE_HZ, or from a socket or a terminal in a
 * format libsndfile cannot read there without losing samples. A pipe in such
 * a format is copied to a temporary file first (said with verbose). Reading
 * goes on to the decoder's end (file/source.h). A WAV or AIFF file that
 * holds less than its header claims is a warning (one line). From a pipe,
 * and for an MP3 without a length header, info->seekable is 0 and
 * info->frames means nothing: see cli_input_frames. cli_close_input closes
 * what it opened.
 */
int cli_open_input(const char *path, int verbose, SNDFILE **sf, SF_INFO *info);
/* The same, but a WAV or AIFF cut short is not said: *cut_bytes gets how
 * many bytes its header claims beyond the end of the file (0 when whole),
 * for a caller that reports it its own way (gfir batch). */
int cli_open_input_counting(const char *path, int verbose, SNDFILE **sf, SF_INFO *info,
                            uint64_t *cut_bytes);
/* Closes what cli_open_input opened. */
void cli_close_input(SNDFILE *sf);
/* Where INPUT's tags and channel map are read: sf, or for an MP3 read to its
 * end past its header's estimate, the same file opened as usual. */
SNDFILE *cli_input_tags(SNDFILE *sf);
/* Frames INPUT holds, or 0 when that is known only at its end (a pipe). */
size_t cli_input_frames(const SF_INFO *info);

#endif
