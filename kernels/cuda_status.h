/*
 * cuda_status.h - the one way the library's CUDA host code reports a
 * failure: a gfir_status and a sentence, as gf_fail() does for a plan.
 *
 * Host objects (the FFT filter and engine in kernels/fft/, the backend in
 * src/cuda/) return GFIR_OK or a negative gfir_status and write a sentence
 * naming what failed into the caller's buffer: why, why_len bytes, may be
 * NULL (the backend passes plan->detail). Launchers return the cudaError_t
 * of their launch instead, as cuda-samples' do (kernels.h); the host object
 * that called one turns its error into a status here. cuFFT's results get
 * the same treatment in fft/cufft_loader.h.
 */
#ifndef GF_CUDA_STATUS_H
#define GF_CUDA_STATUS_H

#include "gfir.h"

#include <cuda_runtime_api.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Writes the sentence into why and returns status: the library's one way
 * to record why (src/core/why.c, where it is defined). */
gfir_status gf_detail(char *why, size_t why_len, gfir_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/*
 * cudaMalloc, as the library's every device allocation makes it: a failure
 * is remembered on the calling thread with the bytes asked for, so that
 * gf_cuda_fail() can name them.
 */
cudaError_t gf_cuda_malloc(void **p, size_t bytes);

/*
 * A failed CUDA call, e its error and call what it was: GFIR_ERR_NOMEM when
 * memory could not be had (cudaErrorMemoryAllocation), else GFIR_ERR_DEVICE,
 * with the sentence "call: CUDA's description of e"; for memory, also what
 * the failed gf_cuda_malloc() asked for and what the current device has
 * free ("... 5.10 GB of GPU memory asked on device 0, 3.20 GB free of
 * 79.1 GB"). Also clears CUDA's
 * last error: a failed call leaves its error to be read once, and the next
 * launcher's cudaGetLastError() would report it against an innocent kernel.
 */
gfir_status gf_cuda_fail(cudaError_t e, const char *call, char *why, size_t why_len);

/* Returns gf_cuda_fail's status from the enclosing function when call fails;
 * the sentence names the call as written. */
#define GF_CUDA_TRY(call, why, why_len)                                                    \
    do {                                                                                   \
        const cudaError_t e_ = (call);                                                     \
        if (e_ != cudaSuccess)                                                             \
            return gf_cuda_fail(e_, #call, (why), (why_len));                              \
    } while (0)

#ifdef __cplusplus
}
#endif

#endif
