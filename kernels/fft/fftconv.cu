/*
 * fftconv.cu - overlap-save in our own transforms. Up to 8192 points, one
 * pass: a thread block transforms, filters and transforms back a segment
 * pair in shared memory, so the data crosses device memory once each way
 * instead of five times as with cuFFT (fft.cu). Above, up to 2^22 points,
 * three passes (the four-step section below).
 *
 * Two segments in one complex transform: z = x_s + i x_{s+1}. The taps are
 * real, so the inverse transform of Z H is (x_s * h) + i (x_{s+1} * h): the
 * real part is segment s's circular convolution, the imaginary part segment
 * s + 1's, and no real-to-complex packing pass is needed.
 *
 * The transform: N = 2^m complex points in shared memory, in place, radix 16
 * (a radix-8, 4 or 2 pass last when m is not a multiple of 4; on the H100
 * radix 16 was 15% faster than radix 8 at 2048 points, 6% at 2^20 in the
 * four steps, and even at 2^18; GF_FC_LOG_RADIX=3 builds radix 8).
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
/* the largest radix, as a power of two: 16 (4) or 8 (3) */
#ifndef GF_FC_LOG_RADIX
#define GF_FC_LOG_RADIX 4
#endif
#define FC_LOG_RADIX GF_FC_LOG_RADIX

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

/* v *= W_16^m (conjugate when inv), m known at compile time after unrolling */
static __device__ __forceinline__ float2 w16(float2 v, int m, bool inv)
{
    const float c1 = 0.92387953251128676f, s1 = 0.38268343236508977f, h = 0.70710678118654752f;
    const float cs[8] = {1.0f, c1, h, s1, 0.0f, -s1, -h, -c1}; /* cos(2 pi m / 16) */
    const float sn[8] = {0.0f, s1, h, c1, 1.0f, c1, h, s1};    /* sin(2 pi m / 16) */
    const float c = m < 8 ? cs[m] : -cs[m - 8], s = m < 8 ? sn[m] : -sn[m - 8];
    return cmul(v, make_float2(c, inv ? s : -s));
}

/* 16 points as 4 x 4: transforms of 4 down the columns, twiddles W_16^(n1
 * k2), transforms of 4 across; natural order in and out. */
static __device__ __forceinline__ void dft16(float2 *v, bool inv)
{
    float2 a[4][4];
#pragma unroll
    for (int n1 = 0; n1 < 4; n1++) {
        float2 t[4] = {v[n1], v[n1 + 4], v[n1 + 8], v[n1 + 12]};
        dft4(t, inv);
#pragma unroll
        for (int k2 = 0; k2 < 4; k2++)
            a[n1][k2] = n1 && k2 ? w16(t[k2], n1 * k2, inv) : t[k2];
    }
#pragma unroll
    for (int k2 = 0; k2 < 4; k2++) {
        float2 t[4] = {a[0][k2], a[1][k2], a[2][k2], a[3][k2]};
        dft4(t, inv);
#pragma unroll
        for (int k1 = 0; k1 < 4; k1++)
            v[k2 + 4 * k1] = t[k1];
    }
}

template <int R> static __device__ __forceinline__ void dft(float2 *v, bool inv)
{
    if (R == 16)
        dft16(v, inv);
    else if (R == 8)
        dft8(v, inv);
    else if (R == 4)
        dft4(v, inv);
    else
        dft2(v);
}

/*
 * One pass over sub-transforms of M = R << log_s points, in a batch of 2^log_b
 * transforms of 2^log_len points each: transform b's point e at b * 2^log_len
 * + e (one after another), or at e * 2^log_b + b (IL: interleaved, so that
 * threads next to each other take neighbouring transforms). Twiddles W_M^k
 * come from a table of W_T^k, T = 2^log_t >= M.
 */
