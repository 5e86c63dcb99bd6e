/*
 * policy.h - AUTO: the one place where a plan's backend and kernel are chosen.
 */
#ifndef GF_CORE_POLICY_H
#define GF_CORE_POLICY_H

#include "core/plan.h"

/* Sets plan->ops, kernel, form and partition from cfg and the plan's shape
 * (channels, filter_channels, ntaps, block_frames, which the caller has
 * set). On failure plan->detail says why. */
gfir_status gf_policy_choose(gfir_plan *plan, const gfir_config *cfg);

#endif
