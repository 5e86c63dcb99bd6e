/*
 * constant.cu - PMPP 7.3: taps in __constant__ memory, where a warp reading
 * the same tap is served by one broadcast from the constant cache.
 */
#include "textbook.cuh"

__constant__ float c_taps[GF_CONSTANT_MAX_TAPS];

__global__ void constant_kernel(gf_conv_args a)
{
    const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    const unsigned c = blockIdx.y;
    if (i >= a.n)
        return;
    const float *x = a.d_x + c * a.x_stride;
    const float *h = c_taps + (a.shared_taps ? 0 : c * a.ntaps);
    float acc = 0.0f;
    for (size_t m = 0; m < a.ntaps; m++)
        acc += h[m] * x[i + m];
    a.d_y[c * a.y_stride + i] = acc;
}

extern "C" int gf_constant_fits(size_t ntaps, unsigned filters)
{
    return ntaps <= GF_CONSTANT_MAX_TAPS / (filters ? filters : 1);
}

extern "C" cudaError_t gf_launch_constant(const gf_conv_args *a, cudaStream_t stream)
{
    cudaError_t e = gf_check_args(a);
    if (e != cudaSuccess || a->n == 0)
        return e;
    const unsigned filters = a->shared_taps ? 1 : a->channels;
    if (!gf_constant_fits(a->ntaps, filters))
        return cudaErrorInvalidValue;
    /* The bank is one per module: load this plan's taps, packed, on its stream. */
    for (unsigned f = 0; f < filters; f++) {
        e = cudaMemcpyToSymbolAsync(c_taps, a->d_taps + f * a->taps_stride,
                                    a->ntaps * sizeof(float), f * a->ntaps * sizeof(float),
                                    cudaMemcpyDeviceToDevice, stream);
        if (e != cudaSuccess)
            return e;
    }
    const unsigned threads = gf_threads(a);
    dim3 grid((unsigned)((a->n + threads - 1) / threads), a->channels);
    constant_kernel<<<grid, threads, 0, stream>>>(*a);
    return cudaGetLastError();
}
