/*
 * smfft_kernels.cuh - what the smfft shapes share (smfft.h says what smfft
 * is): the transform in shared memory, its layout there, and the table of
 * each shape's host side that smfft.cu drives. Included by smfft*.cu only.
 *
 * Two segments in one complex transform: z = x_s + i x_{s+1}. The taps are
 * real, so the inverse transform of Z H is (x_s * h) + i (x_{s+1} * h): the
 * real part is segment s's circular convolution, the imaginary part segment
 * s + 1's, and no real-to-complex packing pass is needed.
 *
 * The transform: N = 2^m complex points in shared memory, in place, radix 16
 * (a radix-8, 4 or 2 pass last when m is not a multiple of 4; on the H100
 * radix 16 was 15% faster than radix 8 at 2048 points, 6% at 2^20 in
 * four-step, and even at 2^18: commit 81635dd; GF_SMFFT_LOG_RADIX=3 builds
 * radix 8). Forward passes decimate in frequency and leave the spectrum in
 * digit-reversed order; the filter's spectrum is made by the same forward
 * passes, so it is in the same order and the product needs no reordering;
 * the inverse runs the forward passes backwards (conjugate twiddles first,
 * then the conjugate butterfly), which undoes them exactly and restores
 * natural order. The 1/N of the inverse is folded into the filter's
 * spectrum.
 *
 * A pass over sub-transforms of M points (stride S = M / R): thread work item
 * (b, j), j < S, takes the R points b*M + j + r*S, applies an R-point DFT,
 * multiplies output r by W_M^(j r) and writes them back where they came
 * from. Twiddles come from a table of W_T^k, k < T, made once per filter.
 * A transform's first pass may read its points from device memory instead,
 * and its last write them there (transform_io, convolve_io): the data then
 * meets shared memory only between passes.
 */
#ifndef GF_FFT_SMFFT_KERNELS_CUH
#define GF_FFT_SMFFT_KERNELS_CUH

#include "fft/smfft.h"

#include <stddef.h>

/* the largest radix, as a power of two: 16 (4) or 8 (3) */
#ifndef GF_SMFFT_LOG_RADIX
#define GF_SMFFT_LOG_RADIX 4
#endif
#define SMFFT_LOG_RADIX GF_SMFFT_LOG_RADIX

/* Shared-memory index of point i: one float2 of padding after every 16, so
 * the late passes' short strides (8 points, 64 bytes: 16-way conflicts
 * unpadded; commit 550075e: 1023 taps 0.566 -> 0.430 ms) spread over the
 * banks. */
static __device__ __forceinline__ unsigned at(unsigned i)
{
    return i + (i >> 4);
}
/* Bytes of shared memory for n points so laid out. */
static inline size_t smfft_smem_bytes(size_t n)
{
    return (n + n / 16) * sizeof(float2);
}

/* The points of a block a thread handles outside the transform, i =
 * threadIdx.x + j threads for j < 16 while i < count, unrolled by U: a loop
 * over a runtime stride ran one point an iteration, each waiting for its
 * load from device memory before the next was issued (the PTX had one
 * ld.global a trip); unrolled, U loads of a thread are in flight together.
 * At most 16 points a thread. One-pass's filter spectra use it (U in
 * smfft_onepass.cu, with the figures); the convolutions' transforms now
 * read and write device memory in their own passes instead. Unrolling the
 * transform's passes the same way (a thread's 16 / R items of a pass
 * together) was 2-5% slower everywhere (H100, 2026-11-24). */
