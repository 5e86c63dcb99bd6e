/*
 * smfft_fourstep.cu - smfft's four-step shape, for N = N1 * N2 above what
 * one block's shared memory holds (up to GF_SMFFT_MAX points).
 *
 * Point n = n1 + N1 n2 of a segment pair; the transform is
 *   X[k2 + N2 k1] = sum_n1 W_N1^(n1 k1) W_N^(n1 k2) sum_n2 W_N2^(n2 k2) x[n1 + N1 n2]
 * so: (A) N2-point transforms down the columns (fixed n1), read straight
 * from the input, times the twiddle W_N^(n1 k2), written to row p of the
 * pair's N2 x N1 work matrix, p the position holding k2; (B) per row, an
 * N1-point transform, the product with the filter's spectrum (made by the
 * same A and B), and the inverse N1-point transform, in place; (C) the
 * conjugate twiddle and inverse N2-point transforms down the columns,
 * restoring natural order, whose valid samples go straight to the output.
 * Three passes over the work matrix, against five around cuFFT (passes.h),
 * and the input and output are touched once. Every block holds
 * 2^FOURSTEP_LOG_POINTS points: 2^(FOURSTEP_LOG_POINTS - log N2) columns
 * (interleaved, so neighbouring threads read neighbouring samples) or
 * 2^(FOURSTEP_LOG_POINTS - log N1) rows, 16 points a thread.
 *
 * Each transform's first pass reads device memory into registers and its
 * last writes from registers (smfft_kernels.cuh, transform_io). The
 * twiddles sit in (A) and (C), where they meet the column transform's last
 * pass, of few points a thread (radix 4 at 2^20 points): in (B)'s first
 * pass, 16 points a thread, ptxas spilled 1152 bytes of fourstep_rows at
 * 64 registers, against 464, 468 and 160 of the three kernels so (nvcc 13;
 * not timed). Against loading each block into shared memory and
 * storing it from there, on the H100 (gfir-bench --kernels fft, 2 x 2^24
 * samples, 2026-11-24): 16383 taps 0.580 -> 0.507 ms, 65535 taps 0.661 ->
 * 0.581, 262143 taps 0.809 -> 0.685.
 *
 * 8192 points and two blocks per SM (64 registers a thread at most): on an
 * H100 (gfir-bench --fft-sizes, 2 x 2^24 samples, 16383 to 262143 taps,
 * commit f5f832d, 2026-11-23) 13-18% faster than leaving ptxas free (up to
 * 71 registers, one block of fourstep_rows per SM); three per SM spilled and
 * were no faster than one. With the passes reading and writing device
 * memory themselves (above), it still is, though the 64 registers spill a
 * little: one block an SM with 128 registers took 0.588, 0.716 and 0.826 ms
 * at 16383, 65535 and 262143 taps, blocks of 4096 points 0.536, 0.678 and
 * 0.816, against 0.507, 0.581 and 0.685 (same command and day as above).
 * Builds with -DGF_FOURSTEP_LOG_POINTS=L and -DGF_FOURSTEP_BLOCKS=B let
 * gfir-bench time others.
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
#define FOURSTEP_LOG_POINTS GF_FOURSTEP_LOG_POINTS
#define FOURSTEP_BLOCKS_PER_SM GF_FOURSTEP_BLOCKS
#define FOURSTEP_THREADS (1u << (FOURSTEP_LOG_POINTS - 4))
/* N2 at most 2^10: with the default 2^13 points a block, a column step's
 * block then spans at least 8 neighbouring columns (32-byte runs of input).
 * Up to that the split is balanced: rows of 2^8 under taller columns (fewer
 * passes in the row step, which runs two transforms) measured 7% slower at
 * 2^18 (commit 81635dd). */
#define FOURSTEP_LOG_N2_MAX 10

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

/* Where point k of a column step's block lies in its segment (and in the
 * work matrix's rows): 2^log_b neighbouring columns from n1_0, interleaved. */
static __device__ __forceinline__ unsigned column_point(unsigned k, unsigned n1_0, unsigned log_b,
                                                        unsigned log_n1)
{
    return n1_0 + (k & ((1u << log_b) - 1)) + ((k >> log_b) << log_n1);
}

/* (A)'s source: point idx of segments at0 and at1 of row x (zeros outside
 * avail), times scale. */
struct fourstep_source {
    const float *x;
    size_t at0, at1, avail;
    float scale;
    unsigned n1_0, log_b, log_n1;
    __device__ __forceinline__ float2 load(unsigned k) const
    {
        const unsigned idx = column_point(k, n1_0, log_b, log_n1);
        const size_t k0 = at0 + idx, k1 = at1 + idx;
        return make_float2(k0 < avail ? x[k0] * scale : 0.0f, k1 < avail ? x[k1] * scale : 0.0f);
    }
};
/* (A)'s sink and (C)'s source: the pair's work matrix, its columns from
 * n1_0 on; each point times W_N^(n1 k2) on the way out of (A) and its
 * conjugate on the way into (C), the four-step's twiddles, where the
 * column transform's last pass holds few points a thread (the row step's
 * first pass holds 16). */
