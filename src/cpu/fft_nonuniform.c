/*
 * fft_nonuniform.c - the CPU's zero-latency FFT engine
 * ("cpu-fft-zero-latency"): non-uniformly partitioned convolution (see
 * fft_nonuniform.h for the partitions and their deadlines).
 *
 * The state keeps three sides apart, so that a filter swaps without
 * touching the input history:
 *   the filter   per tap set: the direct head's taps and every level's
 *                partition spectra, computed once at create;
 *   the inputs   per input channel: the time history (one ring that every
 *                level reads its windows from) and per level the
 *                frequency-domain delay line of past input spectra;
 *   the outputs  per output channel: per level the accumulated spectrum and
 *                two time-domain output blocks (one read, one being made).
 * A path joins one input, one tap set and one output (today path c is
 * channel c with tap set c or 0) and carries the schedule of its levels'
 * blocks. Paths are independent, so large calls can run one per thread.
 *
 * Calls are cut into segments that end on the first level's block
 * boundaries (multiples of N frames). In each segment: the input enters the
 * ring; the first level makes its output block for the grid block once, at
 * its first segment (from the head's taps on when the segment is the whole
 * block, whose input is then all there; else from its second partition,
 * and the head is convolved directly); the levels' current output blocks
 * are added, and the output leaves; then every larger level whose block
 * just completed starts it, and the levels
 * advance their blocks' work, lists of units (transform slices and
 * multiply-accumulates over ranges of bins and partitions), until together
 * they have done the share of their slack that has elapsed (advance()).
 *
 * Filters (the first side) are swapped with a crossfade (gfir.h). During
 * one, each output keeps a second set of accumulators and output blocks,
 * and the segment's output mixes the two heads and blocks. The incoming
 * filter's share of what is in flight is not made at once (at 2^20 taps
 * that is a thousand 64-frame calls' work): blocks that start from the swap
 * on are made for it, and the fade begins once those are the blocks being
 * read, up to two of the longest partitions and one grid block later
 * (nu_fade_begin, gf_nu_path_swap). Only a level's blocks read within the
 * fade run their multiply-accumulates and inverse slices for both filters
 * (the forward transforms are the input's and run once), in half steps
 * spread over the block's slack like its other units; such a block ends
 * early by the next smaller level's block, whose own block for both
 * filters comes last, and during the fade the larger levels slow down and
 * catch up after it (behind()). The incoming filter's output blocks, cold
 * since the last swap, are cleared ahead during the wait (warm_incoming()).
 * Units are weighed by their time on this machine (fft_nonuniform_weigh.c),
 * so a block's share of the time passed is a share of its time. A level's
 * delay line has one slot more than it has partitions, so the first
 * level's whole-block segments can keep their own window beside the ones
 * the partitions read.
 */
#include "cpu/fft_nonuniform.h"
#include "cpu/fft_nonuniform_state.h"
#include "cpu/cmac.h"
#include "cpu/direct.h"
#include "cpu/tuning.h"
#include "cpu/engine.h"
#include "cpu/fft_sliced.h"
#include "cpu/ftz.h"
#include "cpu/pool.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Spectra are padded to 16 floats so every one starts 64-byte aligned. */
#define ALIGN_FLOATS ((size_t)16)
/* Bins times partitions per multiply-accumulate unit: about a microsecond. */
#define MAC_UNIT_BINS ((size_t)2048)
/* Times each unit of a spread level is run to weigh it (gf_nu_weigh_units). */
#define WEIGH_PASSES 3

/* ---- memory ------------------------------------------------------------------ */

