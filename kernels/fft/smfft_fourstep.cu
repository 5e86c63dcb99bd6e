/*
 * smfft_fourstep.cu - smfft's four-step shape, for N = N1 * N2 above what
 * one block's shared memory holds (up to GF_SMFFT_MAX points).
 *
 * Point n = n1 + N1 n2 of a segment pair; the transform is
 *   X[k2 + N2 k1] = sum_n1 W_N1^(n1 k1) W_N^(n1 k2) sum_n2 W_N2^(n2 k2) x[n1 + N1 n2]
 * so: (A) N2-point transforms down the columns (fixed n1), read straight
 * from the input, written to row p of the pair's N2 x N1 work matrix, p
 * the position holding k2; (B) per row, the twiddle W_N^(n1 k2), an N1-point
 * transform, the product with the filter's spectrum (made by the same A and
 * B), the inverse N1-point transform and the conjugate twiddle, in place;
 * (C) inverse N2-point transforms down the columns, restoring natural order,
 * whose valid samples go straight to the output. Three passes over the work
 * matrix, against five around cuFFT (passes.h), and the input and output
 * are touched once. Every block holds 2^FOURSTEP_LOG_POINTS points:
 * 2^(FOURSTEP_LOG_POINTS - log N2) columns (interleaved, so neighbouring
 * threads read neighbouring samples) or 2^(FOURSTEP_LOG_POINTS - log N1)
 * rows, 16 points a thread.
 *
 * 8192 points and two blocks per SM (64 registers a thread at most): on an
 * H100 (gfir-bench --fft-sizes, 2 x 2^24 samples, 16383 to 262143 taps,
 * commit f5f832d, 2026-11-23) 13-18% faster than leaving ptxas free (up to
 * 71 registers, one block of fourstep_rows per SM); three per SM spilled and
 * were no faster than one. Builds with -DGF_FOURSTEP_LOG_POINTS=L and
 * -DGF_FOURSTEP_BLOCKS=B let gfir-bench time others.
 *
 * The work matrices of all the pairs pass through device memory between
 * passes (more than L2 holds: 2 MB a pair and channel at 2^18 points).
 * Taking the pairs in chunks that L2 holds, each through the three passes
 * before the next (-DGF_FOURSTEP_CHUNK_MB=M), was slower at every size
 * tried: with chunks of 12, 24 and 40 MB, 16383 taps took 0.74-0.90 ms
 * against 0.63 all at once, 65535 taps 0.93-1.12 against 0.78, 262143 taps
 * 1.00-1.01 against 0.90 (gfir-bench --kernels fft, 2 x 2^24 samples, H100,
 * 2026-11-24). The passes wait on shared memory, not on device memory, and
 * every chunk adds the tails of its kernels' waves.
 */
#include "fft/smfft_kernels.cuh"

#ifndef GF_FOURSTEP_LOG_POINTS
#define GF_FOURSTEP_LOG_POINTS 13
#endif
#ifndef GF_FOURSTEP_BLOCKS
#define GF_FOURSTEP_BLOCKS 2
#endif
#ifndef GF_FOURSTEP_PRODUCTS
#define GF_FOURSTEP_PRODUCTS 0
#endif
#ifndef GF_FOURSTEP_CHUNK_MB
#define GF_FOURSTEP_CHUNK_MB 0
#endif
/* The loops over a block's points outside the transforms (smfft_kernels.cuh)
 * fully unrolled, 16 loads of a thread in flight: on the H100 (gfir-bench
 * --kernels fft, 2 x 2^24 samples, 2026-11-24) 16383 taps took 0.582 ms
 * against 0.657 not unrolled, 65535 taps 0.695 against 0.811, 262143 taps
 * 0.815 against 0.927; by 8, 0.595, 0.713 and 0.816. */
#ifndef GF_FOURSTEP_UNROLL
#define GF_FOURSTEP_UNROLL 16
#endif
#define FOURSTEP_UNROLL GF_FOURSTEP_UNROLL
#define FOURSTEP_LOG_POINTS GF_FOURSTEP_LOG_POINTS
#define FOURSTEP_BLOCKS_PER_SM GF_FOURSTEP_BLOCKS
#define FOURSTEP_THREADS (1u << (FOURSTEP_LOG_POINTS - 4))
static_assert((1u << FOURSTEP_LOG_POINTS) <= SMFFT_POINTS_PER_THREAD * FOURSTEP_THREADS,
              "SMFFT_FOR_POINTS covers at most 16 points a thread");