template <int R, bool IL>
static __device__ void pass(float2 *buf, unsigned log_len, unsigned log_b, unsigned log_t,
                            unsigned log_s, bool inv, const float2 *__restrict__ tw)
{
    const unsigned log_r = R == 16 ? 4 : R == 8 ? 3 : R == 4 ? 2 : 1;
    const unsigned s = 1u << log_s, per = 1u << (log_len - log_r), items = per << log_b;
    const unsigned tw_shift = log_t - log_s - log_r; /* T / M */
    for (unsigned it = threadIdx.x; it < items; it += blockDim.x) {
        const unsigned b = IL ? it & ((1u << log_b) - 1) : it >> (log_len - log_r);
        const unsigned it2 = IL ? it >> log_b : it & (per - 1);
        const unsigned j = it2 & (s - 1), base = ((it2 >> log_s) * R << log_s) + j;
        float2 v[R];
#pragma unroll
        for (int r = 0; r < R; r++)
            v[r] = buf[at(IL ? ((base + r * s) << log_b) + b : (b << log_len) + base + r * s)];
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
            buf[at(IL ? ((base + r * s) << log_b) + b : (b << log_len) + base + r * s)] = v[r];
    }
}

/* The passes' radices, forward order: 16s while they fit, then 8, 4 or 2.
 * Sharing the bits out evenly instead (2^9 as 8 x 8 x 8, not 16 x 16 x 2)
 * was 10% slower at 2048 points and 3% at 2^20 on the H100, even between. */
static __device__ int plan_passes(unsigned log_n, unsigned char *radix_log)
{
    int count = 0;
    for (unsigned left = log_n; left > 0; left -= radix_log[count - 1])
        radix_log[count++] = (unsigned char)(left >= FC_LOG_RADIX ? FC_LOG_RADIX : left);
    return count;
}

/* The frequency held at position p after the forward passes of 2^log_len
 * points: pass i's output digit q_i sits at p's bits from log_s_i up and
 * stands for q_i times the product of the earlier passes' radices. */
static __device__ unsigned digit_reversed(unsigned p, unsigned log_len)
{
    unsigned char radix_log[FC_MAX_PASSES];
    const int count = plan_passes(log_len, radix_log);
    unsigned k = 0, done = 0, left = log_len;
    for (int i = 0; i < count; i++) {
        left -= radix_log[i];
        k |= ((p >> left) & ((1u << radix_log[i]) - 1)) << done;
        done += radix_log[i];
    }
    return k;
}

/* A batch of 2^log_b transforms of 2^log_len points (layout as pass()). */
template <bool IL>
static __device__ void transform(float2 *buf, unsigned log_len, unsigned log_b, unsigned log_t,
                                 bool inv, const float2 *__restrict__ tw)
{
    unsigned char radix_log[FC_MAX_PASSES];
    const int count = plan_passes(log_len, radix_log);
    /* forward pass p works on sub-transforms of 2^(log_len - earlier radices) */
    unsigned log_m[FC_MAX_PASSES];
    unsigned left = log_len;
    for (int p = 0; p < count; p++) {
        log_m[p] = left;
        left -= radix_log[p];
    }
    for (int k = 0; k < count; k++) {
        const int p = inv ? count - 1 - k : k;
        const unsigned log_s = log_m[p] - radix_log[p];
        if (radix_log[p] == 4)
            pass<16, IL>(buf, log_len, log_b, log_t, log_s, inv, tw);
        else if (radix_log[p] == 3)
            pass<8, IL>(buf, log_len, log_b, log_t, log_s, inv, tw);
        else if (radix_log[p] == 2)
            pass<4, IL>(buf, log_len, log_b, log_t, log_s, inv, tw);
        else
            pass<2, IL>(buf, log_len, log_b, log_t, log_s, inv, tw);
        __syncthreads();
    }
}

/* Block (pair p, channel c): segments 2p and 2p + 1 of channel c. */
__global__ void fftconv_kernel(gf_fftconv_args a)
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
    transform<false>(buf, a.log_n, 0, a.log_n, false, a.d_tw);
    const float2 *h = a.d_spec + (size_t)(a.shared ? 0 : c) * n;
    for (unsigned i = threadIdx.x; i < n; i += blockDim.x)
        buf[at(i)] = cmul(buf[at(i)], __ldg(h + i));
    __syncthreads();
    transform<false>(buf, a.log_n, 0, a.log_n, true, a.d_tw);
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
    transform<false>(buf, log_n, 0, log_n, false, tw);
    for (unsigned i = threadIdx.x; i < n; i += blockDim.x)
        spec[blockIdx.x * (size_t)n + i] = buf[at(i)];
}

