/*
 * fft.cu - overlap-save FFT convolution on the device with cuFFT.
 *
 * A block's planar input (channel c: ntaps - 1 halo samples, then n new ones)
 * is exactly what overlap-save reads. With FFT size N and hop L = N - (ntaps - 1),
 * segment s of channel c is x_c[sL .. sL + N); its circular convolution with
 * the taps equals the linear one at indices ntaps - 1 .. N - 1, which hold
 * the outputs sL .. sL + L - 1. Everything stays on the engine's stream:
 *
 *   gather    segments into rows of N + 2 floats, zeros past the input, so an
 *             in-place R2C can fill each row with its N/2 + 1 bins (cuFFT
 *             can read overlapping segments straight from the input, with
 *             the hop as batch distance, but on an H100 that R2C took 1.6 to
 *             2.4 times as long as this copy and an in-place one together);
 *   R2C       in place, one batch over segments x channels;
 *   multiply  by the filter's spectrum, made once at create from taps already
 *             scaled by 1/N (exact: N is a power of two), so no later pass
 *             has to undo cuFFT's unnormalised inverse;
 *   C2R       in place;
 *   extract   the L valid samples of each row to the output, planar or
 *             interleaved: dropping the wrapped samples rides on the pass that
 *             writes the caller's layout, which is needed anyway.
 *
 * Long filters over long blocks are partitioned instead (below): the same
 * passes, with a multiply-accumulate over the partitions in place of the
 * multiply. Whole filters of up to 2^22 points skip all of this for our own
 * transforms in shared memory (fftconv.cu: one kernel up to 8192 points,
 * three above), unless the engine is made with GF_FFT_CUFFT_ONLY.
 *
 * Rows are segment-major (row = s * channels + c), so the first S segments of
 * every channel are one contiguous prefix: an engine holds plans for batches
 * of 1, 2, 4, ... rows and for its maximum, and S rows run the smallest that
 * covers S (nobody reads the extra rows' output). So a short call costs at
 * most twice its need, and every transform is a single cuFFT call.
 *
 * No cuFFT callbacks. Commit 31479aa had them: the gather as the R2C's load
 * callback, the multiply as its store callback and the extract as the C2R's
 * store callback, compiled to LTO-IR and linked by cufftXtSetJITCallback,
 * which would leave two passes over the data instead of five. On an H100
 * with CUDA 13.0 (gfir-bench --kernels fft,fft-cb-gmx,fft-cb-g,fft-cb-m,
 * fft-cb-x --taps 1023,65535 --no-host at that commit, 2 x 2^24 samples)
 * every callback made the engine slower: 1023 taps 0.624 ms with the passes,
 * 0.72 with all three callbacks, 0.70 with the multiply alone (which saves a
 * whole pass); 65535 taps (P = 8192) 0.99 ms, 1.47 with gather and extract.
 * A plan with any callback runs other, slower kernels, and took 0.7 to 7.8 s
 * to make instead of about 15 ms. So the passes stay.
 *
 * libcufft is opened when the first filter spectrum is made, not linked:
 * it is a library of some 280 MB, and loading it at start-up cost every run
 * of a program using libgfir, CPU-only ones included, about 8 MB of resident
 * memory and its load time.
 */
#include "kernels.h"

