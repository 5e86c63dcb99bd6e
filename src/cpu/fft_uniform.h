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
 *
 * Its engine (engine.h) is gf_cpu_fft_uniform_engine, which backend.c gives
 * the FFT plans whose latency budget covers P (fft_nonuniform.h has the
 * zero-latency one).
 */
#ifndef GF_CPU_FFT_UNIFORM_H
#define GF_CPU_FFT_UNIFORM_H

#include "core/plan.h"

#include <stddef.h>

/* The partition size (and latency) the FFT kernel uses for a plan of ntaps
 * taps and blocks of up to block_frames frames: a power of two, 64 to 32768. */
size_t gf_cpu_fft_partition(size_t ntaps, size_t block_frames);

/* 1 when the FFT kernel beats the direct one for this shape (what AUTO picks). */
int gf_cpu_fft_preferred(size_t ntaps, size_t block_frames);

/* The engine's create with a given partition size (a power of two >= 64),
 * for tools/cpu_fft_bench.c to measure sizes the rule would not pick. */
gfir_status gf_cpu_fft_create_partition(gfir_plan *plan, const float *taps, size_t part);

#endif
