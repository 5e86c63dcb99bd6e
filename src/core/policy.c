/*
 * policy.c - AUTO: the one place where a plan's backend, kernel and engine
 * form are chosen. The backends and engines state facts (which kernels they
 * have, measured crossovers, a device's start-up cost); only this file
 * decides, from those facts, the plan's shape and the caller's latency budget.
 * Nothing above the library re-decides: the command line asks with the
 * budget its use allows (files: any, since the writer drops the latency;
 * live audio: none).
 *
 * The rules:
 * - A named backend must be available; a named kernel must exist there. AUTO
 *   tries the backends in the registry's order (CUDA, then CPU) and takes the
 *   first that is available, has the kernel, and is worth it (below).
 * - CUDA is worth it for AUTO when a call carries enough samples to pay for
 *   the round trip, and, when the caller says how many frames the plan will
 *   filter in all, when the work it takes off the CPU exceeds what starting
 *   the device would cost this process (cpu/cost.h, cuda/facts.h).
 * - The kernel, for AUTO: on CUDA, FFT from the device's measured crossover,
 *   in the delay-line form for calls of up to 2048 frames; on the CPU, the
 *   uniformly partitioned FFT where the budget covers its partition and it
 *   beats direct convolution there, else the non-uniformly partitioned FFT
 *   (latency 0) where it beats direct, else direct.
 * - A named FFT kernel on the CPU runs uniformly partitioned within the
 *   budget where its partitions can fit it, otherwise non-uniformly
 *   partitioned, with latency 0.
 */
#include "core/policy.h"
#include "core/registry.h"
#include "cpu/cost.h"
#include "cpu/fft_nonuniform.h"
#include "cpu/fft_uniform.h"
#ifdef GFIR_HAVE_CUDA
#include "cuda/facts.h"
#include "cuda/fdl.h"
#endif

/* Below this many samples per block a GPU round trip costs more than it
 * saves (the previous round's live measurements: 64-frame stereo periods
 * ran better on the CPU). */
#define AUTO_CUDA_MIN_SAMPLES 8192

/* The cheaper of the CPU's FFT forms, by their cost models: the uniform one
 * at partition `part` (within the budget) or the zero-latency one. A small
 * budget can make the uniform engine's partitions short and many: 2^20 taps
 * at P = 256 ran at 2489 ns a frame against 54 for the zero-latency engine
 * (tools/cpu_nupc_bench, 2026-11-23). */
static void cheaper_fft_form(gfir_plan *plan, size_t part)
{
    gfir_plan uniform = *plan, nonuniform = *plan;
    uniform.form = GF_FORM_UNIFORM;
    uniform.partition = part;
    nonuniform.form = GF_FORM_NONUNIFORM;
    nonuniform.partition = 0;
    *plan = gf_cpu_seconds(&uniform, 1.0) <= gf_cpu_seconds(&nonuniform, 1.0) ? uniform
                                                                                : nonuniform;
}

/* The CPU's kernel and form for AUTO, or for a named FFT kernel. */
static void choose_cpu(gfir_plan *plan, gfir_kernel requested)
{
    const size_t budget = plan->max_latency_frames;
    const size_t part = gf_cpu_fft_partition(plan->ntaps, plan->block_frames, budget);
    const int uniform_wins = part && plan->ntaps >= gf_cpu_fft_uniform_min_taps(part);
    const int nonuniform_wins = gf_cpu_fft_nonuniform_preferred(plan->ntaps, plan->block_frames);
    plan->form = GF_FORM_PLAIN;
    plan->partition = 0;
    plan->kernel = requested;
    if (requested == GFIR_KERNEL_AUTO) {
        plan->kernel = uniform_wins || nonuniform_wins ? GFIR_KERNEL_FFT : GFIR_KERNEL_DIRECT;
        if (uniform_wins && nonuniform_wins)
            cheaper_fft_form(plan, part);
        else if (uniform_wins)
            plan->form = GF_FORM_UNIFORM, plan->partition = part;
        else if (nonuniform_wins)
            plan->form = GF_FORM_NONUNIFORM;
        return;
    }
    if (requested == GFIR_KERNEL_FFT) {
        plan->form = part ? GF_FORM_UNIFORM : GF_FORM_NONUNIFORM;
        plan->partition = part;
    }
}

