/*
 * direct_engine.c - the CUDA direct engine ("cuda-direct"): the lanes
 * (backend.c's entry points, lanes.c) with a direct kernel, ours or a
 * textbook one (direct_plan.c): every direct kernel by name, and AUTO below
 * the device's measured FFT crossover (tuning.h).
 */
#include "cuda/cuda_plan.h"

/* The direct kernels, named, and AUTO below the device's FFT crossover. */
static int direct_applies(gfir_plan *plan, gfir_kernel requested)
{
    switch (requested) {
    case GFIR_KERNEL_AUTO:
        if (gf_cuda_wants_fft(plan, requested))
            return 0;
        plan->kernel = GFIR_KERNEL_DIRECT;
        break;
    case GFIR_KERNEL_CONSTANT:
        if (gf_cuda_lanes_fit(plan) != GFIR_OK)
            return GFIR_ERR_UNSUPPORTED;
        if (!gf_constant_fits(plan->ntaps, plan->filter_channels))
            return gf_fail(plan, GFIR_ERR_UNSUPPORTED,
                           "kernel 'constant' holds at most %d taps in all; this filter has "
                           "%u x %zu",
                           GF_CONSTANT_MAX_TAPS, plan->filter_channels, plan->ntaps);
        return 1;
    case GFIR_KERNEL_BASIC:
    case GFIR_KERNEL_TILED:
    case GFIR_KERNEL_CACHED:
    case GFIR_KERNEL_DIRECT:
        break;
    default:
        return 0;
    }
    return gf_cuda_lanes_fit(plan) == GFIR_OK ? 1 : GFIR_ERR_UNSUPPORTED;
}

const gf_engine gf_cuda_direct_engine = {
    .name = "cuda-direct",
    .backend = &gf_cuda_backend,
    .applies = direct_applies,
    .fallback = 1,
    GF_CUDA_LANES_ENTRIES,
};
