/*
 * pa.c - PortAudio, quietly: starting it without the pages of noise ALSA and
 * JACK print while devices are probed (unless --debug), finding devices by
 * index or name, explaining what a device cannot do, and --list-devices.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include "live/pa.h"
#include "message.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#ifdef GFIR_LIVE_ALSA
#include <alsa/asoundlib.h>
#endif
#ifdef GFIR_LIVE_JACK
#include <jack/jack.h>
#endif

static const double standard_rates[] = {8000,  11025, 16000, 22050, 32000, 44100,
                                        48000, 88200, 96000, 176400, 192000};


#ifdef GFIR_LIVE_ALSA
static void quiet_alsa(const char *file, int line, const char *function, int err,
                       const char *fmt, ...)
{
    (void)file, (void)line, (void)function, (void)err, (void)fmt;
}
#endif
#ifdef GFIR_LIVE_JACK
static void quiet_jack(const char *msg)
{
    (void)msg;
}
#endif

/* Whether this process runs one thread: /proc/self/task holds one entry. */
static int one_thread(void)
{
    DIR *d = opendir("/proc/self/task");
    struct dirent *e;
    int n = 0;
    if (!d)
        return 0;
    while ((e = readdir(d)))
        n += e->d_name[0] != '.';
    closedir(d);
    return n == 1;
}

/* PortAudio's ALSA layer prints "Expression '...' failed" lines of its own
 * while it probes devices (a device that refuses a period size), through
 * stdio to standard error, with no hook: Debian's libportaudio exports no
 * PaUtil_SetDebugPrintFunction. So Pa_Initialize runs with descriptor 2 on
 * /dev/null, put back as soon as it returns; and only while gfir is one
 * thread (as it is here, before any reader, reload or audio thread starts:
 * checked), so nothing of gfir's own can be lost there. Returns the saved
 * descriptor, or -1 when nothing was muted. */
static int mute_probing(void)
{
    int devnull, saved;
    if (!one_thread())
        return -1;
    fflush(stderr);
    devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (devnull < 0)
        return -1;
    saved = fcntl(2, F_DUPFD_CLOEXEC, 3);
    if (saved >= 0 && dup2(devnull, 2) < 0) {
        close(saved);
        saved = -1;
    }
    close(devnull);
    return saved;
}

static void unmute_probing(int saved)
{
    if (saved < 0)
        return;
    dup2(saved, 2);
    close(saved);
}

/* While PortAudio probes devices, ALSA and JACK print pages of noise (about
 * 90 lines on a machine without a sound card: missing cards, unknown PCMs, no
 * JACK server), -v or not. Both libraries take a handler for their messages;
 * unless --debug those handlers say nothing, for as long as gfir runs.
 * PortAudio's own lines are muted as mute_probing says. */
int live_pa_start(const cli_options *o)
{
    int muted = -1;
    PaError err;
    if (!o->debug) {
#ifdef GFIR_LIVE_ALSA
        snd_lib_error_set_handler(quiet_alsa);
#endif
#ifdef GFIR_LIVE_JACK
        jack_set_error_function(quiet_jack);
        jack_set_info_function(quiet_jack);
#endif
    }
    if (!o->debug)
        muted = mute_probing();
    err = Pa_Initialize();
    unmute_probing(muted);
    if (err != paNoError) {
        return cli_error("cannot start PortAudio: %s", Pa_GetErrorText(err));
    }
    return 0;
}

const char *live_host_name(const PaDeviceInfo *d)
{
    const PaHostApiInfo *h = Pa_GetHostApiInfo(d->hostApi);
    return h ? h->name : "?";
}

int live_device_channels(const PaDeviceInfo *d, int input)
{
    return input ? d->maxInputChannels : d->maxOutputChannels;
}

/* "0 'system' (JACK Audio Connection Kit), 5 'default' (ALSA)" into buf. */
static void describe_devices(int input, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = '\0';
    for (PaDeviceIndex i = 0; i < Pa_GetDeviceCount() && at < len; i++) {
        const PaDeviceInfo *d = Pa_GetDeviceInfo(i);
        if (!d || live_device_channels(d, input) < 1)
            continue;
        int n = snprintf(buf + at, len - at, "%s%d '%s' (%s)", at ? ", " : "", (int)i, d->name,
                         live_host_name(d));
        if (n < 0)
            break;
        at += (size_t)n;
    }
}

static int contains_nocase(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++)
        if (strncasecmp(hay, needle, n) == 0)
            return 1;
    return n == 0;
}

/* spec is NULL (the default device), an index, or a case-insensitive
 * substring of a name (a whole-name match wins). */