/*
 * Four steps, for N = N1 * N2 above what one block's shared memory holds.
 * Point n = n1 + N1 n2 of a segment pair; the transform is
 *   X[k2 + N2 k1] = sum_n1 W_N1^(n1 k1) W_N^(n1 k2) sum_n2 W_N2^(n2 k2) x[n1 + N1 n2]
 * so: (A) N2-point transforms down the columns (fixed n1), read straight
 * from the input, written to row p of the pair's N2 x N1 work matrix, p
 * the position holding k2; (B) per row, the twiddle W_N^(n1 k2), an N1-point
 * transform, the product with the filter's spectrum (made by the same A and
 * B), the inverse N1-point transform and the conjugate twiddle, in place;
 * (C) inverse N2-point transforms down the columns, restoring natural order,
 * whose valid samples go straight to the output. Three passes over the work
 * matrix, against five with cuFFT (fft.cu), and the input and output are
 * touched once. Every block holds 2^FS_LOG_POINTS points: 2^(FS_LOG_POINTS -
 * log N2) columns (interleaved, so neighbouring threads read neighbouring
 * samples) or 2^(FS_LOG_POINTS - log N1) rows, 16 points a thread.
 *
 * 8192 points and two blocks per SM (64 registers a thread at most): on an
 * H100 (2 x 2^24 samples, 16383 to 262143 taps) 13-18% faster than leaving
 * ptxas free (up to 71 registers, one block of fs_rows per SM); three per
 * SM spilled and were no faster than one. The macros let gfir-bench builds
 * try others.
 */
#ifndef GF_FS_LOG_POINTS
#define GF_FS_LOG_POINTS 13
#endif
#ifndef GF_FS_BLOCKS
#define GF_FS_BLOCKS 2
#endif
#define FS_LOG_POINTS GF_FS_LOG_POINTS
#define FS_BLOCKS_PER_SM GF_FS_BLOCKS
#define FS_THREADS (1u << (FS_LOG_POINTS - 4))
#define FS_LOG_N2_MAX 10
typedef struct fs_shape {
    unsigned log_n, log_n1, log_n2, log_t; /* N, N1, N2, the passes' twiddle table */
    unsigned log_h; /* W_N^m = lo[m mod 2^log_h] hi[m >> log_h]: tables after the passes' */
} fs_shape;

static fs_shape fs_shape_of(unsigned log_n)
{
    fs_shape sh;
    sh.log_n = log_n;
    /* balanced; rows of 2^8 under columns of up to 2^10 (fewer passes in the
     * row step, which runs two transforms) measured 7% slower at 2^18 */
    sh.log_n2 = log_n / 2 < FS_LOG_N2_MAX ? log_n / 2 : FS_LOG_N2_MAX;
    sh.log_n1 = log_n - sh.log_n2;
    sh.log_t = sh.log_n1 > sh.log_n2 ? sh.log_n1 : sh.log_n2;
    sh.log_h = log_n / 2;
    return sh;
}

/* (A) Block (column group, pair, channel): columns n1_0 .. of segments 2 pair
 * and 2 pair + 1 of channel c (row c of x, x_stride apart, avail samples),
 * times scale, forward down the columns, into rows p of the work matrix. */
__global__ void __launch_bounds__(FS_THREADS, FS_BLOCKS_PER_SM) fs_cols_fwd(const float *x, size_t x_stride, size_t avail, size_t hop,
                            size_t rows, float scale, float2 *work, fs_shape sh,
                            const float2 *__restrict__ tw)
{
    extern __shared__ float2 buf[];
    const unsigned log_b = FS_LOG_POINTS - sh.log_n2, n1_0 = blockIdx.x << log_b;
    const unsigned pair = blockIdx.y, c = blockIdx.z, total = 1u << FS_LOG_POINTS;
    const size_t s0 = 2 * (size_t)pair, s1 = s0 + 1;
    const int second = s1 < rows;
    const float *xc = x + c * x_stride;
    const size_t g0 = s0 * hop, g1 = s1 * hop;
    for (unsigned i = threadIdx.x; i < total; i += blockDim.x) {
        const size_t idx = n1_0 + (i & ((1u << log_b) - 1)) + ((size_t)(i >> log_b) << sh.log_n1);
        const float re = g0 + idx < avail ? xc[g0 + idx] * scale : 0.0f;
        const float im = second && g1 + idx < avail ? xc[g1 + idx] * scale : 0.0f;
        buf[at(i)] = make_float2(re, im);
    }
    __syncthreads();
    transform<true>(buf, sh.log_n2, log_b, sh.log_t, false, tw);
    float2 *w = work + ((size_t)(c * gridDim.y + pair) << sh.log_n) + n1_0;
    for (unsigned i = threadIdx.x; i < total; i += blockDim.x)
        w[((size_t)(i >> log_b) << sh.log_n1) + (i & ((1u << log_b) - 1))] = buf[at(i)];
}

