/*
 * plan.c - the plan layer: makes one plan on one device from a checked
 * config (create.c has the public entry), resolves AUTO, splits calls into
 * blocks and hands them to the chosen backend.
 */
#include "core/plan.h"
#include "core/policy.h"
#include "core/route.h"
#include "core/swap.h"
#include "core/why.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Plans' ids, for gfir_plan_swap to tell them apart. */
static atomic_ullong next_plan_id = 1;

gfir_status gf_plan_create_one(gfir_plan **out, const float *taps, size_t ntaps,
                               const gfir_config *cfg)
{
    gfir_status st;
    gfir_plan *plan = NULL;
    float *path_taps = NULL;
    char *create_detail = gf_thread_detail();

    create_detail[0] = '\0';
    *out = NULL;

    plan = calloc(1, sizeof *plan);
    if (!plan) {
        st = GFIR_ERR_NOMEM;
        goto fail;
    }
    plan->inputs = cfg->channels;
    plan->outputs = cfg->out_channels ? cfg->out_channels : cfg->channels;
    plan->channels = cfg->channels;
    plan->filter_channels = cfg->filter_channels;
    plan->ntaps = ntaps;
    plan->block_frames = cfg->max_block_frames ? cfg->max_block_frames : GF_DEFAULT_BLOCK_FRAMES;
    if (cfg->paths) {
        st = gf_route_create(&plan->route, cfg, plan->detail, sizeof plan->detail);
        if (st != GFIR_OK)
            goto fail;
        /* what the engine filters unless it takes paths itself: one channel each */
        plan->channels = plan->filter_channels = (unsigned)cfg->npaths;
    }
    plan->threads = cfg->threads;
    plan->max_latency_frames = cfg->max_latency_frames;
    plan->expected_frames = cfg->expected_frames;
    plan->device = cfg->device;
    plan->id = atomic_fetch_add(&next_plan_id, 1);
    atomic_init(&plan->retired, NULL);

    st = gf_policy_choose(plan, cfg);
    if (st != GFIR_OK) {
        if (!plan->detail[0])
            gf_fail(plan, st, "backend '%s' has no kernel '%s' for this configuration",
                      gfir_backend_name(cfg->backend), gfir_kernel_name(cfg->kernel));
        goto fail;
    }
    if (plan->route && plan->engine->takes_paths) {
        plan->channels = plan->inputs;
        plan->filter_channels = cfg->filter_channels;
    } else if (plan->route) {
        st = gf_route_expand(plan->route, taps, ntaps, plan->block_frames, &path_taps,
                             plan->detail, sizeof plan->detail);
        if (st != GFIR_OK)
            goto fail;
        taps = path_taps;
    }
    st = gf_engine_build(plan, taps);
    if (st != GFIR_OK)
        goto fail;
    free(path_taps);
    *out = plan;
    return GFIR_OK;

fail:
    free(path_taps);
    if (plan) {
        gf_detail(create_detail, GF_DETAIL_LEN, st, "%s", plan->detail);
        gf_route_destroy(plan->route);
        free(plan);
    }
    if (!create_detail[0])
        gf_detail(create_detail, GF_DETAIL_LEN, st, "%s", gfir_strerror(st));
    return st;
}

/* One block of at most block_frames; a routed plan's paths run as channels. */
static gfir_status run_block(gfir_plan *plan, const float *in, float *out, size_t n)
{
    const gf_route *r = plan->route;
    gfir_status st;
    if (!r || !r->vin)
        return plan->engine->execute(plan, in, out, n);
    if (in)
        gf_route_gather(r, in, n);
    st = plan->engine->execute(plan, in ? r->vin : NULL, r->vout, n);
    if (st == GFIR_OK)
        gf_route_reduce(r, out, n);
    return st;
}

typedef struct host_call {
    const float *in;
    float *out;
} host_call;

static gfir_status host_block(gfir_plan *plan, void *arg, size_t n)
{
    host_call *call = arg;
    const gfir_status st = run_block(plan, call->in, call->out, n);
    if (call->in)
        call->in += n * plan->inputs;
    call->out += n * plan->outputs;
    return st;
}

/* A block never straddles the end of a crossfade (swap.h). */
static gfir_status run_blocks(gfir_plan *plan, const float *in, float *out, size_t frames)
{
    host_call call = {in, out};
    plan->detail[0] = '\0';
    return gf_fade_blocks(plan, frames, host_block, &call);
}

gfir_status gfir_plan_execute(gfir_plan *plan, const float *in, float *out, size_t frames)
{
    if (!plan)
        return GFIR_ERR_NULL;
    if (frames == 0)
        return GFIR_OK;
    if (!in || !out)
        return GFIR_ERR_NULL;
    if (in == out && plan->inputs != plan->outputs)
        return gf_fail(plan, GFIR_ERR_ARG, "in place needs as many output channels (%u) as "
                       "input channels (%u)", plan->outputs, plan->inputs);
    return run_blocks(plan, in, out, frames);
}

gfir_status gfir_plan_flush(gfir_plan *plan, float *out, size_t frames)
{
    if (!plan)
        return GFIR_ERR_NULL;
    if (frames == 0)
        return GFIR_OK;
    if (!out)
        return GFIR_ERR_NULL;
    return run_blocks(plan, NULL, out, frames);
}

size_t gfir_plan_latency(const gfir_plan *plan)
{
    return plan ? plan->latency_frames : 0;
}

gfir_status gfir_plan_reset(gfir_plan *plan)
{
    if (!plan)
        return GFIR_ERR_NULL;
    plan->detail[0] = '\0';
    gf_fade_finish(plan);
    return plan->engine->reset(plan);
}

gfir_backend gfir_plan_backend(const gfir_plan *plan)
{
    return plan ? plan->engine->backend->id : GFIR_BACKEND_AUTO;
}

gfir_kernel gfir_plan_kernel(const gfir_plan *plan)
{
    return plan ? plan->kernel : GFIR_KERNEL_AUTO;
}

size_t gfir_plan_ntaps(const gfir_plan *plan)
{
    return plan ? plan->ntaps : 0;
}

unsigned gfir_plan_channels(const gfir_plan *plan)
{
    return plan ? plan->inputs : 0;
}

unsigned gfir_plan_out_channels(const gfir_plan *plan)
{
    return plan ? plan->outputs : 0;
}

const char *gfir_plan_error_detail(const gfir_plan *plan)
{
    return plan ? plan->detail : gf_thread_detail();
}

void gfir_plan_destroy(gfir_plan *plan)
{
    if (!plan)
        return;
    plan->engine->destroy(plan);
    gf_filters_release(plan);
    gf_route_destroy(plan->route);
    free(plan);
}