#include <cufft.h>
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The FFT size rule. A transform pair of N points yields L = N - ntaps + 1
 * outputs, so the cost per output is about N log N / L: larger N wastes less
 * on the overlap, smaller N keeps each transform inside cuFFT's fast sizes and
 * the buffers small. Measured on an H100 (gfir-bench --fft-sizes, 2 x 2^24
 * samples on the device, 2026-11-22), the fastest N per filter length was:
 *   1023 taps: 16384 (0.62 ms; 4096 took 0.71)   4095: 16384 (0.73)
 *   16383: 65536 (0.95)   65535: 524288 or 2^20 (1.49; 262144 took 1.71)
 *   262143: 2^20 (1.75; 524288 took 2.41)
 * hence N >= 4 * ntaps up to 16384 taps and >= 8 * ntaps above, never below
 * 16384, and no larger than 2^20 unless the filter needs it (N > ntaps).
 * That was cuFFT's. fftconv.cu's own transforms now take every whole filter
 * up to N = 2^22: one kernel up to 2048 taps, never below FFT_FUSED_MIN; its
 * fastest N, same command and machine (the cuFFT passes' best in brackets):
 *   255 taps: 2048 (0.327 ms; 1024 0.345, 4096 0.359)   [16384: 0.60]
 *   1023 taps: 4096 (0.430; 2048 0.529, 8192 0.526)      [16384: 0.62]
 * Above 2048 taps its four steps (2026-11-23, a RelWithDebInfo build with
 * one float2 of shared-memory padding per 8 points; gpu.sh has the final
 * code's figures at the sizes this rule picks):
 *   2500 taps: 131072 0.66 ms, 65536 0.69, 262144 0.70   [32768: 0.71]
 *   4095: 65536 or 131072 0.69, 262144 0.69, 32768 0.71  [16384: 0.73]
 *   16383: 131072 0.73, 262144 0.74, 65536 0.82          [65536: 0.97]
 *   65535: 262144 0.86, 524288 0.90, 131072 1.15         [2^20: 1.49]
 *   262143: 2^20 1.10, 2^21 1.09, 2^19 1.39              [2^21: 1.63]
 * so N is 4 ntaps, but at least FFT_FS_MIN. Filters too long for 2^22
 * points go to cuFFT at 2 ntaps.
 *   FFT_SMALLEST    the floor when a block is tiny (a live callback).
 * Never more than one segment covering the whole block needs, so small blocks
 * with few taps do not transform mostly zeros. gfir-bench --fft-size
 * overrides the rule, --fft-sizes sweeps it.
 */
#define FFT_ONE_TAPS 2048
#define FFT_FUSED_MIN 2048
#define FFT_FS_MIN ((size_t)1 << 17)
#define FFT_SMALLEST 32
#define FFT_MAX_PLANS 40
#define THREADS 256
#define GRID_Y_MAX 65535

static size_t pow2_at_least(size_t v)
{
    size_t p = 1;
    while (p < v)
        p <<= 1;
    return p;
}

extern "C" size_t gf_fft_size(size_t ntaps, size_t max_n)
{
    size_t want;
    if (ntaps <= FFT_ONE_TAPS) { /* fftconv.cu's one kernel */
        want = pow2_at_least(4 * ntaps);
        want = want < FFT_FUSED_MIN ? FFT_FUSED_MIN : want;
    } else { /* its four steps: 4 ntaps, at least FFT_FS_MIN */
        want = pow2_at_least(4 * ntaps);
        want = want > FFT_FS_MIN ? want : FFT_FS_MIN;
        if (want > GF_FFTCONV_MAX) /* the longest filters: cuFFT, or 2 ntaps */
            want = pow2_at_least(2 * ntaps) > GF_FFTCONV_MAX ? pow2_at_least(2 * ntaps)
                                                               : GF_FFTCONV_MAX;
    }
    size_t whole = pow2_at_least(ntaps - 1 + (max_n ? max_n : 1));
    if (whole < FFT_SMALLEST)
        whole = FFT_SMALLEST;
    return want < whole ? want : whole;
}

/*
 * Partitioned overlap-save, for long filters over long blocks. The taps are
 * cut into parts of P taps (the last zero-padded) and every transform has
 * N = 2P points: segment s of a channel is the 2P samples starting at
 * sP - front of its row (zeros before the row), and output block j (outputs
 * jP .. jP + P - 1) is
 *     Y_j = sum_p H_p X_{j + parts - 1 - p},
 * whose inverse transform holds the block at columns P .. 2P - 1. front is
 * parts * P - (ntaps - 1), the samples before the halo, which only ever meet
 * zero taps. Each input spectrum is made once and used by `parts` output
 * blocks, so a long filter costs transforms of 2P points and a
 * multiply-accumulate over the parts, instead of transforms of several times
 * ntaps points.
 *
 * The partition rule, measured on an H100 (gfir-bench --fft-parts, 2 x 2^24
 * samples on the device, 2026-11-22; ms, against the best whole size):
 *   16383 taps: P = 4096 or 8192 0.95, whole 0.95 (so it stays whole)
 *   65535:  P = 8192 0.98 (4096: 1.02, 16384: 1.10), whole 1.48
 *   262143: P = 8192 1.15 (16384: 1.17, 4096: 1.43), whole 1.76
 *   1048575: P = 32768 1.55 (16384: 1.63, 8192: 2.07, 65536: 2.60)
 * hence P = 8192, doubled until at most FFT_MAX_PARTS partitions hold the
 * taps (the multiply-accumulate grows with the partitions, the transforms'
 * cost per sample with log P), from FFT_PART_MIN_TAPS taps on, and only for
 * blocks of at least P frames: a shorter block would transform a partition's
 * worth of input spectra per call for few outputs. Blocks of at least
 * FFT_WHOLE_BLOCKS times the filter stay whole in fftconv.cu's four steps,
 * which beat the partitions there (65535 taps: 0.86 ms against 0.99;
 * 262143: 1.10 against 1.16, same command, 2026-11-23).
 */
#define FFT_PART 8192
#define FFT_PART_MIN_TAPS 32768
#define FFT_MAX_PARTS 32
#define FFT_WHOLE_BLOCKS 4

extern "C" size_t gf_fft_part(size_t ntaps, size_t max_n)
{
    size_t part = FFT_PART;
    while (part * FFT_MAX_PARTS < ntaps)
        part *= 2;
    if (ntaps < FFT_PART_MIN_TAPS || max_n < part)
        return 0;
    /* blocks long beside the filter: whole, in fftconv.cu's four steps */
    if (max_n / FFT_WHOLE_BLOCKS >= ntaps && gf_fftconv_fits(gf_fft_size(ntaps, max_n)))
        return 0;
    return part;
}

struct gf_fft_filter {
    size_t fft_size;
    size_t ntaps;
    size_t part;     /* taps per partition, fft_size / 2; 0 when the filter is whole */
    size_t parts;    /* partitions per tap set (1 when whole) */
    size_t front;    /* zeros before each row's halo in segment 0 (partitioned only) */
    unsigned filters;
    float2 *d_spec;  /* filters * parts rows of fft_size / 2 + 1 bins */
    float2 *d_fc_spec, *d_fc_tw; /* fftconv.cu's spectra and twiddles, or NULL */
};

/* A batched transform, in place, of `count` rows of every channel. */
struct fft_plan {
    size_t count;
    cufftHandle h;
};

struct gf_fft_engine {
    const gf_fft_filter *f;
    unsigned channels;
    size_t hop;       /* new samples per segment */
    size_t max_n;
    size_t max_segs;  /* input segments per channel for max_n frames */
    size_t max_rows;  /* output rows per channel for max_n frames */
    cudaStream_t stream;
    int fused;        /* fftconv.cu's transforms: no cuFFT plans or buffers */
    float2 *d_fc_work; /* their work area above GF_FFTCONV_ONE_MAX points */
    float *d_in;      /* partitioned: max_segs * channels rows of fft_size + 2 floats */
    float *d_buf;     /* max_rows * channels rows of fft_size + 2 floats */
    void *d_work;     /* cuFFT's work area, shared by this engine's plans */
    int n_r2c, n_c2r;
    fft_plan r2c[FFT_MAX_PLANS], c2r[FFT_MAX_PLANS];
};

/* The cuFFT entry points fft.cu uses, from the library opened at run time. */
struct cufft_api {
    int ok;
    char error[192];
    cufftResult (*create)(cufftHandle *);
    cufftResult (*destroy)(cufftHandle);
    cufftResult (*set_auto_allocation)(cufftHandle, int);
    cufftResult (*make_plan_many64)(cufftHandle, int, long long *, long long *, long long,
                                    long long, long long *, long long, long long, cufftType,
                                    long long, size_t *);
    cufftResult (*set_stream)(cufftHandle, cudaStream_t);
    cufftResult (*set_work_area)(cufftHandle, void *);
    cufftResult (*exec_r2c)(cufftHandle, cufftReal *, cufftComplex *);
    cufftResult (*exec_c2r)(cufftHandle, cufftComplex *, cufftReal *);
};

#define STRINGIFY_(x) #x
#define STRINGIFY(x) STRINGIFY_(x)
/* The soname of the cuFFT these headers describe: through the loader's
 * search path first, then where the CUDA toolkit installs it. */
static const char *const cufft_paths[] = {
    "libcufft.so." STRINGIFY(CUFFT_VER_MAJOR),
    "/usr/local/cuda/lib64/libcufft.so." STRINGIFY(CUFFT_VER_MAJOR),
};

static cufft_api load_cufft(void)
{
    cufft_api a;
    memset(&a, 0, sizeof a);
    void *lib = NULL;
    for (size_t i = 0; !lib && i < sizeof cufft_paths / sizeof cufft_paths[0]; i++)
        lib = dlopen(cufft_paths[i], RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *err = dlerror();
        snprintf(a.error, sizeof a.error, "cannot load cuFFT (%s): %s", cufft_paths[0],
                 err ? err : "not found");
        return a;
    }
    /* never closed: plans and their kernels live as long as any plan does */
    struct {
        void **slot;
        const char *name;
    } syms[] = {
        {(void **)&a.create, "cufftCreate"},
        {(void **)&a.destroy, "cufftDestroy"},
        {(void **)&a.set_auto_allocation, "cufftSetAutoAllocation"},
        {(void **)&a.make_plan_many64, "cufftMakePlanMany64"},
        {(void **)&a.set_stream, "cufftSetStream"},
        {(void **)&a.set_work_area, "cufftSetWorkArea"},
        {(void **)&a.exec_r2c, "cufftExecR2C"},
        {(void **)&a.exec_c2r, "cufftExecC2R"},
    };
    for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
        *syms[i].slot = dlsym(lib, syms[i].name);
        if (!*syms[i].slot) {
            snprintf(a.error, sizeof a.error, "%s has no %s", cufft_paths[0], syms[i].name);
            return a;
        }
    }
    a.ok = 1;
    return a;
}

/* Opened once per process: C++ initialises a function's static exactly once,
 * whichever thread gets here first. Only reached through a filter that
 * loaded it successfully, except in gf_fft_filter_create, which checks ok. */
static const cufft_api &cufft(void)
{
    static const cufft_api api = load_cufft();
    return api;
}

static void say(char *why, size_t len, const char *fmt, ...)
{
    if (!why || !len)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, len, fmt, ap);
    va_end(ap);
}

