/*
 * play.c - --play: a file through the filter to an output device. Playback
 * starts with PLAY_AHEAD_S (at least PLAY_MIN_PERIODS periods) queued.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include "file/file.h"
#include "live/live.h"
#include "live/pa.h"
#include "live/session.h"
#include "message.h"
#include "progress.h"

#include <math.h>
#include <sndfile.h>
#include <stdio.h>
#include <string.h>

#define PLAY_MIN_PERIODS 4  /* queued ahead while playing a file ... */
#define PLAY_AHEAD_S 0.1    /* ... and at least this long: a file has no hurry, and
                               a shared virtual machine can stall a thread that long */

typedef struct play_source {
    size_t target;          /* frames to keep queued */
    SNDFILE *file;
    size_t tail_left;       /* frames of filter tail still to flush after the file */
    int file_done;
    unsigned long budget;   /* frames still allowed by --duration (ULONG_MAX: none) */
} play_source;

/* The filter's tail still to come once the file has ended: the longest
 * plan's, in case a reload switches plans. */
static size_t tail_frames(const live_session *s)
{
    size_t n = gfir_plan_ntaps(s->plan) - 1 + gfir_plan_latency(s->plan);
    if (s->next_plan && gfir_plan_ntaps(s->next_plan) - 1 > n)
        n = gfir_plan_ntaps(s->next_plan) - 1;
    return n;
}

/* Frames to keep queued: src->target, or more when the host takes more at
 * once (up to what the ring holds). */
static size_t play_target(const live_session *s, const play_source *src)
{
    size_t t = session_host_burst(s) + s->period;
    const size_t most = s->sh.out.capacity;
    t = t > src->target ? t : src->target;
    return t < most ? t : most;
}

/* Reads, filters and queues blocks until the target is queued or
 * everything is; sets input_done after the last one. */
static int play_fill(live_session *s, void *arg)
{
    play_source *src = arg;
    const size_t target = play_target(s, src);
    while (!atomic_load_explicit(&s->sh.input_done, memory_order_relaxed) &&
           ring_readable(&s->sh.out) + s->period <= target) {
        const double began = progress_now();
        size_t want = s->period < src->budget ? s->period : src->budget;
        size_t n = 0;

        if (!src->file_done) {
            sf_count_t got = sf_readf_float(src->file, s->block, (sf_count_t)want);
            n = got > 0 ? (size_t)got : 0;
            if (n < want && sf_error(src->file) != SF_ERR_NO_ERROR) {
                return cli_error("reading %s failed: %s", s->o->input, sf_strerror(src->file));
            }
            src->file_done = n < want;
            if (n && session_filter_block(s, n, began))
                return 1;
            if (src->file_done)
                src->tail_left = tail_frames(s);
        } else {
            n = src->tail_left < want ? src->tail_left : want;
            src->tail_left -= n;
            if (session_flush_block(s, n))
                return 1;
        }
        ring_write(&s->sh.out, s->out_block, n);
        src->budget -= n;
        if (src->budget == 0 || (src->file_done && src->tail_left == 0))
            atomic_store_explicit(&s->sh.input_done, 1, memory_order_release);
    }
    return 0;
}

int live_play(const cli_options *o)
{
    live_session s;
    play_source src = {0};
    SF_INFO info;
    PaDeviceIndex dev;
    PaStreamParameters out;
    struct sigaction old_int, old_term;
    int failed = 1, r;
    size_t target;

    if (cli_open_input(o->input, o->verbose, &src.file, &info))
        return 1;
    session_catch_stop_signals(&old_int, &old_term);
    if (session_init(&s, o))
        goto done;
    s.rate = info.samplerate;
    s.channels = (unsigned)info.channels;
    if (live_find_device(o->device, 0, &dev))
        goto done;
    target = (size_t)ceil(PLAY_AHEAD_S * s.rate / (double)s.period);
    target = (target < PLAY_MIN_PERIODS ? PLAY_MIN_PERIODS : target) * s.period;
    src.target = target;
    /* the plan first: the device plays as many channels as the filter routes to */
    if (session_alloc(&s, target, 0))
        goto done;
    live_stream_params(&out, dev, s.out_channels, 0);
    PaError fmt = Pa_IsFormatSupported(NULL, &out, s.rate);
    if (fmt != paFormatIsSupported) {
        live_unsupported("play", NULL, &out, s.rate, fmt);
        goto done;
    }
    src.budget = o->duration_s > 0 ? (unsigned long)ceil(o->duration_s * s.rate) : (unsigned long)-1;
    if (play_fill(&s, &src) || session_open(&s, NULL, &out))
        goto done;
    if (o->verbose) {
        const PaDeviceInfo *d = Pa_GetDeviceInfo(dev);
        cli_note(0, "playing %s on %d '%s' (%s): %.0f Hz, %u channels, period %zu", o->input,
                 (int)dev, d->name, live_host_name(d), s.rate, s.out_channels, s.period);
    }
    session_print_latency(&s, ring_readable(&s.sh.out));
    if (session_start(&s))
        goto done;
    failed = session_run(&s, 0, play_fill, &src);
done:
    r = session_end(&s, failed);
    session_release_stop_signals(&old_int, &old_term);
    cli_close_input(src.file);
    return r;
}