/* W_N^(n1 k2), or its conjugate, from two small tables (tw + T: W_N^m for
 * m < 2^log_h, then W_N^(a 2^log_h)): a product instead of a sincos. */
static __device__ __forceinline__ float2 fs_twiddle(unsigned n1, unsigned k2, fs_shape sh,
                                                    const float2 *__restrict__ tw, bool conj)
{
    const unsigned m = (n1 * k2) & ((1u << sh.log_n) - 1);
    const float2 *lo = tw + (1u << sh.log_t), *hi = lo + (1u << sh.log_h);
    const float2 w = cmul(__ldg(lo + (m & ((1u << sh.log_h) - 1))), __ldg(hi + (m >> sh.log_h)));
    return conj ? make_float2(w.x, -w.y) : w;
}

/* (B) Block (row group, pair, channel): rows p_0 .. of the work matrix. With
 * spec NULL, only the forward half, stored (the filter's spectrum). */
__global__ void __launch_bounds__(FS_THREADS, FS_BLOCKS_PER_SM) fs_rows(float2 *work, const float2 *__restrict__ spec, int shared, fs_shape sh,
                        const float2 *__restrict__ tw)
{
    extern __shared__ float2 buf[];
    __shared__ unsigned k2s[1u << (FS_LOG_POINTS - 7)]; /* each row's k2; N1 >= 2^7 */
    const unsigned log_b = FS_LOG_POINTS - sh.log_n1, p_0 = blockIdx.x << log_b;
    const unsigned c = blockIdx.z, total = 1u << FS_LOG_POINTS, mask = (1u << sh.log_n1) - 1;
    const size_t at_row = ((size_t)(c * gridDim.y + blockIdx.y) << sh.log_n) +
                          ((size_t)p_0 << sh.log_n1);
    float2 *w = work + at_row;
    if (threadIdx.x < (1u << log_b))
        k2s[threadIdx.x] = digit_reversed(p_0 + threadIdx.x, sh.log_n2);
    __syncthreads();
    for (unsigned i = threadIdx.x; i < total; i += blockDim.x)
        buf[at(i)] = cmul(w[i], fs_twiddle(i & mask, k2s[i >> sh.log_n1], sh, tw, false));
    __syncthreads();
    transform<false>(buf, sh.log_n1, log_b, sh.log_t, false, tw);
    if (!spec) {
        for (unsigned i = threadIdx.x; i < total; i += blockDim.x)
            w[i] = buf[at(i)];
        return;
    }
    const float2 *h = spec + ((size_t)(shared ? 0 : c) << sh.log_n) + ((size_t)p_0 << sh.log_n1);
    for (unsigned i = threadIdx.x; i < total; i += blockDim.x)
        buf[at(i)] = cmul(buf[at(i)], __ldg(h + i));
    __syncthreads();
    transform<false>(buf, sh.log_n1, log_b, sh.log_t, true, tw);
    for (unsigned i = threadIdx.x; i < total; i += blockDim.x)
        w[i] = cmul(buf[at(i)], fs_twiddle(i & mask, k2s[i >> sh.log_n1], sh, tw, true));
}

/* (C) As (A), backwards: the inverse down the columns, then the samples past
 * the wrapped ones (point col on) to the output. */
