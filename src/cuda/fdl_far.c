/*
 * fdl_far.c - the delay-line engine's far partitions (fdl_far.h).
 *
 * With taps g[k] = h[P + k], the delay line's tail of block b + 1 for g,
 * sum over j >= 1 of G_j times window b - (j - 1), is h's part from 2P on at
 * the frames of block b + 2: so at the end of far block b the kernels of
 * fdl.h make far block b + 2 from windows up to b, and the head kernels read
 * it a whole block later.
 */
#include "cuda/fdl_far.h"
#include "cuda_status.h"

#include <math.h>
#include <stdlib.h>

/* Partitions per multiply-accumulate chunk, as the near section's. */
#define PER_CHUNK 64

struct gf_fdl_far {
    size_t part, tparts, ring, chunks;
    unsigned inputs, outputs, sets;
    size_t ntaps;
    gf_fdl_paths paths;
    cudaStream_t stream;            /* the lowest priority */
    cudaEvent_t windowed, done;
    float *d_xw;                    /* inputs x 2 x P */
    float2 *d_x;                    /* inputs x ring x P */
    float2 *d_partial;              /* outputs x chunks x P: the far stream's */
    float2 *d_partial_fade;         /* the same, for a crossfade's start on the plan's stream */
    float2 *d_tw;                   /* P */
    float *d_out, *d_out_new;       /* outputs x 2P: far blocks by parity */
    size_t pos, next_slot, blocks;  /* blocks: far blocks completed since the last clear */
    int parity;
};

size_t gf_fdl_far_near_taps(size_t part, size_t ntaps)
{
    const size_t P = GF_FDL_FAR_PART;
    return part * 8 <= P && ntaps > 4 * P ? 2 * P : ntaps;
}

void gf_fdl_far_destroy(gf_fdl_far *far)
{
    if (!far)
        return;
    if (far->stream)
        cudaStreamSynchronize(far->stream);
    void *dev[] = {far->d_xw, far->d_x,  far->d_partial, far->d_partial_fade,
                   far->d_tw, far->d_out, far->d_out_new};
    for (size_t i = 0; i < sizeof dev / sizeof dev[0]; i++)
        cudaFree(dev[i]);
    if (far->windowed)
        cudaEventDestroy(far->windowed);
    if (far->done)
        cudaEventDestroy(far->done);
    if (far->stream)
        cudaStreamDestroy(far->stream);
    cudaGetLastError();
    free(far);
}

cudaError_t gf_fdl_twiddles(float2 *d_tw, size_t part)
{
    float2 *tw = malloc(part * sizeof *tw);
    if (!tw)
        return cudaErrorMemoryAllocation;
    for (size_t k = 0; k < part; k++) {
        const double a = -2.0 * 3.14159265358979323846 * (double)k / (double)(2 * part);
        tw[k].x = (float)cos(a);
        tw[k].y = (float)sin(a);
    }
    const cudaError_t e = cudaMemcpy(d_tw, tw, part * sizeof *tw, cudaMemcpyHostToDevice);
    free(tw);
    return e;
}

static cudaError_t alloc_far(gf_fdl_far *far)
{
    const size_t P = far->part, in = far->inputs, out = far->outputs;
    int least = 0, greatest = 0;
    cudaError_t e = cudaDeviceGetStreamPriorityRange(&least, &greatest);
    if (e == cudaSuccess)
        e = cudaStreamCreateWithPriority(&far->stream, cudaStreamNonBlocking, least);
    if (e == cudaSuccess)
        e = cudaEventCreateWithFlags(&far->windowed, cudaEventDisableTiming);
    if (e == cudaSuccess)
        e = cudaEventCreateWithFlags(&far->done, cudaEventDisableTiming);
    if (e == cudaSuccess)
        e = gf_cuda_malloc((void **)&far->d_xw, in * 2 * P * sizeof(float));
    if (e == cudaSuccess)
        e = gf_cuda_malloc((void **)&far->d_x, in * far->ring * P * sizeof(float2));
    if (e == cudaSuccess)
        e = gf_cuda_malloc((void **)&far->d_partial, out * far->chunks * P * sizeof(float2));
    if (e == cudaSuccess)
        e = gf_cuda_malloc((void **)&far->d_partial_fade, out * far->chunks * P * sizeof(float2));
    if (e == cudaSuccess)
        e = gf_cuda_malloc((void **)&far->d_tw, P * sizeof(float2));
    if (e == cudaSuccess)
        e = gf_cuda_malloc((void **)&far->d_out, out * 2 * P * sizeof(float));
    if (e == cudaSuccess)
        e = gf_cuda_malloc((void **)&far->d_out_new, out * 2 * P * sizeof(float));
    return e;
}

