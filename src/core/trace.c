/*
 * trace.c - a plan's call trace (trace.h), from its engine where it keeps
 * one.
 */
#include "core/trace.h"
#include "core/plan.h"

gfir_status gf_trace_start(gfir_plan *plan)
{
    if (!plan)
        return GFIR_ERR_NULL;
    if (!plan->engine || !plan->engine->trace_start)
        return GFIR_ERR_UNSUPPORTED;
    return plan->engine->trace_start(plan);
}

gfir_status gf_trace_last(const gfir_plan *plan, gf_call_trace *out)
{
    if (!plan || !out)
        return GFIR_ERR_NULL;
    if (!plan->engine || !plan->engine->trace_last)
        return GFIR_ERR_UNSUPPORTED;
    return plan->engine->trace_last(plan, out);
}
