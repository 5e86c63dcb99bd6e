/*
 * fft_nonuniform.h - the CPU's zero-latency FFT engine: non-uniformly
 * partitioned overlap-save (Gardner 1995; partition sizes after Garcia 2002
 * and Wefers 2015), with FFTW.
 *
 * The filter is cut into a head and levels of growing partitions:
 *     taps [0, N)              the head: in a segment that holds a whole
 *                              grid block of N frames, partition 0 of the
 *                              first level, transformed with the block's
 *                              own input; in a shorter one, direct
 *                              convolution
 *     taps [N, 2 P2)           partitions of N, computed at the start of
 *                              the first segment of each grid block (no
 *                              slack needed)
 *     taps [2 PL, 2 PL+1)      partitions of PL, one level per size PL > N
 * A level of partitions PL starts at tap 2 PL, so the block its input
 * completes at frame b is due at b + PL: its transforms (cut into slices,
 * fft_sliced.h) and multiply-accumulates are spread over those PL frames,
 * whatever the calls' sizes, and no call carries a whole large partition.
 * The output is the exact causal convolution with no latency
 * (plan->latency_frames = 0) for every chunking of the calls.
 *
 * Its engine is gf_cpu_fft_zero_latency_engine ("cpu-fft-zero-latency"):
 * a named FFT kernel whose latency budget fits no uniform partition, and
 * AUTO where it beats direct convolution (and, by the cost model, the
 * uniform engine within the budget).
 */
#ifndef GF_CPU_FFT_NONUNIFORM_H
#define GF_CPU_FFT_NONUNIFORM_H

#include "core/plan.h"
#include "cpu/tuning.h"

#include <stddef.h>

/* The engine's create (phase one, core/engine.h) with a given scheme, for
 * tools and tests that measure schemes the rule would not pick: after the
 * engine's destroy, this and then core/swap.h's gf_engine_finish. */
gfir_status gf_cpu_fft_nonuniform_create_scheme(gfir_plan *plan, const gf_nu_scheme *scheme);

#endif
