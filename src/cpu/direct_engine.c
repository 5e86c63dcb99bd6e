/*
 * direct_engine.c - the CPU's direct convolution engine: each channel's
 * halo (its last ntaps - 1 inputs), the gold or the vectorised kernel of
 * direct.h, and worker threads across channels and output ranges for large
 * blocks.
 *
 * Each channel owns one planar buffer: the ntaps - 1 halo samples followed by
 * room for a block. A block is deinterleaved behind the halo, convolved,
 * interleaved out, and the last ntaps - 1 inputs slide to the front.
 * Large blocks are shared out to a pool of worker threads (pool.h) as tasks
 * of one channel and one range of outputs each.
 *
 * A filter is its tap sets reversed. During a crossfade every task convolves
 * its range with both filters (the new one into y_new), and the interleaving
 * mixes them.
 */
#include "cpu/direct.h"
#include "cpu/tuning.h"
#include "cpu/engine.h"
#include "cpu/frames.h"
#include "cpu/ftz.h"
#include "cpu/pool.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Outputs per threaded task: long enough to amortise, short enough to share. */
#define TASK_FRAMES 4096

typedef struct cpu_state {
    gf_cpu_conv_fn conv;
    size_t halo;        /* ntaps - 1 */
    size_t stride;      /* halo + block_frames: one channel's input buffer */
    float *x;           /* channels x stride */
    float *y;           /* channels x block_frames */
    float *y_new;       /* channels x block_frames: the incoming filter's, during a fade */
    float *w;           /* block_frames: the fade's weights for one call */
    gf_pool *pool;    /* NULL: everything on the calling thread */
    const gfir_plan *plan;
    const float *hr, *hr_new; /* the filters of the block being computed, for the tasks */
    size_t n;           /* the block being computed, for the tasks */
    size_t per_channel; /* tasks per channel */
} cpu_state;

static void direct_destroy(gfir_plan *plan)
{
    cpu_state *st = plan->impl;
    if (!st)
        return;
    free(st->x);
    free(st->y);
    free(st->y_new);
    free(st->w);
    gf_pool_destroy(st->pool);
    free(st);
    plan->impl = NULL;
}

/* A filter: filter_channels x ntaps, each set reversed. */
static gfir_status direct_prepare(const gfir_plan *plan, const float *taps, gfir_filter *f,
                                  char *why, size_t whylen)
{
    const size_t ntaps = plan->ntaps;
    float *hr = malloc(plan->filter_channels * ntaps * sizeof *hr);
    if (!hr) {
        return gf_detail(why, whylen, GFIR_ERR_NOMEM,
                         "out of host memory for %u x %zu taps", plan->filter_channels, ntaps);
    }
    for (size_t s = 0; s < plan->filter_channels; s++)
        for (size_t k = 0; k < ntaps; k++)
            hr[s * ntaps + k] = taps[s * ntaps + ntaps - 1 - k];
    f->impl = hr;
    f->release = free;
    return GFIR_OK;
}

/* Every kernel of the CPU's but the FFT: AUTO's where no FFT engine
 * applies (the FFT engines' break-evens are measured against this one). */
static int direct_applies(gfir_plan *plan, gfir_kernel requested)
{
    if (requested == GFIR_KERNEL_AUTO)
        plan->kernel = GFIR_KERNEL_DIRECT;
    return requested == GFIR_KERNEL_AUTO || requested == GFIR_KERNEL_DIRECT ||
           requested == GFIR_KERNEL_GOLD;
}

static size_t no_latency(const gfir_plan *plan)
{
    (void)plan;
    return 0;
}

static gfir_status direct_create(gfir_plan *plan)
{
    const size_t block = plan->block_frames;
    cpu_state *st = calloc(1, sizeof *st);
    if (!st)
        return gf_fail(plan, GFIR_ERR_NOMEM, "out of host memory");
    plan->impl = st;
    st->halo = plan->ntaps - 1;
    st->stride = st->halo + block;
    st->x = calloc(plan->channels * st->stride, sizeof *st->x);
    st->y = malloc(plan->channels * block * sizeof *st->y);
    st->y_new = malloc(plan->channels * block * sizeof *st->y_new);
    st->w = malloc(block * sizeof *st->w);
    if (!st->x || !st->y || !st->y_new || !st->w) {
        gf_fail(plan, GFIR_ERR_NOMEM, "out of host memory for %u channels of %zu frames",
                  plan->channels, st->stride);
        direct_destroy(plan);
        return GFIR_ERR_NOMEM;
    }
    return GFIR_OK;
}