#define SMFFT_POINTS_PER_THREAD 16
#define SMFFT_PRAGMA(x) _Pragma(#x)
#define SMFFT_FOR_POINTS(i, count, threads, u)                                                   \
    SMFFT_PRAGMA(unroll u)                                                                       \
    for (unsigned j_ = 0, i = threadIdx.x; j_ < SMFFT_POINTS_PER_THREAD; j_++, i += (threads))  \
        if (!(i < (count))) {                                                                    \
        } else /* (an else after the body is a compile error, not the inner if's) */

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
 * Multiplies v[r] by a pass's twiddle W_M^(j r), or its conjugate, r = 1 ..
 * R - 1. PRODUCTS: radix 8 and 16 load two, W^j and W^4j, and make the rest
 * as products W^(4a) W^b (b < 4), at most three deep, instead of loading
 * R - 1 from the table. Each product rounds once more (a few units in the
 * last place at worst), far inside the tests' 1e-5 against float64. On the
 * H100 (gfir-bench, 2 x 2^24 samples, 2026-11-24) products made one-pass
 * 1.2-1.5x faster (1023 taps 0.405 -> 0.282 ms, 4095 taps 0.604 -> 0.408),
 * but four-step, whose kernels are at their 64 registers, 1-2% slower
 * (they spilled), so four-step loads.
 */
template <int R, bool PRODUCTS>
static __device__ __forceinline__ void twiddle(float2 *v, const float2 *__restrict__ tw,
                                               unsigned j, unsigned tw_shift, bool conj)
{
    if (R <= 4 || !PRODUCTS) {
#pragma unroll
        for (int r = 1; r < R; r++) {
            const float2 w = __ldg(tw + ((j * r) << tw_shift));
            v[r] = conj ? cmulc(v[r], w) : cmul(v[r], w);
        }
        return;
    }
    const float2 w1 = __ldg(tw + (j << tw_shift)), w4 = __ldg(tw + ((4 * j) << tw_shift));
    const float2 w2 = cmul(w1, w1), w3 = cmul(w2, w1);
    float2 hi = make_float2(1.0f, 0.0f);
#pragma unroll
    for (int a = 0; a < R / 4; a++) {
        if (a)
            hi = a == 1 ? w4 : cmul(hi, w4);
#pragma unroll
        for (int b = 0; b < 4; b++) {
            const int r = 4 * a + b;
            if (!r)
                continue;
            const float2 lo = b == 1 ? w1 : b == 2 ? w2 : w3;
            const float2 w = b ? (a ? cmul(hi, lo) : lo) : hi;
            v[r] = conj ? cmulc(v[r], w) : cmul(v[r], w);
        }
    }
}

/* The passes' radices, forward order: 16s while they fit, then 8, 4 or 2.
 * Sharing the bits out evenly instead (2^9 as 8 x 8 x 8, not 16 x 16 x 2)
 * was 10% slower at 2048 points and 3% at 2^20 on the H100, even between
 * (gfir-bench, commit 129dc92, 2026-11-23). Worked out from the pass's
 * number rather than kept in a table: a table in a local array put 48 bytes
 * of stack in every kernel (ptxas -v), read from local memory in each pass. */
static __device__ __forceinline__ int pass_count(unsigned log_len)
{
    return (int)((log_len + SMFFT_LOG_RADIX - 1) / SMFFT_LOG_RADIX);
}
/* log2 of forward pass p's radix, and of the sub-transforms it works on */
static __device__ __forceinline__ unsigned pass_log_radix(unsigned log_len, int p)
{
    const unsigned left = log_len - (unsigned)p * SMFFT_LOG_RADIX;
    return left >= SMFFT_LOG_RADIX ? SMFFT_LOG_RADIX : left;
}
static __device__ __forceinline__ unsigned pass_log_m(unsigned log_len, int p)
{
    return log_len - (unsigned)p * SMFFT_LOG_RADIX;
}

/*
 * Where a pass reads its points and writes them: shared memory (smem_io), or
 * a shape's own source or sink in device memory. k is the point's index in
 * the block's layout (pass(), below); at() is shared memory's business
 * alone. The first pass of a transform reads straight from its source into
 * registers and the last writes straight from registers to its sink, so
 * neither end makes a round trip through shared memory, nor waits at the
 * barrier that needs: against loading a block into shared memory first and
 * storing it from there after, that halves the shared-memory traffic of a
 * three-pass transform, and of the filter's product (convolve_io(), below).
 */
