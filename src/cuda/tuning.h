/*
 * tuning.h - the CUDA backend's measured numbers (tuning.c holds each with
 * the command, machine and date that measured it): what its engines answer
 * the policy with, and the shapes the FFT engine runs at. The engines and
 * kernels hold none of their own.
 */
#ifndef GF_CUDA_TUNING_H
#define GF_CUDA_TUNING_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" { /* gfir-bench is C++ */
#endif

/* Below this many samples per call (frames x channels) a GPU round trip
 * costs more than it saves: live runs on the H100 machine (2026-11-23)
 * had 64-frame stereo periods run better on the CPU. */
#define GF_CUDA_MIN_CALL_SAMPLES 8192

/* The delay-line engine serves plans whose calls are at most this many
 * frames; larger calls amortise the whole-signal FFT engine's per-call cost
 * (fdl.h). */
#define GF_CUDA_FDL_MAX_BLOCK 2048

/*
 * What starting CUDA costs the first plan of a process: the driver's
 * initialisation and the device's context (startup.c starts them, ahead of
 * the plan where the caller asks). The end-to-end file benchmark on the H100
 * machine (tools/bench/gpu_files.sh, 2026-11-23) saw 0.3 to 0.4 s of it in
 * every GPU run: a 10-minute stereo file with one tap took 0.60-0.67 s on
 * the GPU against 0.24-0.25 s on the CPU. In seconds.
 */
#define GF_CUDA_STARTUP_S 0.35

/* From how many taps the FFT kernel beats the direct one on this device: the
 * crossover `gfir-bench --calibrate` stored for its name, else the default. */
size_t gf_cuda_fft_min_taps(int device);

/* The FFT size the FFT engine (kernels/fft/fft.h) uses for a whole
 * (unpartitioned) filter of ntaps taps and blocks of up to max_n frames (a
 * power of two above ntaps - 1), and the partition size it uses instead, or
 * 0 where it keeps the filter whole. */
size_t gf_fft_size(size_t ntaps, size_t max_n);
size_t gf_fft_part(size_t ntaps, size_t max_n);

#ifdef __cplusplus
}
#endif

#endif
