/*
 * tuning.h - the CUDA backend's measured numbers (tuning.c holds each with
 * the command, machine and date that measured it): what its engines answer
 * the policy with. The engines hold none of their own.
 */
#ifndef GF_CUDA_TUNING_H
#define GF_CUDA_TUNING_H

#include <stddef.h>

/* Below this many samples per call (frames x channels) a GPU round trip
 * costs more than it saves: live runs on the H100 machine (2026-11-23)
 * had 64-frame stereo periods run better on the CPU. */
#define GF_CUDA_MIN_CALL_SAMPLES 8192

/* The delay-line engine serves plans whose calls are at most this many
 * frames; larger calls amortise the whole-signal FFT engine's per-call cost
 * (fdl.h). */
#define GF_CUDA_FDL_MAX_BLOCK 2048

/* From how many taps the FFT kernel beats the direct one on this device: the
 * crossover `gfir-bench --calibrate` stored for its name, else the default. */
size_t gf_cuda_fft_min_taps(int device);

/* Seconds the first plan on this device would spend starting CUDA (the
 * context, the module loads), or 0 once a plan has been made on it here. */
double gf_cuda_startup_s(int device);
/* Called when a plan has been made on the device. */
void gf_cuda_mark_started(int device);

#endif
