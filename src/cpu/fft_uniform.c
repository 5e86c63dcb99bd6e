/*
 * fft_uniform.c - the CPU's uniform FFT engine ("cpu-fft-uniform"):
 * uniformly partitioned overlap-save with FFTW (single precision).
 *
 * The filter is cut into K = ceil(ntaps / P) partitions of P taps. Every P new
 * input frames, one real FFT of size 2P (the previous and the new P frames)
 * enters a frequency-domain delay line of the last K input spectra; the output
 * spectrum is one complex multiply-accumulate per partition, and one inverse
 * FFT gives P output frames. Those frames are handed out during the next P
 * input frames, so the output is the exact causal convolution delayed by P
 * frames (plan->latency_frames = P), whatever the chunking of the calls.
 * A filter of at most P taps is one partition, and its transform need only
 * hold a block and the filter: N = ceil_pow2(P + ntaps - 1) points, which
 * is 2P for the powers of two the live rule gives, while an offline plan
 * (no latency budget) may take a hop P of N - ntaps + 1 for a larger N:
 * classic overlap-save, fewer transforms per frame (gf_cpu_fft_partition).
 * Such a transform keeps the last N - P frames of input, not P.
 * The engine (gf_cpu_fft_uniform_engine, "cpu-fft-uniform") states P in
 * plan->partition when it applies; a tool that measures other sizes sets
 * plan->partition and rebuilds the engine (core/swap.h, gf_engine_build).
 *
 * Layout: spectra live in split form (real parts, then imaginary parts), so the
 * multiply-accumulate over partitions (cmac.h), the hot loop, is plain
 * vertical FMAs; FFTW's interleaved output is split once per block, which
 * costs P + 1 moves against K * (P + 1) complex multiply-adds. The transforms
 * come from fftw.h and execute without a lock.
 *
 * A filter is its partitions' spectra. The delay line of input spectra is
 * the filter's only partner, so during a crossfade each block's spectrum is
 * multiplied by both filters' partitions and transformed back twice, into
 * outq and outq_new, whose frames the output mixes. A swap's first call
 * remakes the block being handed out (outq) with the new filter from the
 * delay line, which still holds every spectrum it was made from.
 */
#include "cpu/tuning.h"
#include "cpu/engine.h"
#include "cpu/cmac.h"
#include "cpu/fftw.h"
#include "cpu/frames.h"
#include "cpu/ftz.h"
#include "cpu/pool.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Spectra are padded to 16 floats so every partition starts 64-byte aligned,
 * which FFTW's new-array execute and the vector loops both want. */
#define ALIGN_FLOATS ((size_t)16)
/* Bins per multiply-accumulate step: at most 1024, so the accumulators
 * (2 x 4 KiB) stay in L1 while the partitions stream past; with threads, small
 * enough to give each thread about four ranges, but not below 256. */
#define MAX_BIN_CHUNK ((size_t)1024)
#define MIN_BIN_CHUNK ((size_t)256)
/* Frames of a call shared out a channel per task at once: bound the output
 * planes (256 KiB a channel, 8 MiB in all) whatever the plan's largest call
 * and however many channels it has. */
#define MAX_PLANE_FRAMES ((size_t)65536)
#define MAX_PLANE_FLOATS ((size_t)1 << 21)


typedef struct fft_state {
    size_t part;             /* P: new frames per block (the hop), taps per partition */
    size_t fftn;             /* N: 2P, or with one partition as below */
    size_t keep;             /* N - P: the frames before the new ones in a transform */
    size_t nbins;            /* N / 2 + 1 */
    size_t bstride;          /* nbins rounded up to ALIGN_FLOATS */
    size_t nparts;           /* K */
    size_t pos;              /* frames of the current block received so far */
    size_t head;             /* delay-line slot of the newest spectrum */
    size_t chunk;            /* bins per multiply-accumulate step */
    gf_fftw_pair fft;
    gf_cmac_fn mac;
    unsigned threads;        /* the caller's and the pool's */
    gf_pool *pool;           /* NULL: every block on the calling thread */
    int block_tasks;         /* a block alone is worth sharing out */
    const gfir_plan *plan;   /* for the pool's tasks */
    const float *task_h;     /* the filter the pool's multiply-accumulate tasks use */
    float *w;                /* P: the fade's weights for one stretch */
    /* Per channel. */
    float *xin;              /* N: the last N - P frames, then the block being filled */
    float *outq;             /* P: outputs of the last block, handed out now */
    float *outq_new;         /* P: the same with the incoming filter, during a fade */
    float *fdl;              /* K x 2 x bstride: the frequency-domain delay line */
    float *spec;             /* 2 x bstride: FFTW's interleaved spectrum */
    float *acc;              /* 2 x bstride: the output spectrum, split */
    float *yt;               /* N: the inverse FFT's output */
    /* Calls shared out a channel per task (execute_by_channel): each
     * channel's output plane, the stretch being filtered, and how many
     * stretches went so (for tests). */
    float *planes;           /* channels x plane_frames, or NULL */
    size_t plane_frames;
    const float *call_in;
    size_t call_frames;
    size_t split_stretches;
} fft_state;

