/*
 * session.c - the live session (session.h): the audio callback, the stream's
 * set-up and end, the worker's blocks (with the reloads it takes) and its
 * supervision between them.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include "live/session.h"
#include "chain.h"
#include "filter/filter.h"
#include "live/pa.h"
#include "live/reload.h"
#include "message.h"
#include "progress.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

/* Callbacks that stop for this long mean the device is gone. */
#define WATCHDOG_S 2.0
/* Cleanup after a lost device gets this long before the process just exits. */
#define CLEANUP_GRACE_S 3

static volatile sig_atomic_t stop_signal;

static void on_stop_signal(int sig)
{
    stop_signal = sig;
}

static void on_cleanup_timeout(int sig)
{
    (void)sig;
    _exit(1);
}

static void sleep_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&ts, NULL);
}

/* Denormals cost hundreds of cycles each on x86 and turn up in every decaying
 * filter tail; the library flushes them inside execute, this covers the rest
 * of the worker's arithmetic. */
static void flush_denormals(void)
{
#if defined(__x86_64__) || defined(__i386__)
    _mm_setcsr(_mm_getcsr() | 0x8040); /* FTZ | DAZ */
#elif defined(__aarch64__)
    unsigned long fpcr;
    __asm__ volatile("mrs %0, fpcr" : "=r"(fpcr));
    __asm__ volatile("msr fpcr, %0" : : "r"(fpcr | (1UL << 24)));
#endif
}

/* The worker has deadlines too, and on a busy machine an ordinary thread can
 * sleep through several periods. Where allowed (CAP_SYS_NICE or an rtprio
 * limit), it becomes SCHED_FIFO at a low priority: above ordinary work, below
 * the audio server's own threads. The stream's threads and the plan's worker
 * threads exist by then and keep their own policy. It never busy-waits, so it
 * cannot starve the machine. */
static void realtime_worker(const cli_options *o)
{
    struct sched_param sp;
    int err;
    memset(&sp, 0, sizeof sp);
    sp.sched_priority = sched_get_priority_min(SCHED_FIFO) + 9;
    err = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
    if (err && o->verbose)
        cli_note(0, "the worker runs without real-time priority (%s)", strerror(err));
}


static int stream_callback(const void *input, void *output, unsigned long frames,
                           const PaStreamCallbackTimeInfo *time, PaStreamCallbackFlags flags,
                           void *user)
{
    live_shared *sh = user;
    float *out = output;
    /* Read the flag before the ring: if it was set, everything is in the ring. */
    const int input_done = atomic_load_explicit(&sh->input_done, memory_order_acquire);
    const size_t got = ring_read(&sh->out, out, frames);
    const double now = progress_now();
    (void)time;

    /* Callbacks within an eighth of their own duration of each other are
     * one burst of the host's: it took them all before the worker could run. */
    if (now - sh->burst_at > 0.125 * (double)frames / sh->rate)
        sh->burst = 0;
    sh->burst_at = now;
    sh->burst += frames;
    if (sh->burst > atomic_load_explicit(&sh->max_burst, memory_order_relaxed))
        atomic_store_explicit(&sh->max_burst, sh->burst, memory_order_relaxed);

    if (got < frames) {
        memset(out + got * sh->channels, 0, (frames - got) * sh->channels * sizeof *out);
        if (!input_done) {
            atomic_fetch_add_explicit(&sh->underruns, 1, memory_order_relaxed);
            atomic_fetch_add_explicit(&sh->drift, (long)(frames - got), memory_order_relaxed);
        }
    }
    if (input) {
        const size_t put = ring_write(&sh->in, input, frames);
        if (put < frames) {
            atomic_fetch_add_explicit(&sh->overflows, 1, memory_order_relaxed);
            atomic_fetch_sub_explicit(&sh->drift, (long)(frames - put), memory_order_relaxed);
        }
    }
    if (flags & (paOutputUnderflow | paInputOverflow))
        atomic_fetch_add_explicit(&sh->host_xruns, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&sh->frames_played, got, memory_order_relaxed);
    atomic_fetch_add_explicit(&sh->frames_out, frames, memory_order_relaxed);
    atomic_fetch_add_explicit(&sh->callbacks, 1, memory_order_release);
    if (input_done && got < frames) {
        atomic_store_explicit(&sh->completed, 1, memory_order_release);
        return paComplete;
    }
    return paContinue;
}



