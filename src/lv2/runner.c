/*
 * runner.c - a plan run in host-sized blocks, filters and plans handed over
 * from the worker with a crossfade (runner.h).
 */
#include "runner.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int gl_runner_init(gl_runner *r, unsigned inputs, unsigned outputs, size_t block,
                   size_t fade_frames)
{
    memset(r, 0, sizeof *r);
    r->inputs = inputs;
    r->outputs = outputs;
    r->block = block ? block : 4096;
    r->fade_frames = fade_frames;
    r->in = calloc(r->block * inputs, sizeof *r->in);
    r->wet = calloc(r->block * outputs, sizeof *r->wet);
    r->old = calloc(r->block * outputs, sizeof *r->old);
    if (!r->in || !r->wet || !r->old) {
        gl_runner_free(r);
        return 1;
    }
    return 0;
}

void gl_handover_free(gl_handover *h)
{
    gfir_plan_destroy(h->plan);
    gfir_filter_destroy(h->filter);
    h->plan = NULL;
    h->filter = NULL;
}

void gl_runner_free(gl_runner *r)
{
    gl_handover_free(&r->pending);
    gfir_filter_destroy(r->dead_filter);
    gfir_plan_destroy(r->dead_plan);
    gfir_plan_destroy(r->fading);
    gfir_plan_destroy(r->plan);
    free(r->in);
    free(r->wet);
    free(r->old);
    memset(r, 0, sizeof *r);
}

void gl_runner_install(gl_runner *r, const gl_handover *h)
{
    gl_handover_free(&r->pending);
    gfir_plan_destroy(r->fading);
    gfir_plan_destroy(r->dead_plan);
    gfir_filter_destroy(r->dead_filter);
    r->fading = r->dead_plan = NULL;
    r->dead_filter = NULL;
    if (h->plan) {
        /* a worker request queued before may still use the running plan:
         * it goes as garbage, through the same queue, after that request */
        r->dead_plan = r->plan;
        r->plan = h->plan;
    } else if (r->plan && h->filter) {
        /* a new filter of the running plan, at once: swap without a fade and
         * finish by resetting (the swap cannot be busy after a reset) */
        gfir_plan_reset(r->plan);
        if (gfir_plan_swap(r->plan, h->filter, 0) != GFIR_OK)
            gfir_filter_destroy(h->filter);
        gfir_plan_reset(r->plan);
        for (gfir_filter *old; (old = gfir_plan_retired(r->plan));)
            gfir_filter_destroy(old);
    }
    r->shape = h->shape;
}

void gl_runner_offer(gl_runner *r, const gl_handover *h)
{
    r->pending = *h;
}

int gl_runner_settled(const gl_runner *r)
{
    return !r->pending.plan && !r->pending.filter && !r->fading && !r->dead_plan;
}

/* Takes in what waits, where it can be now. */
static void take_pending(gl_runner *r)
{
    if (r->pending.filter) {
        if (!r->plan) {
            r->dead_filter = r->dead_filter ? r->dead_filter : r->pending.filter;
            r->pending.filter = NULL;
        } else {
            const gfir_status st = gfir_plan_swap(r->plan, r->pending.filter, r->fade_frames);
            if (st == GFIR_OK) {
                r->pending.filter = NULL;
                r->shape = r->pending.shape;
            } else if (st != GFIR_ERR_BUSY && !r->dead_filter) {
                /* made for a plan this one replaced: it never fits; garbage */
                r->dead_filter = r->pending.filter;
                r->pending.filter = NULL;
            }
        }
    } else if (r->pending.plan && !r->fading && !r->dead_plan) {
        r->fading = r->plan;
        r->fade_at = 0;
        r->plan = r->pending.plan;
        r->shape = r->pending.shape;
        r->pending.plan = NULL;
        if (!r->fading || r->fade_frames == 0) {
            r->dead_plan = r->fading;
            r->fading = NULL;
        }
    }
}

static void execute(gfir_plan *plan, const float *in, float *out, size_t frames,
                    unsigned outputs)
{
    if (!plan) {
        memset(out, 0, frames * outputs * sizeof *out);
    } else if (gfir_plan_execute(plan, in, out, frames) != GFIR_OK) {
        /* a device that failed: silence, and a clean history next time */
        memset(out, 0, frames * outputs * sizeof *out);
        gfir_plan_reset(plan);
    }
}

