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
    atomic_init(&r->written, 0);
    atomic_init(&r->origin, 0);
    /* the most a plan is primed with, and room for the worker to read it
     * while the audio thread writes several blocks on */
    for (r->ring_frames = 1; r->ring_frames < GL_PRIME_MAX_FRAMES + 8 * r->block;)
        r->ring_frames *= 2;
    r->in = calloc(r->block * inputs, sizeof *r->in);
    r->wet = calloc(r->block * outputs, sizeof *r->wet);
    r->old = calloc(r->block * outputs, sizeof *r->old);
    r->past = calloc(r->block * inputs, sizeof *r->past);
    r->ring = calloc(r->ring_frames * inputs, sizeof *r->ring);
    r->trash = calloc(GL_TRASH, sizeof *r->trash);
    r->trash_size = GL_TRASH;
    if (!r->in || !r->wet || !r->old || !r->past || !r->ring || !r->trash) {
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
    for (unsigned i = 0; i < r->ntrash; i++) {
        gfir_plan_destroy(r->trash[i].plan);
        gfir_filter_destroy(r->trash[i].filter);
    }
    gfir_plan_destroy(r->fading);
    gfir_plan_destroy(r->plan);
    free(r->in);
    free(r->wet);
    free(r->old);
    free(r->past);
    free(r->ring);
    free(r->trash);
    memset(r, 0, sizeof *r);
}

/* The trash's slots neither used nor kept for an answer asked for. */
static unsigned trash_room(const gl_runner *r)
{
    return r->trash_size - r->ntrash - r->awaited;
}

/* Puts a plan or a filter into the trash: 1, or 0 when it has no room (the
 * caller keeps it and tries again later). */
static int trash_put(gl_runner *r, gfir_plan *plan, gfir_filter *filter)
{
    if (trash_room(r) == 0)
        return 0;
    r->trash[r->ntrash].plan = plan;
    r->trash[r->ntrash++].filter = filter;
    return 1;
}

/* The plan faded out goes to the trash once its fade is over. */
static void retire_fading(gl_runner *r)
{
    if (r->fading && r->fade_at >= r->fade_frames && trash_put(r, r->fading, NULL))
        r->fading = NULL;
}

/* The filters a plan no longer runs go to the trash. */
static void retire_filters(gl_runner *r)
{
    gfir_filter *old;
    while (r->plan && trash_room(r) > 0 && (old = gfir_plan_retired(r->plan)))
        trash_put(r, NULL, old);
}

/* Not real-time: makes room in the trash for at least need more. 0, or 1
 * without memory (the trash as it was). */
static int grow_trash(gl_runner *r, unsigned need)
{
    const unsigned size = r->ntrash + r->awaited + need + GL_TRASH;
    gl_garbage *t;
    if (trash_room(r) >= need)
        return 0;
    if (!(t = realloc(r->trash, size * sizeof *t)))
        return 1;
    r->trash = t;
    r->trash_size = size;
    return 0;
}

int gl_runner_reset(gl_runner *r, const gl_handover *h)
{
    /* room for the plan replaced and the one faded out, and for the answer
     * to the next request (the answers to those made before keep theirs,
     * also where a host never delivers them: it may drop the work of a
     * plugin it deactivated) */
    const int take = !grow_trash(r, h ? 3 : 1) && h;
    r->generation++;
    atomic_store_explicit(&r->origin, atomic_load_explicit(&r->written, memory_order_relaxed),
                          memory_order_release);
    r->fade_at = r->fade_frames;
    retire_fading(r);
    if (take) {
        /* what waits never ran, so no request reads it */
        gl_handover_free(&r->pending);
        memset(&r->pending, 0, sizeof r->pending);
        if (r->plan)
            trash_put(r, r->plan, NULL);
        r->plan = h->plan;
        r->shape = h->shape;
        r->latency = h->latency;
    } else if (r->pending.plan) {
        gfir_plan_reset(r->pending.plan);
        r->pending.primed = 0;
    }
    if (r->plan)
        gfir_plan_reset(r->plan);
    retire_filters(r);
    return h && !take;
}

void gl_runner_empty_trash(gl_runner *r)
{
    for (; r->ntrash > 0; r->ntrash--) {
        gfir_plan_destroy(r->trash[r->ntrash - 1].plan);
        gfir_filter_destroy(r->trash[r->ntrash - 1].filter);
    }
}

void gl_runner_asked(gl_runner *r)
{
    r->awaited++;
}