static void nu_destroy(gfir_plan *plan)
{
    nu_state *st = plan->impl;
    if (!st)
        return;
    gf_pool_destroy(st->pool);
    for (size_t l = 0; l < st->nlevels; l++) {
        gf_sliced_destroy(&st->level[l].fft);
        free(st->level[l].units);
    }
    if (st->inputs)
        for (unsigned c = 0; c < plan->channels; c++) {
            fftwf_free(st->inputs[c].ring);
            for (size_t l = 0; l < st->nlevels; l++) {
                fftwf_free(st->inputs[c].fdl[l]);
                fftwf_free(st->inputs[c].work[l]);
            }
        }
    if (st->outputs)
        for (unsigned c = 0; c < plan->channels; c++) {
            nu_output *out = &st->outputs[c];
            fftwf_free(out->y);
            fftwf_free(out->y_new);
            for (size_t l = 0; l < st->nlevels; l++) {
                fftwf_free(out->acc[l]);
                fftwf_free(out->acc_new[l]);
                for (int b = 0; b < 2; b++) {
                    fftwf_free(out->block[l][b]);
                    fftwf_free(out->block_new[l][b]);
                }
            }
        }
    if (st->paths)
        for (unsigned c = 0; c < plan->channels; c++) {
            fftwf_free(st->paths[c].scratch);
        }
    free(st->inputs);
    free(st->outputs);
    free(st->paths);
    fftwf_free(st->w);
    free(st);
    plan->impl = NULL;
}

/* ---- levels and their units ---------------------------------------------------- */

/* Checks the scheme and lays its levels over the filter. 0 if malformed. */
static int lay_levels(nu_state *st, const gf_nu_scheme *scheme, size_t ntaps)
{
    const size_t n = scheme->head;
    if (n < 16 || (n & (n - 1)) || scheme->nlevels > GF_NU_MAX_LEVELS)
        return 0;
    for (size_t i = 0; i < scheme->nlevels; i++) {
        const size_t p = scheme->sizes[i], prev = i ? scheme->sizes[i - 1] : n;
        if ((p & (p - 1)) || p < prev || (i && p == prev))
            return 0;
    }
    st->grid = n;
    st->head_taps = ntaps < n ? ntaps : n;
    st->nlevels = 0;
    for (size_t i = 0; i <= scheme->nlevels; i++) {
        const size_t part = i ? scheme->sizes[i - 1] : n;
        const size_t first = i ? 2 * part : n;
        const size_t offset = i ? first : 0;
        size_t end = i < scheme->nlevels ? 2 * scheme->sizes[i] : ntaps;
        nu_level *lv = &st->level[st->nlevels];
        if (first >= ntaps)
            break;
        if (end > ntaps)
            end = ntaps;
        lv->part = part;
        lv->offset = offset;
        lv->nparts = (end - offset + part - 1) / part;
        lv->nslots = lv->nparts + 1;
        lv->bstride = (part + 1 + ALIGN_FLOATS - 1) / ALIGN_FLOATS * ALIGN_FLOATS;
        lv->sync = i == 0;
        st->nlevels++;
    }
    return 1;
}

/* The units of one block: the forward slices, the multiply-accumulates by
 * ranges of bins (each range's first unit clears its accumulators), the
 * inverse slices, weighed by gf_nu_weigh_units. */
static int list_units(nu_level *lv)
{
    const size_t nslices = gf_sliced_count(&lv->fft);
    const size_t kc = lv->bstride < MAC_UNIT_BINS ? lv->bstride : MAC_UNIT_BINS;
    const size_t jc = MAC_UNIT_BINS / kc > 1 ? MAC_UNIT_BINS / kc : 1;
    const size_t nmac = (lv->bstride + kc - 1) / kc * ((lv->nparts + jc - 1) / jc);
    size_t u = 0;
    lv->units = calloc(2 * nslices + nmac, sizeof *lv->units);
    if (!lv->units)
        return 0;
    for (size_t s = 0; s < nslices; s++, u++)
        lv->units[u] = (nu_unit){UNIT_FORWARD, s, 0, 0, 0, 0, 0.0, 0.0};
    lv->first_mac = u;
    for (size_t k0 = 0; k0 < lv->bstride; k0 += kc) {
        const size_t k1 = k0 + kc < lv->bstride ? k0 + kc : lv->bstride;
        for (size_t j0 = 0; j0 < lv->nparts; j0 += jc, u++) {
            const size_t j1 = j0 + jc < lv->nparts ? j0 + jc : lv->nparts;
            lv->units[u] = (nu_unit){UNIT_MAC, 0, k0, k1, j0, j1, 0.0, 0.0};
        }
    }
    for (size_t s = 0; s < nslices; s++, u++)
        lv->units[u] = (nu_unit){UNIT_INVERSE, s, 0, 0, 0, 0, 0.0, 0.0};
    lv->nunits = u;
    return 1;
}