struct smem_io {
    float2 *buf;
    __device__ __forceinline__ float2 load(unsigned k) const { return buf[at(k)]; }
    __device__ __forceinline__ void store(unsigned k, float2 v) const { buf[at(k)] = v; }
};
/* The product with a filter's spectrum (convolve_io's mul): h at the
 * block's first point, in the transforms' order. */
struct spectrum_product {
    const float2 *h;
    __device__ __forceinline__ float2 operator()(unsigned k, float2 v) const
    {
        return cmul(v, __ldg(h + k));
    }
};
/* no product (a plain transform's passes) */
struct no_product {
    __device__ __forceinline__ float2 operator()(unsigned, float2 v) const { return v; }
};

/*
 * One pass over sub-transforms of M = R << log_s points, in a batch of 2^log_b
 * transforms of 2^log_len points each: transform b's point e at b * 2^log_len
 * + e (one after another), or at e * 2^log_b + b (IL: interleaved, so that
 * threads next to each other take neighbouring transforms). Twiddles W_M^k
 * come from a table of W_T^k, T = 2^log_t >= M. Points come from in and go
 * to out (smem_io's interface). FUSED: the last forward pass (M = R, so its
 * twiddles are all 1), the product mul(k, X[k]), and the same pass inverted,
 * all in registers. Inlined: as calls (__noinline__: fewer spills at 64
 * registers, less code) the kernels were slower, but for 255 taps:
 * four-step 16383 taps 0.508 -> 0.647 ms, one-pass 1023 taps 0.228 ->
 * 0.263, 255 taps 0.183 -> 0.179 (H100, gfir-bench --kernels fft,
 * 2 x 2^24 samples, 2026-11-24).
 */
template <int R, bool FUSED, bool IL, bool PRODUCTS, class In, class Out, class Mul>
static __device__ void pass(unsigned log_len, unsigned log_b, unsigned log_t, unsigned log_s,
                            bool inv, const float2 *__restrict__ tw, In in, Out out, Mul mul)
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
            v[r] = in.load(IL ? ((base + r * s) << log_b) + b : (b << log_len) + base + r * s);
        if (FUSED) {
            dft<R>(v, false);
#pragma unroll
            for (int r = 0; r < R; r++)
                v[r] = mul(IL ? ((base + r * s) << log_b) + b : (b << log_len) + base + r * s,
                           v[r]);
            dft<R>(v, true);
        } else if (inv) {
            twiddle<R, PRODUCTS>(v, tw, j, tw_shift, true);
            dft<R>(v, true);
        } else {
            dft<R>(v, false);
            twiddle<R, PRODUCTS>(v, tw, j, tw_shift, false);
        }
#pragma unroll
        for (int r = 0; r < R; r++)
            out.store(IL ? ((base + r * s) << log_b) + b : (b << log_len) + base + r * s, v[r]);
    }
}

/* pass() at forward pass p's radix */
template <bool FUSED, bool IL, bool PRODUCTS, class In, class Out, class Mul>
static __device__ __forceinline__ void pass_at(int p, unsigned log_len, unsigned log_b,
                                               unsigned log_t, bool inv,
                                               const float2 *__restrict__ tw, In in, Out out,
                                               Mul mul)
{
    const unsigned log_r = pass_log_radix(log_len, p);
    const unsigned log_s = pass_log_m(log_len, p) - log_r;
    if (log_r == 4)
        pass<16, FUSED, IL, PRODUCTS>(log_len, log_b, log_t, log_s, inv, tw, in, out, mul);
    else if (log_r == 3)
        pass<8, FUSED, IL, PRODUCTS>(log_len, log_b, log_t, log_s, inv, tw, in, out, mul);
    else if (log_r == 2)
        pass<4, FUSED, IL, PRODUCTS>(log_len, log_b, log_t, log_s, inv, tw, in, out, mul);
    else
        pass<2, FUSED, IL, PRODUCTS>(log_len, log_b, log_t, log_s, inv, tw, in, out, mul);
}