/* N2 at most 2^10: with the default 2^13 points a block, a column step's
 * block then spans at least 8 neighbouring columns (32-byte runs of input).
 * Up to that the split is balanced: rows of 2^8 under taller columns (fewer
 * passes in the row step, which runs two transforms) measured 7% slower at
 * 2^18 (commit 81635dd). */
#define FOURSTEP_LOG_N2_MAX 10
/* fourstep_rows' table of each row's k2 has 2^(FOURSTEP_LOG_POINTS - 7)
 * entries: rows of N1 >= 2^7 points. */
#define FOURSTEP_K2S (1u << (FOURSTEP_LOG_POINTS - 7))

typedef struct fourstep_shape {
    unsigned log_n, log_n1, log_n2, log_t; /* N, N1, N2, the passes' twiddle table */
    unsigned log_h; /* W_N^m = lo[m mod 2^log_h] hi[m >> log_h]: tables after the passes' */
} fourstep_shape;

static fourstep_shape fourstep_shape_of(unsigned log_n)
{
    fourstep_shape sh;
    sh.log_n = log_n;
    sh.log_n2 = log_n / 2 < FOURSTEP_LOG_N2_MAX ? log_n / 2 : FOURSTEP_LOG_N2_MAX;
    sh.log_n1 = log_n - sh.log_n2;
    sh.log_t = sh.log_n1 > sh.log_n2 ? sh.log_n1 : sh.log_n2;
    sh.log_h = log_n / 2;
    return sh;
}

/* (A) Block (column group, pair, channel): columns n1_0 .. of segments 2 pair
 * and 2 pair + 1 of channel c (row c of x, x_stride apart, avail samples
 * after lead zeros), times scale, forward down the columns, into rows p of
 * the work matrix. */
__global__ void __launch_bounds__(FOURSTEP_THREADS, FOURSTEP_BLOCKS_PER_SM)
    fourstep_cols_fwd(const float *x, size_t x_stride, size_t avail, size_t lead, size_t hop,
                      size_t rows, size_t pair0, float scale, float2 *work, fourstep_shape sh,
                      const float2 *__restrict__ tw)
{
    extern __shared__ float2 buf[];
    const unsigned log_b = FOURSTEP_LOG_POINTS - sh.log_n2, n1_0 = blockIdx.x << log_b;
    const unsigned pair = blockIdx.y, c = blockIdx.z, total = 1u << FOURSTEP_LOG_POINTS;
    const size_t s0 = 2 * (pair0 + pair), s1 = s0 + 1;
    const int second = s1 < rows;
    const float *xc = x + c * x_stride;
    const size_t g0 = s0 * hop, g1 = s1 * hop;
    SMFFT_FOR_POINTS(i, total, FOURSTEP_THREADS, FOURSTEP_UNROLL) {
        const size_t idx =
            n1_0 + (i & ((1u << log_b) - 1)) + ((size_t)(i >> log_b) << sh.log_n1);
        /* below lead the index wraps past avail: a zero, as after the input */
        const size_t k0 = g0 + idx - lead, k1 = g1 + idx - lead;
        const float re = k0 < avail ? xc[k0] * scale : 0.0f;
        const float im = second && k1 < avail ? xc[k1] * scale : 0.0f;
        buf[at(i)] = make_float2(re, im);
    }
    __syncthreads();
    transform<true, GF_FOURSTEP_PRODUCTS>(buf, sh.log_n2, log_b, sh.log_t, false, tw);
    float2 *w = work + ((size_t)(c * gridDim.y + pair) << sh.log_n) + n1_0;
    SMFFT_FOR_POINTS(i, total, FOURSTEP_THREADS, FOURSTEP_UNROLL)
        w[((size_t)(i >> log_b) << sh.log_n1) + (i & ((1u << log_b) - 1))] = buf[at(i)];
}

/* W_N^(n1 k2), or its conjugate, from two small tables (tw + T: W_N^m for
 * m < 2^log_h, then W_N^(a 2^log_h)): a product instead of a sincos. */
static __device__ __forceinline__ float2 fourstep_twiddle(unsigned n1, unsigned k2,
                                                          fourstep_shape sh,
                                                          const float2 *__restrict__ tw,
                                                          bool conj)
{
    const unsigned m = (n1 * k2) & ((1u << sh.log_n) - 1);
    const float2 *lo = tw + (1u << sh.log_t), *hi = lo + (1u << sh.log_h);
    const float2 w = cmul(__ldg(lo + (m & ((1u << sh.log_h) - 1))), __ldg(hi + (m >> sh.log_h)));
    return conj ? make_float2(w.x, -w.y) : w;
}

