/*
 * runner.h - what both plugins share: a gfir plan run in blocks of the
 * host's size, with new filters handed over from the worker without a lock.
 *
 * The worker (or activate, where no worker runs) builds: a filter for the
 * running plan when the new taps fit it (gfir_filter_create), else a new
 * plan. The audio thread gives the answer to the runner, which swaps a filter
 * in with the library's crossfade (gfir_plan_swap) or fades from the old plan
 * to the new one itself with the same weights,
 *     out_k = (1 - w_k) y_old + w_k y_new,  w_k = 0.5 - 0.5 cos(pi (k + 0.5) / L).
 * Either way y_new is the new filter as if it had always run: a new plan is
 * primed with the recent input before it fades in. The runner keeps that
 * input in a ring (allocated at init); the worker runs the new plan over the
 * ring's last ntaps - 1 frames (gl_build), and the audio thread feeds it the
 * few frames that came since, at most two blocks a call, before the fade
 * begins. Whatever the audio thread stops using goes to the trash, which
 * run() sends to the worker to be freed, in the same queue as the requests:
 * a plan that a request queued before still reads is freed after that
 * request. What the plugin reports as latency follows the handover that is
 * in force, from the call that takes it in.
 *
 * activate() (gl_runner_reset) starts a new generation: plans start again
 * with no history, and an answer to a request made before (its generation
 * older) is not taken but thrown away (gl_runner_answer): hosts such as
 * Ardour deactivate and activate a plugin while its asynchronous worker
 * still runs an earlier request.
 *
 * Nothing is ever dropped, though run() may neither free nor allocate: the
 * runner keeps a trash slot for the answer to every request it lets the
 * plugin make (gl_runner_settled, gl_runner_asked), so an answer thrown away
 * always has a place, and it takes nothing in from the running plan
 * (a plan replaced, a fade ended, a filter retired) while no slot is free:
 * those wait where they are for a later call. Only activate(), which may
 * allocate, grows the trash, for the plan it replaces.
 */
#ifndef GFIR_LV2_RUNNER_H
#define GFIR_LV2_RUNNER_H

#include "gfir.h"

#include <lv2/worker/worker.h>

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* the most input a new plan is primed with: longer filters are primed with
 * the last this many frames (5.5 s at 48 kHz) */
#define GL_PRIME_MAX_FRAMES ((size_t)1 << 18)

/* the most paths of any layout the plugins offer (true stereo) */
#define GL_MAX_PATHS 4

/* the trash's first size: run() sends what it holds at its start, so more
 * than a few wait only while the host's queue refuses messages or
 * activate() is called many times without a run() between (it then grows) */
#define GL_TRASH 16

/* What a plan is made for: a filter of another shape needs a new plan. */
typedef struct gl_shape {
    unsigned inputs, outputs;   /* the plugin's audio ports */
    unsigned nsets;             /* tap sets */
    unsigned npaths;            /* 0: every channel through set 0 (or set c) */
    gfir_path paths[GL_MAX_PATHS];
    gfir_backend backend;       /* as the user asked */
} gl_shape;

/* What the worker hands to the audio thread: a new plan or a filter for the
 * running one (exactly one of them). */
typedef struct gl_handover {
    gfir_plan *plan;
    gfir_filter *filter;
    gl_shape shape;
    size_t ntaps;               /* the taps' own length (a plan may hold more) */
    uint32_t generation;        /* of the request it answers (set by the plugin) */
    size_t latency;             /* what the plugin reports while it runs */
    int primed;                 /* plan: it has seen the input up to primed_to */
    uint64_t primed_to;         /* frames since init */
} gl_handover;

/* what the audio thread no longer runs, for the worker to free */
typedef struct gl_garbage {
    gfir_plan *plan;
    gfir_filter *filter;
} gl_garbage;

