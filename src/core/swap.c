/*
 * swap.c - filters made off the audio thread, swapped in with a crossfade
 * (gfir.h): their creation, the swap, the retired list, and the fade's
 * progress, which plan.c and core/device.c drive (swap.h), and a plan's engine
 * built in two phases around its first filter. The engines do the rest
 * through their prepare, fade_begin and fade_end; none calls back here
 * except for the fade's weights.
 */
#include "core/swap.h"
#include "core/route.h"
#include "core/why.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double gfir_crossfade_weight(size_t k, size_t crossfade_frames)
{
    if (k >= crossfade_frames)
        return 1.0;
    return 0.5 - 0.5 * cos(3.14159265358979323846 * ((double)k + 0.5) /
                           (double)crossfade_frames);
}

void gf_fade_weights(const gfir_plan *plan, size_t offset, size_t n, float *w)
{
    const size_t k = plan->fade_pos + offset;
    for (size_t i = 0; i < n; i++)
        w[i] = (float)gfir_crossfade_weight(k + i, plan->fade_len);
}

static void filter_free(gfir_filter *f)
{
    if (!f)
        return;
    if (f->release)
        f->release(f->impl);
    free(f);
}

gfir_status gf_filter_prepare(const gfir_plan *plan, const float *taps, gfir_filter **out,
                              char *why, size_t whylen)
{
    gfir_filter *f = calloc(1, sizeof *f);
    gfir_status st;
    *out = NULL;
    if (!f) {
        return gf_detail(why, whylen, GFIR_ERR_NOMEM, "out of host memory");
    }
    st = plan->engine->prepare(plan, taps, f, why, whylen);
    if (st != GFIR_OK) {
        free(f);
        return st;
    }
    f->plan_id = plan->id;
    atomic_init(&f->held, 0);
    *out = f;
    return GFIR_OK;
}

gfir_status gf_engine_finish(gfir_plan *plan, const float *taps)
{
    gfir_filter *f = NULL;
    gfir_status st = gf_filter_prepare(plan, taps, &f, plan->detail, sizeof plan->detail);
    if (st == GFIR_OK) {
        atomic_store(&f->held, 1);
        filter_free(plan->filter);
        plan->filter = f;
        st = plan->engine->start(plan);
    }
    if (st != GFIR_OK) {
        plan->engine->destroy(plan);
        gf_filters_release(plan);
        return st;
    }
    plan->latency_frames = plan->engine->latency(plan);
    return GFIR_OK;
}

gfir_status gf_engine_build(gfir_plan *plan, const float *taps)
{
    const gfir_status st = plan->engine->create(plan);
    if (st != GFIR_OK) {
        plan->engine->destroy(plan);
        return st;
    }
    return gf_engine_finish(plan, taps);
}

/* The caller's tap sets padded to the plan's length and, where the engine
 * runs paths as channels, expanded per path: NULL when out of memory. */
static float *engine_taps(const gfir_plan *plan, const float *taps, size_t ntaps)
{
    const int expand = plan->route && !plan->engine->takes_paths;
    const size_t sets = plan->route ? plan->route->sets : plan->filter_channels;
    const size_t len = plan->ntaps;
    float *padded = calloc(sets * len, sizeof *padded), *paths;
    if (!padded)
        return NULL;
    for (size_t s = 0; s < sets; s++)
        memcpy(padded + s * len, taps + s * ntaps, ntaps * sizeof *taps);
    if (!expand)
        return padded;
    paths = malloc(plan->route->npaths * len * sizeof *paths);
    if (paths)
        gf_route_expand_taps(plan->route, padded, len, paths);
    free(padded);
    return paths;
}

gfir_status gfir_filter_create(gfir_filter **filter, const gfir_plan *plan, const float *taps,
                               size_t ntaps)
{
    char *why = gf_thread_detail();
    const size_t whylen = GF_DETAIL_LEN;
    size_t sets;
    float *mine;
    gfir_status st;

    why[0] = '\0';
    if (filter)
        *filter = NULL;
    if (!filter || !plan || !taps) {
        return gf_detail(why, whylen, GFIR_ERR_NULL, "filter, plan or taps is NULL");
    }
    if (ntaps == 0 || ntaps > plan->ntaps)
        return gf_detail(why, whylen, GFIR_ERR_TAPS,
                         "ntaps is %zu; a new filter for this plan has 1 to %zu", ntaps,
                         plan->ntaps);
    sets = plan->route ? plan->route->sets : plan->filter_channels;
    for (size_t i = 0; i < ntaps * sets; i++)
        if (!isfinite(taps[i])) {
            return gf_detail(why, whylen, GFIR_ERR_TAPS,
                             "tap %zu of tap set %zu is not finite", i % ntaps, i / ntaps);
        }
    mine = engine_taps(plan, taps, ntaps);
    if (!mine) {
        return gf_detail(why, whylen, GFIR_ERR_NOMEM,
                         "out of host memory for %zu tap sets of %zu taps", sets, plan->ntaps);
    }
    st = gf_filter_prepare(plan, mine, filter, why, whylen);
    free(mine);
    if (st != GFIR_OK && !why[0])
        gf_detail(why, whylen, st, "%s", gfir_strerror(st));
    return st;
}

