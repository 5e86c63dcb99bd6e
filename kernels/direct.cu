/*
 * direct.cu - gfir's own direct convolution kernel.
 *
 * Each thread computes R = 16 consecutive outputs. Taps are consumed K = 16 at
 * a time: the thread loads the R + K - 1 inputs that those outputs need into a
 * register window and does R * K fused multiply-adds from registers, so each
 * shared-memory load feeds about eight FMAs. The block (128 threads, 2048
 * outputs) stages its input tile and a segment of up to 2048 taps in shared
 * memory once; taps are read as broadcast float4s.
 *
 * Thread t's window starts at tile element 16 * t + m0, so a warp's loads are
 * 16 floats apart: a bank conflict on every load with a plain layout. The tile
 * is stored with rows of 16 padded to 17 (element i at i + i / 16), which puts
 * the 32 threads' loads in 32 different banks. Results go back through the
 * same padded tile so the global stores are coalesced.
 */
#include "textbook/textbook.cuh"

/*
 * R = K = 16 is what the padded rows of 16 + 1 are built on. THREADS and
 * SEG_MAX keep a block's shared memory (SEG_MAX taps and the padded tile of
 * BLOCK_OUT + SEG_MAX - 1 inputs: 25 KB) under the 48 KB a block gets without
 * opting in. None of them was swept; with them the kernel ran at 84-87% of
 * the FP32 FMA rate from 1023 taps up on an H100 (docs/BENCHMARKS.md, gpu
 * section), and gfir-bench --kernels direct times it.
 */
#define R 16                         /* outputs per thread */
#define K GF_TAP_STEP              /* taps per register step */
#define THREADS 128
#define BLOCK_OUT (THREADS * R)      /* outputs per block */
#define SEG_MAX 2048                 /* taps staged per segment */

__host__ __device__ __forceinline__ unsigned padded(unsigned i)
{
    return i + (i >> 4);
}

__global__ void __launch_bounds__(THREADS) direct_kernel(gf_conv_args a, unsigned seg_max)
{
    extern __shared__ float4 s_mem4[];
    float *s_h = reinterpret_cast<float *>(s_mem4);  /* seg_max taps */
    float *s_x = s_h + seg_max;                        /* padded input tile */
    const unsigned c = blockIdx.y, t = threadIdx.x;
    const size_t base = blockIdx.x * (size_t)BLOCK_OUT;
    /* a window: lead zeros, then avail samples (gf_conv_args) */
    const size_t lead = a.window ? a.lead : 0, avail = a.window ? a.avail : a.n + a.ntaps - 1;
    const float *__restrict__ x = a.d_x + c * a.x_stride;
    const float *__restrict__ h = gf_taps_of(a, c);
    const unsigned ntaps_padded = (unsigned)((a.ntaps + K - 1) / K * K);

    float acc[R];
#pragma unroll
    for (int r = 0; r < R; r++)
        acc[r] = 0.0f;

    for (unsigned s0 = 0; s0 < ntaps_padded; s0 += seg_max) {
        const unsigned seg = min(seg_max, ntaps_padded - s0);
        const unsigned tile = BLOCK_OUT + seg - 1;
        __syncthreads(); /* the previous segment is no longer read */
        for (unsigned j = t; j < seg; j += THREADS)
            s_h[j] = h[s0 + j]; /* zero beyond ntaps: device taps are padded */
        for (unsigned j = t; j < tile; j += THREADS) {
            /* below lead the index wraps past avail: a zero, as after the input */
            const size_t g = base + s0 + j - lead;
            s_x[padded(j)] = g < avail ? __ldg(x + g) : 0.0f;
        }
        __syncthreads();

#pragma unroll 1
        for (unsigned m0 = 0; m0 < seg; m0 += K) {
            /* Outputs 16t .. 16t+15 at taps m0 .. m0+15 need tile elements
             * 16t + m0 .. 16t + m0 + 30: padded rows t + m0/16 and the next. */
            const float *row = s_x + (t + (m0 >> 4)) * 17;
            float w[R + K - 1];
#pragma unroll
            for (int j = 0; j < 16; j++)
                w[j] = row[j];
#pragma unroll
            for (int j = 16; j < R + K - 1; j++)
                w[j] = row[17 + j - 16];
            float hk[K];
            const float4 *h4 = reinterpret_cast<const float4 *>(s_h + m0);
#pragma unroll
            for (int q = 0; q < K / 4; q++) {
                const float4 v = h4[q];
                hk[4 * q] = v.x;
                hk[4 * q + 1] = v.y;
                hk[4 * q + 2] = v.z;
                hk[4 * q + 3] = v.w;
            }
#pragma unroll
            for (int k = 0; k < K; k++)
#pragma unroll
                for (int r = 0; r < R; r++)
                    acc[r] = fmaf(hk[k], w[r + k], acc[r]);
        }
    }

    __syncthreads(); /* the tile becomes the output staging area */
#pragma unroll
    for (int r = 0; r < R; r++)
        s_x[t * 17 + r] = acc[r];
    __syncthreads();
    float *y = a.d_y + c * a.y_stride;
    for (unsigned j = t; j < BLOCK_OUT; j += THREADS)
        if (base + j < a.n)
            y[base + j] = s_x[padded(j)];
}

extern "C" cudaError_t gf_launch_direct(const gf_conv_args *a, cudaStream_t stream)
{
    const size_t need = !a || !a->window ? (a ? a->n + a->ntaps - 1 : 0)
                        : a->channels > 1 ? a->avail : 0; /* one row has no pitch */
    cudaError_t e = gf_check_shape(a, need);
    if (e != cudaSuccess || a->n == 0)
        return e;
    const size_t ntaps_padded = (a->ntaps + K - 1) / K * K;
    const unsigned seg_max = (unsigned)(ntaps_padded < SEG_MAX ? ntaps_padded : SEG_MAX);
    /* taps, then the tile of BLOCK_OUT + seg_max - 1 elements in padded rows */
    const size_t smem = (seg_max + padded(BLOCK_OUT + seg_max) + 1) * sizeof(float);
    dim3 grid((unsigned)((a->n + BLOCK_OUT - 1) / BLOCK_OUT), a->channels);
    direct_kernel<<<grid, THREADS, smem, stream>>>(*a, seg_max);
    return cudaGetLastError();
}
