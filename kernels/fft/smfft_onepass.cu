/*
 * smfft_onepass.cu - smfft's one-pass shape, up to GF_SMFFT_ONEPASS_MAX
 * points: a thread block transforms, filters and transforms back a segment
 * pair in shared memory, in one kernel.
 */
#include "fft/smfft_kernels.cuh"

/* 16 points per thread (one radix-16 work item each), at least a warp, at
 * most the 1024 threads a block may have, which 2^14 points use. The bound
 * holds the kernels to 64 registers a thread: without it ptxas took 66 and
 * 70, so that a block of 512 threads (2^13 points) left no room for a
 * second beside it on the SM, and 1024 threads could not launch at all. */
#define ONEPASS_THREADS_MAX 1024
/* The loops over a block's points outside the transform (smfft_kernels.cuh),
 * unrolled by 8: on the H100 (gfir-bench --kernels fft, 2 x 2^24 samples,
 * 2026-11-24) 1-4% faster than not unrolled from 1023 to 8000 taps (4095:
 * 0.400 against 0.410 ms), the same at 255; by 16 (more spills at 64
 * registers) 3-7% slower. -DGF_ONEPASS_UNROLL=U builds others. */
#ifndef GF_ONEPASS_UNROLL
#define GF_ONEPASS_UNROLL 8
#endif
#define ONEPASS_UNROLL GF_ONEPASS_UNROLL
static_assert(GF_SMFFT_ONEPASS_MAX <= SMFFT_POINTS_PER_THREAD * ONEPASS_THREADS_MAX,
              "SMFFT_FOR_POINTS covers at most 16 points a thread");

/* Block (pair p, channel c): segments 2p and 2p + 1 of channel c. */
__global__ void __launch_bounds__(ONEPASS_THREADS_MAX) onepass_kernel(gf_smfft_args a)
{
    extern __shared__ float2 buf[];
    const unsigned n = 1u << a.log_n, c = blockIdx.y;
    const size_t s0 = 2 * (size_t)blockIdx.x, s1 = s0 + 1;
    const int second = s1 < a.rows;
    const float *x = a.d_x + c * a.x_stride;
    const size_t g0 = s0 * a.hop, g1 = s1 * a.hop;
    SMFFT_FOR_POINTS(i, n, blockDim.x, ONEPASS_UNROLL) {
        /* below lead the index wraps past avail: a zero, as after the input */
        const size_t k0 = g0 + i - a.lead, k1 = g1 + i - a.lead;
        const float re = k0 < a.avail ? x[k0] : 0.0f;
        const float im = second && k1 < a.avail ? x[k1] : 0.0f;
        buf[at(i)] = make_float2(re, im);
    }
    __syncthreads();
    transform<false, true>(buf, a.log_n, 0, a.log_n, false, a.d_tw);
    const float2 *h = a.d_spec + (size_t)(a.shared ? 0 : c) * n;
    SMFFT_FOR_POINTS(i, n, blockDim.x, ONEPASS_UNROLL)
        buf[at(i)] = cmul(buf[at(i)], __ldg(h + i));
    __syncthreads();
    transform<false, true>(buf, a.log_n, 0, a.log_n, true, a.d_tw);
    float *out = a.d_out + c * a.channel_stride;
    SMFFT_FOR_POINTS(i, a.hop, blockDim.x, ONEPASS_UNROLL) {
        const float2 v = buf[at((unsigned)(a.col + i))];
        if (g0 + i < a.n)
            out[(g0 + i) * a.frame_stride] = v.x;
        if (second && g1 + i < a.n)
            out[(g1 + i) * a.frame_stride] = v.y;
    }
}

/*
 * Tap sets 2f and 2f + 1, scaled and zero-padded to N points, through the
 * forward passes as one complex signal z = a + i b; their spectra are then
 * A[k] = (Z[k] + conj Z[-k]) / 2 and B[k] = (Z[k] - conj Z[-k]) / 2i, each
 * written at Z[k]'s position (the transforms' order). Half the blocks of a
 * transform each: new filters for a batch (gfir_plan_set_taps_device) cost
 * half as much. A last set without a partner has b = 0.
 */
__global__ void __launch_bounds__(ONEPASS_THREADS_MAX)
    onepass_spectrum_kernel(const float *taps, size_t ntaps, unsigned filters, float scale,
                            unsigned log_n, const float2 *tw, float2 *spec)
{
    extern __shared__ float2 buf[];
    const unsigned n = 1u << log_n, fa = 2 * blockIdx.x;
    const int has_b = fa + 1 < filters;
    const float *ta = taps + fa * ntaps, *tb = ta + ntaps;
    SMFFT_FOR_POINTS(i, n, blockDim.x, ONEPASS_UNROLL)
        buf[at(i)] = make_float2(i < ntaps ? ta[i] * scale : 0.0f,
                                 has_b && i < ntaps ? tb[i] * scale : 0.0f);
    __syncthreads();
    transform<false, true>(buf, log_n, 0, log_n, false, tw);
    float2 *sa = spec + fa * (size_t)n, *sb = sa + n;
    SMFFT_FOR_POINTS(p, n, blockDim.x, ONEPASS_UNROLL) {
        const unsigned k = digit_reversed(p, log_n);
        const float2 z = buf[at(p)], zn = buf[at(position_of((n - k) & (n - 1), log_n))];
        sa[p] = make_float2(0.5f * (z.x + zn.x), 0.5f * (z.y - zn.y));
        if (has_b) /* (z - conj zn) / 2i */
            sb[p] = make_float2(0.5f * (z.y + zn.y), 0.5f * (zn.x - z.x));
    }
}

static unsigned threads_for(size_t n)
{
    const size_t t = n / 16;
    return (unsigned)(t < 32 ? 32 : t > ONEPASS_THREADS_MAX ? ONEPASS_THREADS_MAX : t);
}

/* The passes' table only: W_N^k, k < N. */
static void onepass_tables(unsigned log_n, size_t *t_n, size_t *lo_n)
{
    *t_n = (size_t)1 << log_n;
    *lo_n = 0;
}

static size_t onepass_smem(unsigned log_n)
{
    return smfft_smem_bytes((size_t)1 << log_n);
}

static cudaError_t onepass_allow_smem(size_t bytes)
{
    const void *const kernels[] = {(const void *)onepass_kernel,
                                   (const void *)onepass_spectrum_kernel};
    return gf_smfft_raise_smem(kernels, sizeof kernels / sizeof kernels[0], bytes);
}

static cudaError_t onepass_spectrum(const float *d_taps, size_t ntaps, unsigned filters,
                                    unsigned log_n, const float2 *d_tw, float2 *d_spec,
                                    cudaStream_t stream)
{
    const size_t n_fft = (size_t)1 << log_n;
    onepass_spectrum_kernel<<<(filters + 1) / 2, threads_for(n_fft), onepass_smem(log_n),
                              stream>>>(d_taps, ntaps, filters, 1.0f / (float)n_fft, log_n, d_tw,
                                        d_spec);
    return cudaGetLastError();
}

static cudaError_t onepass_run(const gf_smfft_args *a, cudaStream_t stream)
{
    const size_t n_fft = (size_t)1 << a->log_n;
    dim3 grid((unsigned)((a->rows + 1) / 2), a->channels);
    onepass_kernel<<<grid, threads_for(n_fft), onepass_smem(a->log_n), stream>>>(*a);
    return cudaGetLastError();
}

const gf_smfft_shape gf_smfft_onepass = {
    onepass_tables, onepass_smem, 0, onepass_allow_smem, onepass_spectrum, onepass_run,
};
