/*
 * fft_uniform.h - the CPU FFT kernel: uniformly partitioned overlap-save with FFTW.
 *
 * The filter is cut into K = ceil(ntaps / P) partitions of P taps. Every P new
 * input frames, one real FFT of size 2P (the previous and the new P frames)
 * enters a frequency-domain delay line of the last K input spectra; the output
 * spectrum is one complex multiply-accumulate per partition, and one inverse
 * FFT gives P output frames. Those frames are handed out during the next P
 * input frames, so the output is the exact causal convolution delayed by P
 * frames (plan->latency_frames = P), whatever the chunking of the calls.
 * The policy (core/policy.c) sets P in plan->partition.
 *
 * Its engine (engine.h) is gf_cpu_fft_uniform_engine, for FFT plans of form
 * GF_FORM_UNIFORM; the zero-latency one is fft_nonuniform.h's.
 */
#ifndef GF_CPU_FFT_UNIFORM_H
#define GF_CPU_FFT_UNIFORM_H

#include "core/plan.h"

#include <stddef.h>

/* The partition size (and latency) for ntaps taps in calls of up to
 * block_frames frames, within a latency budget of max_latency frames
 * (GFIR_LATENCY_ANY: none): a power of two, 64 to 32768, or 0 when the
 * budget is below 64. */
size_t gf_cpu_fft_partition(size_t ntaps, size_t block_frames, size_t max_latency);

/* From how many taps this engine beats direct convolution at that partition. */
size_t gf_cpu_fft_uniform_min_taps(size_t partition);

/* The engine's create with a given partition size (a power of two >= 64),
 * for tools/cpu_fft_bench.c to measure sizes the rule would not pick. */
gfir_status gf_cpu_fft_create_partition(gfir_plan *plan, const float *taps, size_t part);

#endif