static const char *cufft_name(cufftResult r)
{
    switch (r) {
    case CUFFT_SUCCESS: return "CUFFT_SUCCESS";
    case CUFFT_INVALID_PLAN: return "CUFFT_INVALID_PLAN";
    case CUFFT_ALLOC_FAILED: return "CUFFT_ALLOC_FAILED";
    case CUFFT_INVALID_TYPE: return "CUFFT_INVALID_TYPE";
    case CUFFT_INVALID_VALUE: return "CUFFT_INVALID_VALUE";
    case CUFFT_INTERNAL_ERROR: return "CUFFT_INTERNAL_ERROR";
    case CUFFT_EXEC_FAILED: return "CUFFT_EXEC_FAILED";
    case CUFFT_SETUP_FAILED: return "CUFFT_SETUP_FAILED";
    case CUFFT_INVALID_SIZE: return "CUFFT_INVALID_SIZE";
    case CUFFT_UNALIGNED_DATA: return "CUFFT_UNALIGNED_DATA";
    case CUFFT_INVALID_DEVICE: return "CUFFT_INVALID_DEVICE";
    case CUFFT_NO_WORKSPACE: return "CUFFT_NO_WORKSPACE";
    case CUFFT_NOT_IMPLEMENTED: return "CUFFT_NOT_IMPLEMENTED";
    case CUFFT_NOT_SUPPORTED: return "CUFFT_NOT_SUPPORTED";
    default: return "cuFFT error";
    }
}

