/*
 * smfft_onepass.cu - smfft's one-pass shape, up to GF_SMFFT_ONEPASS_MAX
 * points: a thread block transforms, filters and transforms back a segment
 * pair in shared memory, in one kernel. The first pass reads the input into
 * registers and the last writes the output from them (convolve_io in
 * smfft_kernels.cuh); against loading the pair into shared memory first and
 * storing from there after, on the H100 (gfir-bench --kernels fft, 2 x 2^24
 * samples, 2026-11-24): 255 taps 0.231 -> 0.182 ms, 4095 taps 0.400 ->
 * 0.297, 8000 taps 0.534 -> 0.386 (with the wide kernel, below).
 * Prefetching a block's input into L2 a wave of blocks ahead (one bulk
 * cp.async.bulk.prefetch.L2 per block) was slower at every size, 255 taps
 * 0.183 -> 0.229 ms, 4095 taps 0.301 -> 0.321 (same command, same day):
 * the kernel waits on its SM, not on device memory.
 */
#include "fft/smfft_kernels.cuh"

/* 16 points per thread (one radix-16 work item each), at least a warp, at
 * most the 1024 threads a block may have, which the spectrum kernel uses
 * at 2^14 points (the convolution kernel there runs 512, below). The bound
 * holds the kernels to 64 registers a thread: without it ptxas took 66 and
 * 70, so that a block of 512 threads (2^13 points) left no room for a
 * second beside it on the SM, and 1024 threads could not launch at all.
 * The spectrum kernel keeps to that; the convolution kernel below 2^14. */
#define ONEPASS_THREADS_MAX 1024
/* The convolution kernel has no loop over a block's points outside its
 * transforms' passes, which take any number of threads: from
 * 2^GF_ONEPASS_WIDE_LOG points it runs 32 points a thread, at most 512
 * threads and so up to 128 registers (ptxas: 106, no spills; at 64 it
 * spills 356 bytes); below, 16 points a thread at 64 registers, more blocks
 * an SM. On the H100 (gfir-bench --fft-sizes, 2 x 2^24 samples,
 * 2026-11-24), wide from 2^14: 4095 taps 0.297 ms against 0.322, 8000 taps
 * 0.386 against 0.415; wide from 2^13 too, 1023 taps at 8192 points 0.244
 * against 0.228. -DGF_ONEPASS_WIDE_LOG=L builds others. */
#ifndef GF_ONEPASS_WIDE_LOG
#define GF_ONEPASS_WIDE_LOG 14
#endif
#define ONEPASS_WIDE_THREADS 512
/* The spectrum kernel's loops over a block's points (smfft_kernels.cuh),
 * unrolled by 8. When the convolution kernel had such loops, on the H100
 * (gfir-bench --kernels fft, 2 x 2^24 samples, 2026-11-24) that was 1-4%
 * faster than not unrolled from 1023 to 8000 taps (4095: 0.400 against
 * 0.410 ms), the same at 255; by 16 (more spills at 64 registers) 3-7%
 * slower. -DGF_ONEPASS_UNROLL=U builds others. */
#ifndef GF_ONEPASS_UNROLL
#define GF_ONEPASS_UNROLL 8
#endif
#define ONEPASS_UNROLL GF_ONEPASS_UNROLL
static_assert(GF_SMFFT_ONEPASS_MAX <= SMFFT_POINTS_PER_THREAD * ONEPASS_THREADS_MAX,
              "SMFFT_FOR_POINTS covers at most 16 points a thread");

/* Point k of the pair: samples k - lead of the two segments (from their
 * starts at0 and at1 in the row x; zeros outside avail), as one complex
 * point. Below lead the index wraps past avail: a zero, as after the
 * input. */
struct onepass_source {
    const float *x;
    size_t at0, at1, avail;
    __device__ __forceinline__ float2 load(unsigned k) const
    {
        const size_t k0 = at0 + k, k1 = at1 + k;
        return make_float2(k0 < avail ? x[k0] : 0.0f, k1 < avail ? x[k1] : 0.0f);
    }
};

/* Point k of the pair's circular convolution: the outputs from col on. */
struct onepass_sink {
    pair_outputs<unsigned> to; /* counts of at most hop <= 2^14 */
    unsigned col;
    __device__ __forceinline__ void store(unsigned k, float2 v) const { to.put(k - col, v); }
};

/* Block (pair p, channel c): segments 2p and 2p + 1 of channel c, from the
 * input through the filter to the output, in shared memory only between
 * the transforms' passes (smfft_kernels.cuh). */
template <unsigned THREADS>
__global__ void __launch_bounds__(THREADS) onepass_kernel(gf_smfft_args a)
{
    extern __shared__ float2 buf[];
    const unsigned c = blockIdx.y;
    const size_t s0 = 2 * (size_t)blockIdx.x, s1 = s0 + 1;
    const size_t g0 = s0 * a.hop, g1 = s1 * a.hop;
    const onepass_source in = {a.d_x + c * a.x_stride, g0 - a.lead,
                               s1 < a.rows ? g1 - a.lead : a.avail, a.avail};
    const spectrum_product mul = {a.d_spec + ((size_t)(a.shared ? 0 : c) << a.log_n)};
    const onepass_sink sink = {pair_outputs<unsigned>::of(a, c, s0), (unsigned)a.col};
    convolve_io<false, true>(buf, a.log_n, 0, a.log_n, a.d_tw, in, mul, sink);
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

static unsigned threads_for(size_t n, unsigned most)
{
    const size_t t = n / 16;
    return (unsigned)(t < 32 ? 32 : t > most ? most : t);
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
    const void *const kernels[] = {(const void *)onepass_kernel<ONEPASS_THREADS_MAX>,
                                   (const void *)onepass_kernel<ONEPASS_WIDE_THREADS>,
                                   (const void *)onepass_spectrum_kernel};
    return gf_smfft_raise_smem(kernels, sizeof kernels / sizeof kernels[0], bytes);
}

static cudaError_t onepass_spectrum(const float *d_taps, size_t ntaps, unsigned filters,
                                    unsigned log_n, const float2 *d_tw, float2 *d_spec,
                                    cudaStream_t stream)
{
    const size_t n_fft = (size_t)1 << log_n;
    onepass_spectrum_kernel<<<(filters + 1) / 2, threads_for(n_fft, ONEPASS_THREADS_MAX),
                              onepass_smem(log_n), stream>>>(d_taps, ntaps, filters,
                                                             1.0f / (float)n_fft, log_n, d_tw,
                                                             d_spec);
    return cudaGetLastError();
}

static cudaError_t onepass_run(const gf_smfft_args *a, cudaStream_t stream)
{
    const size_t n_fft = (size_t)1 << a->log_n;
    dim3 grid((unsigned)((a->rows + 1) / 2), a->channels);
    const size_t smem = onepass_smem(a->log_n);
    if (a->log_n >= GF_ONEPASS_WIDE_LOG)
        onepass_kernel<ONEPASS_WIDE_THREADS>
            <<<grid, threads_for(n_fft / 2, ONEPASS_WIDE_THREADS), smem, stream>>>(*a);
    else
        onepass_kernel<ONEPASS_THREADS_MAX>
            <<<grid, threads_for(n_fft, ONEPASS_THREADS_MAX), smem, stream>>>(*a);
    return cudaGetLastError();
}

const gf_smfft_shape gf_smfft_onepass = {
    onepass_tables, onepass_smem, 0, onepass_allow_smem, onepass_spectrum, onepass_run,
};
