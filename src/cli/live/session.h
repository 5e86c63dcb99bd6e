/*
 * session.h - what --play and --monitor share: the rings and counters the
 * audio callback touches, the plan, the stream, and the worker's supervision.
 *
 * Two threads share the audio. PortAudio's callback only moves frames between
 * lock-free rings (ring.h) and bumps atomic counters: it never allocates,
 * locks, prints, reads files or calls the filter (which may be CUDA). The
 * main thread is the worker: it reads the file or the input ring, runs
 * gfir_plan_execute() one period at a time, fills the output ring, and between
 * periods watches for signals, --duration, the end of the file and a device
 * that has gone away. A third thread reloads the filter when its files
 * change (reload.h); the worker takes what it prepared between two blocks.
 *
 * The host may call back with any number of frames, and change it while the
 * stream runs (JACK's buffer size, PortAudio's unspecified frames per
 * buffer, or its own buffering, which calls several times back to back).
 * The callback measures the most frames the host takes in one go; the
 * worker keeps that much plus a period queued, growing the latency (never
 * shrinking it, which would drop audio) when the host's buffer grows.
 */
#ifndef GFIR_LIVE_SESSION_H
#define GFIR_LIVE_SESSION_H

#include "cli.h"
#include "live/ring.h"
#include "live/timing.h"

#include <portaudio.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>

#define DEFAULT_PERIOD 256
/* Ring room for the largest buffer a host is expected to ask for at once
 * (JACK's largest, 8192 frames), beyond what a session queues itself. */
#define HOST_BURST_MAX 8192

_Static_assert(ATOMIC_INT_LOCK_FREE == 2 && ATOMIC_LONG_LOCK_FREE == 2,
               "the callback's counters must be lock-free atomics");

/* What the callback touches: the rings and counters, nothing else. */
typedef struct live_shared {
    ring out;                       /* worker -> callback */
    ring in;                        /* callback -> worker (--monitor) */
    unsigned channels;              /* of the output */
    atomic_int input_done;          /* --play: every frame is in `out` */
    atomic_int completed;           /* the callback returned paComplete */
    atomic_ulong callbacks;
    atomic_ulong frames_played;     /* frames of signal handed to the device */
    atomic_ulong frames_out;        /* frames handed to the device, silence included */
    atomic_ulong underruns;         /* callbacks that found `out` short */
    atomic_ulong overflows;         /* callbacks that found `in` full */
    atomic_ulong host_xruns;        /* callbacks PortAudio flagged as late */
    atomic_long drift;              /* frames of latency gained (+) or lost (-) */
    atomic_ulong max_burst;         /* the most frames the host took in one go */
    /* The callback's own. */
    double rate;
    double burst_at;                /* when the last callback came */
    unsigned long burst;            /* frames of the callbacks back to back so far */
} live_shared;

struct live_reload;

typedef struct live_session {
    const cli_options *o;
    live_shared sh;
    PaStream *stream;
    gfir_plan *plan;
    float *block;                   /* one period of input, interleaved */
    float *out_block;               /* one period of output */
    /* Reloads: a filter swapped into the plan, or a plan of its own run
     * beside it (next_plan) until it has the history it needs (prime_left
     * frames), then crossfaded to over switch_len frames. */
    struct live_reload *reload;
    size_t crossfade_frames;
    gfir_plan *next_plan;
    float *aux;                     /* one period: next_plan's output */
    size_t prime_left, switch_pos, switch_len;
    size_t queued;                  /* frames the worker keeps queued for the device */
    double rate;
    unsigned channels;              /* the input's */
    unsigned out_channels;          /* the output's: as the filter routes them */
    size_t period;
    size_t filter_delay;            /* frames, linear-phase designs */
    unsigned long deadline_misses;  /* periods the worker took too long over */
    block_times times;              /* each block's filtering time, once streaming */
    long pending_drift;
    double started;                 /* monotonic seconds at stream start */
    unsigned long last_callbacks;
    double last_progress;
    int pa_up;
} live_session;

enum { KEEP_GOING = 0, STOP = 1, FAILED = -1 };

/* PortAudio up, counters zeroed. */
int session_init(live_session *s, const cli_options *o);
/* The plan, the period buffers and the rings, once rate and input channels
 * are known (out_channels follows from the filter), for a session that
 * keeps queued_frames queued for the device and (--monitor) in_frames of
 * input; the rings get room for host bursts too. Starts the reload thread. */
int session_alloc(live_session *s, size_t queued_frames, size_t in_frames);
int session_open(live_session *s, const PaStreamParameters *in, const PaStreamParameters *out);
/* One line: the latency the listener hears, and where it comes from. */
void session_print_latency(const live_session *s, size_t buffered);
int session_start(live_session *s);
/* Moves one filtered block into the output ring, first settling any drift
 * the callback reported, so the latency stays what was printed. */
void session_push_output(live_session *s, const float *buf, size_t n);
int session_filter_failed(const live_session *s, gfir_status st);
/* Filters n frames of s->block into s->out_block (or, with flush, n frames
 * of silence), counting a deadline miss when it took longer than the audio
 * it holds. First takes what the reload thread has ready, when it can. */
int session_filter_block(live_session *s, size_t n, double began);
int session_flush_block(live_session *s, size_t n);
/* The most frames the host takes in one go, as far as seen. */
size_t session_host_burst(const live_session *s);
/* Between blocks: signals, the end, and a device that stopped. KEEP_GOING,
 * STOP or FAILED. */
int session_supervise(live_session *s, unsigned long stop_after_frames);
/* A short sleep, a fraction of a period. */
void session_idle(const live_session *s);
/* Until the end (stop_after_frames frames out, 0: none), a signal or a
 * failure: pump(s, arg) between supervision and short sleeps. 1 when it
 * ended in failure (pump's or the device's), else 0. */
int session_run(live_session *s, unsigned long stop_after_frames,
                int (*pump)(live_session *s, void *arg), void *arg);
/* Stops and closes the stream, prints the summary; returns the exit code. */
int session_end(live_session *s, int failed);
void session_catch_stop_signals(struct sigaction *old_int, struct sigaction *old_term);
void session_release_stop_signals(const struct sigaction *old_int,
                                  const struct sigaction *old_term);

#endif
