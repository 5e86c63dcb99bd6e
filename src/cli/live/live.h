/*
 * live.h - live audio through PortAudio (built when GFIR_HAVE_LIVE is defined).
 * Each returns the process exit code: 0, or 1 after one line on stderr.
 */
#ifndef GFIR_LIVE_H
#define GFIR_LIVE_H

#include "cli.h"

int live_list_devices(const cli_options *o);
int live_play(const cli_options *o);     /* o->input filtered to o->device */
int live_monitor(const cli_options *o);  /* o->input_device filtered to o->device */

#endif