void gl_runner_process(gl_runner *r, size_t frames)
{
    take_pending(r);
    execute(r->plan, r->in, r->wet, frames, r->outputs);
    if (r->fading) {
        execute(r->fading, r->in, r->old, frames, r->outputs);
        for (size_t i = 0; i < frames; i++, r->fade_at++) {
            /* the library's own weights: a swap's crossfade, exactly */
            const double w = gfir_crossfade_weight(r->fade_at, r->fade_frames);
            for (unsigned c = 0; c < r->outputs; c++) {
                float *y = &r->wet[i * r->outputs + c];
                *y = (float)((1.0 - w) * r->old[i * r->outputs + c] + w * *y);
            }
        }
        if (r->fade_at >= r->fade_frames) {
            r->dead_plan = r->fading;
            r->fading = NULL;
        }
    }
    if (r->plan && !r->dead_filter)
        r->dead_filter = gfir_plan_retired(r->plan);
}

static int same_shape(const gl_shape *a, const gl_shape *b)
{
    if (a->inputs != b->inputs || a->outputs != b->outputs || a->nsets != b->nsets ||
        a->npaths != b->npaths || a->backend != b->backend)
        return 0;
    for (unsigned p = 0; p < a->npaths; p++)
        if (a->paths[p].input != b->paths[p].input || a->paths[p].output != b->paths[p].output ||
            a->paths[p].taps != b->paths[p].taps || a->paths[p].gain != b->paths[p].gain)
            return 0;
    return 1;
}

static int make_plan(const gl_shape *want, gfir_backend backend, const float *taps, size_t ntaps,
                     size_t block, gfir_plan **plan)
{
    gfir_config cfg;
    gfir_config_init(&cfg);
    cfg.channels = want->inputs;
    cfg.out_channels = want->outputs;
    cfg.filter_channels = want->nsets;
    cfg.paths = want->npaths ? want->paths : NULL;
    cfg.npaths = want->npaths;
    cfg.max_block_frames = block;
    cfg.backend = backend;
    /* run() may neither wait for worker threads nor take their locks */
    cfg.threads = 1;
    return gfir_plan_create(plan, taps, ntaps, &cfg);
}

int gl_build(const gl_shape *want, const float *taps, size_t ntaps, size_t block,
             gfir_plan *cur, const gl_shape *cur_shape, gl_handover *h, char *why,
             size_t why_size, char *note, size_t note_size)
{
    gfir_status st;
    memset(h, 0, sizeof *h);
    h->shape = *want;
    h->ntaps = ntaps;
    note[0] = '\0';
    /* The running plan takes the taps when they fit it and are not much
     * shorter (it would compute the padding); the library may still refuse,
     * and then a new plan serves as well. */
    if (cur && cur_shape && same_shape(want, cur_shape) && ntaps <= gfir_plan_ntaps(cur) &&
        2 * ntaps > gfir_plan_ntaps(cur) &&
        gfir_filter_create(&h->filter, cur, taps, ntaps) == GFIR_OK)
        return 0;
    st = make_plan(want, want->backend, taps, ntaps, block, &h->plan);
    if (st != GFIR_OK && want->backend == GFIR_BACKEND_CUDA) {
        snprintf(note, note_size, "backend cuda: %s (%s); running on the CPU",
                 gfir_strerror(st), gfir_plan_error_detail(NULL));
        st = make_plan(want, GFIR_BACKEND_CPU, taps, ntaps, block, &h->plan);
    }
    if (st != GFIR_OK) {
        snprintf(why, why_size, "%s (%s)", gfir_strerror(st), gfir_plan_error_detail(NULL));
        return 1;
    }
    return 0;
}

/* what gl_runner_send_garbage sends: the mark first, as the plugins' own
 * requests begin with their kind (small numbers) */
#define GARBAGE_MARK 0x67666772u
typedef struct garbage {
    uint32_t mark;
    gfir_plan *plan;
    gfir_filter *filter;
} garbage;

void gl_runner_send_garbage(gl_runner *r, LV2_Worker_Schedule *s)
{
    garbage g = {GARBAGE_MARK, r->dead_plan, r->dead_filter};
    if ((g.plan || g.filter) && s->schedule_work(s->handle, sizeof g, &g) == LV2_WORKER_SUCCESS)
        r->dead_plan = NULL, r->dead_filter = NULL;
}

int gl_runner_take_garbage(uint32_t size, const void *data)
{
    garbage g;
    if (size != sizeof g || *(const uint32_t *)data != GARBAGE_MARK)
        return 0;
    memcpy(&g, data, sizeof g);
    gfir_plan_destroy(g.plan);
    gfir_filter_destroy(g.filter);
    return 1;
}
