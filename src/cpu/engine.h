/*
 * engine.h - the CPU backend's convolution engines, one file each behind one
 * table (libsamplerate's converters, PortAudio's host APIs): the direct
 * engine (direct_engine.c, running the gold or the vectorised kernel),
 * uniformly partitioned FFT convolution (fft_uniform.c, latency one
 * partition) and non-uniformly partitioned FFT convolution
 * (fft_nonuniform.c, no latency).
 *
 * backend.c owns the plan and hands each call to the engine its kernel and
 * form (set by core/policy.c) name; the engine owns plan->impl from create to destroy and sets
 * plan->latency_frames at create. The contracts are backend.h's: execute
 * takes n <= plan->block_frames interleaved frames, in may be NULL for
 * silence, in == out is allowed, and it allocates nothing.
 *
 * Filters (core/plan.h's gfir_filter) are the engine's own: prepare makes
 * one from tap sets (create makes the first through it, gf_filter_first),
 * execute reads plan->filter's and, during a crossfade, plan->incoming's,
 * computing both outputs from the one input state; fade_begin and fade_end
 * are backend.h's.
 */
#ifndef GF_CPU_ENGINE_H
#define GF_CPU_ENGINE_H

#include "core/plan.h"

typedef struct gf_cpu_engine {
    const char *name;
    gfir_status (*create)(gfir_plan *plan, const float *taps);
    gfir_status (*prepare)(const gfir_plan *plan, const float *taps, gfir_filter *f, char *why,
                           size_t whylen);
    gfir_status (*execute)(gfir_plan *plan, const float *in, float *out, size_t n);
    void (*fade_begin)(gfir_plan *plan);
    void (*fade_end)(gfir_plan *plan);
    void (*reset)(gfir_plan *plan);
    void (*destroy)(gfir_plan *plan);
} gf_cpu_engine;

extern const gf_cpu_engine gf_cpu_direct_engine;         /* kernels gold and direct */
extern const gf_cpu_engine gf_cpu_fft_uniform_engine;    /* kernel fft, GF_FORM_UNIFORM */
extern const gf_cpu_engine gf_cpu_fft_nonuniform_engine; /* kernel fft, GF_FORM_NONUNIFORM */

#endif
