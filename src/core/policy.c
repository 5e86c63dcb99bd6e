/*
 * policy.c - AUTO: the one place where a plan's backend and kernel are chosen.
 */
#include "core/policy.h"
#include "core/registry.h"

/* Below this many samples per block a GPU round trip costs more than it saves. */
#define AUTO_CUDA_MIN_SAMPLES 8192

/*
 * Sets plan->ops and plan->kernel. A named backend must be available and have
 * the kernel. AUTO takes the first backend, in preference order, that is
 * available and has the kernel asked for, skipping CUDA for blocks too small
 * to pay for the round trip unless no other backend has that kernel.
 */
gfir_status gf_policy_choose(gfir_plan *plan, const gfir_config *cfg)
{
    if (cfg->backend != GFIR_BACKEND_AUTO) {
        const gf_backend_ops *ops = gf_find_backend(cfg->backend);
        if (!ops || !ops->available())
            return gf_fail(plan, GFIR_ERR_UNAVAILABLE,
                             "backend '%s' is not available in this build or on this machine",
                             gfir_backend_name(cfg->backend));
        plan->ops = ops;
        return ops->choose_kernel(plan, cfg->kernel, &plan->kernel);
    }
    const int small = plan->block_frames * plan->channels < AUTO_CUDA_MIN_SAMPLES;
    for (int any_block = 0; any_block < 2; any_block++) {
        for (size_t i = 0; gf_backends[i]; i++) {
            const gf_backend_ops *ops = gf_backends[i];
            if ((!any_block && small && ops->id == GFIR_BACKEND_CUDA) || !ops->available())
                continue;
            plan->detail[0] = '\0';
            if (ops->choose_kernel(plan, cfg->kernel, &plan->kernel) == GFIR_OK) {
                plan->ops = ops;
                return GFIR_OK;
            }
        }
    }
    return gf_fail(plan, GFIR_ERR_UNSUPPORTED,
                     "no backend available here has kernel '%s' for this configuration",
                     gfir_kernel_name(cfg->kernel));
}

