/*
 * backend.h - what the CUDA engines share (backend.c): their backend, the
 * device check of a create, and the answers they give the policy alike.
 * The lane engines' shared entry points are cuda_plan.h's.
 */
#ifndef GF_CUDA_BACKEND_H
#define GF_CUDA_BACKEND_H

#include "core/plan.h"

extern const gf_backend gf_cuda_backend;

/* GFIR_OK when plan->device exists here; nothing is on it yet when not. */
gfir_status gf_cuda_device_exists(gfir_plan *plan);
/* Whether the request is the FFT kernel's: named, or AUTO from the
 * device's measured crossover (tuning.h). */
int gf_cuda_wants_fft(const gfir_plan *plan, gfir_kernel requested);
/* Every CUDA engine's latency: none. */
size_t gf_cuda_no_latency(const gfir_plan *plan);

#endif
