/*
 * live.c - --play, --monitor and --list-devices through PortAudio.
 *
 * Two threads share the audio. PortAudio's callback only moves frames between
 * lock-free rings (ring.h) and bumps atomic counters: it never allocates,
 * locks, prints, reads files or calls the filter (which may be CUDA). The
 * main thread is the worker: it reads the file or the input ring, runs
 * gfir_plan_execute() one period at a time, fills the output ring, and between
 * periods watches for signals, --duration, the end of the file and a device
 * that has gone away.
 *
 * Latency: --play starts with PLAY_AHEAD_S (at least PLAY_MIN_PERIODS periods)
 * queued; --monitor primes its output with MONITOR_PERIODS periods of silence,
 * which is the worker's whole deadline, and keeps the total there after any
 * glitch by dropping or padding output (the callback records the drift, the
 * worker corrects it).
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include "live.h"
#include "ring.h"

#include <portaudio.h>
#include <sndfile.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#ifdef GFIR_LIVE_ALSA
#include <alsa/asoundlib.h>
#endif
#ifdef GFIR_LIVE_JACK
#include <jack/jack.h>
#endif
#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

#define DEFAULT_PERIOD 256
#define PLAY_MIN_PERIODS 4  /* queued ahead while playing a file ... */
#define PLAY_AHEAD_S 0.1    /* ... and at least this long: a file has no hurry, and
                               a shared virtual machine can stall a thread that long */
#define MONITOR_PERIODS 2   /* the most --monitor may add beyond the device */
#define INPUT_RING_PERIODS 16
/* Callbacks that stop for this long mean the device is gone. */
#define WATCHDOG_S 2.0
/* Cleanup after a lost device gets this long before the process just exits. */
#define CLEANUP_GRACE_S 3

static const double standard_rates[] = {8000,  11025, 16000, 22050, 32000, 44100,
                                        48000, 88200, 96000, 176400, 192000};

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

_Static_assert(ATOMIC_INT_LOCK_FREE == 2 && ATOMIC_LONG_LOCK_FREE == 2,
               "the callback's counters must be lock-free atomics");

/* What the callback touches: the rings and counters, nothing else. */
typedef struct live_shared {
    ring out;                       /* worker -> callback */
    ring in;                        /* callback -> worker (--monitor) */
    unsigned channels;
    atomic_int input_done;          /* --play: every frame is in `out` */
    atomic_int completed;           /* the callback returned paComplete */
    atomic_ulong callbacks;
    atomic_ulong frames_played;     /* frames of signal handed to the device */
    atomic_ulong frames_out;        /* frames handed to the device, silence included */
    atomic_ulong underruns;         /* callbacks that found `out` short */
    atomic_ulong overflows;         /* callbacks that found `in` full */
    atomic_ulong host_xruns;        /* callbacks PortAudio flagged as late */
    atomic_long drift;              /* frames of latency gained (+) or lost (-) */
} live_shared;

typedef struct live_session {
    const cli_options *o;
    live_shared sh;
    PaStream *stream;
    gfir_plan *plan;
    float *block;                   /* one period, interleaved */
    double rate;
    unsigned channels;
    size_t period;
    size_t filter_delay;            /* frames, linear-phase designs */
    unsigned long deadline_misses;  /* periods the worker took too long over */
    long pending_drift;
    double started;                 /* monotonic seconds at stream start */
    unsigned long last_callbacks;
    double last_progress;
    int pa_up;
} live_session;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
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
        fprintf(stderr, "gfir: the worker runs without real-time priority (%s)\n",
                strerror(err));
}

/* ---- the real-time side ---------------------------------------------------- */

