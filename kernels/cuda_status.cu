/*
 * cuda_status.cu - CUDA failures as a gfir_status and a sentence.
 */
#include "cuda_status.h"


extern "C" gfir_status gf_cuda_fail(cudaError_t e, const char *call, char *why, size_t why_len)
{
    cudaGetLastError();
    return gf_detail(why, why_len,
                     e == cudaErrorMemoryAllocation ? GFIR_ERR_NOMEM : GFIR_ERR_DEVICE, "%s: %s",
                     call, cudaGetErrorString(e));
}
