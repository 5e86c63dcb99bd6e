/*
 * split.c - a plan over several devices (split.h): one sub-plan per device,
 * each computing a contiguous range of the caller's outputs whole, so each
 * output's samples are what one device alone would make of it. A sub-plan
 * takes the inputs its paths read (one copy of each per device), the tap
 * sets they use and the paths into its outputs; without paths, its range of
 * channels and their tap sets.
 *
 * A call launches every sub-plan's share before it waits for any, through
 * the engines' launch/finish pair (core/engine.h), so the devices run at
 * once and the call takes as long as the slowest: one deadline for all.
 * Engines without the pair run in turn inside the launch loop. No threads.
 *
 * The split plan is a gfir_plan whose engine is the table below, so the
 * plan layer's block loop, checks and accessors serve it unchanged; what a
 * split cannot do (new filters, device memory) its table refuses with a
 * sentence.
 */
#include "core/split.h"
#include "core/config.h"
#include "core/plan.h"
#include "core/registry.h"
#include "core/route.h"
#include "core/why.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct split_part {
    gfir_plan *plan;
    unsigned nin, nout;
    unsigned *in_map;           /* the part's input j is the caller's input in_map[j] */
    unsigned first_out;         /* the part's output j is the caller's first_out + j */
    float *in_buf, *out_buf;    /* block x nin, block x nout, interleaved */
    int paired;                 /* this call runs through launch/finish */
} split_part;

typedef struct gf_split {
    gf_engine engine;           /* the table below, with the parts' backend */
    unsigned nparts;
    split_part *parts;
    unsigned nsilent;
    unsigned *silent;           /* outputs no path reaches in a range without a sub-plan */
} gf_split;

static void split_destroy(gfir_plan *plan)
{
    gf_split *s = plan->impl;
    if (!s)
        return;
    for (unsigned k = 0; k < s->nparts; k++) {
        gfir_plan_destroy(s->parts[k].plan);
        free(s->parts[k].in_map);
        free(s->parts[k].in_buf);
        free(s->parts[k].out_buf);
    }
    free(s->parts);
    free(s->silent);
    free(s);
    plan->impl = NULL;
}

/* A failure of part k, in the split plan's detail. */
static gfir_status part_fail(gfir_plan *plan, const split_part *p, gfir_status st)
{
    return gf_fail(plan, st, "device %d: %s", p->plan->device,
                   p->plan->detail[0] ? p->plan->detail : gfir_strerror(st));
}

/* Queues part p's n frames (its input already gathered, or silence). */
static gfir_status part_launch(split_part *p, int silence, size_t n)
{
    gfir_plan *sub = p->plan;
    const gf_route *r = sub->route;
    const float *in = silence ? NULL : p->in_buf;
    gfir_status st;
    sub->detail[0] = '\0';
    p->paired = 0;
    if (!sub->engine->launch)
        return in ? gfir_plan_execute(sub, in, p->out_buf, n)
                  : gfir_plan_flush(sub, p->out_buf, n);
    if (r && r->vin) {
        if (in)
            gf_route_gather(r, in, n);
        in = in ? r->vin : NULL;
    }
    st = sub->engine->launch(sub, in, n);
    p->paired = st == GFIR_OK; /* only queued work is waited for */
    return st;
}

static gfir_status part_finish(split_part *p, size_t n)
{
    gfir_plan *sub = p->plan;
    const gf_route *r = sub->route;
    gfir_status st;
    if (!p->paired)
        return GFIR_OK;
    p->paired = 0;
    if (!r || !r->vin)
        return sub->engine->finish(sub, p->out_buf, n);
    st = sub->engine->finish(sub, r->vout, n);
    if (st == GFIR_OK)
        gf_route_reduce(r, p->out_buf, n);
    return st;
}

static void gather(const float *in, unsigned channels, const split_part *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (unsigned j = 0; j < p->nin; j++)
            p->in_buf[i * p->nin + j] = in[i * channels + p->in_map[j]];
}

static void scatter(const split_part *p, float *out, unsigned channels, size_t n)
{
    for (size_t i = 0; i < n; i++)
        memcpy(out + i * channels + p->first_out, p->out_buf + i * p->nout,
               p->nout * sizeof *out);
}

/* n <= block frames: every part launched, then each finished. Every input
 * is gathered before any output is written, so in == out is safe. */