int gl_runner_answer(gl_runner *r, const gl_handover *h)
{
    if (r->awaited > 0)
        r->awaited--; /* its slot is free again, for what it holds */
    if (h->generation == r->generation && (h->plan || h->filter) && !r->pending.plan &&
        !r->pending.filter) {
        r->pending = *h;
        return 0;
    }
    if (h->plan || h->filter)
        trash_put(r, h->plan, h->filter);
    return 1;
}

int gl_runner_settled(const gl_runner *r)
{
    return !r->pending.plan && !r->pending.filter && !r->fading && r->ntrash == 0 &&
           trash_room(r) > 0;
}

/* Copies ring frames [from, from + n) into out (interleaved). */
static void ring_read(const gl_runner *r, uint64_t from, size_t n, float *out)
{
    const size_t mask = r->ring_frames - 1;
    for (size_t i = 0; i < n; i++)
        memcpy(out + i * r->inputs, r->ring + ((from + i) & mask) * r->inputs,
               r->inputs * sizeof *out);
}

/* Feeds the pending plan what came in since the worker primed it, at most
 * two blocks a call, so that its fade starts from the whole history. 1 once
 * it has seen every frame before this call. Frames the ring no longer holds
 * (a worker later than the ring is long) are skipped: the plan then starts
 * with a gap in its history. */
static int catch_up(gl_runner *r)
{
    gl_handover *h = &r->pending;
    const uint64_t now = atomic_load_explicit(&r->written, memory_order_relaxed);
    size_t budget = 2 * r->block;
    if (!h->primed)
        return 1;
    if (now - h->primed_to > r->ring_frames - r->block)
        h->primed_to = now;
    while (h->primed_to < now && budget > 0) {
        size_t n = now - h->primed_to < r->block ? (size_t)(now - h->primed_to) : r->block;
        n = n < budget ? n : budget;
        ring_read(r, h->primed_to, n, r->past);
        if (gfir_plan_execute(h->plan, r->past, r->old, n) != GFIR_OK)
            gfir_plan_reset(h->plan);
        h->primed_to += n;
        budget -= n;
    }
    return h->primed_to == now;
}

