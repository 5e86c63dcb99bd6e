/*
 * backend.c - the CPU backend: always available; hands each plan to the
 * engine of its kernel (engine.h), which owns the plan's state from there.
 */
#include "core/backend.h"
#include "cpu/engine.h"

static const gf_cpu_engine *engine_of(const gfir_plan *plan)
{
    if (plan->kernel != GFIR_KERNEL_FFT)
        return &gf_cpu_direct_engine;
    return plan->form == GF_FORM_NONUNIFORM ? &gf_cpu_fft_nonuniform_engine
                                            : &gf_cpu_fft_uniform_engine;
}

static int cpu_available(void)
{
    return 1;
}

static gfir_status cpu_has_kernel(gfir_plan *plan, gfir_kernel kernel)
{
    switch (kernel) {
    case GFIR_KERNEL_GOLD:
    case GFIR_KERNEL_DIRECT:
    case GFIR_KERNEL_FFT:
        return GFIR_OK;
    default:
        return gf_fail(plan, GFIR_ERR_UNSUPPORTED, "the CPU backend has no kernel '%s'",
                       gfir_kernel_name(kernel));
    }
}

static int cpu_takes_paths(const gfir_plan *plan)
{
    (void)plan;
    return 0;
}

static double cpu_startup_s(const gfir_plan *plan)
{
    (void)plan;
    return 0.0;
}

static gfir_status cpu_create(gfir_plan *plan, const float *taps)
{
    return engine_of(plan)->create(plan, taps);
}

static gfir_status cpu_prepare(const gfir_plan *plan, const float *taps, gfir_filter *f,
                               char *why, size_t whylen)
{
    return engine_of(plan)->prepare(plan, taps, f, why, whylen);
}

static gfir_status cpu_fade_begin(gfir_plan *plan)
{
    engine_of(plan)->fade_begin(plan);
    return GFIR_OK;
}

static void cpu_fade_end(gfir_plan *plan)
{
    engine_of(plan)->fade_end(plan);
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
    .has_kernel = cpu_has_kernel,
    .takes_paths = cpu_takes_paths,
    .startup_s = cpu_startup_s,
    .create = cpu_create,
    .prepare = cpu_prepare,
    .fade_begin = cpu_fade_begin,
    .fade_end = cpu_fade_end,
    .execute = cpu_execute,
    .reset = cpu_reset,
    .destroy = cpu_destroy,
};
