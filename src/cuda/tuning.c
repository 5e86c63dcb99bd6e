/*
 * tuning.c - the CUDA backend's measured figures (tuning.h): the direct/FFT
 * crossover, the device's start-up cost, and which devices have started.
 */
#include "cuda/tuning.h"
#include "core/cache.h"

#include <cuda_runtime_api.h>
#include <stdatomic.h>

/*
 * AUTO's crossover from direct to FFT on the GPU, in taps. Measured on an H100
 * with 2 x 2^24 samples on the device (`gfir-bench --calibrate`, 2026-11-23,
 * commit a462bbc): the direct kernel's time grows with the taps (0.24 ms at
 * 127, 0.33 at 191, 0.41 at 255) while the one-pass smfft
 * (kernels/fft/smfft_onepass.cu) stays near 0.31-0.33 ms, so they cross
 * between 127 and 191 taps. This is the
 * default: `gfir-bench --calibrate` measures the crossover of the device it
 * runs on and keeps it in the user's cache directory
 * (GF_CUDA_CROSSOVER_FILE, a line per device name), which AUTO prefers.
 */
#define AUTO_FFT_MIN_TAPS 191

/*
 * What starting CUDA costs the first plan of a process: creating the device's
 * context and loading the library's kernels. The end-to-end file benchmark on
 * the H100 machine (tools/bench/gpu_files.sh, 2026-11-23) saw 0.3 to 0.4 s of
 * it in every GPU run: a 10-minute stereo file with one tap took 0.60-0.67 s on
 * the GPU against 0.24-0.25 s on the CPU.
 */
#define STARTUP_S 0.35

/* Devices with a plan made on them in this process; beyond the array, every
 * device counts as not started, which only errs towards the CPU. */
#define TRACKED_DEVICES 64
static atomic_int started[TRACKED_DEVICES];

size_t gf_cuda_fft_min_taps(int device)
{
    struct cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, device) != cudaSuccess) {
        cudaGetLastError(); /* leave no sticky error for the next launch */
        return AUTO_FFT_MIN_TAPS;
    }
    prop.name[sizeof prop.name - 1] = '\0';
    const size_t calibrated = gf_cache_lookup(GF_CUDA_CROSSOVER_FILE, prop.name);
    return calibrated ? calibrated : AUTO_FFT_MIN_TAPS;
}

double gf_cuda_startup_s(int device)
{
    if (device >= 0 && device < TRACKED_DEVICES && atomic_load(&started[device]))
        return 0.0;
    return STARTUP_S;
}

void gf_cuda_mark_started(int device)
{
    if (device >= 0 && device < TRACKED_DEVICES)
        atomic_store(&started[device], 1);
}
