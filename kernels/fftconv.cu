/*
 * fftconv.cu - overlap-save in one pass: a thread block transforms, filters
 * and transforms back a segment pair in shared memory, so the data crosses
 * device memory once each way instead of five times as with cuFFT (fft.cu).
 *
 * Two segments in one complex transform: z = x_s + i x_{s+1}. The taps are
 * real, so the inverse transform of Z H is (x_s * h) + i (x_{s+1} * h): the
 * real part is segment s's circular convolution, the imaginary part segment
 * s + 1's, and no real-to-complex packing pass is needed.
 *
 * The transform: N = 2^m complex points in shared memory, in place, radix 8
 * (a radix-4 or radix-2 pass last when m is not a multiple of 3).
 * Forward passes decimate in frequency and leave the spectrum in digit-
 * reversed order; the filter's spectrum is made by the same forward passes,
 * so it is in the same order and the product needs no reordering; the
 * inverse runs the forward passes backwards (conjugate twiddles first, then
 * the conjugate butterfly), which undoes them exactly and restores natural
 * order. The 1/N of the inverse is folded into the filter's spectrum.
 *
 * A pass over sub-transforms of M points (stride S = M / R): thread work item
 * (b, j), j < S, takes the R points b*M + j + r*S, applies an R-point DFT,
 * multiplies output r by W_M^(j r) and writes them back where they came
 * from. Twiddles come from a table of W_N^k, k < N, made once per size.
 */
#include "kernels.h"

#include <math.h>
#include <stdlib.h>

#define FC_MAX_PASSES 8

/* Shared-memory index of point i: one float2 of padding after every 16, so
 * the late passes' short strides (8 points, 64 bytes: 16-way conflicts
 * unpadded) spread over the banks. */
static __device__ __forceinline__ unsigned at(unsigned i)
{
    return i + (i >> 4);
}
static size_t smem_bytes(size_t n)
{
    return (n + n / 16) * sizeof(float2);
}

/* v *= w, or v *= conj(w) */
static __device__ __forceinline__ float2 cmul(float2 v, float2 w)
{
    return make_float2(v.x * w.x - v.y * w.y, v.x * w.y + v.y * w.x);
}
static __device__ __forceinline__ float2 cmulc(float2 v, float2 w)
{
    return make_float2(v.x * w.x + v.y * w.y, v.y * w.x - v.x * w.y);
}
static __device__ __forceinline__ float2 add(float2 a, float2 b)
{
    return make_float2(a.x + b.x, a.y + b.y);
}
static __device__ __forceinline__ float2 sub(float2 a, float2 b)
{
    return make_float2(a.x - b.x, a.y - b.y);
}
/* times -i (forward) or +i (inverse) */
static __device__ __forceinline__ float2 rot(float2 a, bool inv)
{
    return inv ? make_float2(-a.y, a.x) : make_float2(a.y, -a.x);
}

/* In-register DFTs of 2, 4 and 8 points, natural order in and out,
 * unnormalised; inv: the conjugate transform. */
static __device__ __forceinline__ void dft2(float2 *v)
{
    const float2 a = v[0], b = v[1];
    v[0] = add(a, b);
    v[1] = sub(a, b);
}

static __device__ __forceinline__ void dft4(float2 *v, bool inv)
{
    const float2 t0 = add(v[0], v[2]), t1 = sub(v[0], v[2]);
    const float2 t2 = add(v[1], v[3]), t3 = rot(sub(v[1], v[3]), inv);
    v[0] = add(t0, t2);
    v[2] = sub(t0, t2);
    v[1] = add(t1, t3);
    v[3] = sub(t1, t3);
}

static __device__ __forceinline__ void dft8(float2 *v, bool inv)
{
    float2 e[4] = {v[0], v[2], v[4], v[6]}, o[4] = {v[1], v[3], v[5], v[7]};
    dft4(e, inv);
    dft4(o, inv);
    const float h = 0.70710678118654752f;
    /* o[k] *= W_8^k: W_8 = (h, -h) forward, (h, h) inverse */
    o[1] = cmul(o[1], make_float2(h, inv ? h : -h));
    o[2] = rot(o[2], inv);
    o[3] = cmul(o[3], make_float2(-h, inv ? h : -h));
#pragma unroll
    for (int k = 0; k < 4; k++) {
        v[k] = add(e[k], o[k]);
        v[k + 4] = sub(e[k], o[k]);
    }
}