cudaError_t gf_fdl_far_create(gf_fdl_far **out, size_t ntaps, unsigned inputs, unsigned outputs,
                              unsigned sets, gf_fdl_paths paths)
{
    gf_fdl_far *far = calloc(1, sizeof *far);
    const size_t P = GF_FDL_FAR_PART;
    *out = NULL;
    if (!far)
        return cudaErrorMemoryAllocation;
    if (ntaps <= 4 * P) {
        free(far);
        return cudaErrorInvalidValue;
    }
    far->part = P;
    far->ntaps = ntaps;
    far->tparts = (ntaps + P - 1) / P - 2;
    far->ring = far->tparts + 1;
    far->chunks = (far->tparts + PER_CHUNK - 1) / PER_CHUNK;
    far->inputs = inputs;
    far->outputs = outputs;
    far->sets = sets;
    far->paths = paths;
    cudaError_t e = alloc_far(far);
    if (e == cudaSuccess)
        e = gf_fdl_twiddles(far->d_tw, far->part);
    if (e != cudaSuccess) {
        gf_fdl_far_destroy(far);
        return e;
    }
    *out = far;
    return cudaSuccess;
}

size_t gf_fdl_far_spectra_bytes(const gf_fdl_far *far)
{
    return (size_t)far->sets * far->tparts * far->part * sizeof(float2);
}

cudaError_t gf_fdl_far_spectra(const gf_fdl_far *far, const float *d_taps, float2 *d_h,
                               cudaStream_t stream)
{
    /* g[k] = h[P + k]: its partitions 1..T are h's from 2P on */
    return gf_launch_fdl_spectra(d_taps, far->ntaps, far->part, far->ntaps - far->part,
                                 far->sets, far->part, far->tparts, far->d_tw, d_h, stream);
}

cudaError_t gf_fdl_far_stage(gf_fdl_far *far, const float *d_in, size_t n, cudaStream_t stream)
{
    const gf_fdl_at args = {NULL, NULL, NULL};
    return gf_launch_fdl_stage(d_in, far->inputs, n, far->d_xw, far->part, far->pos,
                               far->parity, args, stream);
}

cudaError_t gf_fdl_far_stage_clocked(gf_fdl_far *far, const float *d_in, size_t n,
                                     const gf_fdl_clock *d_clock, cudaStream_t stream)
{
    const gf_fdl_at at = {&d_clock->far_pos, &d_clock->far_parity, NULL};
    return gf_launch_fdl_stage(d_in, far->inputs, n, far->d_xw, far->part, 0, 0, at, stream);
}

gf_fdl_ring gf_fdl_far_ring(const gf_fdl_far *far, int incoming)
{
    const gf_fdl_ring r = {incoming ? far->d_out_new : far->d_out, 2 * far->part,
                           (size_t)far->parity * far->part + far->pos, {NULL, NULL, NULL}};
    return r;
}

gf_fdl_ring gf_fdl_far_ring_clocked(const gf_fdl_far *far, const gf_fdl_clock *d_clock)
{
    gf_fdl_ring r = gf_fdl_far_ring(far, 0);
    r.pos = 0;
    r.at.pos = &d_clock->far_pos;
    r.at.parity = &d_clock->far_parity;
    return r;
}

void gf_fdl_far_clock(const gf_fdl_far *far, gf_fdl_clock *clock)
{
    clock->far_pos = (unsigned)far->pos;
    clock->far_parity = (unsigned)far->parity;
}

size_t gf_fdl_far_part(const gf_fdl_far *far)
{
    return far->part;
}

/* One far block from the windows up to slot `newest`, into `dst` (a ring's
 * half), through `partial`, on `stream`. */
static cudaError_t far_block(const gf_fdl_far *far, const float2 *d_h, size_t newest,
                             float *dst, float2 *partial, cudaStream_t stream)
{
    const gf_fdl_at args = {NULL, NULL, NULL};
    cudaError_t e = gf_launch_fdl_mac(far->d_x, d_h, far->paths, far->outputs, far->part,
                                      far->tparts, far->ring, newest, PER_CHUNK, far->chunks,
                                      args, partial, stream);
    if (e == cudaSuccess)
        e = gf_launch_fdl_inverse(partial, far->outputs, far->part, far->chunks, far->d_tw, dst,
                                  2 * far->part, stream);
    return e;
}