int session_init(live_session *s, const cli_options *o)
{
    memset(s, 0, sizeof *s);
    s->o = o;
    s->period = o->period_frames ? o->period_frames : DEFAULT_PERIOD;
    atomic_init(&s->sh.input_done, 0);
    atomic_init(&s->sh.completed, 0);
    atomic_init(&s->sh.callbacks, 0);
    atomic_init(&s->sh.frames_played, 0);
    atomic_init(&s->sh.frames_out, 0);
    atomic_init(&s->sh.underruns, 0);
    atomic_init(&s->sh.overflows, 0);
    atomic_init(&s->sh.host_xruns, 0);
    atomic_init(&s->sh.drift, 0);
    atomic_init(&s->sh.max_burst, 0);
    flush_denormals();
    if (live_pa_start(o))
        return 1;
    s->pa_up = 1;
    /* --backend cuda's device starts while the audio device is opened and
     * the filter designed; not before PortAudio's probing, which is muted
     * only while gfir is one thread (pa.c) */
    cli_backend_start(o);
    return 0;
}

/* The plan and the thread that reloads its filter. */
static int make_plan(live_session *s)
{
    cli_design d;
    int rc;
    if (cli_design_build(s->o->filter, s->rate, s->channels, s->o->quiet, &d))
        return 1;
    rc = cli_live_plan(s->o, &d, s->period, &s->plan);
    s->filter_delay = d.delay_frames;
    s->out_channels = d.outputs;
    if (!rc)
        rc = reload_start(&s->reload, s->o, s->rate, s->channels, s->period, s->plan, &d);
    cli_design_free(&d);
    return rc;
}

int session_alloc(live_session *s, size_t queued_frames, size_t in_frames)
{
    s->sh.rate = s->rate;
    s->queued = queued_frames;
    s->crossfade_frames = (size_t)(s->o->crossfade_ms * s->rate / 1000.0 + 0.5);
    if (make_plan(s))
        return 1;
    s->sh.channels = s->out_channels;
    s->block = malloc(s->period * s->channels * sizeof *s->block);
    s->out_block = malloc(s->period * s->out_channels * sizeof *s->out_block);
    s->aux = malloc(s->period * s->out_channels * sizeof *s->aux);
    if (!s->block || !s->out_block || !s->aux ||
        ring_init(&s->sh.out, queued_frames + HOST_BURST_MAX + s->period, s->out_channels) ||
        (in_frames && ring_init(&s->sh.in, in_frames + HOST_BURST_MAX, s->channels)) ||
        block_times_init(&s->times)) {
        return cli_error("out of memory for the audio buffers");
    }
    return 0;
}

size_t session_host_burst(const live_session *s)
{
    return atomic_load_explicit(&s->sh.max_burst, memory_order_relaxed);
}

/* The host took more at once than is queued: queue more from now on (the
 * padding below, through the drift), up to what the ring holds. */
static void follow_host(live_session *s)
{
    const size_t burst = session_host_burst(s), most = s->sh.out.capacity - s->period;
    size_t want = burst + s->period;
    if (want <= s->queued)
        return;
    want = want < most ? want : most;
    if (want <= s->queued)
        return;
    s->pending_drift -= (long)(want - s->queued);
    s->queued = want;
    if (!s->o->quiet)
        cli_note(0, "the audio device takes %zu frames at a time now; gfir queues %zu frames "
                 "(%.1f ms) for it", burst, s->queued, 1000.0 * (double)s->queued / s->rate);
}

int session_open(live_session *s, const PaStreamParameters *in,
                        const PaStreamParameters *out)
{
    PaError err;
    err = Pa_OpenStream(&s->stream, in, out, s->rate, (unsigned long)s->period, paNoFlag,
                        stream_callback, &s->sh);
    if (err != paNoError) {
        s->stream = NULL;
        const PaDeviceInfo *d = Pa_GetDeviceInfo(out->device);
        return cli_error("cannot open '%s' (%s): %s", d->name, live_host_name(d),
                         Pa_GetErrorText(err));
    }
    return 0;
}

void session_print_latency(const live_session *s, size_t buffered)
{
    const PaStreamInfo *info = Pa_GetStreamInfo(s->stream);
    const double ms = 1000.0 / s->rate;
    const size_t added = buffered + s->filter_delay + gfir_plan_latency(s->plan);
    double device_ms = info ? 1000.0 * (info->outputLatency + info->inputLatency) : 0.0;
    cli_text line = {.len = 0};

    if (s->o->quiet)
        return;
    cli_text_add(&line, "latency: %.1f ms (%zu periods of %zu frames", (double)added * ms,
                 buffered / s->period, s->period);
    if (s->filter_delay)
        cli_text_add(&line, " + filter delay %.1f ms", (double)s->filter_delay * ms);
    if (gfir_plan_latency(s->plan))
        cli_text_add(&line, " + engine %.1f ms", (double)gfir_plan_latency(s->plan) * ms);
    cli_text_add(&line, "; the device adds %.1f ms)", device_ms);
    cli_line("%s", line.text);
}