template <int R> static __device__ __forceinline__ void dft(float2 *v, bool inv)
{
    if (R == 8)
        dft8(v, inv);
    else if (R == 4)
        dft4(v, inv);
    else
        dft2(v);
}

/* One pass over sub-transforms of M = R << log_s points. */
template <int R>
static __device__ void pass(float2 *buf, unsigned log_n, unsigned log_s, bool inv,
                            const float2 *__restrict__ tw)
{
    const unsigned n = 1u << log_n, s = 1u << log_s, items = n / R;
    const unsigned tw_shift = log_n - log_s - (R == 8 ? 3 : R == 4 ? 2 : 1); /* N / M */
    for (unsigned it = threadIdx.x; it < items; it += blockDim.x) {
        const unsigned j = it & (s - 1), base = ((it >> log_s) * R << log_s) + j;
        float2 v[R];
#pragma unroll
        for (int r = 0; r < R; r++)
            v[r] = buf[at(base + r * s)];
        if (inv) {
#pragma unroll
            for (int r = 1; r < R; r++)
                v[r] = cmulc(v[r], __ldg(tw + ((j * r) << tw_shift)));
            dft<R>(v, true);
        } else {
            dft<R>(v, false);
#pragma unroll
            for (int r = 1; r < R; r++)
                v[r] = cmul(v[r], __ldg(tw + ((j * r) << tw_shift)));
        }
#pragma unroll
        for (int r = 0; r < R; r++)
            buf[at(base + r * s)] = v[r];
    }
}

/* The passes' radices, forward order: 8s while they fit, then 4 or 2. */
static __device__ int plan_passes(unsigned log_n, unsigned char *radix_log)
{
    int count = 0;
    for (unsigned left = log_n; left > 0; left -= radix_log[count - 1])
        radix_log[count++] = (unsigned char)(left >= 3 ? 3 : left);
    return count;
}

static __device__ void transform(float2 *buf, unsigned log_n, bool inv,
                                 const float2 *__restrict__ tw)
{
    unsigned char radix_log[FC_MAX_PASSES];
    const int count = plan_passes(log_n, radix_log);
    /* forward pass p works on sub-transforms of 2^(log_n - sum of earlier radices) */
    unsigned log_m[FC_MAX_PASSES];
    unsigned left = log_n;
    for (int p = 0; p < count; p++) {
        log_m[p] = left;
        left -= radix_log[p];
    }
    for (int k = 0; k < count; k++) {
        const int p = inv ? count - 1 - k : k;
        const unsigned log_s = log_m[p] - radix_log[p];
        if (radix_log[p] == 3)
            pass<8>(buf, log_n, log_s, inv, tw);
        else if (radix_log[p] == 2)
            pass<4>(buf, log_n, log_s, inv, tw);
        else
            pass<2>(buf, log_n, log_s, inv, tw);
        __syncthreads();
    }
}

/* Block (pair p, channel c): segments 2p and 2p + 1 of channel c. */
__global__ void fftconv_kernel(gfir_fftconv_args a)
{
    extern __shared__ float2 buf[];
    const unsigned n = 1u << a.log_n, c = blockIdx.y;
    const size_t s0 = 2 * (size_t)blockIdx.x, s1 = s0 + 1;
    const int second = s1 < a.rows;
    const float *x = a.d_x + c * a.x_stride;
    const size_t g0 = s0 * a.hop, g1 = s1 * a.hop;
    for (unsigned i = threadIdx.x; i < n; i += blockDim.x) {
        const float re = g0 + i < a.avail ? x[g0 + i] : 0.0f;
        const float im = second && g1 + i < a.avail ? x[g1 + i] : 0.0f;
        buf[at(i)] = make_float2(re, im);
    }
    __syncthreads();
    transform(buf, a.log_n, false, a.d_tw);
    const float2 *h = a.d_spec + (size_t)(a.shared ? 0 : c) * n;
    for (unsigned i = threadIdx.x; i < n; i += blockDim.x)
        buf[at(i)] = cmul(buf[at(i)], __ldg(h + i));
    __syncthreads();
    transform(buf, a.log_n, true, a.d_tw);
    float *out = a.d_out + c * a.channel_stride;
    for (unsigned i = threadIdx.x; i < a.hop; i += blockDim.x) {
        const float2 v = buf[at((unsigned)(a.col + i))];
        if (g0 + i < a.n)
            out[(g0 + i) * a.frame_stride] = v.x;
        if (second && g1 + i < a.n)
            out[(g1 + i) * a.frame_stride] = v.y;
    }
}