gfir_status gfir_plan_swap(gfir_plan *plan, gfir_filter *filter, size_t crossfade_frames)
{
    if (!plan || !filter)
        return GFIR_ERR_NULL;
    if (filter->plan_id != plan->id)
        return gf_fail(plan, GFIR_ERR_ARG, "the filter was made for another plan");
    if (atomic_load_explicit(&filter->held, memory_order_acquire))
        return gf_fail(plan, GFIR_ERR_ARG, "the filter is held by its plan already");
    if (plan->incoming)
        return GFIR_ERR_BUSY;
    atomic_store_explicit(&filter->held, 1, memory_order_relaxed);
    plan->incoming = filter;
    plan->fade_len = crossfade_frames;
    plan->fade_pos = 0;
    plan->fade_begun = 0;
    plan->fade_delay = 0;
    plan->fade_wait = 0;
    return GFIR_OK;
}

/* Pushed by the executing thread only; popped by one collector at a time,
 * so a node cannot leave and come back during a pop (no ABA). */
static void retire(gfir_plan *plan, gfir_filter *f)
{
    gfir_filter *head = atomic_load_explicit(&plan->retired, memory_order_relaxed);
    do
        f->next = head;
    while (!atomic_compare_exchange_weak_explicit(&plan->retired, &head, f, memory_order_release,
                                                  memory_order_relaxed));
}

gfir_filter *gfir_plan_retired(gfir_plan *plan)
{
    gfir_filter *head;
    if (!plan)
        return NULL;
    head = atomic_load_explicit(&plan->retired, memory_order_acquire);
    while (head && !atomic_compare_exchange_weak_explicit(&plan->retired, &head, head->next,
                                                          memory_order_acquire,
                                                          memory_order_acquire))
        ;
    if (head) {
        head->next = NULL;
        atomic_store_explicit(&head->held, 0, memory_order_release);
    }
    return head;
}

void gfir_filter_destroy(gfir_filter *filter)
{
    if (filter && !atomic_load_explicit(&filter->held, memory_order_acquire))
        filter_free(filter);
}

void gf_fade_finish(gfir_plan *plan)
{
    if (!plan->incoming)
        return;
    plan->engine->fade_end(plan);
    plan->fade_wait = 0;
    retire(plan, plan->filter);
    plan->filter = plan->incoming;
    plan->incoming = NULL;
}

gfir_status gf_fade_step(gfir_plan *plan, size_t *n)
{
    if (!plan->incoming)
        return GFIR_OK;
    if (!plan->fade_begun) {
        gfir_status st = plan->engine->fade_begin(plan);
        if (st != GFIR_OK)
            return st;
        plan->fade_begun = 1;
    }
    if (plan->fade_wait > 0) {
        if (*n > plan->fade_wait)
            *n = plan->fade_wait;
        return GFIR_OK;
    }
    if (plan->fade_pos == plan->fade_len)
        gf_fade_finish(plan);
    else if (*n > plan->fade_len - plan->fade_pos)
        *n = plan->fade_len - plan->fade_pos;
    return GFIR_OK;
}

gfir_status gf_fade_blocks(gfir_plan *plan, size_t frames, gf_block_fn block, void *arg)
{
    while (frames > 0) {
        size_t n = frames < plan->block_frames ? frames : plan->block_frames;
        gfir_status st = gf_fade_step(plan, &n);
        if (st == GFIR_OK)
            st = block(plan, arg, n);
        if (st != GFIR_OK)
            return st;
        gf_fade_advance(plan, n);
        frames -= n;
    }
    return GFIR_OK;
}

void gf_fade_advance(gfir_plan *plan, size_t n)
{
    if (!plan->incoming)
        return;
    if (plan->fade_wait > 0) {
        plan->fade_wait -= n;
        return;
    }
    plan->fade_pos += n;
    if (plan->fade_pos == plan->fade_len)
        gf_fade_finish(plan);
}

void gf_filters_release(gfir_plan *plan)
{
    gfir_filter *f;
    while ((f = gfir_plan_retired(plan)))
        filter_free(f);
    filter_free(plan->incoming);
    filter_free(plan->filter);
    plan->incoming = plan->filter = NULL;
}
