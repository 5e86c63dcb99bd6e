/*
 * policy.c - AUTO: the one place where a plan's engine is chosen. It walks
 * the registered engines (registry.c) as FFTW's planner walks its solvers:
 * each engine says whether it applies to the plan's shape and the caller's
 * request and latency budget (core/engine.h), what latency it adds and what
 * it costs by its backend's model; the policy fixes plan->engine once. It
 * names no backend and no engine: their measured figures live in each
 * backend's tuning file, behind the engines' answers. Nothing above the
 * library re-decides: the command line asks with the budget its use allows
 * (files: any, since the writer drops the latency; live audio: none).
 *
 * The rules:
 * - A named backend must be available and have an engine for the request.
 *   AUTO tries the backends in the registry's order (CUDA, then CPU) and
 *   takes the first that is available, has an engine that applies, and is
 *   worth it (below); a device that is not worth it is still taken when no
 *   other backend has an engine for the request.
 * - A device backend is worth it for AUTO when a call carries at least its
 *   min_call_samples, and, when the caller says how many frames the plan
 *   will filter in all, when the host's engine for the job would spend more
 *   time than starting the device costs this process.
 * - Within a backend, a named kernel takes the first engine that applies in
 *   the registry's order; AUTO takes the cheapest that applies by the
 *   backend's cost model (the first on a tie), and the backend's fallback
 *   engine only where no other applies. Engines apply to AUTO only where
 *   their measurements say they beat the fallback, and never past the
 *   latency budget.
 */
#include "core/policy.h"
#include "core/registry.h"

#include <ctype.h>
#include <string.h>

/* Whether engine e applies to the request: plan->engine, kernel and
 * partition set for it (see gf_engine.applies). */
static int try_engine(gfir_plan *plan, const gf_engine *e, gfir_kernel requested)
{
    plan->engine = e;
    plan->kernel = requested;
    plan->partition = 0;
    return e->applies(plan, requested);
}

gfir_status gf_policy_choose_on(gfir_plan *plan, const gf_backend *b, gfir_kernel requested)
{
    const gf_engine *best = NULL, *fallback = NULL;
    double best_cost = 0.0;
    gfir_status refused = GFIR_OK;
    char why[GF_DETAIL_LEN] = "";
    for (size_t i = 0; gf_engines[i]; i++) {
        const gf_engine *e = gf_engines[i];
        if (e->backend != b)
            continue;
        plan->detail[0] = '\0';
        const int applies = try_engine(plan, e, requested);
        if (applies < 0 && refused == GFIR_OK) {
            refused = (gfir_status)applies;
            memcpy(why, plan->detail, sizeof why);
        }
        if (applies <= 0)
            continue;
        if (requested != GFIR_KERNEL_AUTO)
            return GFIR_OK;
        if (e->fallback) {
            fallback = fallback ? fallback : e;
            continue;
        }
        const double cost = e->cost_s ? e->cost_s(plan, 1.0) : 0.0;
        if (!best || cost < best_cost)
            best = e, best_cost = cost;
    }
    best = best ? best : fallback;
    if (best) {
        (void)try_engine(plan, best, requested);
        return GFIR_OK;
    }
    plan->engine = NULL;
    if (refused != GFIR_OK) {
        memcpy(plan->detail, why, sizeof why);
        return refused;
    }
    char name[16] = "";
    for (size_t i = 0; b->name[i] && i + 1 < sizeof name; i++)
        name[i] = (char)toupper((unsigned char)b->name[i]);
    return gf_fail(plan, GFIR_ERR_UNSUPPORTED, "the %s backend has no kernel '%s'", name,
                   gfir_kernel_name(requested));
}

/* The backend that has no device to start: what a device is weighed against. */
static const gf_backend *host_backend(void)
{
    for (size_t i = 0; gf_engines[i]; i++)
        if (!gf_engines[i]->backend->startup_s)
            return gf_engines[i]->backend;
    return NULL;
}

/* Whether AUTO should use device backend b for this plan: enough samples
 * per call, and for a job of known length, more host work saved than the
 * device's start-up costs. */
static int device_worth_it(const gfir_plan *plan, const gf_backend *b, gfir_kernel requested,
                           size_t expected_frames)
{
    const gf_backend *host = host_backend();
    if (plan->block_frames * plan->channels < b->min_call_samples)
        return 0;
    if (expected_frames == 0 || !host)
        return 1;
    gfir_plan there = *plan;
    if (gf_policy_choose_on(&there, host,
                  requested == GFIR_KERNEL_AUTO || requested == GFIR_KERNEL_FFT
                      ? requested
                      : GFIR_KERNEL_DIRECT) != GFIR_OK ||
        !there.engine->cost_s)
        return 1;
    return there.engine->cost_s(&there, (double)expected_frames) > b->startup_s(plan->device);
}

/* Whether backend b comes first in the registry at engine i. */
static int first_of_backend(size_t i)
{
    for (size_t j = 0; j < i; j++)
        if (gf_engines[j]->backend == gf_engines[i]->backend)
            return 0;
    return 1;
}

gfir_status gf_policy_choose(gfir_plan *plan, const gfir_config *cfg)
{
    if (cfg->backend != GFIR_BACKEND_AUTO) {
        const gf_backend *b = gf_find_backend(cfg->backend);
        if (!b || !b->available())
            return gf_fail(plan, GFIR_ERR_UNAVAILABLE,
                           "backend '%s' is not available in this build or on this machine",
                           gfir_backend_name(cfg->backend));
        return gf_policy_choose_on(plan, b, cfg->kernel);
    }
    for (int any = 0; any < 2; any++) {
        for (size_t i = 0; gf_engines[i]; i++) {
            const gf_backend *b = gf_engines[i]->backend;
            if (!first_of_backend(i) || !b->available())
                continue;
            if (!any && b->startup_s &&
                !device_worth_it(plan, b, cfg->kernel, cfg->expected_frames))
                continue;
            if (gf_policy_choose_on(plan, b, cfg->kernel) == GFIR_OK)
                return GFIR_OK;
        }
    }
    plan->engine = NULL;
    return gf_fail(plan, GFIR_ERR_UNSUPPORTED,
                   "no backend available here has kernel '%s' for this configuration",
                   gfir_kernel_name(cfg->kernel));
}