static int stream_callback(const void *input, void *output, unsigned long frames,
                           const PaStreamCallbackTimeInfo *time, PaStreamCallbackFlags flags,
                           void *user)
{
    live_shared *sh = user;
    float *out = output;
    /* Read the flag before the ring: if it was set, everything is in the ring. */
    const int input_done = atomic_load_explicit(&sh->input_done, memory_order_acquire);
    const size_t got = ring_read(&sh->out, out, frames);
    (void)time;

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

/* ---- PortAudio set-up, quietly ------------------------------------------------ */

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

/* While PortAudio probes devices, ALSA and JACK print pages of noise (missing
 * cards, no JACK server) and PortAudio's ALSA layer adds its own "Expression
 * ... failed" lines, for which it has no hook. Unless --verbose, the first two
 * get silent handlers and stderr points at /dev/null around the probing calls
 * (our own messages are printed only after each call returns). */
static int muted_fd = -1;

static void mute_stderr(const cli_options *o)
{
    int devnull;
    if (o->verbose || muted_fd >= 0)
        return;
    fflush(stderr);
    devnull = open("/dev/null", O_WRONLY);
    if (devnull < 0)
        return;
    muted_fd = dup(2);
    if (muted_fd >= 0)
        dup2(devnull, 2);
    close(devnull);
}

static void unmute_stderr(void)
{
    if (muted_fd < 0)
        return;
    fflush(stderr);
    dup2(muted_fd, 2);
    close(muted_fd);
    muted_fd = -1;
}

static int pa_start(const cli_options *o)
{
    PaError err;
    if (!o->verbose) {
#ifdef GFIR_LIVE_ALSA
        snd_lib_error_set_handler(quiet_alsa);
#endif
#ifdef GFIR_LIVE_JACK
        jack_set_error_function(quiet_jack);
        jack_set_info_function(quiet_jack);
#endif
    }
    mute_stderr(o);
    err = Pa_Initialize();
    unmute_stderr();
    if (err != paNoError) {
        fprintf(stderr, "gfir: cannot start PortAudio: %s\n", Pa_GetErrorText(err));
        return 1;
    }
    return 0;
}

static const char *host_name(const PaDeviceInfo *d)
{
    const PaHostApiInfo *h = Pa_GetHostApiInfo(d->hostApi);
    return h ? h->name : "?";
}

static int device_channels(const PaDeviceInfo *d, int input)
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
        if (!d || device_channels(d, input) < 1)
            continue;
        int n = snprintf(buf + at, len - at, "%s%d '%s' (%s)", at ? ", " : "", (int)i, d->name,
                         host_name(d));
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
static int find_device(const char *spec, int input, PaDeviceIndex *out)
{
    const char *what = input ? "input" : "output";
    char list[2048];
    PaDeviceIndex found = paNoDevice;

    if (!spec) {
        found = input ? Pa_GetDefaultInputDevice() : Pa_GetDefaultOutputDevice();
        if (found == paNoDevice) {
            describe_devices(input, list, sizeof list);
            if (list[0])
                fprintf(stderr, "gfir: no default audio %s device; pick one of: %s\n", what,
                        list);
            else
                fprintf(stderr, "gfir: no audio %s device found (PortAudio sees none)\n", what);
            return 1;
        }
        *out = found;
        return 0;
    }
    char *end;
    long index = strtol(spec, &end, 10);
    if (*spec && !*end) {
        const PaDeviceInfo *d =
            index >= 0 && index < Pa_GetDeviceCount() ? Pa_GetDeviceInfo((PaDeviceIndex)index) : NULL;
        if (d && device_channels(d, input) > 0) {
            *out = (PaDeviceIndex)index;
            return 0;
        }
    } else {
        for (PaDeviceIndex i = 0; i < Pa_GetDeviceCount(); i++) {
            const PaDeviceInfo *d = Pa_GetDeviceInfo(i);
            if (!d || device_channels(d, input) < 1)
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
        fprintf(stderr, "gfir: no %s device matches '%s'; there are: %s\n", what, spec, list);
    else
        fprintf(stderr, "gfir: no %s device matches '%s': PortAudio sees no %s devices\n", what,
                spec, what);
    return 1;
}

/* One line on what the device does support: its channels and standard rates. */
static int unsupported(const char *what, const PaStreamParameters *in,
                       const PaStreamParameters *out, double rate, PaError err)
{
    const PaStreamParameters *p = out ? out : in;
    const PaDeviceInfo *d = Pa_GetDeviceInfo(p->device);
    char rates[256] = "";
    size_t at = 0;
    int maxch = device_channels(d, !out);
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
    fprintf(stderr,
            "gfir: '%s' (%s) cannot %s %.0f Hz with %d channel%s (%s); it offers %d %s "
            "channel%s at %s Hz\n",
            d->name, host_name(d), what, rate, p->channelCount, p->channelCount == 1 ? "" : "s",
            Pa_GetErrorText(err), maxch, out ? "output" : "input", maxch == 1 ? "" : "s",
            rates[0] ? rates : "no standard rate");
    return 1;
}

static void stream_params(PaStreamParameters *p, PaDeviceIndex dev, unsigned channels, int input)
{
    const PaDeviceInfo *d = Pa_GetDeviceInfo(dev);
    memset(p, 0, sizeof *p);
    p->device = dev;
    p->channelCount = (int)channels;
    p->sampleFormat = paFloat32;
    p->suggestedLatency = input ? d->defaultLowInputLatency : d->defaultLowOutputLatency;
}

/* ---- the session: rings, plan, stream, supervision ------------------------------ */

static int session_init(live_session *s, const cli_options *o)
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
    flush_denormals();
    if (pa_start(o))
        return 1;
    s->pa_up = 1;
    return 0;
}

/* The plan, the period buffer and the rings, once rate and channels are known. */
static int session_alloc(live_session *s, size_t out_frames, size_t in_frames)
{
    s->sh.channels = s->channels;
    if (cli_plan_for(s->o, s->rate, s->channels, s->period, &s->plan, &s->filter_delay))
        return 1;
    s->block = malloc(s->period * s->channels * sizeof *s->block);
    if (!s->block || ring_init(&s->sh.out, out_frames, s->channels) ||
        (in_frames && ring_init(&s->sh.in, in_frames, s->channels))) {
        fprintf(stderr, "gfir: out of memory for the audio buffers\n");
        return 1;
    }
    return 0;
}

static int session_open(live_session *s, const PaStreamParameters *in,
                        const PaStreamParameters *out)
{
    PaError err;
    mute_stderr(s->o);
    err = Pa_OpenStream(&s->stream, in, out, s->rate, (unsigned long)s->period, paNoFlag,
                        stream_callback, &s->sh);
    unmute_stderr();
    if (err != paNoError) {
        s->stream = NULL;
        const PaDeviceInfo *d = Pa_GetDeviceInfo(out->device);
        fprintf(stderr, "gfir: cannot open '%s' (%s): %s\n", d->name, host_name(d),
                Pa_GetErrorText(err));
        return 1;
    }
    return 0;
}

static void print_latency(const live_session *s, size_t buffered)
{
    const PaStreamInfo *info = Pa_GetStreamInfo(s->stream);
    const double ms = 1000.0 / s->rate;
    const size_t added = buffered + s->filter_delay + gfir_plan_latency(s->plan);
    double device_ms = info ? 1000.0 * (info->outputLatency + info->inputLatency) : 0.0;

    if (s->o->quiet)
        return;
    fprintf(stderr, "latency: %.1f ms (%zu periods of %zu frames", (double)added * ms,
            buffered / s->period, s->period);
    if (s->filter_delay)
        fprintf(stderr, " + filter delay %.1f ms", (double)s->filter_delay * ms);
    if (gfir_plan_latency(s->plan))
        fprintf(stderr, " + engine %.1f ms", (double)gfir_plan_latency(s->plan) * ms);
    fprintf(stderr, "; the device adds %.1f ms)\n", device_ms);
}

static int session_start(live_session *s)
{
    PaError err = Pa_StartStream(s->stream);
    if (err != paNoError) {
        fprintf(stderr, "gfir: cannot start the audio stream: %s\n", Pa_GetErrorText(err));
        return 1;
    }
    s->started = now_s();
    s->last_progress = s->started;
    realtime_worker(s->o);
    return 0;
}

/* Moves one filtered block into the output ring, first settling any drift
 * the callback reported, so the latency stays what was printed. */
static void push_output(live_session *s, const float *buf, size_t n)
{
    const size_t ch = s->channels;
    s->pending_drift += atomic_exchange_explicit(&s->sh.drift, 0, memory_order_relaxed);
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

static int filter_failed(const live_session *s, gfir_status st)
{
    fprintf(stderr, "gfir: filtering failed: %s (%s)\n", gfir_strerror(st),
            gfir_plan_error_detail(s->plan));
    return 1;
}

static int filter_block(live_session *s, float *buf, size_t n, double began)
{
    gfir_status st = gfir_plan_execute(s->plan, buf, buf, n);
    if (st != GFIR_OK)
        return filter_failed(s, st);
    /* Blocks queued before the stream starts have no deadline. */
    if (s->started > 0 && now_s() - began > (double)n / s->rate)
        s->deadline_misses++;
    return 0;
}

enum { KEEP_GOING = 0, STOP = 1, FAILED = -1 };

/* Between blocks: signals, the end, and a device that stopped. */
static int supervise(live_session *s, unsigned long stop_after_frames)
{
    const double t = now_s();
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
        fprintf(stderr, "gfir: the audio device ended the stream by itself (%s); was it "
                        "disconnected?\n",
                active < 0 ? Pa_GetErrorText(active) : "no longer active");
        return FAILED;
    }
    if (callbacks != s->last_callbacks) {
        s->last_callbacks = callbacks;
        s->last_progress = t;
    } else if (t - s->last_progress > WATCHDOG_S) {
        fprintf(stderr, "gfir: the audio device has not asked for audio for %.0f s; "
                        "was it disconnected?\n", WATCHDOG_S);
        return FAILED;
    }
    return KEEP_GOING;
}

static void idle(const live_session *s)
{
    double q = (double)s->period / s->rate / 4;
    sleep_s(q < 1e-4 ? 1e-4 : q > 5e-3 ? 5e-3 : q);
}

/* Stops and closes the stream, prints the summary; returns the exit code. */
static int session_end(live_session *s, int failed)
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
        fprintf(stderr,
                "summary: %lu frames played (%.1f s), %lu output underruns, %lu input "
                "overflows, %lu worker deadline misses, %lu host xruns%s\n",
                atomic_load(&s->sh.frames_played),
                (double)atomic_load(&s->sh.frames_played) / s->rate,
                atomic_load(&s->sh.underruns), atomic_load(&s->sh.overflows),
                s->deadline_misses, atomic_load(&s->sh.host_xruns),
                stop_signal == SIGINT    ? "; stopped by SIGINT"
                : stop_signal == SIGTERM ? "; stopped by SIGTERM"
                                         : "");
    }
    gfir_plan_destroy(s->plan);
    free(s->block);
    ring_free(&s->sh.out);
    ring_free(&s->sh.in);
    return failed ? 1 : 0;
}