static gfir_status split_execute(gfir_plan *plan, const float *in, float *out, size_t n)
{
    gf_split *s = plan->impl;
    gfir_status st = GFIR_OK;
    unsigned launched = 0;
    for (; launched < s->nparts && st == GFIR_OK; launched++) {
        split_part *p = &s->parts[launched];
        if (in)
            gather(in, plan->inputs, p, n);
        st = part_launch(p, !in, n);
        if (st != GFIR_OK)
            part_fail(plan, p, st);
    }
    for (unsigned k = 0; k < launched; k++) {
        const gfir_status f = part_finish(&s->parts[k], n);
        if (f != GFIR_OK && st == GFIR_OK)
            st = part_fail(plan, &s->parts[k], f);
    }
    if (st != GFIR_OK)
        return st;
    for (unsigned k = 0; k < s->nparts; k++)
        scatter(&s->parts[k], out, plan->outputs, n);
    for (unsigned j = 0; j < s->nsilent; j++)
        for (size_t i = 0; i < n; i++)
            out[i * plan->outputs + s->silent[j]] = 0.0f;
    return GFIR_OK;
}

static gfir_status split_reset(gfir_plan *plan)
{
    gf_split *s = plan->impl;
    gfir_status first = GFIR_OK;
    for (unsigned k = 0; k < s->nparts; k++) {
        const gfir_status st = gfir_plan_reset(s->parts[k].plan);
        if (st != GFIR_OK && first == GFIR_OK)
            first = part_fail(plan, &s->parts[k], st);
    }
    return first;
}

static size_t split_latency(const gfir_plan *plan)
{
    return plan->latency_frames;
}

static gfir_status split_prepare(const gfir_plan *plan, const float *taps, gfir_filter *f,
                                 char *why, size_t whylen)
{
    (void)plan, (void)taps, (void)f;
    return gf_detail(why, whylen, GFIR_ERR_UNSUPPORTED,
                     "a plan split over several devices takes no new filter: make a plan for "
                     "it and crossfade between the two with gfir_crossfade_weight()");
}

static gfir_status no_device_calls(gfir_plan *plan)
{
    return gf_fail(plan, GFIR_ERR_UNSUPPORTED,
                   "a plan split over several devices takes no device-memory calls: make one "
                   "plan per device for those");
}

static gfir_status split_execute_device(gfir_plan *plan, const gf_device_io *io, size_t n)
{
    (void)io, (void)n;
    return no_device_calls(plan);
}

static gfir_status split_convolve_device(gfir_plan *plan, const gf_device_io *io, size_t frames,
                                         size_t start, size_t length)
{
    (void)io, (void)frames, (void)start, (void)length;
    return no_device_calls(plan);
}

static gfir_status split_set_taps_device(gfir_plan *plan, const float *taps, void *stream)
{
    (void)taps, (void)stream;
    return no_device_calls(plan);
}

static const gf_engine split_template = {
    .name = "split",
    .takes_paths = 1,
    .latency = split_latency,
    .prepare = split_prepare,
    .execute = split_execute,
    .execute_device = split_execute_device,
    .convolve_device = split_convolve_device,
    .set_taps_device = split_set_taps_device,
    .reset = split_reset,
    .destroy = split_destroy,
};

/* A part's plan, its config checked as gfir_plan_create checks one (a
 * test's part configs come from outside). */
static gfir_status part_plan(gfir_plan **out, const float *taps, size_t ntaps,
                             const gfir_config *sub)
{
    const gfir_status st = gf_config_check(taps, ntaps, sub, gf_thread_detail(), GF_DETAIL_LEN);
    return st == GFIR_OK ? gf_plan_create_one(out, taps, ntaps, sub) : st;
}

/* owner[o]: the part of output o, contiguous ranges of about total / nparts
 * work each (paths into the output, or one per channel); work has outputs
 * places. */
static void divide(const gfir_config *cfg, unsigned outputs, unsigned nparts, size_t *work,
                   unsigned *owner)
{
    size_t total = 0, acc = 0;
    unsigned k = 0;
    for (unsigned o = 0; o < outputs; o++)
        work[o] = cfg->paths ? 0 : 1;
    for (size_t p = 0; cfg->paths && p < cfg->npaths; p++)
        work[cfg->paths[p].output]++;
    for (unsigned o = 0; o < outputs; o++)
        total += work[o];
    for (unsigned o = 0; o < outputs; o++) {
        owner[o] = k;
        acc += work[o];
        if (k + 1 < nparts && acc * nparts >= total * (k + 1))
            k++;
    }
}

/* The sub-plan of outputs lo .. hi - 1 of a routed filter into part p, made
 * with part_cfg; GFIR_OK with p->plan NULL when no path reaches them. */
