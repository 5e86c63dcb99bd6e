/*
 * basic.cu - PMPP 7.2: one thread per output, taps in global memory.
 * The baseline every other kernel is measured against.
 */
#include "textbook.cuh"

__global__ void basic_kernel(gf_conv_args a)
{
    const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    const unsigned c = blockIdx.y;
    if (i >= a.n)
        return;
    const float *x = a.d_x + c * a.x_stride;
    const float *h = gf_taps_of(a, c);
    float acc = 0.0f;
    for (size_t m = 0; m < a.ntaps; m++)
        acc += h[m] * x[i + m];
    a.d_y[c * a.y_stride + i] = acc;
}

extern "C" cudaError_t gf_launch_basic(const gf_conv_args *a, cudaStream_t stream)
{
    cudaError_t e = gf_check_args(a);
    if (e != cudaSuccess || a->n == 0)
        return e;
    const unsigned threads = gf_threads(a);
    dim3 grid((unsigned)((a->n + threads - 1) / threads), a->channels);
    basic_kernel<<<grid, threads, 0, stream>>>(*a);
    return cudaGetLastError();
}