static void catch_stop_signals(struct sigaction *old_int, struct sigaction *old_term)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    stop_signal = 0;
    sigaction(SIGINT, &sa, old_int);
    sigaction(SIGTERM, &sa, old_term);
}

static void release_stop_signals(const struct sigaction *old_int,
                                 const struct sigaction *old_term)
{
    sigaction(SIGINT, old_int, NULL);
    sigaction(SIGTERM, old_term, NULL);
}

/* ---- --list-devices ------------------------------------------------------------ */

int live_list_devices(const cli_options *o)
{
    PaDeviceIndex n, def_in, def_out;
    if (pa_start(o))
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
            printf("%5d  %-26s %3d %4d %7.0f  %s%s%s\n", (int)i, host_name(d),
                   d->maxInputChannels, d->maxOutputChannels, d->defaultSampleRate, d->name,
                   i == def_out ? "  (default output)" : "",
                   i == def_in ? "  (default input)" : "");
        }
    }
    Pa_Terminate();
    return 0;
}

/* ---- --play -------------------------------------------------------------------- */

typedef struct play_source {
    SNDFILE *file;
    size_t tail_left;       /* frames of filter tail still to flush after the file */
    int file_done;
    unsigned long budget;   /* frames still allowed by --duration (ULONG_MAX: none) */
} play_source;