/* ---- create, reset, destroy ----------------------------------------------- */

static void uniform_destroy(gfir_plan *plan)
{
    fft_state *st = plan->impl;
    if (!st)
        return;
    gf_fftw_pair_destroy(&st->fft);
    gf_pool_destroy(st->pool);
    fftwf_free(st->w);
    fftwf_free(st->xin);
    fftwf_free(st->outq);
    fftwf_free(st->outq_new);
    fftwf_free(st->fdl);
    fftwf_free(st->spec);
    fftwf_free(st->acc);
    fftwf_free(st->yt);
    fftwf_free(st->planes);
    free(st);
    plan->impl = NULL;
}

static size_t log2_size(size_t n)
{
    size_t l = 0;
    while (((size_t)1 << l) < n)
        l++;
    return l;
}

/* The work of `frames` frames of every channel, in the unit of
 * GF_CPU_FFT_CHANNELS_MIN_WORK. */
static size_t work_of(const gfir_plan *plan, const fft_state *st, size_t frames)
{
    return plan->channels * frames * (st->nparts + log2_size(st->fftn));
}

/* The frames of the largest call that one task per channel filters at once. */
static size_t stretch_frames(const gfir_plan *plan)
{
    size_t frames = plan->block_frames < MAX_PLANE_FRAMES ? plan->block_frames : MAX_PLANE_FRAMES;
    const size_t fit = MAX_PLANE_FLOATS / plan->channels;
    return frames < fit ? frames : fit;
}

/* Worker threads (besides the caller) worth starting for this plan; see
 * GF_CPU_FFT_CHANNELS_MIN_WORK. Several channels share out a block, or a
 * call of many blocks, whichever is larger. */
static unsigned workers_wanted(const gfir_plan *plan, const fft_state *st)
{
    const size_t frames = st->part > stretch_frames(plan) ? st->part : stretch_frames(plan);
    if (st->threads < 2)
        return 0;
    if (plan->channels > 1)
        return work_of(plan, st, frames) >= GF_CPU_FFT_CHANNELS_MIN_WORK
                   ? (plan->channels < st->threads ? plan->channels : st->threads) - 1
                   : 0;
    return st->block_tasks ? st->threads - 1 : 0;
}

/* Whether one block's work pays for waking the workers. */
static int block_tasks_pay(const gfir_plan *plan, const fft_state *st)
{
    const size_t work = work_of(plan, st, st->part);
    if (plan->channels > 1)
        return work >= GF_CPU_FFT_CHANNELS_MIN_WORK;
    return work >= GF_CPU_FFT_BINS_MIN_WORK && st->nparts >= GF_CPU_FFT_BINS_MIN_PARTS &&
           st->nbins > st->chunk;
}

/* A filter's spectra, made by gf_fftw_floats. */
static void release_spectra(void *h)
{
    fftwf_free(h);
}

/* A filter: per tap set, K partitions' spectra (real parts, then imaginary
 * parts, bstride each), scaled by 1 / 2P since FFTW's inverse is
 * unnormalised. Its own scratch: create may run beside execute. */