static gfir_status make_routed(split_part *p, const float *taps, size_t ntaps,
                               const gfir_config *cfg, gfir_config sub, unsigned lo, unsigned hi)
{
    unsigned *in_of = malloc(cfg->channels * sizeof *in_of);
    unsigned *set_of = malloc(cfg->filter_channels * sizeof *set_of);
    gfir_path *paths = malloc(cfg->npaths * sizeof *paths);
    float *sets = NULL;
    size_t np = 0, nsets = 0;
    gfir_status st = GFIR_ERR_NOMEM;
    p->in_map = malloc(cfg->channels * sizeof *p->in_map);
    if (!in_of || !set_of || !paths || !p->in_map)
        goto done;
    memset(in_of, 0xff, cfg->channels * sizeof *in_of);
    memset(set_of, 0xff, cfg->filter_channels * sizeof *set_of);
    for (size_t i = 0; i < cfg->npaths; i++) {
        gfir_path q = cfg->paths[i];
        if (q.output < lo || q.output >= hi)
            continue;
        if (in_of[q.input] == ~0u)
            p->in_map[p->nin] = q.input, in_of[q.input] = p->nin++;
        if (set_of[q.taps] == ~0u)
            set_of[q.taps] = (unsigned)nsets++;
        paths[np++] = (gfir_path){in_of[q.input], q.output - lo, set_of[q.taps], q.gain};
    }
    st = GFIR_OK;
    if (np == 0)
        goto done;
    sets = malloc(nsets * ntaps * sizeof *sets);
    if (!sets) {
        st = GFIR_ERR_NOMEM;
        goto done;
    }
    for (unsigned t = 0; t < cfg->filter_channels; t++)
        if (set_of[t] != ~0u)
            memcpy(sets + set_of[t] * ntaps, taps + (size_t)t * ntaps, ntaps * sizeof *sets);
    sub.channels = p->nin;
    sub.out_channels = p->nout;
    sub.filter_channels = (unsigned)nsets;
    sub.paths = paths;
    sub.npaths = np;
    st = part_plan(&p->plan, sets, ntaps, &sub);
done:
    if (st == GFIR_ERR_NOMEM && !p->plan && !sets)
        gf_detail(gf_thread_detail(), GF_DETAIL_LEN, st,
                  "out of host memory for the paths of %u outputs", hi - lo);
    free(in_of);
    free(set_of);
    free(paths);
    free(sets);
    return st;
}

/* The sub-plan of channels lo .. hi - 1 of a filter without paths. */
static gfir_status make_channels(split_part *p, const float *taps, size_t ntaps,
                                 const gfir_config *cfg, gfir_config sub, unsigned lo,
                                 unsigned hi)
{
    p->in_map = malloc((hi - lo) * sizeof *p->in_map);
    if (!p->in_map)
        return gf_detail(gf_thread_detail(), GF_DETAIL_LEN, GFIR_ERR_NOMEM,
                         "out of host memory for %u channels", hi - lo);
    for (unsigned c = lo; c < hi; c++)
        p->in_map[p->nin++] = c;
    sub.channels = hi - lo;
    sub.out_channels = 0;
    sub.filter_channels = cfg->filter_channels == 1 ? 1 : hi - lo;
    sub.paths = NULL;
    sub.npaths = 0;
    return part_plan(&p->plan, cfg->filter_channels == 1 ? taps : taps + lo * ntaps, ntaps,
                     &sub);
}

/* Sub-plan of outputs lo .. hi - 1, its buffers, from parts[k]. */
static gfir_status make_part(gf_split *s, const float *taps, size_t ntaps,
                             const gfir_config *cfg, const gfir_config *part_cfg, size_t block,
                             unsigned lo, unsigned hi)
{
    split_part *p = &s->parts[s->nparts];
    gfir_config sub = *part_cfg;
    gfir_status st;
    memset(p, 0, sizeof *p);
    sub.struct_size = sizeof sub;
    sub.max_block_frames = block;
    sub.devices = NULL;
    sub.ndevices = 0;
    p->first_out = lo;
    p->nout = hi - lo;
    st = cfg->paths ? make_routed(p, taps, ntaps, cfg, sub, lo, hi)
                    : make_channels(p, taps, ntaps, cfg, sub, lo, hi);
    if (st == GFIR_OK && !p->plan) { /* no path reaches these outputs */
        for (unsigned o = lo; o < hi; o++)
            s->silent[s->nsilent++] = o;
        free(p->in_map);
        return GFIR_OK;
    }
    s->nparts++;
    if (st != GFIR_OK) {
        char why[GF_DETAIL_LEN];
        memcpy(why, gf_thread_detail(), sizeof why);
        return gf_detail(gf_thread_detail(), GF_DETAIL_LEN, st, "device %d (outputs %u to %u): %s",
                         part_cfg->device, lo, hi - 1, why[0] ? why : gfir_strerror(st));
    }
    p->in_buf = malloc(block * p->nin * sizeof *p->in_buf);
    p->out_buf = malloc(block * p->nout * sizeof *p->out_buf);
    if (!p->in_buf || !p->out_buf)
        return gf_detail(gf_thread_detail(), GF_DETAIL_LEN, GFIR_ERR_NOMEM,
                         "out of host memory for %zu frames of %u + %u channels", block, p->nin,
                         p->nout);
    return GFIR_OK;
}

