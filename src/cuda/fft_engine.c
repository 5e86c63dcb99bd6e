/*
 * fft_engine.c - the CUDA whole-signal FFT engine ("cuda-fft"): the lanes
 * (backend.c's entry points, lanes.c) with the FFT kernel (fft_plan.c), for
 * calls larger than the delay-line engine takes (fdl_engine.c).
 */
#include "cuda/cuda_plan.h"
#include "cuda/tuning.h"

/* The FFT kernel (named, or AUTO past the device's crossover) for calls
 * larger than the delay-line engine takes; its filters are cuFFT spectra. */
static int fft_applies(gfir_plan *plan, gfir_kernel requested)
{
    const char *missing;
    if (plan->block_frames <= GF_CUDA_FDL_MAX_BLOCK || !gf_cuda_wants_fft(plan, requested))
        return 0;
    plan->kernel = GFIR_KERNEL_FFT;
    if (gf_cuda_lanes_fit(plan) != GFIR_OK)
        return GFIR_ERR_UNSUPPORTED;
    missing = gf_fft_cufft_missing();
    if (missing)
        return gf_fail(plan, GFIR_ERR_UNSUPPORTED, "kernel 'fft' on the GPU: %s", missing);
    return 1;
}

const gf_engine gf_cuda_fft_engine = {
    .name = "cuda-fft",
    .backend = &gf_cuda_backend,
    .applies = fft_applies,
    GF_CUDA_LANES_ENTRIES,
};
