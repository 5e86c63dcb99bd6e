/*
 * fdl.cu - the kernels of the low-latency partitioned engine (fdl.h).
 *
 * Transforms are radix-2, in shared memory, of n = 2B complex points (the
 * real window as real parts): at most 4096 points, 32 KB, one thread block
 * per input or output. Twiddles come from a table made in double on the host,
 * since these kernels build with --use_fast_math, whose sincos is coarse.
 * Complex-to-complex transforms of real data do twice the arithmetic of a
 * real transform, which costs nothing that shows: per block, an engine does
 * one forward transform per input and one inverse per output, against a
 * multiply-accumulate over every partition of every path.
 */
#include "fdl/fdl.h"

#define FFT_THREADS 256
#define HEAD_THREADS 128
#define MAC_THREADS 256
#define GRID_Y_MAX 65535u

static __device__ __forceinline__ float2 cmul(float2 a, float2 b)
{
    return make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

static __device__ __forceinline__ unsigned bitrev(unsigned k, unsigned log_n)
{
    return __brev(k) >> (32 - log_n);
}

/* In place over n = 2^log_n points that the caller has stored in bit-reversed
 * order: log_n butterfly stages, decimation in time. tw holds n / 2 twiddles
 * e^(-2 pi i k / n); the inverse uses their conjugates and does not scale. */
static __device__ void fft_stages(float2 *buf, unsigned log_n, const float2 *__restrict__ tw,
                                  bool inverse)
{
    const unsigned n = 1u << log_n;
    for (unsigned s = 1; s <= log_n; s++) {
        const unsigned half = 1u << (s - 1), step = n >> s;
        for (unsigned t = threadIdx.x; t < n / 2; t += blockDim.x) {
            const unsigned pos = t & (half - 1);
            const unsigned i = ((t >> (s - 1)) << s) + pos, j = i + half;
            float2 w = tw[pos * step];
            if (inverse)
                w.y = -w.y;
            const float2 a = buf[i], b = cmul(buf[j], w);
            buf[i] = make_float2(a.x + b.x, a.y + b.y);
            buf[j] = make_float2(a.x - b.x, a.y - b.y);
        }
        __syncthreads();
    }
}

/* Bins 0..B-1 of a transform of real data, DC and Nyquist (both real)
 * sharing bin 0. */
static __device__ void store_packed(const float2 *buf, size_t part, float2 *dst)
{
    for (unsigned k = threadIdx.x; k < part; k += blockDim.x)
        dst[k] = k ? buf[k] : make_float2(buf[0].x, buf[part].x);
}

static unsigned log2_of(size_t n)
{
    unsigned l = 0;
    while (((size_t)1 << l) < n)
        l++;
    return l;
}

static bool valid_part(size_t part)
{
    return part >= GF_FDL_MIN_PART && part <= GF_FDL_MAX_PART && !(part & (part - 1));
}

/* ---- filter spectra, at create ----------------------------------------- */

__global__ void spectra_kernel(const float *__restrict__ taps, size_t stride, size_t len,
                               unsigned sets, size_t part, unsigned log_n,
                               const float2 *__restrict__ tw, float2 *__restrict__ h,
                               size_t tparts)
{
    extern __shared__ float2 buf[];
    const size_t j = blockIdx.x + 1; /* partitions 1..tparts: taps j*B .. j*B + B - 1 */
    const unsigned n = 2 * (unsigned)part;
    const float scale = 1.0f / (float)n; /* the inverse does not scale */
    for (unsigned s = blockIdx.y; s < sets; s += gridDim.y) {
        const float *src = taps + (size_t)s * stride;
        for (unsigned k = threadIdx.x; k < n; k += blockDim.x) {
            const size_t g = j * part + k;
            const float v = k < part && g < len ? src[g] * scale : 0.0f;
            buf[bitrev(k, log_n)] = make_float2(v, 0.0f);
        }
        __syncthreads();
        fft_stages(buf, log_n, tw, false);
        store_packed(buf, part, h + ((size_t)s * tparts + (j - 1)) * part);
        __syncthreads();
    }
}

extern "C" cudaError_t gf_launch_fdl_spectra(const float *d_taps, size_t stride, size_t skip,
                                             size_t len, unsigned sets, size_t part,
                                             size_t tparts, const float2 *d_tw, float2 *d_h,
                                             cudaStream_t stream)
{
    if (!d_taps || !d_tw || !d_h || !valid_part(part) || sets == 0 || tparts == 0 ||
        tparts > 0x7fffffff || len <= part || skip + len > stride)
        return cudaErrorInvalidValue;
    dim3 grid((unsigned)tparts, sets < GRID_Y_MAX ? sets : GRID_Y_MAX);
    spectra_kernel<<<grid, FFT_THREADS, 2 * part * sizeof(float2), stream>>>(
        d_taps + skip, stride, len, sets, part, log2_of(2 * part), d_tw, d_h, tparts);
    return cudaGetLastError();
}

/* ---- per call ---------------------------------------------------------- */

/* One thread a sample, in the input's interleaved order, so consecutive
 * threads read consecutive words: one transaction a warp, also where `in`
 * is mapped host memory that the reads cross the bus for. */
__global__ void stage_kernel(const float *__restrict__ in, unsigned inputs, size_t n,
                             float *__restrict__ xw, size_t part, size_t pos, int parity,
                             gf_fdl_at at)
{
    const size_t j = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (j >= n * inputs)
        return;
    const size_t i = j / inputs;
    const unsigned c = (unsigned)(j - i * inputs);
    if (at.pos)
        pos = *at.pos;
    if (at.parity)
        parity = (int)*at.parity;
    xw[((size_t)c * 2 + parity) * part + pos + i] = in ? in[j] : 0.0f;
}

extern "C" cudaError_t gf_launch_fdl_stage(const float *d_in, unsigned inputs, size_t n,
                                           float *d_xw, size_t part, size_t pos, int parity,
                                           gf_fdl_at at, cudaStream_t stream)
{
    if (!d_xw || inputs == 0 || inputs > GRID_Y_MAX || !valid_part(part) || pos + n > part)
        return cudaErrorInvalidValue;
    if (n == 0)
        return cudaSuccess;
    const size_t samples = n * inputs;
    stage_kernel<<<(unsigned)((samples + HEAD_THREADS - 1) / HEAD_THREADS), HEAD_THREADS, 0,
                   stream>>>(d_in, inputs, n, d_xw, part, pos, parity, at);
    return cudaGetLastError();
}

/* Thread i of output o: frame pos + i of the current block. Frame t of the
 * block sees input t - k of the current half for k <= t, and of the previous
 * half (its frame B + t - k) beyond. Consecutive threads read consecutive
 * inputs; every thread of a block reads the same tap. */
__global__ void head_kernel(const float *__restrict__ xw, const float *__restrict__ head,
                           const float *__restrict__ tail, gf_fdl_ring far, gf_fdl_paths p,
                           unsigned outputs, size_t part, size_t head_len, size_t pos, size_t n,
                           int parity, gf_fdl_at at, float *__restrict__ out)
{
    const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    const unsigned o = blockIdx.y;
    if (i >= n)
        return;
    if (at.pos)
        pos = *at.pos;
    if (at.parity)
        parity = (int)*at.parity;
    const size_t t = pos + i;
    float acc = tail[(size_t)o * part + t];
    if (far.buf) {
        const size_t at_far = far.at.pos ? *far.at.parity * (far.len / 2) + *far.at.pos : far.pos;
        acc += far.buf[(size_t)o * far.len + (at_far + i) % far.len];
    }
    for (unsigned q = p.out_start[o]; q < p.out_start[o + 1]; q++) {
        const float *h = head + (size_t)p.set[q] * part;
        const float *cur = xw + ((size_t)p.input[q] * 2 + parity) * part;
        const float *prev = xw + ((size_t)p.input[q] * 2 + (parity ^ 1)) * part;
        const size_t near = t + 1 < head_len ? t + 1 : head_len;
        float sum = 0.0f;
        for (size_t k = 0; k < near; k++)
            sum = fmaf(h[k], cur[t - k], sum);
        for (size_t k = near; k < head_len; k++)
            sum = fmaf(h[k], prev[part + t - k], sum);
        acc = fmaf(p.gain[q], sum, acc);
    }
    out[i * outputs + o] = acc;
}

extern "C" cudaError_t gf_launch_fdl_head(const float *d_xw, const float *d_head,
                                          const float *d_tail, gf_fdl_ring far,
                                          gf_fdl_paths paths, unsigned outputs, size_t part,
                                          size_t head_len, size_t pos, size_t n, int parity,
                                          gf_fdl_at at, float *d_out, cudaStream_t stream)
{
    if (!d_xw || !d_head || !d_tail || !d_out || !paths.out_start || outputs == 0 ||
        outputs > GRID_Y_MAX || !valid_part(part) || head_len == 0 || head_len > part ||
        pos + n > part || (far.buf && (far.len < n || far.pos >= far.len)) ||
        (far.at.pos && !far.at.parity))
        return cudaErrorInvalidValue;
    if (n == 0)
        return cudaSuccess;
    dim3 grid((unsigned)((n + HEAD_THREADS - 1) / HEAD_THREADS), outputs);
    head_kernel<<<grid, HEAD_THREADS, 0, stream>>>(d_xw, d_head, d_tail, far, paths, outputs,
                                                    part, head_len, pos, n, parity, at, d_out);
    return cudaGetLastError();
}

/* One block per input: its window, previous half then current, forward. */
__global__ void forward_kernel(const float *__restrict__ xw, size_t part, unsigned log_n,
                               int parity, const float2 *__restrict__ tw, float2 *__restrict__ x,
                               size_t ring, size_t slot, gf_fdl_at at)
{
    extern __shared__ float2 buf[];
    if (at.parity)
        parity = (int)*at.parity;
    if (at.slot)
        slot = *at.slot;
    const unsigned c = blockIdx.x;
    const unsigned n = 2 * (unsigned)part;
    const float *prev = xw + ((size_t)c * 2 + (parity ^ 1)) * part;
    const float *cur = xw + ((size_t)c * 2 + parity) * part;
    for (unsigned k = threadIdx.x; k < n; k += blockDim.x)
        buf[bitrev(k, log_n)] = make_float2(k < part ? prev[k] : cur[k - part], 0.0f);
    __syncthreads();
    fft_stages(buf, log_n, tw, false);
    store_packed(buf, part, x + ((size_t)c * ring + slot) * part);
}

extern "C" cudaError_t gf_launch_fdl_forward(const float *d_xw, unsigned inputs, size_t part,
                                             int parity, const float2 *d_tw, float2 *d_x,
                                             size_t ring, size_t slot, gf_fdl_at at,
                                             cudaStream_t stream)
{
    if (!d_xw || !d_tw || !d_x || inputs == 0 || !valid_part(part) || slot >= ring)
        return cudaErrorInvalidValue;
    forward_kernel<<<inputs, FFT_THREADS, 2 * part * sizeof(float2), stream>>>(
        d_xw, part, log2_of(2 * part), parity, d_tw, d_x, ring, slot, at);
    return cudaGetLastError();
}

/*
 * Thread k of (chunk c, output o): bin k of sum_paths gain * sum_j H_j X_(j-1
 * windows back), over the chunk's partitions. A warp reads 32 consecutive
 * bins of one partition of H and of X: coalesced, each byte read once per
 * block. Bin 0 holds two real values (DC, Nyquist), multiplied apart.
 */
__global__ void mac_kernel(const float2 *__restrict__ x, const float2 *__restrict__ h,
                           gf_fdl_paths p, size_t part, size_t tparts, size_t ring,
                           size_t newest, size_t per_chunk, size_t chunks, gf_fdl_at at,
                           float2 *__restrict__ partial)
{
    const size_t k = blockIdx.z * (size_t)blockDim.x + threadIdx.x;
    const unsigned o = blockIdx.y;
    const size_t c = blockIdx.x;
    if (k >= part)
        return;
    if (at.slot)
        newest = *at.slot;
    const size_t first = c * per_chunk; /* partition index j - 1 */
    const size_t last = first + per_chunk < tparts ? first + per_chunk : tparts;
    float ar = 0.0f, ai = 0.0f;
    for (unsigned q = p.out_start[o]; q < p.out_start[o + 1]; q++) {
        const float2 *hs = h + (size_t)p.set[q] * tparts * part + k;
        const float2 *xs = x + (size_t)p.input[q] * ring * part + k;
        size_t slot = newest >= first ? newest - first : newest + ring - first;
        float pr = 0.0f, pi = 0.0f;
        if (k) {
            for (size_t j = first; j < last; j++) {
                const float2 hv = hs[j * part], xv = xs[slot * part];
                pr = fmaf(hv.x, xv.x, fmaf(-hv.y, xv.y, pr));
                pi = fmaf(hv.x, xv.y, fmaf(hv.y, xv.x, pi));
                slot = slot ? slot - 1 : ring - 1;
            }
        } else {
            for (size_t j = first; j < last; j++) {
                const float2 hv = hs[j * part], xv = xs[slot * part];
                pr = fmaf(hv.x, xv.x, pr);
                pi = fmaf(hv.y, xv.y, pi);
                slot = slot ? slot - 1 : ring - 1;
            }
        }
        ar = fmaf(p.gain[q], pr, ar);
        ai = fmaf(p.gain[q], pi, ai);
    }
    partial[((size_t)o * chunks + c) * part + k] = make_float2(ar, ai);
}

extern "C" cudaError_t gf_launch_fdl_mac(const float2 *d_x, const float2 *d_h, gf_fdl_paths paths,
                                         unsigned outputs, size_t part, size_t tparts,
                                         size_t ring, size_t newest, size_t per_chunk,
                                         size_t chunks, gf_fdl_at at, float2 *d_partial,
                                         cudaStream_t stream)
{
    if (!d_x || !d_h || !d_partial || !paths.out_start || outputs == 0 ||
        outputs > GRID_Y_MAX || !valid_part(part) || tparts == 0 || ring < tparts ||
        newest >= ring ||
        per_chunk == 0 || chunks == 0 || chunks > 0x7fffffff ||
        (chunks - 1) * per_chunk >= tparts || chunks * per_chunk < tparts)
        return cudaErrorInvalidValue;
    const unsigned threads = part < MAC_THREADS ? (unsigned)part : MAC_THREADS;
    dim3 grid((unsigned)chunks, outputs, (unsigned)((part + threads - 1) / threads));
    mac_kernel<<<grid, threads, 0, stream>>>(d_x, d_h, paths, part, tparts, ring, newest,
                                             per_chunk, chunks, at, d_partial);
    return cudaGetLastError();
}

/* One block per output: the chunks summed in a fixed order (so every run
 * gives the same bits), the full Hermitian spectrum rebuilt from the packed
 * bins in bit-reversed order, inverse, and the window's last B samples. */
__global__ void inverse_kernel(const float2 *__restrict__ partial, size_t part, unsigned log_n,
                               size_t chunks, const float2 *__restrict__ tw,
                               float *__restrict__ tail, size_t stride)
{
    extern __shared__ float2 buf[];
    const unsigned o = blockIdx.x;
    const unsigned n = 2 * (unsigned)part;
    const float2 *src = partial + (size_t)o * chunks * part;
    for (unsigned k = threadIdx.x; k < part; k += blockDim.x) {
        float2 y = src[k];
        for (size_t c = 1; c < chunks; c++) {
            const float2 v = src[c * part + k];
            y.x += v.x;
            y.y += v.y;
        }
        if (k == 0) {
            buf[0] = make_float2(y.x, 0.0f);                            /* DC */
            buf[bitrev((unsigned)part, log_n)] = make_float2(y.y, 0.0f); /* Nyquist */
        } else {
            buf[bitrev(k, log_n)] = y;
            buf[bitrev(n - k, log_n)] = make_float2(y.x, -y.y);
        }
    }
    __syncthreads();
    fft_stages(buf, log_n, tw, true);
    for (unsigned i = threadIdx.x; i < part; i += blockDim.x)
        tail[(size_t)o * stride + i] = buf[part + i].x;
}

extern "C" cudaError_t gf_launch_fdl_inverse(const float2 *d_partial, unsigned outputs,
                                             size_t part, size_t chunks, const float2 *d_tw,
                                             float *d_tail, size_t stride, cudaStream_t stream)
{
    if (!d_partial || !d_tw || !d_tail || outputs == 0 || !valid_part(part) || chunks == 0 ||
        stride < part)
        return cudaErrorInvalidValue;
    inverse_kernel<<<outputs, FFT_THREADS, 2 * part * sizeof(float2), stream>>>(
        d_partial, part, log2_of(2 * part), chunks, d_tw, d_tail, stride);
    return cudaGetLastError();
}

/* ---- a replayed block's clock ------------------------------------------ */

/* One thread: the clock past one block of B frames (fdl.h). */
__global__ void tick_kernel(gf_fdl_clock *clock, size_t part, size_t near_ring, size_t far_part)
{
    clock->parity ^= 1u;
    clock->newest = clock->newest + 1 == near_ring ? 0u : clock->newest + 1;
    if (far_part) {
        clock->far_pos += (unsigned)part;
        if (clock->far_pos == far_part) {
            clock->far_pos = 0;
            clock->far_parity ^= 1u;
        }
    }
}

extern "C" cudaError_t gf_launch_fdl_tick(gf_fdl_clock *d_clock, size_t part, size_t near_ring,
                                          size_t far_part, cudaStream_t stream)
{
    if (!d_clock || !valid_part(part) || near_ring == 0 || (far_part && far_part % part))
        return cudaErrorInvalidValue;
    tick_kernel<<<1, 1, 0, stream>>>(d_clock, part, near_ring, far_part);
    return cudaGetLastError();
}