static gfir_status direct_start(gfir_plan *plan)
{
    cpu_state *st = plan->impl;
    const size_t ntaps = plan->ntaps, block = plan->block_frames;
    st->conv = plan->kernel == GFIR_KERNEL_GOLD ? gf_cpu_gold : gf_cpu_direct_select(NULL);
    st->plan = plan;
    unsigned threads = plan->threads ? plan->threads : gf_cpu_count();
    if (threads > 1 && block * ntaps * plan->channels >= GF_CPU_DIRECT_PARALLEL_MIN_MACS &&
        gf_pool_create(&st->pool, threads - 1) != GFIR_OK)
        return gf_fail(plan, GFIR_ERR_NOMEM, "could not start %u worker threads", threads - 1);
    return GFIR_OK;
}

static gfir_status direct_reset(gfir_plan *plan)
{
    cpu_state *st = plan->impl;
    for (unsigned c = 0; c < plan->channels; c++)
        memset(st->x + c * st->stride, 0, st->halo * sizeof *st->x);
    return GFIR_OK;
}

/* Nothing in flight: both filters read the same halo. */
static gfir_status direct_fade_begin(gfir_plan *plan)
{
    (void)plan;
    return GFIR_OK;
}

static void direct_fade_end(gfir_plan *plan)
{
    (void)plan;
}

/* One task: outputs [start, start + len) of channel c, with each filter. */
static void conv_range(const gfir_plan *plan, const cpu_state *st, unsigned c, size_t start,
                       size_t len)
{
    const size_t set = (plan->filter_channels == 1 ? 0 : c) * plan->ntaps;
    const float *x = st->x + c * st->stride + start;
    const size_t at = c * plan->block_frames + start;
    st->conv(x, st->hr + set, plan->ntaps, st->y + at, len);
    if (st->hr_new)
        st->conv(x, st->hr_new + set, plan->ntaps, st->y_new + at, len);
}

static void conv_task(void *arg, size_t t)
{
    const cpu_state *st = arg;
    const size_t start = (t % st->per_channel) * TASK_FRAMES;
    const size_t len = st->n - start < TASK_FRAMES ? st->n - start : TASK_FRAMES;
    conv_range(st->plan, st, (unsigned)(t / st->per_channel), start, len);
}

static gfir_status direct_execute(gfir_plan *plan, const float *in, float *out, size_t n)
{
    cpu_state *st = plan->impl;
    const unsigned ch = plan->channels;
    unsigned csr = gf_ftz_enter();

    for (unsigned c = 0; c < ch; c++)
        gf_frames_take(st->x + c * st->stride + st->halo, in, ch, c, n);

    st->hr = plan->filter->impl;
    st->hr_new = plan->incoming ? plan->incoming->impl : NULL;
    if (st->pool && n * plan->ntaps * ch >= GF_CPU_DIRECT_PARALLEL_MIN_MACS) {
        st->n = n;
        st->per_channel = (n + TASK_FRAMES - 1) / TASK_FRAMES;
        gf_pool_run(st->pool, conv_task, st, st->per_channel * ch);
    } else
        for (unsigned c = 0; c < ch; c++)
            conv_range(plan, st, c, 0, n);

    if (st->hr_new)
        gf_fade_weights(plan, 0, n, st->w);
    for (unsigned c = 0; c < ch; c++) {
        const size_t row = c * plan->block_frames;
        float *x = st->x + c * st->stride;
        gf_frames_give(out, ch, c, st->y + row, st->hr_new ? st->y_new + row : NULL, st->w, n);
        memmove(x, x + n, st->halo * sizeof *x);
    }
    gf_ftz_leave(csr);
    return GFIR_OK;
}

const gf_engine gf_cpu_direct_engine = {
    .name = "cpu-direct",
    .backend = &gf_cpu_backend,
    .applies = direct_applies,
    .latency = no_latency,
    .cost_s = gf_cpu_direct_seconds,
    .fallback = 1,
    .create = direct_create,
    .start = direct_start,
    .prepare = direct_prepare,
    .execute = direct_execute,
    .fade_begin = direct_fade_begin,
    .fade_end = direct_fade_end,
    .reset = direct_reset,
    .destroy = direct_destroy,
};
