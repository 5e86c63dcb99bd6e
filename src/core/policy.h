/*
 * policy.h - AUTO: the one place where a plan's engine is chosen.
 */
#ifndef GF_CORE_POLICY_H
#define GF_CORE_POLICY_H

#include "core/plan.h"

/* Sets plan->engine, kernel and partition from cfg and the plan's shape
 * (channels, filter_channels, ntaps, block_frames, threads, device,
 * max_latency_frames, which the caller has set). On failure plan->detail
 * says why. */
gfir_status gf_policy_choose(gfir_plan *plan, const gfir_config *cfg);

#endif