/* The split plan's own fields, from its first part; its sub-plans must
 * agree on the latency, or their outputs would not line up. */
static gfir_status finish_plan(gfir_plan *plan, gf_split *s)
{
    const gfir_plan *first = s->parts[0].plan;
    for (unsigned k = 1; k < s->nparts; k++) {
        const size_t l = gfir_plan_latency(s->parts[k].plan);
        if (l != gfir_plan_latency(first))
            return gf_detail(gf_thread_detail(), GF_DETAIL_LEN, GFIR_ERR_UNSUPPORTED,
                             "the devices' plans have latencies of %zu and %zu frames: give "
                             "them a budget of 0 (the default) so that they agree",
                             gfir_plan_latency(first), l);
    }
    s->engine = split_template;
    s->engine.backend = first->engine->backend;
    plan->engine = &s->engine;
    plan->kernel = first->kernel;
    plan->latency_frames = gfir_plan_latency(first);
    plan->device = first->device;
    return GFIR_OK;
}

gfir_status gf_split_create(gfir_plan **out, const float *taps, size_t ntaps,
                            const gfir_config *cfg, const gfir_config *parts, unsigned nparts)
{
    const unsigned outputs = cfg->out_channels ? cfg->out_channels : cfg->channels;
    const size_t block = cfg->max_block_frames ? cfg->max_block_frames : GF_DEFAULT_BLOCK_FRAMES;
    gfir_plan *plan = calloc(1, sizeof *plan);
    gf_split *s = calloc(1, sizeof *s);
    unsigned *owner = malloc(outputs * sizeof *owner);
    size_t *work = malloc(outputs * sizeof *work);
    gfir_status st = GFIR_ERR_NOMEM;
    *out = NULL;
    if (plan && s) {
        s->parts = calloc(nparts, sizeof *s->parts);
        s->silent = malloc(outputs * sizeof *s->silent);
    }
    if (!plan || !s || !owner || !work || !s->parts || !s->silent) {
        gf_detail(gf_thread_detail(), GF_DETAIL_LEN, st, "out of host memory for a plan over "
                  "%u devices", nparts);
        goto fail;
    }
    plan->impl = s;
    plan->inputs = plan->channels = cfg->channels;
    plan->outputs = outputs;
    plan->filter_channels = cfg->filter_channels;
    plan->ntaps = ntaps;
    plan->block_frames = block;
    plan->threads = cfg->threads;
    plan->max_latency_frames = cfg->max_latency_frames;
    plan->expected_frames = cfg->expected_frames;
    atomic_init(&plan->retired, NULL);
    divide(cfg, outputs, nparts, work, owner);
    st = GFIR_OK;
    for (unsigned lo = 0, hi; lo < outputs && st == GFIR_OK; lo = hi) {
        for (hi = lo + 1; hi < outputs && owner[hi] == owner[lo]; hi++)
            ;
        st = make_part(s, taps, ntaps, cfg, &parts[owner[lo]], block, lo, hi);
    }
    if (st == GFIR_OK && s->nparts == 0)
        st = gf_detail(gf_thread_detail(), GF_DETAIL_LEN, GFIR_ERR_CHANNELS,
                       "no path reaches any output");
    if (st == GFIR_OK)
        st = finish_plan(plan, s);
    if (st != GFIR_OK)
        goto fail;
    free(owner);
    free(work);
    *out = plan;
    return GFIR_OK;
fail:
    if (plan)
        plan->impl = s;
    if (plan && s)
        split_destroy(plan);
    else
        free(s);
    free(plan);
    free(owner);
    free(work);
    return st;
}

gfir_status gf_split_devices(gfir_plan **out, const float *taps, size_t ntaps,
                             const gfir_config *cfg)
{
    const gf_backend *cuda = gf_find_backend(GFIR_BACKEND_CUDA);
    gfir_config parts[GFIR_MAX_DEVICES];
    *out = NULL;
    if (cfg->backend == GFIR_BACKEND_CPU)
        return gf_detail(gf_thread_detail(), GF_DETAIL_LEN, GFIR_ERR_ARG,
                         "a plan over %u devices runs on CUDA devices, but the backend is cpu",
                         cfg->ndevices);
    if (!cuda || !cuda->available())
        return gf_detail(gf_thread_detail(), GF_DETAIL_LEN, GFIR_ERR_UNAVAILABLE,
                         "a plan over %u devices needs the CUDA backend, which is not "
                         "available in this build or on this machine", cfg->ndevices);
    for (unsigned k = 0; k < cfg->ndevices; k++) {
        parts[k] = *cfg;
        parts[k].backend = GFIR_BACKEND_CUDA;
        parts[k].device = cfg->devices[k];
    }
    return gf_split_create(out, taps, ntaps, cfg, parts, cfg->ndevices);
}
