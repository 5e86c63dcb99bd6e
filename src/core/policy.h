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

/* The choice within backend b alone, whether or not its device is usable
 * here: plan->engine, kernel and partition set to b's engine for the
 * request, or plan->detail saying why b has none. For gf_policy_choose,
 * and for tests that hold a backend's choices to a table on any machine. */
gfir_status gf_policy_choose_on(gfir_plan *plan, const gf_backend *b, gfir_kernel requested);

#endif