/* ---- the filter side ----------------------------------------------------------- */

/* Every level's partition spectra of one tap set, scaled by 1 / 2P since
 * the inverse transforms are unnormalised; window, work and scratch are big
 * enough for the largest level. */
static void transform_taps(const nu_state *st, nu_filter *flt, const float *taps, size_t ntaps,
                           float *window, float *work, float *scratch)
{
    for (size_t k = 0; k < st->head_taps; k++)
        flt->head[k] = taps[st->head_taps - 1 - k];
    for (size_t l = 0; l < st->nlevels; l++) {
        const nu_level *lv = &st->level[l];
        const size_t P = lv->part, nslices = gf_sliced_count(&lv->fft);
        const float scale = 1.0f / (float)(2 * P);
        for (size_t j = 0; j < lv->nparts; j++) {
            float *re = flt->spectra[l] + j * 2 * lv->bstride, *im = re + lv->bstride;
            const size_t first = lv->offset + j * P;
            const size_t len = ntaps - first < P ? ntaps - first : P;
            memset(window, 0, 2 * P * sizeof *window);
            for (size_t k = 0; k < len; k++)
                window[k] = taps[first + k] * scale;
            for (size_t s = 0; s < nslices; s++)
                gf_sliced_forward(&lv->fft, s, window, work, scratch, re, im);
            memset(re + P + 1, 0, (lv->bstride - P - 1) * sizeof *re);
            memset(im + P + 1, 0, (lv->bstride - P - 1) * sizeof *im);
        }
    }
}

/* ---- create, reset ----------------------------------------------------------------- */

static gfir_status nu_reset(gfir_plan *plan);

/* Every named FFT kernel (after the uniform engine, where the budget fits
 * none of its partitions); AUTO's where it beats direct convolution. */
static int nu_applies(gfir_plan *plan, gfir_kernel requested)
{
    if (requested != GFIR_KERNEL_FFT &&
        !(requested == GFIR_KERNEL_AUTO &&
          gf_cpu_fft_nonuniform_preferred(plan->ntaps, plan->block_frames)))
        return 0;
    plan->kernel = GFIR_KERNEL_FFT;
    return 1;
}

static size_t nu_latency(const gfir_plan *plan)
{
    (void)plan;
    return 0;
}

static gfir_status nu_create(gfir_plan *plan)
{
    gf_nu_scheme scheme;
    gf_cpu_fft_nonuniform_scheme(plan->ntaps, plan->block_frames, &scheme);
    return gf_cpu_fft_nonuniform_create_scheme(plan, &scheme);
}

static size_t max_part(const nu_state *st)
{
    size_t p = st->grid;
    for (size_t l = 0; l < st->nlevels; l++)
        if (st->level[l].part > p)
            p = st->level[l].part;
    return p;
}

/* Allocates the inputs, outputs and paths; 0 when out of memory. */
static int alloc_streams(gfir_plan *plan, nu_state *st, size_t scratch_floats)
{
    const unsigned ch = plan->channels;
    st->inputs = calloc(ch, sizeof *st->inputs);
    st->outputs = calloc(ch, sizeof *st->outputs);
    st->paths = calloc(ch, sizeof *st->paths);
    st->w = gf_fftw_floats(plan->block_frames, 1, 1);
    if (!st->inputs || !st->outputs || !st->paths || !st->w)
        return 0;
    for (unsigned c = 0; c < ch; c++) {
        nu_input *in = &st->inputs[c];
        nu_output *out = &st->outputs[c];
        nu_path *path = &st->paths[c];
        in->ring = gf_fftw_floats(st->ring_len + st->mirror_len, 1, 1);
        out->y = gf_fftw_floats(st->grid, 1, 1);
        out->y_new = gf_fftw_floats(st->grid, 1, 1);
        path->scratch = gf_fftw_floats(scratch_floats, 1, 1);
        if (!in->ring || !out->y || !out->y_new || !path->scratch)
            return 0;
        for (size_t l = 0; l < st->nlevels; l++) {
            const nu_level *lv = &st->level[l];
            const size_t work = gf_sliced_work_floats(&lv->fft);
            in->fdl[l] = gf_fftw_floats(lv->nslots * 2, lv->bstride, 1);
            in->work[l] = work ? gf_fftw_floats(work, 1, 1) : NULL;
            out->acc[l] = gf_fftw_floats(2, lv->bstride, 1);
            out->acc_new[l] = gf_fftw_floats(2, lv->bstride, 1);
            if (!in->fdl[l] || (work && !in->work[l]) || !out->acc[l] || !out->acc_new[l])
                return 0;
            for (int b = 0; b < 2; b++) {
                out->block[l][b] = gf_fftw_floats(2, lv->part, 1);
                out->block_new[l][b] = gf_fftw_floats(2, lv->part, 1);
                if (!out->block[l][b] || !out->block_new[l][b])
                    return 0;
            }
        }
        path->in = in;
        path->out = out;
        path->channel = c;
    }
    return 1;
}

