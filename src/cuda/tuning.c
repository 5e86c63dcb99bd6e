/*
 * tuning.c - the CUDA backend's measured figures (tuning.h holds those that
 * are constants): the direct/FFT crossover, with a device's calibration.
 */
#include "cuda/tuning.h"
#include "core/cache.h"

#include <cuda_runtime_api.h>

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