static gfir_status cufft_fail(cufftResult r, const char *call, char *why, size_t len)
{
    say(why, len, "%s: %s (%d)", call, cufft_name(r), (int)r);
    return r == CUFFT_ALLOC_FAILED ? GFIR_ERR_NOMEM : GFIR_ERR_DEVICE;
}

static gfir_status cuda_fail(cudaError_t e, const char *call, char *why, size_t len)
{
    say(why, len, "%s: %s", call, cudaGetErrorString(e));
    /* a failed cudaMalloc stays readable once: clear it, or the next launch's
     * cudaGetLastError() would report it against an innocent kernel */
    cudaGetLastError();
    return e == cudaErrorMemoryAllocation ? GFIR_ERR_NOMEM : GFIR_ERR_DEVICE;
}

#define CUFFT_TRY(call, name)                                                              \
    do {                                                                                   \
        cufftResult r_ = (call);                                                           \
        if (r_ != CUFFT_SUCCESS)                                                           \
            return cufft_fail(r_, name, why, why_len);                                     \
    } while (0)

#define CUDA_TRY(call)                                                                     \
    do {                                                                                   \
        cudaError_t e_ = (call);                                                           \
        if (e_ != cudaSuccess)                                                             \
            return cuda_fail(e_, #call, why, why_len);                                     \
    } while (0)

/* A batched 1-D transform of n points: batch b reads from idist * b and
 * writes to odist * b (in elements of its own type, unit stride). The plan is
 * configured but gets no work area when auto_alloc is 0. */
static cufftResult make_plan(cufftHandle h, cufftType type, size_t n, size_t batch,
                             size_t idist, size_t odist, int auto_alloc, size_t *work)
{
    long long size[1] = {(long long)n};
    long long in_embed[1] = {(long long)(type == CUFFT_R2C ? n : n / 2 + 1)};
    long long out_embed[1] = {(long long)(type == CUFFT_R2C ? n / 2 + 1 : n)};
    cufftResult r = cufft().set_auto_allocation(h, auto_alloc);
    if (r != CUFFT_SUCCESS)
        return r;
    return cufft().make_plan_many64(h, 1, size, in_embed, 1, (long long)idist, out_embed, 1,
                                    (long long)odist, type, (long long)batch, work);
}

/* ---- kernels ------------------------------------------------------------ */

/* Thread j of segment s copies sample s*hop + j - front of every channel into
 * column j of that channel's row (s * channels + c), zeros outside the
 * input's avail samples: reads and writes coalesced per channel. */
__global__ void gather_kernel(const float *__restrict__ x, size_t x_stride, size_t avail,
                              size_t front, float *__restrict__ buf, size_t n_fft, size_t hop,
                              size_t segs, unsigned channels)
{
    const size_t j = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (j >= n_fft)
        return;
    for (size_t s = blockIdx.y; s < segs; s += gridDim.y) {
        const size_t g = s * hop + j - front; /* wraps past zero when before the row */
        float *row = buf + s * channels * (n_fft + 2) + j;
        for (unsigned c = 0; c < channels; c++)
            row[c * (n_fft + 2)] = g < avail ? x[c * x_stride + g] : 0.0f;
    }
}

/* Partitioned multiply-accumulate: thread k of (block run, channel c) makes
 * bin k of output blocks j0 .. j0 + MAC_RUN - 1, Y_j = sum_q H_{parts-1-q}
 * X_{j+q}, sliding a window of MAC_RUN input spectra along q in registers:
 * per step one input load and one filter load serve MAC_RUN outputs. Input
 * and output rows are segment-major, (s * channels + c) of bins, s < segs. */
#ifndef GF_MAC_RUN
#define GF_MAC_RUN 16
#endif
#define MAC_RUN GF_MAC_RUN
__global__ void mac_kernel(const float2 *__restrict__ x, size_t segs,
                           const float2 *__restrict__ spec, size_t parts, size_t bins,
                           size_t blocks, unsigned channels, int shared,
                           float2 *__restrict__ y)
{
    const size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (k >= bins)
        return;
    const unsigned c = blockIdx.z;
    const float2 *xc = x + c * bins + k;
    const size_t step = channels * bins;
    const float2 *h = spec + (shared ? 0 : c) * parts * bins + k;
    const float2 zero = make_float2(0.0f, 0.0f);
    for (size_t j0 = blockIdx.y * (size_t)MAC_RUN; j0 < blocks;
         j0 += (size_t)gridDim.y * MAC_RUN) {
        float2 acc[MAC_RUN], w[MAC_RUN];
#pragma unroll
        for (int r = 0; r < MAC_RUN; r++) {
            acc[r] = zero;
            w[r] = j0 + r < segs ? xc[(j0 + r) * step] : zero;
        }
        for (size_t q = 0; q < parts; q++) {
            const float2 hv = h[(parts - 1 - q) * bins];
#pragma unroll
            for (int r = 0; r < MAC_RUN; r++) {
                acc[r].x = fmaf(hv.x, w[r].x, fmaf(-hv.y, w[r].y, acc[r].x));
                acc[r].y = fmaf(hv.x, w[r].y, fmaf(hv.y, w[r].x, acc[r].y));
            }
#pragma unroll
            for (int r = 0; r < MAC_RUN - 1; r++)
                w[r] = w[r + 1];
            const size_t s = j0 + MAC_RUN + q;
            w[MAC_RUN - 1] = s < segs ? xc[s * step] : zero;
        }
#pragma unroll
        for (int r = 0; r < MAC_RUN; r++)
            if (j0 + r < blocks)
                y[((j0 + r) * channels + c) * bins + k] = acc[r];
    }
}

/* Thread k of segment s multiplies bin k of every channel's row by bin k of
 * that channel's filter (of the one filter, when shared). */
__global__ void multiply_kernel(float2 *__restrict__ buf, const float2 *__restrict__ spec,
                                size_t bins, size_t segs, unsigned channels, int shared)
{
    const size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (k >= bins)
        return;
    for (size_t s = blockIdx.y; s < segs; s += gridDim.y) {
        float2 *row = buf + s * channels * bins + k;
        for (unsigned c = 0; c < channels; c++) {
            const float2 h = spec[(shared ? 0 : c) * bins + k];
            const float2 v = row[c * bins];
            row[c * bins] = make_float2(v.x * h.x - v.y * h.y, v.x * h.y + v.y * h.x);
        }
    }
}

/* Thread j of row s writes output s*hop + j of every channel from column
 * col + j of that channel's row; the columns below col are the wrapped ones. */
__global__ void extract_kernel(const float *__restrict__ buf, size_t n_fft, size_t hop,
                               size_t col, size_t n, size_t segs, unsigned channels,
                               float *__restrict__ out, size_t frame_stride,
                               size_t channel_stride)
{
    const size_t j = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (j >= hop)
        return;
    for (size_t s = blockIdx.y; s < segs; s += gridDim.y) {
        const size_t i = s * hop + j;
        if (i >= n)
            return; /* later segments lie further on */
        const float *row = buf + s * channels * (n_fft + 2) + col + j;
        for (unsigned c = 0; c < channels; c++)
            out[i * frame_stride + c * channel_stride] = row[c * (n_fft + 2)];
    }
}

static unsigned grid_y(size_t rows)
{
    return (unsigned)(rows < GRID_Y_MAX ? rows : GRID_Y_MAX);
}

/* ---- the filter ---------------------------------------------------------- */

extern "C" void gf_fft_filter_destroy(gf_fft_filter *f)
{
    if (!f)
        return;
    cudaFree(f->d_spec);
    cudaFree(f->d_fc_spec);
    cudaFree(f->d_fc_tw);
    free(f);
}

extern "C" size_t gf_fft_filter_size(const gf_fft_filter *f)
{
    return f ? f->fft_size : 0;
}

/* Uploads the scaled, zero-padded taps (partition p of tap set t in row
 * t * parts + p) into rows of n + 2 floats and
 * transforms them in place on the legacy default stream, synchronously. */
static gfir_status filter_spectrum(gf_fft_filter *f, const float *taps, char *why,
                                   size_t why_len)
{
    const size_t n = f->fft_size, row = n + 2, rows = f->filters * f->parts;
    const size_t width = f->part ? f->part : n;
    const float scale = 1.0f / (float)n;
    float *h = (float *)calloc(rows * row, sizeof *h);
    if (!h) {
        say(why, why_len, "out of host memory for %zu x %zu filter bins", rows, n / 2 + 1);
        return GFIR_ERR_NOMEM;
    }
    for (size_t t = 0; t < f->filters; t++)
        for (size_t k = 0; k < f->ntaps; k++) {
            h[(t * f->parts + k / width) * row + k % width] = taps[t * f->ntaps + k] * scale;
        }
    cudaError_t e = cudaMalloc((void **)&f->d_spec, rows * row * sizeof(float));
    if (e == cudaSuccess)
        e = cudaMemcpy(f->d_spec, h, rows * row * sizeof(float), cudaMemcpyHostToDevice);
    free(h);
    if (e != cudaSuccess)
        return cuda_fail(e, "uploading the taps for their spectrum", why, why_len);

    cufftHandle plan;
    size_t work = 0;
    CUFFT_TRY(cufft().create(&plan), "cufftCreate (filter spectrum)");
    cufftResult r = make_plan(plan, CUFFT_R2C, n, rows, row, n / 2 + 1, 1, &work);
    const char *call = "cufftMakePlanMany64 (filter spectrum)";
    if (r == CUFFT_SUCCESS) {
        r = cufft().exec_r2c(plan, (cufftReal *)f->d_spec, (cufftComplex *)f->d_spec);
        call = "cufftExecR2C (filter spectrum)";
    }
    /* the plan's work area goes with it: wait for the transform first */
    e = cudaDeviceSynchronize();
    cufft().destroy(plan);
    if (r != CUFFT_SUCCESS)
        return cufft_fail(r, call, why, why_len);
    if (e != cudaSuccess)
        return cuda_fail(e, "cudaDeviceSynchronize (filter spectrum)", why, why_len);
    return GFIR_OK;
}

/* fftconv.cu's spectra of the taps, for engines that run its one kernel. */
static gfir_status fused_spectrum(gf_fft_filter *f, const float *taps, char *why,
                                  size_t why_len)
{
    float *d_taps;
    const size_t bytes = f->filters * f->ntaps * sizeof(float);
    CUDA_TRY(cudaMalloc((void **)&d_taps, bytes));
    cudaError_t e = cudaMemcpy(d_taps, taps, bytes, cudaMemcpyHostToDevice);
    if (e == cudaSuccess)
        e = gf_fftconv_spectrum(d_taps, f->ntaps, f->filters, f->fft_size, &f->d_fc_tw,
                                  &f->d_fc_spec);
    cudaFree(d_taps);
    if (e == cudaErrorNotSupported) /* too little shared memory: cuFFT only */
        return GFIR_OK;
    if (e != cudaSuccess)
        return cuda_fail(e, "gf_fftconv_spectrum", why, why_len);
    return GFIR_OK;
}

extern "C" gfir_status gf_fft_filter_create(gf_fft_filter **out, const float *taps,
                                              size_t ntaps, unsigned filters, size_t fft_size,
                                              size_t part, char *why, size_t why_len)
{
    if (!out || !taps) {
        say(why, why_len, "gf_fft_filter_create: NULL argument");
        return GFIR_ERR_NULL;
    }
    *out = NULL;
    if (ntaps == 0 || filters == 0 || fft_size < 4 || (fft_size & (fft_size - 1)) ||
        (part ? fft_size != 2 * part : fft_size < ntaps)) {
        say(why, why_len, "FFT size %zu%s cannot filter %u x %zu taps", fft_size,
            part ? " in partitions" : "", filters, ntaps);
        return GFIR_ERR_ARG;
    }
    if (!cufft().ok) {
        say(why, why_len, "%s", cufft().error);
        return GFIR_ERR_UNAVAILABLE;
    }
    gf_fft_filter *f = (gf_fft_filter *)calloc(1, sizeof *f);
    if (!f) {
        say(why, why_len, "out of host memory");
        return GFIR_ERR_NOMEM;
    }
    f->fft_size = fft_size;
    f->ntaps = ntaps;
    f->filters = filters;
    f->part = part;
    f->parts = 1;
    if (part) {
        f->parts = (ntaps + part - 1) / part;
        f->front = f->parts * part - (ntaps - 1);
    }
    gfir_status st = filter_spectrum(f, taps, why, why_len);
    if (st == GFIR_OK && !part && gf_fftconv_fits(fft_size))
        st = fused_spectrum(f, taps, why, why_len);
    if (st != GFIR_OK) {
        gf_fft_filter_destroy(f);
        return st;
    }
    *out = f;
    return GFIR_OK;
}

/* ---- the engine ---------------------------------------------------------- */

extern "C" int gf_fft_engine_fused(const gf_fft_engine *e)
{
    return e ? e->fused : 0;
}

extern "C" void gf_fft_engine_destroy(gf_fft_engine *e)
{
    if (!e)
        return;
    if (e->d_buf || e->d_in || e->d_work || e->d_fc_work)
        cudaStreamSynchronize(e->stream); /* nothing in flight reads what is freed */
    for (int k = 0; k < e->n_r2c; k++)
        cufft().destroy(e->r2c[k].h);
    for (int k = 0; k < e->n_c2r; k++)
        cufft().destroy(e->c2r[k].h);
    cudaFree(e->d_buf);
    cudaFree(e->d_in);
    cudaFree(e->d_work);
    cudaFree(e->d_fc_work);
    free(e);
}

/* In-place plans over 1, 2, 4, ... rows per channel below max, then max. */
static gfir_status add_plans(gf_fft_engine *e, cufftType type, size_t max, fft_plan *list,
                             int *count, size_t *work_max, char *why, size_t why_len)
{
    const size_t n = e->f->fft_size, bins = n / 2 + 1;
    const int r2c = type == CUFFT_R2C;
    for (size_t k = 1;; k *= 2) {
        if (k > max)
            k = max;
        if (*count == FFT_MAX_PLANS) {
            say(why, why_len, "too many segments per block (%zu)", max);
            return GFIR_ERR_ARG;
        }
        fft_plan *p = &list[*count];
        const size_t batch = k * e->channels;
        size_t work = 0;
        char name[96];
        snprintf(name, sizeof name, "cufftMakePlanMany64 (%s, %zu points, batch %zu)",
                 r2c ? "R2C" : "C2R", n, batch);
        CUFFT_TRY(cufft().create(&p->h), "cufftCreate");
        ++*count;
        p->count = k;
        CUFFT_TRY(make_plan(p->h, type, n, batch, r2c ? n + 2 : bins, r2c ? bins : n + 2, 0,
                            &work),
                  name);
        CUFFT_TRY(cufft().set_stream(p->h, e->stream), "cufftSetStream");
        *work_max = work > *work_max ? work : *work_max;
        if (k == max)
            return GFIR_OK;
    }
}

static gfir_status make_plans(gf_fft_engine *e, char *why, size_t why_len)
{
    size_t work_max = 0;
    gfir_status st = add_plans(e, CUFFT_R2C, e->max_segs, e->r2c, &e->n_r2c, &work_max, why,
                               why_len);
    if (st == GFIR_OK)
        st = add_plans(e, CUFFT_C2R, e->max_rows, e->c2r, &e->n_c2r, &work_max, why, why_len);
    if (st != GFIR_OK)
        return st;
    /* never a zero-byte area: a plan without one refuses to run */
    CUDA_TRY(cudaMalloc(&e->d_work, work_max > 256 ? work_max : 256));
    for (int k = 0; k < e->n_r2c; k++)
        CUFFT_TRY(cufft().set_work_area(e->r2c[k].h, e->d_work), "cufftSetWorkArea");
    for (int k = 0; k < e->n_c2r; k++)
        CUFFT_TRY(cufft().set_work_area(e->c2r[k].h, e->d_work), "cufftSetWorkArea");
    return GFIR_OK;
}

/* Segments and output rows per channel for n frames. */
static void shape(const gf_fft_engine *e, size_t n, size_t *segs, size_t *rows)
{
    *rows = (n + e->hop - 1) / e->hop;
    *segs = *rows + e->f->parts - 1;
}

/* The smallest plan of list that covers count rows (the last covers the most). */
static const fft_plan *covering(const fft_plan *list, size_t count)
{
    while (list->count < count)
        list++;
    return list;
}

static gfir_status engine_init(gf_fft_engine *e, char *why, size_t why_len)
{
    const size_t n = e->f->fft_size;
    e->hop = e->f->part ? e->f->part : n - (e->f->ntaps - 1);
    shape(e, e->max_n, &e->max_segs, &e->max_rows);
    if (e->max_segs * e->channels > ((size_t)1 << 40) / (n + 2)) {
        say(why, why_len, "%zu FFT rows of %zu points do not fit in memory",
            e->max_segs * e->channels, n);
        return GFIR_ERR_NOMEM;
    }
    CUDA_TRY(cudaMalloc((void **)&e->d_buf, e->max_rows * e->channels * (n + 2) * sizeof(float)));
    if (e->f->part)
        CUDA_TRY(cudaMalloc((void **)&e->d_in,
                            e->max_segs * e->channels * (n + 2) * sizeof(float)));
    return make_plans(e, why, why_len);
}

extern "C" gfir_status gf_fft_engine_create(gf_fft_engine **out, const gf_fft_filter *f,
                                              unsigned channels, size_t max_n,
                                              cudaStream_t stream, unsigned flags, char *why,
                                              size_t why_len)
{
    if (!out || !f) {
        say(why, why_len, "gf_fft_engine_create: NULL argument");
        return GFIR_ERR_NULL;
    }
    *out = NULL;
    if (channels == 0 || channels > GRID_Y_MAX || max_n == 0 ||
        (f->filters != 1 && f->filters != channels)) {
        say(why, why_len, "an FFT engine of %u x %zu frames cannot use %u tap sets", channels,
            max_n, f->filters);
        return GFIR_ERR_ARG;
    }
    gf_fft_engine *e = (gf_fft_engine *)calloc(1, sizeof *e);
    if (!e) {
        say(why, why_len, "out of host memory");
        return GFIR_ERR_NOMEM;
    }
    e->f = f;
    e->channels = channels;
    e->max_n = max_n;
    e->stream = stream;
    e->hop = f->part ? f->part : f->fft_size - (f->ntaps - 1);
    /* fftconv.cu's grid holds up to 65535 segment pairs per channel */
    const size_t max_rows = (max_n + e->hop - 1) / e->hop;
    e->fused = f->d_fc_spec && !(flags & GF_FFT_CUFFT_ONLY) && (max_rows + 1) / 2 <= GRID_Y_MAX;
    const size_t fc_work = e->fused ? gf_fftconv_work(f->fft_size, max_rows, channels) : 0;
    gfir_status st = GFIR_OK;
    if (!e->fused)
        st = engine_init(e, why, why_len);
    else if (fc_work) {
        const cudaError_t ce = cudaMalloc((void **)&e->d_fc_work, fc_work);
        if (ce != cudaSuccess)
            st = cuda_fail(ce, "cudaMalloc (FFT work area)", why, why_len);
    }
    if (st != GFIR_OK) {
        gf_fft_engine_destroy(e);
        return st;
    }
    *out = e;
    return GFIR_OK;
}

extern "C" gfir_status gf_fft_run(gf_fft_engine *e, const float *d_x, size_t x_stride,
                                    size_t n, float *d_out, size_t frame_stride,
                                    size_t channel_stride, char *why, size_t why_len)
{
    if (!e || !d_x || !d_out) {
        say(why, why_len, "gf_fft_run: NULL argument");
        return GFIR_ERR_NULL;
    }
    const gf_fft_filter *f = e->f;
    const size_t n_fft = f->fft_size, halo = f->ntaps - 1, bins = n_fft / 2 + 1;
    if (n > e->max_n || x_stride < halo + n) {
        say(why, why_len, "gf_fft_run: %zu frames with input pitch %zu (engine of %zu)", n,
            x_stride, e->max_n);
        return GFIR_ERR_ARG;
    }
    if (n == 0)
        return GFIR_OK;
    size_t segs, rows;
    shape(e, n, &segs, &rows);
    if (e->fused) {
        unsigned log_n = 0;
        while (((size_t)1 << log_n) < n_fft)
            log_n++;
        const gf_fftconv_args a = {d_x,          x_stride,      halo + n,    f->d_fc_spec,
                                     f->d_fc_tw,   f->filters == 1, log_n,     e->hop,
                                     halo,         rows,          n,           d_out,
                                     frame_stride, channel_stride, e->channels,
                                     e->d_fc_work};
        CUDA_TRY(gf_fftconv_run(&a, e->stream));
        return GFIR_OK;
    }
    const fft_plan *fwd = covering(e->r2c, segs), *inv = covering(e->c2r, rows);
    float *in = f->part ? e->d_in : e->d_buf; /* partitioned: spectra kept apart */

    dim3 gather_grid((unsigned)((n_fft + THREADS - 1) / THREADS), grid_y(fwd->count));
    gather_kernel<<<gather_grid, THREADS, 0, e->stream>>>(d_x, x_stride, halo + n, f->front, in,
                                                          n_fft, e->hop, fwd->count,
                                                          e->channels);
    CUDA_TRY(cudaGetLastError());
    CUFFT_TRY(cufft().exec_r2c(fwd->h, (cufftReal *)in, (cufftComplex *)in), "cufftExecR2C");
    if (f->part) {
        dim3 grid((unsigned)((bins + THREADS - 1) / THREADS),
                  grid_y((rows + MAC_RUN - 1) / MAC_RUN), e->channels);
        mac_kernel<<<grid, THREADS, 0, e->stream>>>((const float2 *)in, segs, f->d_spec,
                                                     f->parts, bins, rows, e->channels,
                                                     f->filters == 1, (float2 *)e->d_buf);
    } else {
        dim3 grid((unsigned)((bins + THREADS - 1) / THREADS), grid_y(rows));
        multiply_kernel<<<grid, THREADS, 0, e->stream>>>((float2 *)e->d_buf, f->d_spec, bins,
                                                         rows, e->channels, f->filters == 1);
    }
    CUDA_TRY(cudaGetLastError());
    CUFFT_TRY(cufft().exec_c2r(inv->h, (cufftComplex *)e->d_buf, (cufftReal *)e->d_buf),
              "cufftExecC2R");
    /* partitioned: block j's outputs sit at columns part ..; whole: at halo .. */
    dim3 out_grid((unsigned)((e->hop + THREADS - 1) / THREADS), grid_y(rows));
    extract_kernel<<<out_grid, THREADS, 0, e->stream>>>(e->d_buf, n_fft, e->hop,
                                                        f->part ? f->part : halo, n, rows,
                                                        e->channels, d_out, frame_stride,
                                                        channel_stride);
    CUDA_TRY(cudaGetLastError());
    return GFIR_OK;
}