static gfir_status uniform_prepare(const gfir_plan *plan, const float *taps, gfir_filter *f,
                                   char *why, size_t whylen)
{
    const fft_state *st = plan->impl;
    const size_t P = st->part, ntaps = plan->ntaps;
    const float scale = 1.0f / (float)st->fftn;
    float *h = gf_fftw_floats(plan->filter_channels * st->nparts, 2, st->bstride);
    float *x = gf_fftw_floats(st->fftn, 1, 1), *spec = gf_fftw_floats(2, st->bstride, 1);
    if (!h || !x || !spec) {
        fftwf_free(h);
        fftwf_free(x);
        fftwf_free(spec);
        return gf_detail(why, whylen, GFIR_ERR_NOMEM,
                         "out of host memory for %zu FFT partitions of %zu taps", st->nparts, P);
    }
    for (size_t s = 0; s < plan->filter_channels; s++) {
        for (size_t j = 0; j < st->nparts; j++) {
            float *hr = h + (s * st->nparts + j) * 2 * st->bstride;
            float *hi = hr + st->bstride;
            size_t len = ntaps - j * P < P ? ntaps - j * P : P;
            memset(x, 0, st->fftn * sizeof *x);
            for (size_t k = 0; k < len; k++)
                x[k] = taps[s * ntaps + j * P + k] * scale;
            fftwf_execute_dft_r2c(st->fft.fwd, x, (fftwf_complex *)spec);
            for (size_t k = 0; k < st->nbins; k++) {
                hr[k] = spec[2 * k];
                hi[k] = spec[2 * k + 1];
            }
            memset(hr + st->nbins, 0, (st->bstride - st->nbins) * sizeof *hr);
            memset(hi + st->nbins, 0, (st->bstride - st->nbins) * sizeof *hi);
        }
    }
    fftwf_free(x);
    fftwf_free(spec);
    f->impl = h;
    f->release = release_spectra;
    return GFIR_OK;
}

static gfir_status uniform_reset(gfir_plan *plan);

/* A named FFT kernel where the budget fits a partition; AUTO's where its
 * measured break-even says it beats direct convolution at that partition. */
static int uniform_applies(gfir_plan *plan, gfir_kernel requested)
{
    const size_t part =
        gf_cpu_fft_partition(plan->ntaps, plan->block_frames, plan->max_latency_frames);
    if (requested != GFIR_KERNEL_FFT && requested != GFIR_KERNEL_AUTO)
        return 0;
    if (!part || (requested == GFIR_KERNEL_AUTO && plan->ntaps < gf_cpu_fft_uniform_min_taps(part)))
        return 0;
    plan->kernel = GFIR_KERNEL_FFT;
    plan->partition = part;
    return 1;
}

static size_t uniform_latency(const gfir_plan *plan)
{
    return plan->partition;
}

/* The state for partitions of plan->partition frames (the policy's, or a
 * tool's that measures other sizes). */
static gfir_status uniform_create(gfir_plan *plan)
{
    const size_t ch = plan->channels, part = plan->partition;
    fft_state *st = calloc(1, sizeof *st);
    if (!st)
        return gf_fail(plan, GFIR_ERR_NOMEM, "out of host memory");
    plan->impl = st;
    st->part = part;
    st->fftn = gf_cpu_fft_uniform_points(plan->ntaps, part);
    st->keep = st->fftn - part;
    st->nbins = st->fftn / 2 + 1;
    st->bstride = (st->nbins + ALIGN_FLOATS - 1) / ALIGN_FLOATS * ALIGN_FLOATS;
    st->nparts = (plan->ntaps + st->part - 1) / st->part;
    st->mac = gf_cmac_select();

    st->w = gf_fftw_floats(st->part, 1, 1);
    st->xin = gf_fftw_floats(ch, st->fftn, 1);
    st->outq = gf_fftw_floats(ch, 1, st->part);
    st->outq_new = gf_fftw_floats(ch, 1, st->part);
    st->fdl = gf_fftw_floats(ch * st->nparts, 2, st->bstride);
    st->spec = gf_fftw_floats(ch, 2, st->bstride);
    st->acc = gf_fftw_floats(ch, 2, st->bstride);
    st->yt = gf_fftw_floats(ch, st->fftn, 1);
    if (!st->w || !st->xin || !st->outq || !st->outq_new || !st->fdl || !st->spec || !st->acc ||
        !st->yt) {
        gf_fail(plan, GFIR_ERR_NOMEM,
                  "out of host memory for %zu FFT partitions of %zu frames, %zu channels",
                  st->nparts, st->part, ch);
        uniform_destroy(plan);
        return GFIR_ERR_NOMEM;
    }
    if (!gf_fftw_pair_make(&st->fft, (int)st->fftn, st->xin, (fftwf_complex *)st->spec,
                           st->yt,
                           gf_cpu_fftw_measure_pays(0, st->fftn,
                                                    gf_cpu_fft_uses(plan, st->part)))) {
        gf_fail(plan, GFIR_ERR_NOMEM, "FFTW could not plan a real FFT of size %zu",
                  st->fftn);
        uniform_destroy(plan);
        return GFIR_ERR_NOMEM;
    }
    return GFIR_OK;
}