/*
 * A batch of 2^log_b transforms of 2^log_len points (layout as pass(),
 * twiddles as twiddle()), from in to out through buf: the first pass reads
 * in, the last writes out, the others work in buf, a barrier between
 * passes. The caller orders in and out against other threads' use of buf
 * (a barrier before, when in reads buf; after, when out writes it).
 */
template <bool IL, bool PRODUCTS, class In, class Out>
static __device__ void transform_io(float2 *buf, unsigned log_len, unsigned log_b,
                                    unsigned log_t, bool inv, const float2 *__restrict__ tw,
                                    In in, Out out)
{
    const smem_io sm = {buf};
    const no_product none;
    const int count = pass_count(log_len);
    for (int k = 0; k < count; k++) {
        const int p = inv ? count - 1 - k : k;
        if (count == 1)
            pass_at<false, IL, PRODUCTS>(p, log_len, log_b, log_t, inv, tw, in, out, none);
        else if (k == 0)
            pass_at<false, IL, PRODUCTS>(p, log_len, log_b, log_t, inv, tw, in, sm, none);
        else if (k == count - 1)
            pass_at<false, IL, PRODUCTS>(p, log_len, log_b, log_t, inv, tw, sm, out, none);
        else
            pass_at<false, IL, PRODUCTS>(p, log_len, log_b, log_t, inv, tw, sm, sm, none);
        if (k != count - 1)
            __syncthreads();
    }
}

/* The same in place in buf, a barrier after each pass. */
template <bool IL, bool PRODUCTS>
static __device__ void transform(float2 *buf, unsigned log_len, unsigned log_b, unsigned log_t,
                                 bool inv, const float2 *__restrict__ tw)
{
    const smem_io sm = {buf};
    const no_product none;
    const int count = pass_count(log_len);
    for (int k = 0; k < count; k++) {
        pass_at<false, IL, PRODUCTS>(inv ? count - 1 - k : k, log_len, log_b, log_t, inv, tw, sm,
                                     sm, none);
        __syncthreads();
    }
}

/*
 * A filter over a batch (layout as pass()): the forward transform of in,
 * each point X[k] (k its position) replaced by mul(k, X[k]), and the inverse
 * transform to out. The last forward pass, the product and the first
 * inverse pass are one pass in registers (pass()'s FUSED). Barriers as
 * transform_io().
 */
template <bool IL, bool PRODUCTS, class In, class Mul, class Out>
static __device__ void convolve_io(float2 *buf, unsigned log_len, unsigned log_b, unsigned log_t,
                                   const float2 *__restrict__ tw, In in, Mul mul, Out out)
{
    const smem_io sm = {buf};
    const no_product none;
    const int last = pass_count(log_len) - 1;
    if (last == 0) {
        pass_at<true, IL, PRODUCTS>(0, log_len, log_b, log_t, false, tw, in, out, mul);
        return;
    }
    pass_at<false, IL, PRODUCTS>(0, log_len, log_b, log_t, false, tw, in, sm, none);
    __syncthreads();
    for (int p = 1; p < last; p++) {
        pass_at<false, IL, PRODUCTS>(p, log_len, log_b, log_t, false, tw, sm, sm, none);
        __syncthreads();
    }
    pass_at<true, IL, PRODUCTS>(last, log_len, log_b, log_t, false, tw, sm, sm, mul);
    __syncthreads();
    for (int p = last - 1; p > 0; p--) {
        pass_at<false, IL, PRODUCTS>(p, log_len, log_b, log_t, true, tw, sm, sm, none);
        __syncthreads();
    }
    pass_at<false, IL, PRODUCTS>(0, log_len, log_b, log_t, true, tw, sm, out, none);
}

/* Outputs of segment s of a convolution's rows: hop, or fewer at the end;
 * none past the rows. */
