/*
 * facts.h - what the policy (core/policy.c) needs to know about the CUDA
 * backend to choose for AUTO: measured, not decided, here.
 */
#ifndef GF_CUDA_FACTS_H
#define GF_CUDA_FACTS_H

#include <stddef.h>

/* From how many taps the FFT kernel beats the direct one on this device: the
 * crossover `gfir-bench --calibrate` stored for its name, else the default. */
size_t gf_cuda_fft_min_taps(int device);

/* Seconds the first plan on this device would spend starting CUDA (the
 * context, the module loads), or 0 once a plan has been made on it here. */
double gf_cuda_startup_s(int device);
/* Called when a plan has been made on the device. */
void gf_cuda_mark_started(int device);

#endif