/* Reads, filters and queues blocks until `target` frames are queued or
 * everything is; sets input_done after the last one. */
static int play_fill(live_session *s, play_source *src, size_t target)
{
    while (!atomic_load_explicit(&s->sh.input_done, memory_order_relaxed) &&
           ring_readable(&s->sh.out) + s->period <= target) {
        const double began = now_s();
        size_t want = s->period < src->budget ? s->period : src->budget;
        size_t n = 0;
        gfir_status st;

        if (!src->file_done) {
            sf_count_t got = sf_readf_float(src->file, s->block, (sf_count_t)want);
            n = got > 0 ? (size_t)got : 0;
            if (n < want && sf_error(src->file) != SF_ERR_NO_ERROR) {
                fprintf(stderr, "gfir: reading %s failed: %s\n", s->o->input,
                        sf_strerror(src->file));
                return 1;
            }
            src->file_done = n < want;
            if (n && filter_block(s, s->block, n, began))
                return 1;
        } else {
            n = src->tail_left < want ? src->tail_left : want;
            src->tail_left -= n;
            st = gfir_plan_flush(s->plan, s->block, n);
            if (st != GFIR_OK)
                return filter_failed(s, st);
        }
        ring_write(&s->sh.out, s->block, n);
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

    memset(&info, 0, sizeof info);
    src.file = sf_open(o->input, SFM_READ, &info);
    if (!src.file) {
        fprintf(stderr, "gfir: cannot read %s: %s\n", o->input, sf_strerror(NULL));
        return 1;
    }
    catch_stop_signals(&old_int, &old_term);
    if (session_init(&s, o))
        goto done;
    s.rate = info.samplerate;
    s.channels = (unsigned)info.channels;
    if (find_device(o->device, 0, &dev))
        goto done;
    stream_params(&out, dev, s.channels, 0);
    mute_stderr(o);
    PaError fmt = Pa_IsFormatSupported(NULL, &out, s.rate);
    unmute_stderr();
    if (fmt != paFormatIsSupported) {
        unsupported("play", NULL, &out, s.rate, fmt);
        goto done;
    }
    target = (size_t)ceil(PLAY_AHEAD_S * s.rate / (double)s.period);
    target = (target < PLAY_MIN_PERIODS ? PLAY_MIN_PERIODS : target) * s.period;
    if (session_alloc(&s, target, 0))
        goto done;
    src.tail_left = gfir_plan_ntaps(s.plan) - 1 + gfir_plan_latency(s.plan);
    src.budget = o->duration_s > 0 ? (unsigned long)ceil(o->duration_s * s.rate) : (unsigned long)-1;
    if (play_fill(&s, &src, target) || session_open(&s, NULL, &out))
        goto done;
    if (o->verbose) {
        const PaDeviceInfo *d = Pa_GetDeviceInfo(dev);
        fprintf(stderr, "gfir: playing %s on %d '%s' (%s): %.0f Hz, %u channels, period %zu\n",
                o->input, (int)dev, d->name, host_name(d), s.rate, s.channels, s.period);
    }
    print_latency(&s, ring_readable(&s.sh.out));
    if (session_start(&s))
        goto done;
    while ((r = supervise(&s, 0)) == KEEP_GOING) {
        if (play_fill(&s, &src, target))
            goto done;
        idle(&s);
    }
    failed = r == FAILED;
done:
    r = session_end(&s, failed);
    release_stop_signals(&old_int, &old_term);
    sf_close(src.file);
    return r;
}

/* ---- --monitor ----------------------------------------------------------------- */

/* The pair of devices: a duplex stream needs both on one host API, so the
 * one not named is that host API's default. */
static int monitor_devices(const cli_options *o, PaDeviceIndex *in, PaDeviceIndex *out)
{
    if (o->device && find_device(o->device, 0, out))
        return 1;
    if (o->input_device && find_device(o->input_device, 1, in))
        return 1;
    if (!o->device && !o->input_device)
        return find_device(NULL, 0, out) || find_device(NULL, 1, in);
    if (!o->input_device) {
        *in = Pa_GetHostApiInfo(Pa_GetDeviceInfo(*out)->hostApi)->defaultInputDevice;
        if (*in == paNoDevice) {
            fprintf(stderr, "gfir: %s has no input device; name one with --input-device\n",
                    host_name(Pa_GetDeviceInfo(*out)));
            return 1;
        }
    }
    if (!o->device) {
        *out = Pa_GetHostApiInfo(Pa_GetDeviceInfo(*in)->hostApi)->defaultOutputDevice;
        if (*out == paNoDevice) {
            fprintf(stderr, "gfir: %s has no output device; name one with --device\n",
                    host_name(Pa_GetDeviceInfo(*in)));
            return 1;
        }
    }
    if (Pa_GetDeviceInfo(*in)->hostApi != Pa_GetDeviceInfo(*out)->hostApi) {
        fprintf(stderr, "gfir: input '%s' (%s) and output '%s' (%s) must be on one host API\n",
                Pa_GetDeviceInfo(*in)->name, host_name(Pa_GetDeviceInfo(*in)),
                Pa_GetDeviceInfo(*out)->name, host_name(Pa_GetDeviceInfo(*out)));
        return 1;
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
 * returns to supervise() (Ctrl-C) and sleeps, real-time priority or not. */
static int monitor_pump(live_session *s)
{
    for (size_t left = ring_readable(&s->sh.in); left > 0;) {
        const double began = now_s();
        size_t n = ring_read(&s->sh.in, s->block, left < s->period ? left : s->period);
        left -= n;
        if (filter_block(s, s->block, n, began))
            return 1;
        push_output(s, s->block, n);
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

    catch_stop_signals(&old_int, &old_term);
    if (session_init(&s, o) || monitor_devices(o, &in_dev, &out_dev))
        goto done;
    s.rate = Pa_GetDeviceInfo(out_dev)->defaultSampleRate;
    s.channels = monitor_channels(o, in_dev, out_dev);
    stream_params(&in, in_dev, s.channels, 1);
    stream_params(&out, out_dev, s.channels, 0);
    mute_stderr(o);
    PaError fmt = Pa_IsFormatSupported(&in, &out, s.rate);
    unmute_stderr();
    if (fmt != paFormatIsSupported) {
        int in_short = (int)s.channels > Pa_GetDeviceInfo(in_dev)->maxInputChannels;
        unsupported("monitor", in_short ? &in : NULL, in_short ? NULL : &out, s.rate, fmt);
        goto done;
    }
    primed = MONITOR_PERIODS * s.period;
    if (session_alloc(&s, primed + 2 * s.period, INPUT_RING_PERIODS * s.period))
        goto done;
    ring_write(&s.sh.out, NULL, primed);
    if (session_open(&s, &in, &out))
        goto done;
    if (o->verbose) {
        const PaDeviceInfo *di = Pa_GetDeviceInfo(in_dev), *d = Pa_GetDeviceInfo(out_dev);
        fprintf(stderr, "gfir: monitoring %d '%s' to %d '%s' (%s): %.0f Hz, %u channels, "
                        "period %zu\n",
                (int)in_dev, di->name, (int)out_dev, d->name, host_name(d), s.rate, s.channels,
                s.period);
    }
    print_latency(&s, primed);
    if (session_start(&s))
        goto done;
    const unsigned long stop_after =
        o->duration_s > 0 ? (unsigned long)ceil(o->duration_s * s.rate) : 0;
    while ((r = supervise(&s, stop_after)) == KEEP_GOING) {
        if (monitor_pump(&s))
            goto done;
        idle(&s);
    }
    failed = r == FAILED;
done:
    r = session_end(&s, failed);
    release_stop_signals(&old_int, &old_term);
    return r;
}
