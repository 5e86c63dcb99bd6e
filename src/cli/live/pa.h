/*
 * pa.h - PortAudio set-up shared by --play, --monitor and --list-devices.
 */
#ifndef GFIR_LIVE_PA_H
#define GFIR_LIVE_PA_H

#include "cli.h"

#include <portaudio.h>
#include <stddef.h>

/* Pa_Initialize with ALSA's and JACK's own messages silenced unless
 * --debug; one line and 1 on failure. */
int live_pa_start(const cli_options *o);
const char *live_host_name(const PaDeviceInfo *d);
int live_device_channels(const PaDeviceInfo *d, int input);
/* spec is NULL (the default device), an index, or a case-insensitive
 * substring of a name (a whole-name match wins). One line and 1 when none. */
int live_find_device(const char *spec, int input, PaDeviceIndex *out);
/* One line on what the device does support: its channels and standard rates. */
int live_unsupported(const char *what, const PaStreamParameters *in,
                     const PaStreamParameters *out, double rate, PaError err);
void live_stream_params(PaStreamParameters *p, PaDeviceIndex dev, unsigned channels, int input);

#endif