static gfir_status uniform_start(gfir_plan *plan)
{
    fft_state *st = plan->impl;
    unsigned workers;
    st->plan = plan;
    st->threads = plan->threads ? plan->threads : gf_cpu_count();
    st->chunk = (st->nbins + 4 * (size_t)st->threads - 1) / (4 * (size_t)st->threads);
    st->chunk = (st->chunk + ALIGN_FLOATS - 1) / ALIGN_FLOATS * ALIGN_FLOATS;
    st->chunk = st->chunk < MIN_BIN_CHUNK ? MIN_BIN_CHUNK
                : st->chunk > MAX_BIN_CHUNK ? MAX_BIN_CHUNK : st->chunk;
    st->block_tasks = block_tasks_pay(plan, st);
    workers = workers_wanted(plan, st);
    if (workers && gf_pool_create(&st->pool, workers) != GFIR_OK)
        return gf_fail(plan, GFIR_ERR_NOMEM, "could not start %u worker threads", workers);
    if (st->pool && plan->channels > 1 && !st->planes) {
        st->plane_frames = stretch_frames(plan);
        st->planes = gf_fftw_floats(plan->channels, st->plane_frames, 1);
        if (!st->planes)
            return gf_fail(plan, GFIR_ERR_NOMEM, "out of host memory for %u planes of %zu frames",
                           plan->channels, st->plane_frames);
    }
    return uniform_reset(plan);
}

static gfir_status uniform_reset(gfir_plan *plan)
{
    fft_state *st = plan->impl;
    const size_t ch = plan->channels;
    memset(st->xin, 0, ch * st->fftn * sizeof *st->xin);
    memset(st->outq, 0, ch * st->part * sizeof *st->outq);
    memset(st->fdl, 0, ch * st->nparts * 2 * st->bstride * sizeof *st->fdl);
    /* Padding bins are multiplied too; keep them zero. */
    memset(st->acc, 0, ch * 2 * st->bstride * sizeof *st->acc);
    st->pos = 0;
    st->head = 0;
    return GFIR_OK;
}

/* ---- one block: three phases, each split into independent tasks ---------- */

/* Phase 1, per channel: the new block's spectrum into the delay line's
 * slot `head`. */
static void block_forward(const fft_state *st, size_t c, size_t head)
{
    float *spec = st->spec + c * 2 * st->bstride;
    float *xr = st->fdl + (c * st->nparts + head) * 2 * st->bstride, *xi = xr + st->bstride;
    fftwf_execute_dft_r2c(st->fft.fwd, st->xin + c * st->fftn, (fftwf_complex *)spec);
    for (size_t k = 0; k < st->nbins; k++) {
        xr[k] = spec[2 * k];
        xi[k] = spec[2 * k + 1];
    }
}

/* Phase 2, per channel and range of bins: the sum over partitions j of
 * filter h's H_j times the spectrum of the block j blocks ago (the newest
 * in slot `newest`). */
static void block_mac(const gfir_plan *plan, const fft_state *st, const float *h, size_t c,
                      size_t newest, size_t k0, size_t len)
{
    const size_t bs = st->bstride, f = plan->filter_channels == 1 ? 0 : c;
    const float *x = st->fdl + c * st->nparts * 2 * bs + k0;
    float *ar = st->acc + c * 2 * bs + k0, *ai = ar + bs;
    size_t slot = newest;
    h += f * st->nparts * 2 * bs + k0;
    memset(ar, 0, len * sizeof *ar);
    memset(ai, 0, len * sizeof *ai);
    for (size_t j = 0; j < st->nparts; j++) {
        const float *hj = h + j * 2 * bs, *xj = x + slot * 2 * bs;
        st->mac(ar, ai, hj, hj + bs, xj, xj + bs, len);
        slot = slot + 1 == st->nparts ? 0 : slot + 1;
    }
}

static void block_mac_all(const gfir_plan *plan, const fft_state *st, const float *h, size_t c,
                          size_t newest)
{
    for (size_t k0 = 0; k0 < st->nbins; k0 += st->chunk)
        block_mac(plan, st, h, c, newest, k0,
                  st->nbins - k0 < st->chunk ? st->nbins - k0 : st->chunk);
}

/* Phase 3, per channel: back to time; the last P samples are the valid
 * ones (the first N - P wrapped around), and go to channel c's outputs in outq. */