/* Tap set f, scaled and zero-padded to N points, through the forward passes. */
__global__ void fftconv_spectrum_kernel(const float *taps, size_t ntaps, float scale,
                                        unsigned log_n, const float2 *tw, float2 *spec)
{
    extern __shared__ float2 buf[];
    const unsigned n = 1u << log_n;
    const float *t = taps + blockIdx.x * ntaps;
    for (unsigned i = threadIdx.x; i < n; i += blockDim.x)
        buf[at(i)] = make_float2(i < ntaps ? t[i] * scale : 0.0f, 0.0f);
    __syncthreads();
    transform(buf, log_n, false, tw);
    for (unsigned i = threadIdx.x; i < n; i += blockDim.x)
        spec[blockIdx.x * (size_t)n + i] = buf[at(i)];
}

static unsigned log2_of(size_t n)
{
    unsigned l = 0;
    while (((size_t)1 << l) < n)
        l++;
    return l;
}

/* 16 points per thread, at least a warp, at most 1024 threads */
static unsigned threads_for(size_t n)
{
    const size_t t = n / 16;
    return (unsigned)(t < 32 ? 32 : t > 1024 ? 1024 : t);
}

extern "C" int gfir_fftconv_fits(size_t n_fft)
{
    return n_fft >= 2 && n_fft <= GFIR_FFTCONV_MAX && !(n_fft & (n_fft - 1));
}

extern "C" cudaError_t gfir_fftconv_spectrum(const float *d_taps, size_t ntaps, unsigned filters,
                                             size_t n_fft, float2 **d_tw, float2 **d_spec)
{
    *d_tw = *d_spec = NULL;
    if (!gfir_fftconv_fits(n_fft) || ntaps > n_fft || filters == 0)
        return cudaErrorInvalidValue;
    const size_t smem = smem_bytes(n_fft);
    cudaError_t e = cudaFuncSetAttribute(fftconv_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         (int)smem);
    if (e == cudaSuccess)
        e = cudaFuncSetAttribute(fftconv_spectrum_kernel,
                                 cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    float2 *tw = (float2 *)malloc(n_fft * sizeof *tw);
    if (!tw)
        return cudaErrorMemoryAllocation;
    for (size_t k = 0; k < n_fft; k++) {
        const double ph = -2.0 * M_PI * (double)k / (double)n_fft;
        tw[k] = make_float2((float)cos(ph), (float)sin(ph));
    }
    if (e == cudaSuccess)
        e = cudaMalloc((void **)d_tw, n_fft * sizeof(float2));
    if (e == cudaSuccess)
        e = cudaMemcpy(*d_tw, tw, n_fft * sizeof(float2), cudaMemcpyHostToDevice);
    free(tw);
    if (e == cudaSuccess)
        e = cudaMalloc((void **)d_spec, filters * n_fft * sizeof(float2));
    if (e == cudaSuccess) {
        fftconv_spectrum_kernel<<<filters, threads_for(n_fft), smem>>>(
            d_taps, ntaps, 1.0f / (float)n_fft, log2_of(n_fft), *d_tw, *d_spec);
        e = cudaGetLastError();
    }
    if (e == cudaSuccess)
        e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
        cudaFree(*d_tw);
        cudaFree(*d_spec);
        *d_tw = *d_spec = NULL;
    }
    return e;
}

extern "C" cudaError_t gfir_fftconv_run(const gfir_fftconv_args *a, cudaStream_t stream)
{
    const size_t n_fft = (size_t)1 << a->log_n;
    if (!gfir_fftconv_fits(n_fft) || a->channels == 0 || a->channels > 65535 ||
        a->col >= n_fft || a->hop != n_fft - a->col)
        return cudaErrorInvalidValue;
    if (a->rows == 0)
        return cudaSuccess;
    dim3 grid((unsigned)((a->rows + 1) / 2), a->channels);
    fftconv_kernel<<<grid, threads_for(n_fft), smem_bytes(n_fft), stream>>>(*a);
    return cudaGetLastError();
}
