/*
 * cost.h - how long the CPU backend takes to filter, by model: what the
 * policy weighs a device's start-up against for a job of known length.
 */
#ifndef GF_CPU_COST_H
#define GF_CPU_COST_H

#include "core/plan.h"

/* Seconds of compute for `frames` frames of the plan's shape with the kernel
 * and form the policy set in it (plan->kernel, form, partition), on
 * plan->threads threads (0: every core), as far as the engine uses them. */
double gf_cpu_seconds(const gfir_plan *plan, double frames);

#endif