/* (B) Block (row group, pair, channel): rows p_0 .. of the work matrix. With
 * spec NULL, only the forward half, stored (the filter's spectrum). */
__global__ void __launch_bounds__(FOURSTEP_THREADS, FOURSTEP_BLOCKS_PER_SM)
    fourstep_rows(float2 *work, const float2 *__restrict__ spec, int shared, fourstep_shape sh,
                  const float2 *__restrict__ tw)
{
    extern __shared__ float2 buf[];
    __shared__ unsigned k2s[FOURSTEP_K2S]; /* each row's k2 */
    const unsigned log_b = FOURSTEP_LOG_POINTS - sh.log_n1, p_0 = blockIdx.x << log_b;
    const unsigned c = blockIdx.z, total = 1u << FOURSTEP_LOG_POINTS;
    const unsigned mask = (1u << sh.log_n1) - 1;
    const size_t at_row = ((size_t)(c * gridDim.y + blockIdx.y) << sh.log_n) +
                          ((size_t)p_0 << sh.log_n1);
    float2 *w = work + at_row;
    if (threadIdx.x < (1u << log_b))
        k2s[threadIdx.x] = digit_reversed(p_0 + threadIdx.x, sh.log_n2);
    __syncthreads();
    SMFFT_FOR_POINTS(i, total, FOURSTEP_THREADS, FOURSTEP_UNROLL)
        buf[at(i)] = cmul(w[i], fourstep_twiddle(i & mask, k2s[i >> sh.log_n1], sh, tw, false));
    __syncthreads();
    transform<false, GF_FOURSTEP_PRODUCTS>(buf, sh.log_n1, log_b, sh.log_t, false, tw);
    if (!spec) {
        SMFFT_FOR_POINTS(i, total, FOURSTEP_THREADS, FOURSTEP_UNROLL)
            w[i] = buf[at(i)];
        return;
    }
    const float2 *h = spec + ((size_t)(shared ? 0 : c) << sh.log_n) + ((size_t)p_0 << sh.log_n1);
    SMFFT_FOR_POINTS(i, total, FOURSTEP_THREADS, FOURSTEP_UNROLL)
        buf[at(i)] = cmul(buf[at(i)], __ldg(h + i));
    __syncthreads();
    transform<false, GF_FOURSTEP_PRODUCTS>(buf, sh.log_n1, log_b, sh.log_t, true, tw);
    SMFFT_FOR_POINTS(i, total, FOURSTEP_THREADS, FOURSTEP_UNROLL)
        w[i] = cmul(buf[at(i)], fourstep_twiddle(i & mask, k2s[i >> sh.log_n1], sh, tw, true));
}

/* (C) As (A), backwards: the inverse down the columns, then the samples past
 * the wrapped ones (point col on) to the output. */
__global__ void __launch_bounds__(FOURSTEP_THREADS, FOURSTEP_BLOCKS_PER_SM)
    fourstep_cols_inv(gf_smfft_args a, size_t pair0, fourstep_shape sh)
{
    extern __shared__ float2 buf[];
    const unsigned log_b = FOURSTEP_LOG_POINTS - sh.log_n2, n1_0 = blockIdx.x << log_b;
    const unsigned pair = blockIdx.y, c = blockIdx.z, total = 1u << FOURSTEP_LOG_POINTS;
    const float2 *w = a.d_work + ((size_t)(c * gridDim.y + pair) << sh.log_n) + n1_0;
    SMFFT_FOR_POINTS(i, total, FOURSTEP_THREADS, FOURSTEP_UNROLL)
        buf[at(i)] = w[((size_t)(i >> log_b) << sh.log_n1) + (i & ((1u << log_b) - 1))];
    __syncthreads();
    transform<true, GF_FOURSTEP_PRODUCTS>(buf, sh.log_n2, log_b, sh.log_t, true, a.d_tw);
    const size_t s0 = 2 * (pair0 + pair), s1 = s0 + 1;
    const int second = s1 < a.rows;
    const size_t g0 = s0 * a.hop, g1 = s1 * a.hop;
    float *out = a.d_out + c * a.channel_stride;
    SMFFT_FOR_POINTS(i, total, FOURSTEP_THREADS, FOURSTEP_UNROLL) {
        const size_t idx =
            n1_0 + (i & ((1u << log_b) - 1)) + ((size_t)(i >> log_b) << sh.log_n1);
        if (idx < a.col)
            continue;
        const size_t o = idx - a.col;
        const float2 v = buf[at(i)];
        if (g0 + o < a.n)
            out[(g0 + o) * a.frame_stride] = v.x;
        if (second && g1 + o < a.n)
            out[(g1 + o) * a.frame_stride] = v.y;
    }
}