/* On CUDA every engine has latency 0; FFT plans whose calls are small (live
 * audio) take the delay-line engine, whose cost per call does not grow with
 * the filter's history as the whole-signal engines' does. */
static void choose_cuda(gfir_plan *plan, gfir_kernel requested)
{
    plan->form = GF_FORM_PLAIN;
    plan->partition = 0;
    plan->kernel = requested;
#ifdef GFIR_HAVE_CUDA
    if (requested == GFIR_KERNEL_AUTO)
        plan->kernel = plan->ntaps >= gf_cuda_fft_min_taps(plan->device) ? GFIR_KERNEL_FFT
                                                                         : GFIR_KERNEL_DIRECT;
    if (plan->kernel == GFIR_KERNEL_FFT && plan->block_frames <= GF_CUDA_FDL_MAX_BLOCK) {
        plan->form = GF_FORM_FDL;
        plan->partition = gf_cuda_fdl_partition(plan->block_frames);
    }
#endif
}

/* Sets the plan's kernel and form on ops, for the requested kernel. */
static gfir_status choose_on(gfir_plan *plan, const gf_backend_ops *ops, gfir_kernel requested)
{
    gfir_status st;
    plan->ops = ops;
    if (ops->id == GFIR_BACKEND_CPU)
        choose_cpu(plan, requested);
    else
        choose_cuda(plan, requested);
    st = ops->has_kernel(plan, plan->kernel);
    if (st != GFIR_OK)
        plan->ops = NULL;
    return st;
}

/* Whether AUTO should use a device backend for this plan: enough samples per
 * call, and for a job of known length, more CPU work saved than the device's
 * start-up costs. */
static int device_worth_it(const gfir_plan *plan, const gf_backend_ops *ops,
                           gfir_kernel requested, size_t expected_frames)
{
    if (plan->block_frames * plan->channels < AUTO_CUDA_MIN_SAMPLES)
        return 0;
    if (expected_frames == 0)
        return 1;
    gfir_plan cpu = *plan;
    choose_cpu(&cpu, requested == GFIR_KERNEL_AUTO || requested == GFIR_KERNEL_FFT
                         ? requested
                         : GFIR_KERNEL_DIRECT);
    return gf_cpu_seconds(&cpu, (double)expected_frames) > ops->startup_s(plan);
}

gfir_status gf_policy_choose(gfir_plan *plan, const gfir_config *cfg)
{
    if (cfg->backend != GFIR_BACKEND_AUTO) {
        const gf_backend_ops *ops = gf_find_backend(cfg->backend);
        if (!ops || !ops->available())
            return gf_fail(plan, GFIR_ERR_UNAVAILABLE,
                           "backend '%s' is not available in this build or on this machine",
                           gfir_backend_name(cfg->backend));
        return choose_on(plan, ops, cfg->kernel);
    }
    /* A device that is not worth it is still taken when no other backend
     * has the kernel asked for. */
    for (int any = 0; any < 2; any++) {
        for (size_t i = 0; gf_backends[i]; i++) {
            const gf_backend_ops *ops = gf_backends[i];
            if (!ops->available())
                continue;
            if (!any && ops->id != GFIR_BACKEND_CPU &&
                !device_worth_it(plan, ops, cfg->kernel, cfg->expected_frames))
                continue;
            plan->detail[0] = '\0';
            if (choose_on(plan, ops, cfg->kernel) == GFIR_OK)
                return GFIR_OK;
        }
    }
    return gf_fail(plan, GFIR_ERR_UNSUPPORTED,
                   "no backend available here has kernel '%s' for this configuration",
                   gfir_kernel_name(cfg->kernel));
}