cudaError_t gf_fdl_far_advance(gf_fdl_far *far, size_t n, const float2 *d_h,
                               const float2 *d_h_new, cudaStream_t stream)
{
    far->pos += n;
    if (far->pos < far->part)
        return cudaSuccess;
    /* Block m = far->blocks ends. The next block's heads read far block
     * m + 1, made at the end of block m - 1: the plan's stream waits for it.
     * Far block m + 2 goes to the half block m's heads have just read. */
    const size_t slot = far->next_slot, half = (size_t)far->parity * far->part;
    const gf_fdl_at args = {NULL, NULL, NULL};
    cudaError_t e = cudaStreamWaitEvent(stream, far->done, 0);
    if (e == cudaSuccess)
        e = gf_launch_fdl_forward(far->d_xw, far->inputs, far->part, far->parity, far->d_tw,
                                  far->d_x, far->ring, slot, args, stream);
    if (e == cudaSuccess)
        e = cudaEventRecord(far->windowed, stream);
    if (e == cudaSuccess)
        e = cudaStreamWaitEvent(far->stream, far->windowed, 0);
    if (e == cudaSuccess)
        e = far_block(far, d_h, slot, far->d_out + half, far->d_partial, far->stream);
    if (e == cudaSuccess && d_h_new)
        e = far_block(far, d_h_new, slot, far->d_out_new + half, far->d_partial, far->stream);
    if (e == cudaSuccess)
        e = cudaEventRecord(far->done, far->stream);
    far->next_slot = slot + 1 == far->ring ? 0 : slot + 1;
    far->parity ^= 1;
    far->pos = 0;
    far->blocks++;
    return e;
}

cudaError_t gf_fdl_far_clear(gf_fdl_far *far, cudaStream_t stream)
{
    const size_t P = far->part;
    cudaError_t e = cudaStreamWaitEvent(stream, far->done, 0);
    if (e == cudaSuccess)
        e = cudaMemsetAsync(far->d_xw, 0, far->inputs * 2 * P * sizeof(float), stream);
    if (e == cudaSuccess)
        e = cudaMemsetAsync(far->d_x, 0, far->inputs * far->ring * P * sizeof(float2), stream);
    if (e == cudaSuccess)
        e = cudaMemsetAsync(far->d_out, 0, far->outputs * 2 * P * sizeof(float), stream);
    if (e == cudaSuccess)
        e = cudaMemsetAsync(far->d_out_new, 0, far->outputs * 2 * P * sizeof(float), stream);
    far->pos = 0;
    far->next_slot = 0;
    far->blocks = 0;
    far->parity = 0;
    return e;
}

cudaError_t gf_fdl_far_fade_begin(gf_fdl_far *far, const float2 *d_h_new, cudaStream_t stream)
{
    /* In block m (= blocks), far block m was made from windows up to m - 2
     * and block m + 1 from windows up to m - 1 (in the slot before
     * next_slot); a block with no window yet has no far part. */
    const size_t P = far->part, m = far->blocks;
    /* the far stream may still write these halves: the ring was the plan's
     * until the last crossfade ended, less than a far block ago */
    cudaError_t waited = cudaStreamWaitEvent(stream, far->done, 0);
    if (waited != cudaSuccess)
        return waited;
    for (size_t ahead = 0; ahead < 2; ahead++) {
        float *dst = far->d_out_new + (size_t)(far->parity ^ (int)ahead) * P;
        const size_t back = 2 - ahead; /* the newest window: m - back */
        cudaError_t e;
        if (m < back) {
            e = cudaMemset2DAsync(dst, 2 * P * sizeof(float), 0, P * sizeof(float),
                                  far->outputs, stream);
        } else {
            const size_t newest = (far->next_slot + far->ring - back) % far->ring;
            e = far_block(far, d_h_new, newest, dst, far->d_partial_fade, stream);
        }
        if (e != cudaSuccess)
            return e;
    }
    return cudaSuccess;
}

cudaError_t gf_fdl_far_fade_end(gf_fdl_far *far, cudaEvent_t retired)
{
    float *t = far->d_out;
    far->d_out = far->d_out_new;
    far->d_out_new = t;
    return cudaEventRecord(retired, far->stream);
}