static void release_prepared(void *impl)
{
    nu_prepared *p = impl;
    if (!p)
        return;
    for (unsigned s = 0; p->set && s < p->sets; s++) {
        fftwf_free(p->set[s].head);
        for (size_t l = 0; l < p->nlevels; l++)
            fftwf_free(p->set[s].spectra[l]);
    }
    free(p->set);
    free(p);
}

/* A filter: every tap set's head and spectra, transformed with scratch of
 * its own (create may run beside execute, which uses the plan's). */
static gfir_status nu_prepare(const gfir_plan *plan, const float *taps, gfir_filter *f,
                              char *why, size_t whylen)
{
    const nu_state *st = plan->impl;
    const size_t pmax = max_part(st);
    size_t scratch_floats = 1;
    nu_prepared *p = calloc(1, sizeof *p);
    float *window = gf_fftw_floats(2, pmax, 1), *work = gf_fftw_floats(2, pmax, 1), *scratch;
    int ok;
    for (size_t l = 0; l < st->nlevels; l++)
        if (gf_sliced_scratch_floats(&st->level[l].fft) > scratch_floats)
            scratch_floats = gf_sliced_scratch_floats(&st->level[l].fft);
    scratch = gf_fftw_floats(scratch_floats, 1, 1);
    ok = p && window && work && scratch;
    if (ok) {
        p->sets = plan->filter_channels;
        p->nlevels = st->nlevels;
        p->set = calloc(p->sets, sizeof *p->set);
        ok = p->set != NULL;
    }
    for (unsigned s = 0; ok && s < p->sets; s++) {
        nu_filter *flt = &p->set[s];
        flt->head = gf_fftw_floats(st->head_taps, 1, 1);
        ok = flt->head != NULL;
        for (size_t l = 0; ok && l < st->nlevels; l++) {
            flt->spectra[l] = gf_fftw_floats(st->level[l].nparts * 2, st->level[l].bstride, 1);
            ok = flt->spectra[l] != NULL;
        }
        if (ok)
            transform_taps(st, flt, taps + s * plan->ntaps, plan->ntaps, window, work, scratch);
    }
    fftwf_free(window);
    fftwf_free(work);
    fftwf_free(scratch);
    if (!ok) {
        release_prepared(p);
        return gf_detail(why, whylen, GFIR_ERR_NOMEM,
                         "out of host memory for a %zu-tap non-uniformly partitioned filter",
                         plan->ntaps);
    }
    f->impl = p;
    f->release = release_prepared;
    return GFIR_OK;
}

/* Each path's tap set of a prepared filter. */
static const nu_filter *path_set(const gfir_plan *plan, const gfir_filter *f, unsigned c)
{
    const nu_prepared *p = f->impl;
    return &p->set[plan->filter_channels == 1 ? 0 : c];
}