typedef struct gl_runner {
    unsigned inputs, outputs;
    size_t block;               /* frames per chunk: the host's largest block */
    size_t fade_frames;         /* L above */
    float *in, *wet, *old;      /* interleaved scratch, block frames each */
    float *past;                /* ring frames a pending plan catches up on */
    gfir_plan *plan;            /* the running plan (NULL: silence) */
    gl_shape shape;             /* what it was made for */
    gfir_plan *fading;          /* the plan faded out, while a plan fade runs */
    size_t fade_at;             /* frames of that fade done */
    gl_handover pending;        /* an answer taken, not yet running */
    gl_garbage *trash;          /* no longer run: to the worker (trash_size slots) */
    unsigned ntrash, trash_size;
    unsigned awaited;           /* answers asked for, not yet come: a slot kept for each */
    uint32_t generation;        /* activations so far: requests carry it */
    size_t latency;             /* of the handover in force */
    float *ring;                /* the last ring_frames input frames, interleaved */
    size_t ring_frames;         /* a power of two */
    _Atomic uint64_t written;   /* frames in so far: the audio thread stores, the worker reads */
    _Atomic uint64_t origin;    /* written at the last activation: no history before it */
} gl_runner;

/* Allocates the scratch for blocks of up to block frames (0: 4096) and the
 * input ring. Not real-time. 0 on success, 1 without memory. */
int gl_runner_init(gl_runner *r, unsigned inputs, unsigned outputs, size_t block,
                   size_t fade_frames);

/* Frees the scratch, every plan and filter it holds. Not real-time. */
void gl_runner_free(gl_runner *r);

/* activate(): the host starts the stream again (never while run() runs;
 * the worker may). Bumps the generation and clears every plan's history; a
 * fade in progress ends. With h (a new plan made for this start) h runs
 * from now on, replacing the running plan and what waits; without, what
 * waits stays, to start with no history too. Plans that ran, which a
 * request still queued may read, go to the trash, grown for them where it
 * is full; nothing else here is read by the worker, and is destroyed. 0;
 * 1 when the trash could not grow (no memory): then h was not taken (the
 * caller frees it) and the running plan goes on, reset as without h. */
int gl_runner_reset(gl_runner *r, const gl_handover *h);

/* Not real-time: destroys what the trash holds, for a plugin with no worker
 * (then no request reads it, and run() has nowhere to send it): activate(). */
void gl_runner_empty_trash(gl_runner *r);

/* Audio thread: the worker accepted a request of the plugin's, made when
 * gl_runner_settled(): its answer has a trash slot kept from now on. */
void gl_runner_asked(gl_runner *r);

/* Audio thread: the answer h to a request gl_runner_asked() counted, every
 * one (a failed one holds nothing). Of this generation, and while nothing
 * waits, h is taken to run from the next chunk on: 0. Else what it holds
 * goes to the trash, in the slot kept for it (an answer of an older
 * generation, made for a plan or a history that activate() ended): 1. */
int gl_runner_answer(gl_runner *r, const gl_handover *h);

/* 1 when nothing waits, fades from plan to plan, or waits to be freed, and
 * the trash can keep a slot for one more answer: the time to ask the worker
 * for the next filter. */
int gl_runner_settled(const gl_runner *r);

/* Audio thread: filters frames (up to r->block) already in r->in into
 * r->wet, applying the answer taken. */
void gl_runner_process(gl_runner *r, size_t frames);

/* Audio thread: sends what the runner no longer runs to the worker, a
 * message for each; what the queue cannot take now goes in a later call. */
void gl_runner_send_garbage(gl_runner *r, LV2_Worker_Schedule *s);

/* Worker: frees what such a message holds and returns 1; 0 for any other
 * message (the plugin's own requests, which never begin with its mark). */
int gl_runner_take_garbage(uint32_t size, const void *data);

/* Worker (or any non-real-time thread): builds h for taps (want->nsets sets
 * of ntaps) for r against its running plan cur of shape cur_shape (may be
 * NULL: nothing runs). A CUDA plan that cannot be made falls back to the CPU
 * and says so in note. A CUDA plan never takes a new filter (the end of the
 * library's fade would capture its block graph again inside run()): it is
 * replaced by a new plan, and every new plan's first whole blocks run here,
 * where its graph is captured. A new plan where one runs is primed from r's
 * ring (never from before the last activation). h->latency and
 * h->generation are left to the caller. 0 on success; 1 with the reason in
 * why. */
int gl_build(const gl_runner *r, const gl_shape *want, const float *taps, size_t ntaps,
             gfir_plan *cur, const gl_shape *cur_shape, gl_handover *h, char *why,
             size_t why_size, char *note, size_t note_size);

/* Frees what a handover holds (one never given to the runner). */
void gl_handover_free(gl_handover *h);

#endif
