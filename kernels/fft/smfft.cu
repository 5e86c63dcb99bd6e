/*
 * smfft.cu - smfft's host side: which shape takes a size, the twiddle
 * tables, the filter spectra, the shared-memory opt-in, and the launch.
 */
#include "cuda_status.h"
#include "fft/smfft_kernels.cuh"
#include "kernels.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>

/* The dynamic shared memory every block gets without opting in. */
#define DEFAULT_SMEM_BYTES (48 * 1024)

static unsigned log2_of(size_t n)
{
    unsigned l = 0;
    while (((size_t)1 << l) < n)
        l++;
    return l;
}

extern "C" int gf_smfft_fits(size_t n_fft)
{
    return n_fft >= 2 && n_fft <= GF_SMFFT_MAX && !(n_fft & (n_fft - 1));
}

static const gf_smfft_shape *shape_of(size_t n_fft)
{
    return n_fft <= GF_SMFFT_ONEPASS_MAX ? &gf_smfft_onepass : &gf_smfft_fourstep;
}

extern "C" size_t gf_smfft_work(size_t n_fft, size_t rows, unsigned channels)
{
    return gf_smfft_fits(n_fft) && shape_of(n_fft) == &gf_smfft_fourstep
               ? (rows + 1) / 2 * channels * n_fft * sizeof(float2)
               : 0;
}

/*
 * The limit is an attribute of each kernel on each device (cudaFuncSetAttribute
 * sets it on the current device's copy), so there is nothing of ours to keep
 * per device: ask the device and raise. Never lower it: the attribute is per
 * kernel, not per filter, and a smaller value set for a later filter would
 * break an earlier one's launches. The lock keeps two threads from reading
 * the same old limit and the one asking for less from setting it last.
 */
static pthread_mutex_t smem_lock = PTHREAD_MUTEX_INITIALIZER;

cudaError_t gf_smfft_raise_smem(const void *const *kernels, size_t count, size_t bytes)
{
    cudaError_t e = cudaSuccess;
    pthread_mutex_lock(&smem_lock);
    for (size_t k = 0; k < count && e == cudaSuccess; k++) {
        cudaFuncAttributes attr;
        e = cudaFuncGetAttributes(&attr, kernels[k]);
        if (e == cudaSuccess && (size_t)attr.maxDynamicSharedSizeBytes < bytes)
            e = cudaFuncSetAttribute(kernels[k], cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     (int)bytes);
    }
    pthread_mutex_unlock(&smem_lock);
    return e;
}

/* The shape's shared memory on the current device: cudaErrorNotSupported
 * when the device cannot give it, else opted in where above the default. */
static cudaError_t claim_smem(const gf_smfft_shape *shape, unsigned log_n)
{
    const size_t dynamic = shape->smem(log_n), total = dynamic + shape->static_smem;
    int device, optin = 0;
    cudaError_t e = cudaGetDevice(&device);
    if (e == cudaSuccess)
        e = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
    if (e != cudaSuccess)
        return e;
    if ((size_t)optin < total)
        return cudaErrorNotSupported;
    return total > DEFAULT_SMEM_BYTES ? shape->allow_smem(dynamic) : cudaSuccess;
}

/* The shape's twiddle tables for n_fft points (smfft_kernels.cuh), in host
 * memory for the caller to free, and their length; NULL when out of memory. */
static float2 *make_twiddles(const gf_smfft_shape *shape, size_t n_fft, size_t *count)
{
    size_t t_n, lo_n;
    shape->tables(log2_of(n_fft), &t_n, &lo_n);
    const size_t hi_n = lo_n ? n_fft / lo_n : 0, tw_n = t_n + lo_n + hi_n;
    float2 *tw = (float2 *)malloc(tw_n * sizeof *tw);
    if (!tw)
        return NULL;
    for (size_t k = 0; k < tw_n; k++) {
        const double ph = k < t_n ? -2.0 * M_PI * (double)k / (double)t_n
                          : k < t_n + lo_n
                              ? -2.0 * M_PI * (double)(k - t_n) / (double)n_fft
                              : -2.0 * M_PI * (double)((k - t_n - lo_n) * lo_n) / (double)n_fft;
        tw[k] = make_float2((float)cos(ph), (float)sin(ph));
    }
    *count = tw_n;
    return tw;
}

extern "C" cudaError_t gf_smfft_spectrum(const float *d_taps, size_t ntaps, unsigned filters,
                                         size_t n_fft, cudaStream_t stream, float2 **d_tw,
                                         float2 **d_spec)
{
    *d_tw = *d_spec = NULL;
    if (!gf_smfft_fits(n_fft) || ntaps > n_fft || filters == 0 || filters > GF_GRID_Y_MAX)
        return cudaErrorInvalidValue;
    const gf_smfft_shape *shape = shape_of(n_fft);
    const unsigned log_n = log2_of(n_fft);
    cudaError_t e = claim_smem(shape, log_n);
    if (e != cudaSuccess)
        return e;
    size_t tw_n = 0;
    float2 *tw = make_twiddles(shape, n_fft, &tw_n);
    if (!tw)
        return cudaErrorMemoryAllocation;
    e = gf_cuda_malloc((void **)d_tw, tw_n * sizeof(float2));
    if (e == cudaSuccess)
        e = cudaMemcpyAsync(*d_tw, tw, tw_n * sizeof(float2), cudaMemcpyHostToDevice, stream);
    if (e == cudaSuccess)
        e = gf_cuda_malloc((void **)d_spec, filters * n_fft * sizeof(float2));
    if (e == cudaSuccess)
        e = shape->spectrum(d_taps, ntaps, filters, log_n, *d_tw, *d_spec, stream);
    /* tw feeds the upload, and the caller gets finished spectra */
    const cudaError_t waited = cudaStreamSynchronize(stream);
    free(tw);
    if (e == cudaSuccess)
        e = waited;
    if (e != cudaSuccess) {
        cudaFree(*d_tw);
        cudaFree(*d_spec);
        *d_tw = *d_spec = NULL;
    }
    return e;
}

extern "C" cudaError_t gf_smfft_spectrum_into(const float *d_taps, size_t ntaps,
                                              unsigned filters, size_t n_fft,
                                              const float2 *d_tw, float2 *d_spec,
                                              cudaStream_t stream)
{
    if (!d_taps || !d_tw || !d_spec || !gf_smfft_fits(n_fft) || ntaps > n_fft || filters == 0 ||
        filters > GF_GRID_Y_MAX)
        return cudaErrorInvalidValue;
    return shape_of(n_fft)->spectrum(d_taps, ntaps, filters, log2_of(n_fft), d_tw, d_spec,
                                     stream);
}

extern "C" cudaError_t gf_smfft_run(const gf_smfft_args *a, cudaStream_t stream)
{
    const size_t n_fft = (size_t)1 << a->log_n;
    const size_t pairs = (a->rows + 1) / 2;
    const gf_smfft_shape *shape = shape_of(n_fft);
    if (!gf_smfft_fits(n_fft) || a->channels == 0 || a->channels > GF_GRID_Y_MAX ||
        a->col >= n_fft || a->hop != n_fft - a->col || pairs > GF_GRID_Y_MAX ||
        (shape == &gf_smfft_fourstep && !a->d_work))
        return cudaErrorInvalidValue;
    if (a->rows == 0)
        return cudaSuccess;
    return shape->run(a, stream);
}
