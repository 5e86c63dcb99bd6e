/*
 * monitor.c - --monitor: a live input through the filter to an output. The
 * output is primed with MONITOR_PERIODS periods of silence, which is the
 * worker's whole deadline, and kept there after any glitch by dropping or
 * padding output (the callback records the drift, the worker corrects it).
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include "live/live.h"
#include "live/pa.h"
#include "live/session.h"
#include "message.h"
#include "progress.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define MONITOR_PERIODS 2   /* the most --monitor may add beyond the device */
#define INPUT_RING_PERIODS 16

/* The pair of devices: a duplex stream needs both on one host API, so the
 * one not named is that host API's default. */
static int monitor_devices(const cli_options *o, PaDeviceIndex *in, PaDeviceIndex *out)
{
    if (o->device && live_find_device(o->device, 0, out))
        return 1;
    if (o->input_device && live_find_device(o->input_device, 1, in))
        return 1;
    if (!o->device && !o->input_device)
        return live_find_device(NULL, 0, out) || live_find_device(NULL, 1, in);
    if (!o->input_device) {
        *in = Pa_GetHostApiInfo(Pa_GetDeviceInfo(*out)->hostApi)->defaultInputDevice;
        if (*in == paNoDevice) {
            return cli_error("%s has no input device; name one with --input-device",
                             live_host_name(Pa_GetDeviceInfo(*out)));
        }
    }
    if (!o->device) {
        *out = Pa_GetHostApiInfo(Pa_GetDeviceInfo(*in)->hostApi)->defaultOutputDevice;
        if (*out == paNoDevice) {
            return cli_error("%s has no output device; name one with --device",
                             live_host_name(Pa_GetDeviceInfo(*in)));
        }
    }
    if (Pa_GetDeviceInfo(*in)->hostApi != Pa_GetDeviceInfo(*out)->hostApi) {
        return cli_error("input '%s' (%s) and output '%s' (%s) must be on one host API",
                         Pa_GetDeviceInfo(*in)->name, live_host_name(Pa_GetDeviceInfo(*in)),
                         Pa_GetDeviceInfo(*out)->name, live_host_name(Pa_GetDeviceInfo(*out)));
    }
    return 0;
}

/* --channels, else 2, else what both devices have. */
static unsigned monitor_channels(const cli_options *o, PaDeviceIndex in, PaDeviceIndex out)
{
    int most = Pa_GetDeviceInfo(in)->maxInputChannels;
    if (Pa_GetDeviceInfo(out)->maxOutputChannels < most)
        most = Pa_GetDeviceInfo(out)->maxOutputChannels;
    if (o->channels)
        return o->channels;
    return most >= 2 ? 2 : 1;
}

/* Filters what has arrived, no more: a worker that cannot keep up still
 * returns to session_supervise() (Ctrl-C) and sleeps, real-time priority or not. */
static int monitor_pump(live_session *s, void *unused)
{
    (void)unused;
    for (size_t left = ring_readable(&s->sh.in); left > 0;) {
        const double began = progress_now();
        size_t n = ring_read(&s->sh.in, s->block, left < s->period ? left : s->period);
        left -= n;
        if (session_filter_block(s, n, began))
            return 1;
        session_push_output(s, s->out_block, n);
    }
    return 0;
}

int live_monitor(const cli_options *o)
{
    live_session s;
    PaDeviceIndex in_dev, out_dev;
    PaStreamParameters in, out;
    struct sigaction old_int, old_term;
    int failed = 1, r;
    size_t primed;

    session_catch_stop_signals(&old_int, &old_term);
    if (session_init(&s, o) || monitor_devices(o, &in_dev, &out_dev))
        goto done;
    s.rate = Pa_GetDeviceInfo(out_dev)->defaultSampleRate;
    s.channels = monitor_channels(o, in_dev, out_dev);
    primed = MONITOR_PERIODS * s.period;
    /* the plan first: the output has as many channels as the filter routes to */
    if (session_alloc(&s, primed, INPUT_RING_PERIODS * s.period))
        goto done;
    live_stream_params(&in, in_dev, s.channels, 1);
    live_stream_params(&out, out_dev, s.out_channels, 0);
    PaError fmt = Pa_IsFormatSupported(&in, &out, s.rate);
    if (fmt != paFormatIsSupported) {
        int in_short = (int)s.channels > Pa_GetDeviceInfo(in_dev)->maxInputChannels;
        live_unsupported("monitor", in_short ? &in : NULL, in_short ? NULL : &out, s.rate, fmt);
        goto done;
    }
    ring_write(&s.sh.out, NULL, primed);
    if (session_open(&s, &in, &out))
        goto done;
    if (o->verbose) {
        const PaDeviceInfo *di = Pa_GetDeviceInfo(in_dev), *d = Pa_GetDeviceInfo(out_dev);
        cli_note(0, "monitoring %d '%s' to %d '%s' (%s): %.0f Hz, %u channel%s in, %u out, "
                 "period %zu", (int)in_dev, di->name, (int)out_dev, d->name, live_host_name(d),
                 s.rate, s.channels, s.channels == 1 ? "" : "s", s.out_channels, s.period);
    }
    session_print_latency(&s, primed);
    if (session_start(&s))
        goto done;
    const unsigned long stop_after =
        o->duration_s > 0 ? (unsigned long)ceil(o->duration_s * s.rate) : 0;
    failed = session_run(&s, stop_after, monitor_pump, NULL);
done:
    r = session_end(&s, failed);
    session_release_stop_signals(&old_int, &old_term);
    return r;
}