__global__ void __launch_bounds__(FS_THREADS, FS_BLOCKS_PER_SM) fs_cols_inv(gf_fftconv_args a, fs_shape sh)
{
    extern __shared__ float2 buf[];
    const unsigned log_b = FS_LOG_POINTS - sh.log_n2, n1_0 = blockIdx.x << log_b;
    const unsigned pair = blockIdx.y, c = blockIdx.z, total = 1u << FS_LOG_POINTS;
    const float2 *w = a.d_work + ((size_t)(c * gridDim.y + pair) << sh.log_n) + n1_0;
    for (unsigned i = threadIdx.x; i < total; i += blockDim.x)
        buf[at(i)] = w[((size_t)(i >> log_b) << sh.log_n1) + (i & ((1u << log_b) - 1))];
    __syncthreads();
    transform<true>(buf, sh.log_n2, log_b, sh.log_t, true, a.d_tw);
    const size_t s0 = 2 * (size_t)pair, s1 = s0 + 1;
    const int second = s1 < a.rows;
    const size_t g0 = s0 * a.hop, g1 = s1 * a.hop;
    float *out = a.d_out + c * a.channel_stride;
    for (unsigned i = threadIdx.x; i < total; i += blockDim.x) {
        const size_t idx = n1_0 + (i & ((1u << log_b) - 1)) + ((size_t)(i >> log_b) << sh.log_n1);
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

extern "C" int gf_fftconv_fits(size_t n_fft)
{
    return n_fft >= 2 && n_fft <= GF_FFTCONV_MAX && !(n_fft & (n_fft - 1));
}

static int one_kernel(size_t n_fft)
{
    return n_fft <= GF_FFTCONV_ONE_MAX;
}

extern "C" size_t gf_fftconv_work(size_t n_fft, size_t rows, unsigned channels)
{
    return gf_fftconv_fits(n_fft) && !one_kernel(n_fft)
               ? (rows + 1) / 2 * channels * n_fft * sizeof(float2)
               : 0;
}

/* Lets every kernel of this file take the most dynamic shared memory any
 * filter asks for (2^FS_LOG_POINTS points, as the 8192-point one kernel):
 * always that one value, since the attribute is per kernel, not per filter,
 * and a smaller one set for a later filter would break an earlier one's
 * launches. Filters that fit the default 48 KB never call it. */
static cudaError_t allow_smem(size_t smem)
{
    const void *kernels[] = {(const void *)fftconv_kernel, (const void *)fftconv_spectrum_kernel,
                             (const void *)fs_cols_fwd, (const void *)fs_rows,
                             (const void *)fs_cols_inv};
    for (size_t k = 0; k < sizeof kernels / sizeof kernels[0]; k++) {
        const cudaError_t e =
            cudaFuncSetAttribute(kernels[k], cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
        if (e != cudaSuccess)
            return e;
    }
    return cudaSuccess;
}

/* The four steps' grids: (column or row groups, pairs, channels); either
 * way N / FS_POINTS groups. */
static dim3 fs_grid(fs_shape sh, size_t pairs, unsigned channels)
{
    return dim3(1u << (sh.log_n - FS_LOG_POINTS), (unsigned)pairs, channels);
}

extern "C" cudaError_t gf_fftconv_spectrum(const float *d_taps, size_t ntaps, unsigned filters,
                                             size_t n_fft, float2 **d_tw, float2 **d_spec)
{
    *d_tw = *d_spec = NULL;
    if (!gf_fftconv_fits(n_fft) || ntaps > n_fft || filters == 0 || filters > 65535)
        return cudaErrorInvalidValue;
    const unsigned log_n = log2_of(n_fft);
    const fs_shape sh = fs_shape_of(log_n);
    const int one = one_kernel(n_fft);
    const size_t t_n = one ? n_fft : (size_t)1 << sh.log_t;
    const size_t lo_n = one ? 0 : (size_t)1 << sh.log_h, hi_n = one ? 0 : n_fft / lo_n;
    const size_t tw_n = t_n + lo_n + hi_n;
    const size_t smem = smem_bytes(one ? n_fft : (size_t)1 << FS_LOG_POINTS);
    int device, optin = 0;
    cudaError_t e = cudaGetDevice(&device);
    if (e == cudaSuccess)
        e = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
    /* fs_rows also holds each row's k2 in static shared memory */
    const size_t static_smem = one ? 0 : (1u << (FS_LOG_POINTS - 7)) * sizeof(unsigned);
    if (e == cudaSuccess && (size_t)optin < smem + static_smem)
        return cudaErrorNotSupported; /* the caller keeps to cuFFT */
    if (e == cudaSuccess && smem + static_smem > 48 * 1024)
        e = allow_smem(smem_bytes((size_t)1 << FS_LOG_POINTS));
    float2 *tw = (float2 *)malloc(tw_n * sizeof *tw);
    if (!tw)
        return cudaErrorMemoryAllocation;
    /* the passes' W_T^k, then (four steps) W_N^k and W_N^(k lo_n) */
    for (size_t k = 0; k < tw_n; k++) {
        const double ph = k < t_n ? -2.0 * M_PI * (double)k / (double)t_n
                          : k < t_n + lo_n
                              ? -2.0 * M_PI * (double)(k - t_n) / (double)n_fft
                              : -2.0 * M_PI * (double)((k - t_n - lo_n) * lo_n) / (double)n_fft;
        tw[k] = make_float2((float)cos(ph), (float)sin(ph));
    }
    if (e == cudaSuccess)
        e = cudaMalloc((void **)d_tw, tw_n * sizeof(float2));
    if (e == cudaSuccess)
        e = cudaMemcpy(*d_tw, tw, tw_n * sizeof(float2), cudaMemcpyHostToDevice);
    free(tw);
    if (e == cudaSuccess)
        e = cudaMalloc((void **)d_spec, filters * n_fft * sizeof(float2));
    if (e == cudaSuccess && one) {
        fftconv_spectrum_kernel<<<filters, threads_for(n_fft), smem>>>(
            d_taps, ntaps, 1.0f / (float)n_fft, log_n, *d_tw, *d_spec);
        e = cudaGetLastError();
    } else if (e == cudaSuccess) {
        /* each tap set a pair of its own, its second segment empty */
        const unsigned threads = FS_THREADS;
        fs_cols_fwd<<<fs_grid(sh, 1, filters), threads, smem>>>(
            d_taps, ntaps, ntaps, 0, 1, 1.0f / (float)n_fft, *d_spec, sh, *d_tw);
        e = cudaGetLastError();
        if (e == cudaSuccess) {
            fs_rows<<<fs_grid(sh, 1, filters), threads, smem>>>(*d_spec, NULL, 0, sh, *d_tw);
            e = cudaGetLastError();
        }
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

extern "C" cudaError_t gf_fftconv_run(const gf_fftconv_args *a, cudaStream_t stream)
{
    const size_t n_fft = (size_t)1 << a->log_n;
    const size_t pairs = (a->rows + 1) / 2;
    if (!gf_fftconv_fits(n_fft) || a->channels == 0 || a->channels > 65535 ||
        a->col >= n_fft || a->hop != n_fft - a->col || pairs > 65535 ||
        (!one_kernel(n_fft) && !a->d_work))
        return cudaErrorInvalidValue;
    if (a->rows == 0)
        return cudaSuccess;
    if (one_kernel(n_fft)) {
        dim3 grid((unsigned)pairs, a->channels);
        fftconv_kernel<<<grid, threads_for(n_fft), smem_bytes(n_fft), stream>>>(*a);
        return cudaGetLastError();
    }
    const fs_shape sh = fs_shape_of(a->log_n);
    const size_t smem = smem_bytes((size_t)1 << FS_LOG_POINTS);
    const unsigned threads = FS_THREADS;
    fs_cols_fwd<<<fs_grid(sh, pairs, a->channels), threads, smem, stream>>>(
        a->d_x, a->x_stride, a->avail, a->hop, a->rows, 1.0f, a->d_work, sh, a->d_tw);
    fs_rows<<<fs_grid(sh, pairs, a->channels), threads, smem, stream>>>(
        a->d_work, a->d_spec, a->shared, sh, a->d_tw);
    fs_cols_inv<<<fs_grid(sh, pairs, a->channels), threads, smem, stream>>>(*a, sh);
    return cudaGetLastError();
}