/* Takes in what waits, where it can be now. */
static void take_pending(gl_runner *r)
{
    if (r->pending.filter) {
        const gfir_status st =
            r->plan ? gfir_plan_swap(r->plan, r->pending.filter, r->fade_frames) : GFIR_ERR_ARG;
        if (st == GFIR_OK) {
            r->pending.filter = NULL;
            r->shape = r->pending.shape;
            r->latency = r->pending.latency;
        } else if (st != GFIR_ERR_BUSY && trash_put(r, NULL, r->pending.filter)) {
            /* made for a plan this one replaced (or none runs): it never fits */
            r->pending.filter = NULL;
        }
    } else if (r->pending.plan && !r->fading && trash_room(r) > 0 && catch_up(r)) {
        r->fading = r->plan;
        r->fade_at = 0;
        r->plan = r->pending.plan;
        r->shape = r->pending.shape;
        r->latency = r->pending.latency;
        r->pending.plan = NULL;
        retire_fading(r);
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

/* The chunk's input into the ring, then its count out to the worker. */
static void remember(gl_runner *r, size_t frames)
{
    const uint64_t at = atomic_load_explicit(&r->written, memory_order_relaxed);
    const size_t mask = r->ring_frames - 1;
    for (size_t i = 0; i < frames; i++)
        memcpy(r->ring + ((at + i) & mask) * r->inputs, r->in + i * r->inputs,
               r->inputs * sizeof *r->in);
    atomic_store_explicit(&r->written, at + frames, memory_order_release);
}

void gl_runner_process(gl_runner *r, size_t frames)
{
    take_pending(r);
    execute(r->plan, r->in, r->wet, frames, r->outputs);
    if (r->fading && r->fade_at < r->fade_frames) {
        execute(r->fading, r->in, r->old, frames, r->outputs);
        for (size_t i = 0; i < frames && r->fade_at < r->fade_frames; i++, r->fade_at++) {
            /* the library's own weights: a swap's crossfade, exactly */
            const double w = gfir_crossfade_weight(r->fade_at, r->fade_frames);
            for (unsigned c = 0; c < r->outputs; c++) {
                float *y = &r->wet[i * r->outputs + c];
                *y = (float)((1.0 - w) * r->old[i * r->outputs + c] + w * *y);
            }
        }
    }
    retire_fading(r);
    retire_filters(r);
    remember(r, frames);
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

/* The chunk the worker primes in: the largest power of two up to the block,
 * as the engines that partition cut a host's block (the CUDA delay line
 * captures its block graph at the first whole one). */
static size_t prime_chunk(size_t block)
{
    size_t chunk = 1;
    while (chunk * 2 <= block)
        chunk *= 2;
    return chunk;
}

/* Runs chunk frames through plan: zeros first, then the ring from *at. 0
 * when the audio thread may have written over those frames while they were
 * read (a seqlock's check: it writes at most a block past what it counted). */
static int prime_chunk_run(const gl_runner *r, gfir_plan *plan, size_t zeros, uint64_t *at,
                           size_t chunk, float *in, float *out)
{
    const size_t n = chunk - zeros;
    memset(in, 0, zeros * r->inputs * sizeof *in);
    ring_read(r, *at, n, in + zeros * r->inputs);
    atomic_thread_fence(memory_order_acquire);
    if (n && atomic_load_explicit(&r->written, memory_order_relaxed) + r->block >
                 *at + r->ring_frames)
        return 0;
    *at += n;
    return gfir_plan_execute(plan, in, out, chunk) == GFIR_OK;
}

/* Worker: gives plan the history of a plan that always ran. It runs zeros up
 * to a whole chunk, then the ring's last frames (ntaps - 1 of them, at most
 * GL_PRIME_MAX_FRAMES), then whole chunks of what came since, until less
 * than a chunk is left for the audio thread (catch_up). Without input (none
 * runs: a cold start) it runs one chunk of zeros. 1 with *primed_to set;
 * 0 when it could not (the plan reset, to start cold). */
static int prime(const gl_runner *r, gfir_plan *plan, size_t ntaps, int with_input,
                 uint64_t *primed_to)
{
    enum { ATTEMPTS = 4, ROUNDS = 64 };
    const size_t chunk = prime_chunk(r->block);
    float *in = malloc(chunk * r->inputs * sizeof *in);
    float *out = malloc(chunk * gfir_plan_out_channels(plan) * sizeof *out);
    int ok = 0;
    for (int attempt = 0; in && out && !ok && attempt < ATTEMPTS; attempt++) {
        uint64_t end = with_input ? atomic_load_explicit(&r->written, memory_order_acquire) : 0;
        const uint64_t origin = atomic_load_explicit(&r->origin, memory_order_acquire);
        size_t want = ntaps - 1 < GL_PRIME_MAX_FRAMES ? ntaps - 1 : GL_PRIME_MAX_FRAMES;
        /* the input before the last activation is no history */
        want = end < origin || want < end - origin ? want : (size_t)(end - origin);
        want = want < end ? want : (size_t)end;
        uint64_t at = end - want;
        size_t zeros = want % chunk ? chunk - want % chunk : want ? 0 : chunk;
        gfir_plan_reset(plan);
        ok = 1;
        for (int rounds = 0; ok;) {
            if (!zeros && end - at < chunk) {
                const uint64_t now = atomic_load_explicit(&r->written, memory_order_acquire);
                if (!with_input || now - at < chunk || rounds++ == ROUNDS)
                    break;
                end = now;
            }
            ok = prime_chunk_run(r, plan, zeros, &at, chunk, in, out);
            zeros = 0;
        }
        *primed_to = at;
    }
    if (!ok)
        gfir_plan_reset(plan);
    free(in);
    free(out);
    return ok;
}

int gl_build(const gl_runner *r, const gl_shape *want, const float *taps, size_t ntaps,
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
     * and then a new plan serves as well. Not on CUDA: runner.h. */
    if (cur && cur_shape && same_shape(want, cur_shape) &&
        gfir_plan_backend(cur) != GFIR_BACKEND_CUDA && ntaps <= gfir_plan_ntaps(cur) &&
        2 * ntaps > gfir_plan_ntaps(cur) &&
        gfir_filter_create(&h->filter, cur, taps, ntaps) == GFIR_OK)
        return 0;
    st = make_plan(want, want->backend, taps, ntaps, r->block, &h->plan);
    if (st != GFIR_OK && want->backend == GFIR_BACKEND_CUDA) {
        snprintf(note, note_size, "backend cuda: %s (%s); running on the CPU",
                 gfir_strerror(st), gfir_plan_error_detail(NULL));
        st = make_plan(want, GFIR_BACKEND_CPU, taps, ntaps, r->block, &h->plan);
    }
    if (st != GFIR_OK) {
        snprintf(why, why_size, "%s (%s)", gfir_strerror(st), gfir_plan_error_detail(NULL));
        return 1;
    }
    h->primed = prime(r, h->plan, ntaps, cur != NULL, &h->primed_to) && cur != NULL;
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
    while (r->ntrash > 0) {
        const gl_garbage *t = &r->trash[r->ntrash - 1];
        garbage g = {GARBAGE_MARK, t->plan, t->filter};
        if (s->schedule_work(s->handle, sizeof g, &g) != LV2_WORKER_SUCCESS)
            return;
        r->ntrash--;
    }
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