/* The grids: (column or row groups, pairs, channels); either way
 * N / 2^FOURSTEP_LOG_POINTS groups, a block's points each. */
static dim3 fourstep_grid(fourstep_shape sh, size_t pairs, unsigned channels)
{
    return dim3(1u << (sh.log_n - FOURSTEP_LOG_POINTS), (unsigned)pairs, channels);
}

/* The passes' W_T^k, T the larger of N1 and N2; then W_N^m's two factors. */
static void fourstep_tables(unsigned log_n, size_t *t_n, size_t *lo_n)
{
    const fourstep_shape sh = fourstep_shape_of(log_n);
    *t_n = (size_t)1 << sh.log_t;
    *lo_n = (size_t)1 << sh.log_h;
}

static size_t fourstep_smem(unsigned log_n)
{
    (void)log_n; /* every block holds the same number of points */
    return smfft_smem_bytes((size_t)1 << FOURSTEP_LOG_POINTS);
}

static cudaError_t fourstep_allow_smem(size_t bytes)
{
    const void *const kernels[] = {(const void *)fourstep_cols_fwd, (const void *)fourstep_rows,
                                   (const void *)fourstep_cols_inv};
    return gf_smfft_raise_smem(kernels, sizeof kernels / sizeof kernels[0], bytes);
}

/* Each tap set a pair of its own, its second segment empty: steps A and B. */
static cudaError_t fourstep_spectrum(const float *d_taps, size_t ntaps, unsigned filters,
                                     unsigned log_n, const float2 *d_tw, float2 *d_spec,
                                     cudaStream_t stream)
{
    const fourstep_shape sh = fourstep_shape_of(log_n);
    const size_t smem = fourstep_smem(log_n);
    const float scale = 1.0f / (float)((size_t)1 << log_n);
    fourstep_cols_fwd<<<fourstep_grid(sh, 1, filters), FOURSTEP_THREADS, smem, stream>>>(
        d_taps, ntaps, ntaps, 0, 0, 1, 0, scale, d_spec, sh, d_tw);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess)
        return e;
    fourstep_rows<<<fourstep_grid(sh, 1, filters), FOURSTEP_THREADS, smem, stream>>>(
        d_spec, NULL, 0, sh, d_tw);
    return cudaGetLastError();
}

/* The three passes over every pair at once; built with
 * -DGF_FOURSTEP_CHUNK_MB=M, over chunks of pairs whose work matrices fit M
 * MB, each chunk through the three passes in the work area's first rows
 * (see the top of this file). */
static cudaError_t fourstep_run(const gf_smfft_args *a, cudaStream_t stream)
{
    const fourstep_shape sh = fourstep_shape_of(a->log_n);
    const size_t smem = fourstep_smem(a->log_n), pairs = (a->rows + 1) / 2;
    const size_t per_pair = ((size_t)a->channels << sh.log_n) * sizeof(float2);
    size_t chunk = GF_FOURSTEP_CHUNK_MB ? ((size_t)GF_FOURSTEP_CHUNK_MB << 20) / per_pair : pairs;
    chunk = chunk < 1 ? 1 : chunk < pairs ? chunk : pairs;
    for (size_t p0 = 0; p0 < pairs; p0 += chunk) {
        const size_t m = pairs - p0 < chunk ? pairs - p0 : chunk;
        const dim3 grid = fourstep_grid(sh, m, a->channels);
        fourstep_cols_fwd<<<grid, FOURSTEP_THREADS, smem, stream>>>(
            a->d_x, a->x_stride, a->avail, a->lead, a->hop, a->rows, p0, 1.0f, a->d_work, sh,
            a->d_tw);
        fourstep_rows<<<grid, FOURSTEP_THREADS, smem, stream>>>(a->d_work, a->d_spec, a->shared,
                                                                sh, a->d_tw);
        fourstep_cols_inv<<<grid, FOURSTEP_THREADS, smem, stream>>>(*a, p0, sh);
    }
    return cudaGetLastError();
}

const gf_smfft_shape gf_smfft_fourstep = {
    fourstep_tables, fourstep_smem,    FOURSTEP_K2S * sizeof(unsigned),
    fourstep_allow_smem, fourstep_spectrum, fourstep_run,
};