int session_start(live_session *s)
{
    PaError err = Pa_StartStream(s->stream);
    if (err != paNoError) {
        return cli_error("cannot start the audio stream: %s", Pa_GetErrorText(err));
    }
    s->started = progress_now();
    s->last_progress = s->started;
    realtime_worker(s->o);
    return 0;
}

/* Moves one filtered block into the output ring, first settling any drift
 * the callback reported, so the latency stays what was printed. */
void session_push_output(live_session *s, const float *buf, size_t n)
{
    const size_t ch = s->out_channels;
    s->pending_drift += atomic_exchange_explicit(&s->sh.drift, 0, memory_order_relaxed);
    follow_host(s);
    if (s->pending_drift < 0) {
        size_t pad = (size_t)-s->pending_drift;
        s->pending_drift += (long)ring_write(&s->sh.out, NULL, pad);
    }
    if (s->pending_drift > 0) {
        size_t skip = (size_t)s->pending_drift < n ? (size_t)s->pending_drift : n;
        s->pending_drift -= (long)skip;
        buf += skip * ch;
        n -= skip;
    }
    ring_write(&s->sh.out, buf, n);
}

int session_filter_failed(const live_session *s, gfir_status st)
{
    return cli_error("filtering failed: %s (%s)", gfir_strerror(st),
                     gfir_plan_error_detail(s->plan));
}

/* Takes what the reload thread has ready: a filter to swap into the plan
 * (when the plan's last crossfade is over), or a plan to run beside it
 * (when no switch runs and the last old plan has been collected). */
static void take_reload(live_session *s)
{
    const reload_change *c = reload_pending(s->reload);
    if (!c || s->next_plan)
        return;
    if (c->filter) {
        const gfir_status st = gfir_plan_swap(s->plan, c->filter, s->crossfade_frames);
        if (st != GFIR_ERR_BUSY)
            reload_taken(s->reload, st);
        return;
    }
    if (!reload_can_retire(s->reload))
        return;
    s->next_plan = c->plan;
    s->prime_left = gfir_plan_ntaps(c->plan) - 1;
    s->switch_pos = 0;
    s->switch_len = s->crossfade_frames;
    reload_taken(s->reload, GFIR_OK);
}

/* During a switch of plans: the old plan's output in buf, the new one's in
 * aux; out is the old one's while the new one fills its history, then the
 * crossfade, then the new one's. */
static void mix_plans(live_session *s, float *buf, size_t n)
{
    const size_t ch = s->out_channels;
    for (size_t i = 0; i < n; i++) {
        float w;
        if (s->prime_left > 0) {
            s->prime_left--;
            continue;
        }
        w = (float)gfir_crossfade_weight(s->switch_pos, s->switch_len);
        s->switch_pos += s->switch_pos < s->switch_len;
        for (size_t c = 0; c < ch; c++)
            buf[i * ch + c] = (1.0f - w) * buf[i * ch + c] + w * s->aux[i * ch + c];
    }
    if (s->prime_left == 0 && s->switch_pos == s->switch_len) {
        reload_retire(s->reload, s->plan);
        s->plan = s->next_plan;
        s->next_plan = NULL;
    }
}

/* n frames of s->block, or with flush n frames of silence, into
 * s->out_block through the plan (and the next one during a switch). */
static gfir_status run_one(gfir_plan *plan, const float *in, float *out, size_t n, int flush)
{
    return flush ? gfir_plan_flush(plan, out, n) : gfir_plan_execute(plan, in, out, n);
}

static gfir_status run_plans(live_session *s, size_t n, int flush)
{
    gfir_status st;
    take_reload(s);
    if (!s->next_plan)
        return run_one(s->plan, s->block, s->out_block, n, flush);
    st = run_one(s->next_plan, s->block, s->aux, n, flush);
    if (st != GFIR_OK)
        return st;
    st = run_one(s->plan, s->block, s->out_block, n, flush);
    if (st == GFIR_OK)
        mix_plans(s, s->out_block, n);
    return st;
}

int session_flush_block(live_session *s, size_t n)
{
    const gfir_status st = run_plans(s, n, 1);
    return st == GFIR_OK ? 0 : session_filter_failed(s, st);
}

int session_filter_block(live_session *s, size_t n, double began)
{
    gfir_status st = run_plans(s, n, 0);
    if (st != GFIR_OK)
        return session_filter_failed(s, st);
    /* Blocks queued before the stream starts have no deadline. */
    if (s->started > 0) {
        const double took = progress_now() - began;
        if (took > (double)n / s->rate)
            s->deadline_misses++;
        block_times_add(&s->times, took);
    }
    return 0;
}