struct fourstep_columns {
    float2 *w;
    unsigned n1_0, log_b;
    fourstep_shape sh;
    const float2 *tw;
    __device__ __forceinline__ float2 twiddle(unsigned k, bool conj) const
    {
        return fourstep_twiddle(n1_0 + (k & ((1u << log_b) - 1)),
                                digit_reversed(k >> log_b, sh.log_n2), sh, tw, conj);
    }
    __device__ __forceinline__ float2 load(unsigned k) const
    {
        return cmul(w[column_point(k, 0, log_b, sh.log_n1)], twiddle(k, true));
    }
    __device__ __forceinline__ void store(unsigned k, float2 v) const
    {
        w[column_point(k, 0, log_b, sh.log_n1)] = cmul(v, twiddle(k, false));
    }
};

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
    const unsigned pair = blockIdx.y, c = blockIdx.z;
    const size_t s0 = 2 * (pair0 + pair), s1 = s0 + 1;
    /* below lead the index wraps past avail: a zero, as after the input */
    const fourstep_source in = {x + c * x_stride, s0 * hop - lead,
                                s1 < rows ? s1 * hop - lead : avail, avail, scale,
                                n1_0, log_b, sh.log_n1};
    const fourstep_columns out = {work + ((size_t)(c * gridDim.y + pair) << sh.log_n) + n1_0,
                                  n1_0, log_b, sh, tw};
    transform_io<true, GF_FOURSTEP_PRODUCTS>(buf, sh.log_n2, log_b, sh.log_t, false, tw, in, out);
}

/* (B)'s rows of the work matrix, in place. */
struct fourstep_rows_io {
    float2 *w;
    __device__ __forceinline__ float2 load(unsigned k) const { return w[k]; }
    __device__ __forceinline__ void store(unsigned k, float2 v) const { w[k] = v; }
};
/* (B) Block (row group, pair, channel): rows p_0 .. of the work matrix,
 * their twiddles already applied by (A). With spec NULL, only the forward
 * half (the filter's spectrum). A grid with the pairs fastest, so that the
 * blocks running together read the same rows of the spectrum, was 1-2%
 * slower (gfir-bench, 16383 to 262143 taps, H100, 2026-11-24). */
__global__ void __launch_bounds__(FOURSTEP_THREADS, FOURSTEP_BLOCKS_PER_SM)
    fourstep_rows(float2 *work, const float2 *__restrict__ spec, int shared, fourstep_shape sh,
                  const float2 *__restrict__ tw)
{
    extern __shared__ float2 buf[];
    const unsigned log_b = FOURSTEP_LOG_POINTS - sh.log_n1, p_0 = blockIdx.x << log_b;
    const unsigned c = blockIdx.z;
    const size_t at_row = ((size_t)(c * gridDim.y + blockIdx.y) << sh.log_n) +
                          ((size_t)p_0 << sh.log_n1);
    const fourstep_rows_io rows = {work + at_row};
    if (!spec) {
        transform_io<false, GF_FOURSTEP_PRODUCTS>(buf, sh.log_n1, log_b, sh.log_t, false, tw,
                                                  rows, rows);
        return;
    }
    const spectrum_product mul = {spec + ((size_t)(shared ? 0 : c) << sh.log_n) +
                                  ((size_t)p_0 << sh.log_n1)};
    convolve_io<false, GF_FOURSTEP_PRODUCTS>(buf, sh.log_n1, log_b, sh.log_t, tw, rows, mul, rows);
}

/* (C)'s sink: point idx of the two segments' circular convolutions, the
 * outputs from col on. */
struct fourstep_sink {
    pair_outputs<size_t> to;
    size_t col;
    unsigned n1_0, log_b, log_n1;
    __device__ __forceinline__ void store(unsigned k, float2 v) const
    {
        to.put((size_t)column_point(k, n1_0, log_b, log_n1) - col, v);
    }
};

/* (C) As (A), backwards: the inverse down the columns, then the samples past
 * the wrapped ones (point col on) to the output. */
__global__ void __launch_bounds__(FOURSTEP_THREADS, FOURSTEP_BLOCKS_PER_SM)
    fourstep_cols_inv(gf_smfft_args a, size_t pair0, fourstep_shape sh)
{
    extern __shared__ float2 buf[];
    const unsigned log_b = FOURSTEP_LOG_POINTS - sh.log_n2, n1_0 = blockIdx.x << log_b;
    const unsigned pair = blockIdx.y, c = blockIdx.z;
    const fourstep_columns in = {a.d_work + ((size_t)(c * gridDim.y + pair) << sh.log_n) + n1_0,
                                 n1_0, log_b, sh, a.d_tw};
    const fourstep_sink sink = {pair_outputs<size_t>::of(a, c, 2 * (pair0 + pair)), a.col, n1_0,
                                log_b, sh.log_n1};
    transform_io<true, GF_FOURSTEP_PRODUCTS>(buf, sh.log_n2, log_b, sh.log_t, true, a.d_tw, in,
                                             sink);
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
    fourstep_tables, fourstep_smem, 0,
    fourstep_allow_smem, fourstep_spectrum, fourstep_run,
};
