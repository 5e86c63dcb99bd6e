/*
 * cuda_status.cu - CUDA failures as a gfir_status and a sentence.
 */
#include "cuda_status.h"


/* The bytes of this thread's last failed gf_cuda_malloc, until a
 * gf_cuda_fail reports them. */
static thread_local size_t failed_bytes;

extern "C" cudaError_t gf_cuda_malloc(void **p, size_t bytes)
{
    const cudaError_t e = cudaMalloc(p, bytes);
    if (e == cudaErrorMemoryAllocation)
        failed_bytes = bytes;
    return e;
}

static double gb(size_t bytes)
{
    return (double)bytes / 1e9;
}

extern "C" gfir_status gf_cuda_fail(cudaError_t e, const char *call, char *why, size_t why_len)
{
    cudaGetLastError();
    if (e != cudaErrorMemoryAllocation)
        return gf_detail(why, why_len, GFIR_ERR_DEVICE, "%s: %s", call, cudaGetErrorString(e));
    const size_t asked = failed_bytes;
    size_t free_bytes = 0, total = 0;
    int device = -1;
    failed_bytes = 0;
    if (cudaGetDevice(&device) != cudaSuccess || cudaMemGetInfo(&free_bytes, &total) != cudaSuccess) {
        cudaGetLastError();
        return gf_detail(why, why_len, GFIR_ERR_NOMEM, "%s: %s%s%.2f GB of GPU memory asked",
                         call, cudaGetErrorString(e), asked ? ": " : "", asked ? gb(asked) : 0.0);
    }
    if (!asked)
        return gf_detail(why, why_len, GFIR_ERR_NOMEM, "%s: %s on device %d, %.2f GB free of "
                         "%.1f GB", call, cudaGetErrorString(e), device, gb(free_bytes), gb(total));
    return gf_detail(why, why_len, GFIR_ERR_NOMEM, "%s: %s: %.2f GB of GPU memory asked on "
                     "device %d, %.2f GB free of %.1f GB", call, cudaGetErrorString(e), gb(asked),
                     device, gb(free_bytes), gb(total));
}