/* Between blocks: signals, the end, and a device that stopped. */
int session_supervise(live_session *s, unsigned long stop_after_frames)
{
    const double t = progress_now();
    unsigned long callbacks = atomic_load_explicit(&s->sh.callbacks, memory_order_acquire);
    PaError active;

    if (stop_signal)
        return STOP;
    if (atomic_load_explicit(&s->sh.completed, memory_order_acquire))
        return STOP;
    if (stop_after_frames &&
        atomic_load_explicit(&s->sh.frames_out, memory_order_relaxed) >= stop_after_frames)
        return STOP;
    active = Pa_IsStreamActive(s->stream);
    if (active < 0 || (active == 0 && !atomic_load(&s->sh.completed))) {
        cli_note(0, "the audio device ended the stream by itself (%s); was it disconnected?",
                 active < 0 ? Pa_GetErrorText(active) : "no longer active");
        return FAILED;
    }
    if (callbacks != s->last_callbacks) {
        s->last_callbacks = callbacks;
        s->last_progress = t;
    } else if (t - s->last_progress > WATCHDOG_S) {
        cli_note(0, "the audio device has not asked for audio for %.0f s; was it disconnected?",
                 WATCHDOG_S);
        return FAILED;
    }
    return KEEP_GOING;
}

void session_idle(const live_session *s)
{
    double q = (double)s->period / s->rate / 4;
    sleep_s(q < 1e-4 ? 1e-4 : q > 5e-3 ? 5e-3 : q);
}

int session_run(live_session *s, unsigned long stop_after_frames,
                int (*pump)(live_session *s, void *arg), void *arg)
{
    int r;
    while ((r = session_supervise(s, stop_after_frames)) == KEEP_GOING) {
        if (pump(s, arg))
            return 1;
        session_idle(s);
    }
    return r == FAILED;
}

/* Stops and closes the stream, prints the summary; returns the exit code. */
int session_end(live_session *s, int failed)
{
    if (s->stream) {
        if (failed) {
            /* A vanished device can wedge its host API; do not wait on it forever. */
            signal(SIGALRM, on_cleanup_timeout);
            alarm(CLEANUP_GRACE_S);
            Pa_AbortStream(s->stream);
        } else {
            Pa_StopStream(s->stream);
        }
        Pa_CloseStream(s->stream);
    }
    if (s->pa_up)
        Pa_Terminate();
    alarm(0);
    if (s->stream && !failed && !s->o->quiet) {
        cli_line("summary: %lu frames played (%.1f s), %lu output underruns, %lu input "
                 "overflows, %lu worker deadline misses, %lu host xruns%s",
                 atomic_load(&s->sh.frames_played),
                 (double)atomic_load(&s->sh.frames_played) / s->rate,
                 atomic_load(&s->sh.underruns), atomic_load(&s->sh.overflows),
                 s->deadline_misses, atomic_load(&s->sh.host_xruns),
                 stop_signal == SIGINT    ? "; stopped by SIGINT"
                 : stop_signal == SIGTERM ? "; stopped by SIGTERM"
                                          : "");
    }
    if (s->stream && !failed && s->o->verbose && s->times.count) {
        const double ms = 1e3, period_ms = 1e3 * (double)s->period / s->rate;
        cli_line("block time: median %.3f ms, p99 %.3f, p99.9 %.3f, max %.3f over %zu blocks; "
                 "the period is %.3f ms", ms * block_times_quantile(&s->times, 0.5),
                 ms * block_times_quantile(&s->times, 0.99),
                 ms * block_times_quantile(&s->times, 0.999), ms * s->times.max_s,
                 s->times.count, period_ms);
    }
    block_times_free(&s->times);
    reload_stop(s->reload);
    gfir_plan_destroy(s->next_plan);
    gfir_plan_destroy(s->plan);
    free(s->block);
    free(s->out_block);
    free(s->aux);
    ring_free(&s->sh.out);
    ring_free(&s->sh.in);
    return failed ? 1 : 0;
}

void session_catch_stop_signals(struct sigaction *old_int, struct sigaction *old_term)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    stop_signal = 0;
    sigaction(SIGINT, &sa, old_int);
    sigaction(SIGTERM, &sa, old_term);
}

void session_release_stop_signals(const struct sigaction *old_int,
                                 const struct sigaction *old_term)
{
    sigaction(SIGINT, old_int, NULL);
    sigaction(SIGTERM, old_term, NULL);
}
