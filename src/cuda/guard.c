/*
 * guard.c - the calling thread's CUDA device saved, set and given back
 * (guard.h).
 */
#include "cuda/guard.h"
#include "cuda_status.h"

/* Where the thread is on the plan's device already (a live worker's every
 * call), entering and leaving set nothing: each driver call is time on a
 * short period's clock, and its tail. *theirs is then -2. */
#define ALREADY (-2)

cudaError_t gf_cuda_enter(int device, int *theirs)
{
    cudaError_t e;
    if (cudaGetDevice(theirs) != cudaSuccess) {
        cudaGetLastError();
        *theirs = -1;
    } else if (*theirs == device) {
        *theirs = ALREADY;
        return cudaSuccess;
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