gfir_status gf_cpu_fft_nonuniform_create_scheme(gfir_plan *plan, const gf_nu_scheme *scheme)
{
    nu_state *st = calloc(1, sizeof *st);
    size_t scratch = 0, pmax;
    if (!st)
        return gf_fail(plan, GFIR_ERR_NOMEM, "out of host memory");
    plan->impl = st;
    if (!lay_levels(st, scheme, plan->ntaps)) {
        nu_destroy(plan);
        return gf_fail(plan, GFIR_ERR_ARG, "malformed non-uniform partition scheme");
    }
    for (size_t l = 0; l < st->nlevels; l++) {
        nu_level *lv = &st->level[l];
        /* The first level's block is never spread: one FFTW transform. */
        if (!(lv->sync ? gf_sliced_make_whole : gf_sliced_make)(&lv->fft, lv->part,
                                                                 gf_cpu_fft_uses(plan, lv->part))) {
            nu_destroy(plan);
            return gf_fail(plan, GFIR_ERR_NOMEM, "FFTW could not plan a real FFT of size %zu",
                           2 * lv->part);
        }
        if (!lv->sync && !list_units(lv))
            goto nomem;
        if (gf_sliced_scratch_floats(&lv->fft) > scratch)
            scratch = gf_sliced_scratch_floats(&lv->fft);
    }
    pmax = max_part(st);
    st->mirror_len = pmax;
    st->ring_len = 4 * pmax;
    st->conv = gf_cpu_direct_select(NULL);
    st->mac = gf_cmac_run_select();
    st->plan = plan;
    if (!alloc_streams(plan, st, scratch ? scratch : 1))
        goto nomem;
    return GFIR_OK;

nomem:
    nu_destroy(plan);
    return gf_fail(plan, GFIR_ERR_NOMEM,
                   "out of host memory for a %zu-tap non-uniformly partitioned filter, "
                   "%u channels", plan->ntaps, plan->channels);
}

static gfir_status nu_start(gfir_plan *plan)
{
    nu_state *st = plan->impl;
    unsigned threads;
    for (unsigned c = 0; c < plan->channels; c++)
        st->paths[c].filter = path_set(plan, plan->filter, c);
    /* zeros to weigh the units on; the reset below clears what they leave */
    nu_reset(plan);
    gf_nu_weigh_units(st, gf_nu_clock_ns, WEIGH_PASSES);
    st->channels = plan->channels;
    threads = plan->threads ? plan->threads : gf_cpu_count();
    if (threads > 1 && plan->channels > 1 && plan->block_frames >= GF_CPU_NU_PARALLEL_MIN_FRAMES) {
        const unsigned workers = (plan->channels < threads ? plan->channels : threads) - 1;
        if (gf_pool_create(&st->pool, workers) != GFIR_OK)
            return gf_fail(plan, GFIR_ERR_NOMEM, "could not start %u worker threads", workers);
    }
    return nu_reset(plan);
}

static gfir_status nu_reset(gfir_plan *plan)
{
    nu_state *st = plan->impl;
    for (unsigned c = 0; c < plan->channels; c++) {
        nu_input *in = &st->inputs[c];
        nu_output *out = &st->outputs[c];
        nu_path *path = &st->paths[c];
        memset(in->ring, 0, (st->ring_len + st->mirror_len) * sizeof *in->ring);
        for (size_t l = 0; l < st->nlevels; l++) {
            const nu_level *lv = &st->level[l];
            /* Padding bins are multiplied too; they stay zero. */
            memset(in->fdl[l], 0, lv->nslots * 2 * lv->bstride * sizeof *in->fdl[l]);
            in->newest[l] = 0;
            memset(out->block[l][0], 0, 2 * lv->part * sizeof *out->block[l][0]);
            memset(out->block[l][1], 0, 2 * lv->part * sizeof *out->block[l][1]);
            out->cur[l] = 0;
            /* Nothing in flight: the block finished at the first boundary
             * is the silence before the input. */
            path->done[l] = lv->nunits;
            path->half[l] = 0;
            path->start[l] = 0;
        }
        /* The zeros before the input are every window's, and the first
         * block's partitions from 2 on are made (zero). */
        path->sync_made = 0;
        path->sync_done = SIZE_MAX;
        path->fade_from = path->fade_to = 0;
        path->sync_ahead = 0;
        if (st->nlevels > 0) {
            memset(out->acc[0], 0, 2 * st->level[0].bstride * sizeof *out->acc[0]);
            memset(out->acc_new[0], 0, 2 * st->level[0].bstride * sizeof *out->acc_new[0]);
        }
    }
    st->now = 0;
    return GFIR_OK;
}