int live_find_device(const char *spec, int input, PaDeviceIndex *out)
{
    const char *what = input ? "input" : "output";
    char list[2048];
    PaDeviceIndex found = paNoDevice;

    if (!spec) {
        found = input ? Pa_GetDefaultInputDevice() : Pa_GetDefaultOutputDevice();
        if (found == paNoDevice) {
            describe_devices(input, list, sizeof list);
            if (list[0])
                return cli_error("no default audio %s device; pick one of: %s", what, list);
            return cli_error("no audio %s device found (PortAudio sees none)", what);
        }
        *out = found;
        return 0;
    }
    char *end;
    long index = strtol(spec, &end, 10);
    if (*spec && !*end) {
        const PaDeviceInfo *d =
            index >= 0 && index < Pa_GetDeviceCount() ? Pa_GetDeviceInfo((PaDeviceIndex)index) : NULL;
        if (d && live_device_channels(d, input) > 0) {
            *out = (PaDeviceIndex)index;
            return 0;
        }
    } else {
        for (PaDeviceIndex i = 0; i < Pa_GetDeviceCount(); i++) {
            const PaDeviceInfo *d = Pa_GetDeviceInfo(i);
            if (!d || live_device_channels(d, input) < 1)
                continue;
            if (strcasecmp(d->name, spec) == 0) {
                found = i;
                break;
            }
            if (found == paNoDevice && contains_nocase(d->name, spec))
                found = i;
        }
        if (found != paNoDevice) {
            *out = found;
            return 0;
        }
    }
    describe_devices(input, list, sizeof list);
    if (list[0])
        return cli_error("no %s device matches '%s'; there are: %s", what, spec, list);
    return cli_error("no %s device matches '%s': PortAudio sees no %s devices", what, spec, what);
}

/* One line on what the device does support: its channels and standard rates. */
int live_unsupported(const char *what, const PaStreamParameters *in,
                       const PaStreamParameters *out, double rate, PaError err)
{
    const PaStreamParameters *p = out ? out : in;
    const PaDeviceInfo *d = Pa_GetDeviceInfo(p->device);
    char rates[256] = "";
    size_t at = 0;
    int maxch = live_device_channels(d, !out);
    PaStreamParameters pi, po;

    if (in) {
        pi = *in;
        if (pi.channelCount > Pa_GetDeviceInfo(pi.device)->maxInputChannels)
            pi.channelCount = Pa_GetDeviceInfo(pi.device)->maxInputChannels;
    }
    if (out) {
        po = *out;
        if (po.channelCount > maxch)
            po.channelCount = maxch;
    }
    for (size_t i = 0; i < sizeof standard_rates / sizeof *standard_rates && at < sizeof rates;
         i++) {
        if (Pa_IsFormatSupported(in ? &pi : NULL, out ? &po : NULL, standard_rates[i]) !=
            paFormatIsSupported)
            continue;
        int n = snprintf(rates + at, sizeof rates - at, "%s%.0f", at ? ", " : "",
                         standard_rates[i]);
        if (n < 0)
            break;
        at += (size_t)n;
    }
    return cli_error("'%s' (%s) cannot %s %.0f Hz with %d channel%s (%s); it offers %d %s "
                     "channel%s at %s Hz", d->name, live_host_name(d), what, rate,
                     p->channelCount, p->channelCount == 1 ? "" : "s", Pa_GetErrorText(err), maxch,
                     out ? "output" : "input", maxch == 1 ? "" : "s",
                     rates[0] ? rates : "no standard rate");
}

void live_stream_params(PaStreamParameters *p, PaDeviceIndex dev, unsigned channels, int input)
{
    const PaDeviceInfo *d = Pa_GetDeviceInfo(dev);
    memset(p, 0, sizeof *p);
    p->device = dev;
    p->channelCount = (int)channels;
    p->sampleFormat = paFloat32;
    p->suggestedLatency = input ? d->defaultLowInputLatency : d->defaultLowOutputLatency;
}



int live_list_devices(const cli_options *o)
{
    PaDeviceIndex n, def_in, def_out;
    if (live_pa_start(o))
        return 1;
    n = Pa_GetDeviceCount();
    def_in = Pa_GetDefaultInputDevice();
    def_out = Pa_GetDefaultOutputDevice();
    if (n <= 0) {
        printf("no audio devices found\n");
    } else {
        printf("%5s  %-26s %3s %4s %7s  %s\n", "index", "host API", "in", "out", "rate", "name");
        for (PaDeviceIndex i = 0; i < n; i++) {
            const PaDeviceInfo *d = Pa_GetDeviceInfo(i);
            if (!d)
                continue;
            printf("%5d  %-26s %3d %4d %7.0f  %s%s%s\n", (int)i, live_host_name(d),
                   d->maxInputChannels, d->maxOutputChannels, d->defaultSampleRate, d->name,
                   i == def_out ? "  (default output)" : "",
                   i == def_in ? "  (default input)" : "");
        }
    }
    Pa_Terminate();
    return 0;
}