static void block_inverse(const fft_state *st, size_t c, float *outq)
{
    const size_t P = st->part;
    float *spec = st->spec + c * 2 * st->bstride;
    const float *ar = st->acc + c * 2 * st->bstride, *ai = ar + st->bstride;
    float *yt = st->yt + c * st->fftn;
    for (size_t k = 0; k < st->nbins; k++) {
        spec[2 * k] = ar[k];
        spec[2 * k + 1] = ai[k];
    }
    fftwf_execute_dft_c2r(st->fft.inv, (fftwf_complex *)spec, yt);
    memcpy(outq + c * P, yt + st->keep, P * sizeof *yt);
}

/* The transform's last N - P frames begin the next one's. */
static void block_slide(const fft_state *st, size_t c)
{
    float *xin = st->xin + c * st->fftn;
    memmove(xin, xin + st->part, st->keep * sizeof *xin);
}

static void block_channel(const gfir_plan *plan, const fft_state *st, size_t c, size_t head)
{
    block_forward(st, c, head);
    block_mac_all(plan, st, plan->filter->impl, c, head);
    block_inverse(st, c, st->outq);
    if (plan->incoming) {
        block_mac_all(plan, st, plan->incoming->impl, c, head);
        block_inverse(st, c, st->outq_new);
    }
    block_slide(st, c);
}

static void channel_task(void *arg, size_t c)
{
    const fft_state *st = arg;
    block_channel(st->plan, st, c, st->head);
}

/* The delay-line slot after `blocks` more blocks: the next block's spectrum
 * goes in the slot of the oldest one. */
static size_t head_after(const fft_state *st, size_t head, size_t blocks)
{
    blocks %= st->nparts;
    return head >= blocks ? head - blocks : head + st->nparts - blocks;
}

static void mac_task(void *arg, size_t t)
{
    const fft_state *st = arg;
    const size_t chunks = (st->nbins + st->chunk - 1) / st->chunk;
    const size_t k0 = (t % chunks) * st->chunk;
    block_mac(st->plan, st, st->task_h, t / chunks, st->head, k0,
              st->nbins - k0 < st->chunk ? st->nbins - k0 : st->chunk);
}

/* Several channels: a task each. One channel: the transforms on the calling
 * thread, the multiply-accumulate shared out by ranges of bins. */
static void block_parallel(const gfir_plan *plan, fft_state *st)
{
    const size_t chunks = (st->nbins + st->chunk - 1) / st->chunk;
    if (plan->channels > 1) {
        gf_pool_run(st->pool, channel_task, st, plan->channels);
        return;
    }
    block_forward(st, 0, st->head);
    st->task_h = plan->filter->impl;
    gf_pool_run(st->pool, mac_task, st, chunks);
    block_inverse(st, 0, st->outq);
    if (plan->incoming) {
        st->task_h = plan->incoming->impl;
        gf_pool_run(st->pool, mac_task, st, chunks);
        block_inverse(st, 0, st->outq_new);
    }
    block_slide(st, 0);
}

static void run_block(const gfir_plan *plan, fft_state *st)
{
    if (st->pool && st->block_tasks)
        block_parallel(plan, st);
    else
        for (size_t c = 0; c < plan->channels; c++)
            block_channel(plan, st, c, st->head);
    st->head = head_after(st, st->head, 1);
}

/* ---- a call of many blocks: a task per channel ------------------------------ */

/* One channel through the whole stretch st->call_in (NULL: silence) of
 * st->call_frames frames, the blocks it completes included: channels are
 * independent, so each runs the stretch alone and the call synchronises
 * once rather than once a block. Its output goes to the channel's own
 * plane: channels writing interleaved frames side by side would pass each
 * cache line of the output between the cores. */
static void stretch_task(void *arg, size_t c)
{
    const fft_state *st = arg;
    const size_t ch = st->plan->channels, P = st->part, n = st->call_frames;
    float *plane = st->planes + c * st->plane_frames;
    size_t pos = st->pos, head = st->head;
    for (size_t done = 0; done < n;) {
        const size_t m = P - pos < n - done ? P - pos : n - done;
        gf_frames_take(st->xin + c * st->fftn + st->keep + pos,
                       st->call_in ? st->call_in + done * ch : NULL, (unsigned)ch, (unsigned)c, m);
        memcpy(plane + done, st->outq + c * P + pos, m * sizeof *plane);
        pos += m;
        done += m;
        if (pos == P) {
            block_channel(st->plan, st, c, head);
            head = head_after(st, head, 1);
            pos = 0;
        }
    }
}