static __device__ __forceinline__ size_t segment_outputs(const gf_smfft_args &a, size_t s)
{
    const size_t g = s * a.hop;
    return s >= a.rows || g >= a.n ? 0 : a.n - g < a.hop ? a.n - g : a.hop;
}

/* Where a segment pair's outputs go (segments s0 and s0 + 1 of channel c):
 * output o of each, the real and the imaginary part of a point, while below
 * that segment's count. I is the index type: an o that wrapped below zero
 * is past both counts. */
template <class I> struct pair_outputs {
    float *out0, *out1;
    size_t frame_stride;
    I count0, count1;
    static __device__ __forceinline__ pair_outputs of(const gf_smfft_args &a, unsigned c,
                                                      size_t s0)
    {
        float *out = a.d_out + c * a.channel_stride;
        return {out + s0 * a.hop * a.frame_stride, out + (s0 + 1) * a.hop * a.frame_stride,
                a.frame_stride, (I)segment_outputs(a, s0), (I)segment_outputs(a, s0 + 1)};
    }
    __device__ __forceinline__ void put(I o, float2 v) const
    {
        if (o < count0)
            out0[o * frame_stride] = v.x;
        if (o < count1)
            out1[o * frame_stride] = v.y;
    }
};

/* The frequency held at position p after the forward passes of 2^log_len
 * points: pass i's output digit q_i sits at p's bits from log_s_i up and
 * stands for q_i times the product of the earlier passes' radices. */
static __device__ unsigned digit_reversed(unsigned p, unsigned log_len)
{
    const int count = pass_count(log_len);
    unsigned k = 0, done = 0;
    for (int i = 0; i < count; i++) {
        const unsigned log_r = pass_log_radix(log_len, i);
        k |= ((p >> (pass_log_m(log_len, i) - log_r)) & ((1u << log_r) - 1)) << done;
        done += log_r;
    }
    return k;
}

/* Its inverse: the position at which frequency k lies. */
static __device__ unsigned position_of(unsigned k, unsigned log_len)
{
    const int count = pass_count(log_len);
    unsigned p = 0, done = 0;
    for (int i = 0; i < count; i++) {
        const unsigned log_r = pass_log_radix(log_len, i);
        p |= ((k >> done) & ((1u << log_r) - 1)) << (pass_log_m(log_len, i) - log_r);
        done += log_r;
    }
    return p;
}

/*
 * A shape's host side, as smfft.cu drives it. Both shapes fill one.
 */
typedef struct gf_smfft_shape {
    /* The twiddle table for N = 2^log_n points: t_n entries W_T^k for the
     * passes (T = t_n), then, when lo_n is not 0, lo_n entries W_N^k and
     * N / lo_n entries W_N^(k lo_n), from which W_N^m is one product. */
    void (*tables)(unsigned log_n, size_t *t_n, size_t *lo_n);
    /* Dynamic shared memory per block at N = 2^log_n, and static. */
    size_t (*smem)(unsigned log_n);
    size_t static_smem;
    /* Raises the dynamic shared-memory limit of the shape's kernels on the
     * current device to at least bytes; never lowers it. */
    cudaError_t (*allow_smem)(size_t bytes);
    /* Queues the spectra of `filters` tap sets (d_taps, ntaps each) scaled
     * by 1/N, into d_spec, N points each, in the transforms' order. */
    cudaError_t (*spectrum)(const float *d_taps, size_t ntaps, unsigned filters,
                            unsigned log_n, const float2 *d_tw, float2 *d_spec,
                            cudaStream_t stream);
    /* Queues a convolution; its arguments are already checked. */
    cudaError_t (*run)(const gf_smfft_args *a, cudaStream_t stream);
} gf_smfft_shape;

extern const gf_smfft_shape gf_smfft_onepass, gf_smfft_fourstep;

/* Raises the dynamic shared-memory limit of each of count kernels on the
 * current device to at least bytes (smfft.cu). */
cudaError_t gf_smfft_raise_smem(const void *const *kernels, size_t count, size_t bytes);

#endif
