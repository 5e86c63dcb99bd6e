/*
 * fft_nonuniform.h - the CPU's zero-latency FFT engine: non-uniformly
 * partitioned overlap-save (Gardner 1995; partition sizes after Garcia 2002
 * and Wefers 2015), with FFTW.
 *
 * The filter is cut into a direct head and levels of growing partitions:
 *     taps [0, N)              direct convolution, inside every call
 *     taps [N, 2 P2)           partitions of N, computed in the call whose
 *                              input completes their block (no slack needed)
 *     taps [2 PL, 2 PL+1)      partitions of PL, one level per size PL > N
 * A level of partitions PL starts at tap 2 PL, so the block its input
 * completes at frame b is due at b + PL: its transforms (cut into slices,
 * fft_sliced.h) and multiply-accumulates are spread over those PL frames,
 * whatever the calls' sizes, and no call carries a whole large partition.
 * The output is the exact causal convolution with no latency
 * (plan->latency_frames = 0) for every chunking of the calls.
 *
 * Its engine (engine.h) is gf_cpu_fft_nonuniform_engine, for FFT plans of
 * form GF_FORM_NONUNIFORM (core/policy.c: those whose latency budget fits no
 * uniform partition).
 */
#ifndef GF_CPU_FFT_NONUNIFORM_H
#define GF_CPU_FFT_NONUNIFORM_H

#include "core/plan.h"

#include <stddef.h>

#define GF_NU_MAX_LEVELS 16

/* A partition scheme: the direct head's length N (a power of two), which is
 * also the first level's partition size, then the larger levels' sizes,
 * increasing powers of two. Levels that start past the filter's end are
 * dropped. */
typedef struct gf_nu_scheme {
    size_t head;
    size_t nlevels;               /* levels after the first */
    size_t sizes[GF_NU_MAX_LEVELS];
} gf_nu_scheme;

/* The scheme the engine uses for ntaps taps. */
void gf_cpu_fft_nonuniform_scheme(size_t ntaps, gf_nu_scheme *scheme);

/* 1 when the non-uniform engine beats the direct one for this shape (both add
 * no latency): what the policy weighs for plans whose budget fits no uniform
 * partition. */
int gf_cpu_fft_nonuniform_preferred(size_t ntaps, size_t block_frames);

/* Nanoseconds per frame and channel on one thread, by model (the policy's
 * cost of a job, cpu/cost.c): right to within a factor of about 1.5. */
double gf_cpu_fft_nonuniform_ns(size_t ntaps);

/* The engine's create with a given scheme, for tools/cpu_fft_bench.c to
 * measure schemes the rule would not pick. */
gfir_status gf_cpu_fft_nonuniform_create_scheme(gfir_plan *plan, const float *taps,
                                                const gf_nu_scheme *scheme);

#endif