/* Whether a call of n frames goes a task per channel: several channels, no
 * fade (whose weights and two outputs the stretch loop below handles), and
 * enough work to pay for waking the workers. */
static int split_by_channel(const gfir_plan *plan, const fft_state *st, size_t n)
{
    return st->planes && !plan->incoming &&
           work_of(plan, st, n < st->plane_frames ? n : st->plane_frames) >=
               GF_CPU_FFT_CHANNELS_MIN_WORK;
}

/* The call in stretches of at most plane_frames, each filtered a channel per
 * task into the planes, then interleaved into out (all of the stretch's
 * input is read by then, which makes in == out safe). */
static void execute_by_channel(const gfir_plan *plan, fft_state *st, const float *in, float *out,
                               size_t n)
{
    const size_t ch = plan->channels, P = st->part;
    while (n > 0) {
        const size_t m = n < st->plane_frames ? n : st->plane_frames;
        st->call_in = in;
        st->call_frames = m;
        gf_pool_run(st->pool, stretch_task, st, ch);
        st->split_stretches++;
        gf_frames_interleave(out, st->planes, st->plane_frames, (unsigned)ch, m);
        st->head = head_after(st, st->head, (st->pos + m) / P);
        st->pos = (st->pos + m) % P;
        if (in)
            in += m * ch;
        out += m * ch;
        n -= m;
    }
}

size_t gf_cpu_fft_uniform_split_stretches(const gfir_plan *plan)
{
    const fft_state *st = plan->impl;
    return st->split_stretches;
}

/* The outputs being handed out came from the last block, whose newest
 * spectrum is one slot past head; the next block has not overwritten any
 * of its spectra yet. */
static gfir_status uniform_fade_begin(gfir_plan *plan)
{
    fft_state *st = plan->impl;
    const size_t newest = st->head + 1 == st->nparts ? 0 : st->head + 1;
    unsigned csr = gf_ftz_enter();
    for (size_t c = 0; c < plan->channels; c++) {
        block_mac_all(plan, st, plan->incoming->impl, c, newest);
        block_inverse(st, c, st->outq_new);
    }
    gf_ftz_leave(csr);
    return GFIR_OK;
}

static void uniform_fade_end(gfir_plan *plan)
{
    fft_state *st = plan->impl;
    float *t = st->outq;
    st->outq = st->outq_new;
    st->outq_new = t;
}

/* ---- execute: any frame count, output delayed by exactly P ----------------- */

static gfir_status uniform_execute(gfir_plan *plan, const float *in, float *out, size_t n)
{
    fft_state *st = plan->impl;
    const size_t ch = plan->channels, P = st->part;
    unsigned csr = gf_ftz_enter();
    size_t done = 0;

    if (split_by_channel(plan, st, n)) {
        execute_by_channel(plan, st, in, out, n);
        gf_ftz_leave(csr);
        return GFIR_OK;
    }
    while (n > 0) {
        size_t m = P - st->pos < n ? P - st->pos : n;
        /* All of this stretch's input is read before any of its output is
         * written, which makes in == out safe. */
        for (size_t c = 0; c < ch; c++)
            gf_frames_take(st->xin + c * st->fftn + st->keep + st->pos, in, (unsigned)ch,
                           (unsigned)c, m);
        if (plan->incoming)
            gf_fade_weights(plan, done, m, st->w);
        for (size_t c = 0; c < ch; c++) {
            const size_t at = c * P + st->pos;
            gf_frames_give(out, (unsigned)ch, (unsigned)c, st->outq + at,
                           plan->incoming ? st->outq_new + at : NULL, st->w, m);
        }
        st->pos += m;
        done += m;
        if (in)
            in += m * ch;
        out += m * ch;
        n -= m;
        if (st->pos == P) {
            run_block(plan, st);
            st->pos = 0;
        }
    }
    gf_ftz_leave(csr);
    return GFIR_OK;
}

const gf_engine gf_cpu_fft_uniform_engine = {
    .name = "cpu-fft-uniform",
    .backend = &gf_cpu_backend,
    .applies = uniform_applies,
    .latency = uniform_latency,
    .cost_s = gf_cpu_fft_uniform_seconds,
    .create = uniform_create,
    .start = uniform_start,
    .prepare = uniform_prepare,
    .execute = uniform_execute,
    .fade_begin = uniform_fade_begin,
    .fade_end = uniform_fade_end,
    .reset = uniform_reset,
    .destroy = uniform_destroy,
};
