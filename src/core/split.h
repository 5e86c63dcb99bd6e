/*
 * split.h - a plan over several devices (gfir.h, "Plans over several
 * devices"): the caller's outputs divided among sub-plans, one per device,
 * each taking the inputs its outputs need; a call runs every sub-plan at
 * once and gathers their outputs (split.c).
 */
#ifndef GF_CORE_SPLIT_H
#define GF_CORE_SPLIT_H

#include "gfir.h"

#include <stddef.h>

/*
 * A plan over nparts sub-plans: cfg is the whole filter (channels, outputs,
 * tap sets, paths, block size; its devices are not read), parts[k] gives
 * sub-plan k everything else (backend, kernel, device, threads, latency
 * budget). The outputs are cut into nparts contiguous ranges of about equal
 * work (paths, or channels); a range no path reaches is silence and gets no
 * sub-plan. Each sub-plan is made as gfir_plan_create makes a plan, so the
 * policy picks its engine. On failure *out is NULL and gf_thread_detail() says why,
 * naming the part and its device. What plan.c runs for ndevices > 1, and
 * what tests run over CPU sub-plans.
 */
gfir_status gf_split_create(gfir_plan **out, const float *taps, size_t ntaps,
                            const gfir_config *cfg, const gfir_config *parts, unsigned nparts);

/* gf_split_create over cfg->devices on the CUDA backend: cfg checked
 * (gf_config_check) with ndevices > 1. */
gfir_status gf_split_devices(gfir_plan **out, const float *taps, size_t ntaps,
                             const gfir_config *cfg);

#endif