/* ---- crossfades ---------------------------------------------------------------------- */

/* No work at once: the fade waits until the incoming filter's blocks are
 * being read (gf_nu_path_swap), at most two of the longest partitions and
 * one grid block. Where it waits for larger levels, that frame ends a block
 * of the longest partition and so of every level: the call after it starts
 * them all, the heaviest of the cycle. The fade's first call makes both
 * filters' first-level blocks and heads, cold, and mixes: it begins a grid
 * block later, on a call that starts the first level's block alone (at
 * 2^20 taps in 64-frame calls that call took 2.2 to 2.7 times the mean
 * call, 1.7 to 1.9 a grid block later: cpu_nupc_bench --swap-calls,
 * 2026-11-27). */
static gfir_status nu_fade_begin(gfir_plan *plan)
{
    nu_state *st = plan->impl;
    size_t from = st->now, to;
    for (unsigned c = 0; c < plan->channels; c++) {
        const size_t f = gf_nu_path_fade_from(st, &st->paths[c]);
        from = f > from ? f : from;
    }
    if (from > st->now)
        from += st->grid;
    to = plan->fade_len < SIZE_MAX - from ? from + plan->fade_len : SIZE_MAX;
    for (unsigned c = 0; c < plan->channels; c++)
        gf_nu_path_swap(st, &st->paths[c], path_set(plan, plan->incoming, c), from, to);
    plan->fade_delay = plan->fade_wait = from - st->now;
    return GFIR_OK;
}

static void nu_fade_end(gfir_plan *plan)
{
    nu_state *st = plan->impl;
    for (unsigned c = 0; c < plan->channels; c++) {
        nu_path *path = &st->paths[c];
        nu_output *out = path->out;
        path->filter = path_set(plan, plan->incoming, c);
        path->incoming = NULL;
        for (size_t l = 0; l < st->nlevels; l++) {
            float *t = out->acc[l];
            out->acc[l] = out->acc_new[l];
            out->acc_new[l] = t;
            for (int b = 0; b < 2; b++) {
                t = out->block[l][b];
                out->block[l][b] = out->block_new[l][b];
                out->block_new[l][b] = t;
            }
        }
    }
}

/* ---- execute ------------------------------------------------------------------------- */

static void path_task(void *arg, size_t c)
{
    const nu_state *st = arg;
    gf_nu_path_run(st, &st->paths[c], st->channels, st->task_in, st->task_out, st->task_n);
}

static gfir_status nu_execute(gfir_plan *plan, const float *in, float *out, size_t n)
{
    nu_state *st = plan->impl;
    unsigned csr = gf_ftz_enter();
    /* The weights once for every path (each is a cosine). */
    st->mixing = plan->incoming && plan->fade_wait == 0;
    if (st->mixing)
        gf_fade_weights(plan, 0, n, st->w);
    if (st->pool && n >= GF_CPU_NU_PARALLEL_MIN_FRAMES) {
        st->task_in = in;
        st->task_out = out;
        st->task_n = n;
        gf_pool_run(st->pool, path_task, st, plan->channels);
    } else
        for (unsigned c = 0; c < plan->channels; c++)
            gf_nu_path_run(st, &st->paths[c], plan->channels, in, out, n);
    st->now += n;
    gf_ftz_leave(csr);
    return GFIR_OK;
}

const gf_engine gf_cpu_fft_zero_latency_engine = {
    .name = "cpu-fft-zero-latency",
    .backend = &gf_cpu_backend,
    .applies = nu_applies,
    .latency = nu_latency,
    .cost_s = gf_cpu_fft_zero_latency_seconds,
    .create = nu_create,
    .start = nu_start,
    .prepare = nu_prepare,
    .execute = nu_execute,
    .fade_begin = nu_fade_begin,
    .fade_end = nu_fade_end,
    .reset = nu_reset,
    .destroy = nu_destroy,
};
