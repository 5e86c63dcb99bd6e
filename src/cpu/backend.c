/*
 * backend.c - the CPU backend: always available; hands each plan to the
 * engine of its kernel (engine.h), which owns the plan's state from there.
 */
#include "core/backend.h"
#include "cpu/engine.h"
#include "cpu/fft_nonuniform.h"
#include "cpu/fft_uniform.h"

/* FFT plans whose latency budget covers a partition get the uniform engine,
 * the others the zero-latency non-uniform one. */
static int uniform_allowed(const gfir_plan *plan)
{
    return plan->max_latency_frames >= gf_cpu_fft_partition(plan->ntaps, plan->block_frames);
}

static const gf_cpu_engine *engine_of(const gfir_plan *plan)
{
    if (plan->kernel != GFIR_KERNEL_FFT)
        return &gf_cpu_direct_engine;
    return uniform_allowed(plan) ? &gf_cpu_fft_uniform_engine : &gf_cpu_fft_nonuniform_engine;
}

static int cpu_available(void)
{
    return 1;
}

static gfir_status cpu_choose_kernel(const gfir_plan *plan, gfir_kernel requested,
                                     gfir_kernel *chosen)
{
    switch (requested) {
    case GFIR_KERNEL_AUTO: {
        /* Each FFT engine against direct by its own crossover. */
        const int fft = uniform_allowed(plan)
                            ? gf_cpu_fft_preferred(plan->ntaps, plan->block_frames)
                            : gf_cpu_fft_nonuniform_preferred(plan->ntaps, plan->block_frames);
        *chosen = fft ? GFIR_KERNEL_FFT : GFIR_KERNEL_DIRECT;
        return GFIR_OK;
    }
    case GFIR_KERNEL_GOLD:
    case GFIR_KERNEL_DIRECT:
    case GFIR_KERNEL_FFT:
        *chosen = requested;
        return GFIR_OK;
    default:
        return GFIR_ERR_UNSUPPORTED;
    }
}

static gfir_status cpu_create(gfir_plan *plan, const float *taps)
{
    return engine_of(plan)->create(plan, taps);
}

static gfir_status cpu_execute(gfir_plan *plan, const float *in, float *out, size_t n)
{
    return engine_of(plan)->execute(plan, in, out, n);
}

static gfir_status cpu_reset(gfir_plan *plan)
{
    engine_of(plan)->reset(plan);
    return GFIR_OK;
}

static void cpu_destroy(gfir_plan *plan)
{
    engine_of(plan)->destroy(plan);
}

const gf_backend_ops gf_cpu_backend = {
    .name = "cpu",
    .id = GFIR_BACKEND_CPU,
    .available = cpu_available,
    .choose_kernel = cpu_choose_kernel,
    .create = cpu_create,
    .execute = cpu_execute,
    .reset = cpu_reset,
    .destroy = cpu_destroy,
};
