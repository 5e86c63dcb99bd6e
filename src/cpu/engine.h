/*
 * engine.h - what the CPU's engines share: their backend (backend.c). Each
 * engine is one file filling core/engine.h's table: the direct engine
 * (direct_engine.c, running the gold or the vectorised kernel), uniformly
 * partitioned FFT convolution (fft_uniform.c, latency one partition) and
 * non-uniformly partitioned FFT convolution (fft_nonuniform.c, no latency).
 * Each owns plan->impl from create to destroy; the contracts are
 * core/engine.h's.
 */
#ifndef GF_CPU_ENGINE_H
#define GF_CPU_ENGINE_H

#include "core/plan.h"

/* The host: always available, nothing to start. */
extern const gf_backend gf_cpu_backend;

/* For tests: the stretches of calls that a plan on the uniform FFT engine
 * (fft_uniform.c) filtered a channel per task. */
size_t gf_cpu_fft_uniform_split_stretches(const gfir_plan *plan);

#endif
