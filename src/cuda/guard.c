/*
 * guard.c - the calling thread's CUDA device saved, set and given back
 * (guard.h).
 */
#include "cuda/guard.h"
#include "cuda_status.h"

cudaError_t gf_cuda_enter(int device, int *theirs)
{
    cudaError_t e;
    if (cudaGetDevice(theirs) != cudaSuccess) {
        cudaGetLastError();
        *theirs = -1;
    }
    e = cudaSetDevice(device);
    if (e != cudaSuccess)
        cudaGetLastError();
    return e;
}

void gf_cuda_leave(int theirs)
{
    if (theirs >= 0 && cudaSetDevice(theirs) != cudaSuccess)
        cudaGetLastError();
}

gfir_status gf_cuda_enter_plan(const gfir_plan *plan, int *theirs, char *why, size_t why_len)
{
    const cudaError_t e = gf_cuda_enter(plan->device, theirs);
    return e == cudaSuccess ? GFIR_OK : gf_cuda_fail(e, "cudaSetDevice", why, why_len);
}
