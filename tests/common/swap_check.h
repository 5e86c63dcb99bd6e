/*
 * swap_check.h - one filter-swap case: a random signal streamed through a
 * plan in random chunks while a new random filter is swapped in every
 * `every` frames with a crossfade of random length, against the crossfade
 * computed in float64 (gfir.h):
 *     out[i] = (1 - w) y_old[i - latency] + w y_new[i - latency],
 *     w = 0.5 - 0.5 cos(pi (k + 0.5) / L) at frame k of a fade of L frames,
 * y_f the whole signal convolved with filter f along the plan's paths.
 * An engine may start the fade later than the swap (core/plan.h's
 * fade_delay: the CPU zero-latency engine makes the new filter's blocks
 * first), the old filter's output alone until then: the reference follows
 * the delay the plan reports, and a swap that finds the previous one still
 * running is retried at the next call.
 * Each new filter has a random length up to the plan's (zero-padded), a
 * second swap during a fade must answer GFIR_ERR_BUSY, and every old filter
 * comes back through gfir_plan_retired and is destroyed. Relative L2 error
 * under SWAP_TOLERANCE, and the largest step between neighbouring output
 * samples of each channel no larger than the reference's (a click would be
 * one). Shared by the CPU and CUDA tests (include after cmocka.h).
 */
#ifndef GF_TEST_SWAP_CHECK_H
#define GF_TEST_SWAP_CHECK_H

#include "core/plan.h"
#include "gfir.h"
#include "test_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SWAP_TOLERANCE 1e-5
/* Sampled cases compare this many outputs, half of them inside fades. */
#define SWAP_SAMPLES 3000

typedef struct swap_case {
    const char *name;
    gfir_backend backend;
    gfir_kernel kernel;
    size_t budget;              /* max_latency_frames */
    unsigned inputs, outputs;   /* outputs 0: inputs */
    unsigned sets;              /* tap sets */
    const gfir_path *paths;     /* NULL: channel c through set c (or 0) */
    size_t npaths;
    size_t ntaps, block;
    unsigned threads;
    size_t frames;
    size_t every;               /* frames from one swap to the next */
    size_t fade_min, fade_max;  /* crossfade lengths, at most `every` */
    size_t max_call;            /* calls of 1 .. max_call frames */
    int whole_calls;            /* every call max_call frames, a live caller's periods */
    int sampled;                /* compare SWAP_SAMPLES outputs, not all */
    /* NULL: gfir_plan_execute; else how the test runs a call (device memory) */
    gfir_status (*execute)(gfir_plan *plan, const float *in, float *out, size_t n);
} swap_case;

typedef struct swap_run {
    size_t nfilters;            /* the first filter, then one per swap */
    float *taps;                /* nfilters x sets x ntaps, zero-padded */
    size_t *at, *fade;          /* per filter: its swap's frame and crossfade */
    size_t *delay;              /* per filter: frames from its swap to its fade */
    float *x, *y;
    size_t latency;
} swap_run;

static inline unsigned swap_outputs(const swap_case *tc)
{
    return tc->outputs ? tc->outputs : tc->inputs;
}

static inline size_t swap_npaths(const swap_case *tc)
{
    return tc->paths ? tc->npaths : tc->inputs;
}

static inline gfir_path swap_path(const swap_case *tc, size_t p)
{
    if (tc->paths)
        return tc->paths[p];
    return (gfir_path){(unsigned)p, (unsigned)p, tc->sets == 1 ? 0 : (unsigned)p, 1.0f};
}

static inline size_t swap_draw(uint64_t *rng, size_t lo, size_t hi)
{
    return lo + (size_t)(test_uniform(rng) * (double)(hi - lo + 1));
}

/* A random filter of a random length up to the plan's, into slot f. */
static inline void swap_new_taps(const swap_case *tc, swap_run *r, size_t f, size_t *ntaps,
                                 uint64_t *rng)
{
    float *h = r->taps + f * tc->sets * tc->ntaps;
    *ntaps = f == 0 || test_uniform(rng) < 0.3 ? tc->ntaps : swap_draw(rng, 1, tc->ntaps);
    memset(h, 0, tc->sets * tc->ntaps * sizeof *h);
    for (unsigned s = 0; s < tc->sets; s++)
        test_fill(h + s * tc->ntaps, *ntaps, rng);
}

static inline gfir_plan *swap_plan(const swap_case *tc, const float *taps)
{
    gfir_plan *plan = NULL;
    gfir_config cfg;
    gfir_config_init(&cfg);
    cfg.channels = tc->inputs;
    cfg.out_channels = tc->outputs;
    cfg.filter_channels = tc->sets;
    cfg.paths = tc->paths;
    cfg.npaths = tc->paths ? tc->npaths : 0;
    cfg.backend = tc->backend;
    cfg.kernel = tc->kernel;
    cfg.max_latency_frames = tc->budget;
    cfg.max_block_frames = tc->block;
    cfg.threads = tc->threads;
    if (gfir_plan_create(&plan, taps, tc->ntaps, &cfg) != GFIR_OK)
        fail_msg("%s: gfir_plan_create: %s", tc->name, gfir_plan_error_detail(NULL));
    return plan;
}

/* Filter f's (zero-padded) packed taps, compacted to their first n per set
 * into tmp: what gfir_filter_create is given. */
static inline const float *swap_given(const swap_case *tc, const swap_run *r, size_t f,
                                      size_t n, float *tmp)
{
    const float *h = r->taps + f * tc->sets * tc->ntaps;
    for (unsigned s = 0; s < tc->sets; s++)
        memcpy(tmp + s * n, h + s * tc->ntaps, n * sizeof *tmp);
    return tmp;
}

/* Streams the signal, swapping as the case says; fills r. */
static inline void swap_stream(const swap_case *tc, swap_run *r, uint64_t *rng)
{
    const unsigned in_ch = tc->inputs, out_ch = swap_outputs(tc);
    const size_t per = tc->sets * tc->ntaps;
    float *tmp = malloc(per * sizeof *tmp);
    size_t n0, retired = 0, made = 1, nswaps;
    gfir_filter *pending = NULL;
    gfir_plan *plan;

    r->nfilters = 1 + (tc->frames - 1) / tc->every;
    r->taps = malloc(r->nfilters * per * sizeof *r->taps);
    r->at = calloc(r->nfilters, sizeof *r->at);
    r->fade = calloc(r->nfilters, sizeof *r->fade);
    r->delay = calloc(r->nfilters, sizeof *r->delay);
    r->x = malloc(tc->frames * in_ch * sizeof *r->x);
    r->y = malloc(tc->frames * out_ch * sizeof *r->y);
    assert_true(tmp && r->taps && r->at && r->fade && r->delay && r->x && r->y);
    test_fill(r->x, tc->frames * in_ch, rng);
    swap_new_taps(tc, r, 0, &n0, rng);
    plan = swap_plan(tc, r->taps);
    r->latency = gfir_plan_latency(plan);

    for (size_t pos = 0, next = 1; pos < tc->frames;) {
        size_t n;
        int swapped = 0;
        if (next < r->nfilters && pos >= next * tc->every) {
            gfir_status st;
            if (!pending) {
                size_t nt;
                gfir_filter *extra = NULL;
                swap_new_taps(tc, r, next, &nt, rng);
                r->fade[next] = swap_draw(rng, tc->fade_min, tc->fade_max);
                st = gfir_filter_create(&pending, plan, swap_given(tc, r, next, nt, tmp), nt);
                if (st != GFIR_OK)
                    fail_msg("%s: gfir_filter_create: %s", tc->name,
                             gfir_plan_error_detail(NULL));
                /* a second swap while a fade runs (or waits) changes nothing */
                if (plan->incoming) {
                    assert_int_equal(gfir_filter_create(&extra, plan, tmp, nt), GFIR_OK);
                    assert_int_equal(gfir_plan_swap(plan, extra, 1), GFIR_ERR_BUSY);
                    gfir_filter_destroy(extra);
                }
            }
            /* while the last swap's fade runs or waits: busy, retried next call */
            st = gfir_plan_swap(plan, pending, r->fade[next]);
            if (st == GFIR_OK) {
                r->at[next] = pos;
                pending = NULL;
                swapped = 1;
                next++;
            } else
                assert_int_equal(st, GFIR_ERR_BUSY);
        }
        n = tc->whole_calls ? tc->max_call : swap_draw(rng, 1, tc->max_call);
        if (next < r->nfilters && pos < next * tc->every && pos + n > next * tc->every)
            n = next * tc->every - pos;
        if (pos + n > tc->frames)
            n = tc->frames - pos;
        if ((tc->execute ? tc->execute : gfir_plan_execute)(plan, r->x + pos * in_ch,
                                                            r->y + pos * out_ch, n) != GFIR_OK)
            fail_msg("%s: execute at frame %zu: %s", tc->name, pos,
                     gfir_plan_error_detail(plan));
        /* the call after a swap began it: the engine has set its delay */
        if (swapped)
            r->delay[next - 1] = plan->fade_delay;
        pos += n;
        for (gfir_filter *old; (old = gfir_plan_retired(plan)) != NULL; retired++)
            gfir_filter_destroy(old);
        made = next;
    }
    gfir_filter_destroy(pending);
    /* filters whose swap never came before the end are not in the signal */
    nswaps = made - 1;
    r->nfilters = made;
    /* every fade but possibly the last has ended, and its old filter came back */
    assert_true(retired + 1 >= nswaps);
    gfir_plan_destroy(plan);
    free(tmp);
}

/* Filter f's tap set s reversed, in double. */
static inline void swap_reversed(const swap_case *tc, const swap_run *r, size_t f, double *hr)
{
    const float *h = r->taps + f * tc->sets * tc->ntaps;
    for (unsigned s = 0; s < tc->sets; s++)
        for (size_t k = 0; k < tc->ntaps; k++)
            hr[s * tc->ntaps + k] = h[s * tc->ntaps + tc->ntaps - 1 - k];
}

/* sum_k h[k] x[t - k] as a dot product of reversed taps with the padded
 * input (ntaps - 1 zeros before frame 0); four sums for speed. */
static inline double swap_dot(const double *hr, const double *xpad, size_t ntaps, size_t t)
{
    const double *x = xpad + t;
    double a0 = 0.0, a1 = 0.0, a2 = 0.0, a3 = 0.0;
    size_t k = 0;
    for (; k + 4 <= ntaps; k += 4) {
        a0 += hr[k] * x[k];
        a1 += hr[k + 1] * x[k + 1];
        a2 += hr[k + 2] * x[k + 2];
        a3 += hr[k + 3] * x[k + 3];
    }
    for (; k < ntaps; k++)
        a0 += hr[k] * x[k];
    return (a0 + a1) + (a2 + a3);
}

/* Output o of filter f (reversed sets hr) at signal frame t. */
static inline double swap_y(const swap_case *tc, const double *hr, double *const *xpad,
                            unsigned o, size_t t)
{
    double y = 0.0;
    for (size_t p = 0; p < swap_npaths(tc); p++) {
        const gfir_path q = swap_path(tc, p);
        if (q.output == o)
            y += (double)q.gain * swap_dot(hr + (size_t)q.taps * tc->ntaps, xpad[q.input],
                                           tc->ntaps, t);
    }
    return y;
}

/* Compares r->y with the reference at every output (or a sample). */
static inline void swap_compare(const swap_case *tc, const swap_run *r, uint64_t *rng)
{
    const unsigned in_ch = tc->inputs, out_ch = swap_outputs(tc);
    const size_t per = tc->sets * tc->ntaps, frames = tc->frames, P = r->latency;
    double *xpad[GFIR_MAX_CHANNELS];
    double *hr_old = malloc(per * sizeof(double)), *hr_new = malloc(per * sizeof(double));
    double *ref = tc->sampled ? NULL : malloc(frames * out_ch * sizeof *ref);
    double num = 0.0, den = 0.0;
    size_t cached = (size_t)-1;

    assert_true(hr_old && hr_new && (tc->sampled || ref));
    for (unsigned c = 0; c < in_ch; c++) {
        xpad[c] = calloc(tc->ntaps - 1 + frames, sizeof(double));
        assert_non_null(xpad[c]);
        for (size_t i = 0; i < frames; i++)
            xpad[c][tc->ntaps - 1 + i] = r->x[i * in_ch + c];
    }
    const size_t count = tc->sampled ? SWAP_SAMPLES : frames;
    for (size_t s = 0; s < count; s++) {
        size_t i = s, f = 0;
        if (tc->sampled) {
            /* half inside fades (a random swap's first frames), half anywhere */
            const size_t g = r->nfilters > 1 ? swap_draw(rng, 1, r->nfilters - 1) : 0;
            i = s % 2 && r->nfilters > 1 && r->fade[g]
                    ? r->at[g] + r->delay[g] + swap_draw(rng, 0, r->fade[g] - 1)
                    : swap_draw(rng, 0, frames - 1);
            if (i >= frames)
                i = frames - 1;
        }
        while (f + 1 < r->nfilters && r->at[f + 1] <= i)
            f++;
        if (f != cached) {
            swap_reversed(tc, r, f, hr_new);
            if (f > 0)
                swap_reversed(tc, r, f - 1, hr_old);
            cached = f;
        }
        /* before its fade (the engine's delay) the old filter alone */
        const int waiting = f > 0 && i - r->at[f] < r->delay[f];
        const size_t k = waiting ? 0 : i - r->at[f] - r->delay[f];
        const int fading = f > 0 && !waiting && k < r->fade[f];
        const double w = waiting  ? 0.0
                         : fading ? 0.5 - 0.5 * cos(3.14159265358979323846 * ((double)k + 0.5) /
                                                    (double)r->fade[f])
                                  : 1.0;
        for (unsigned o = 0; o < out_ch; o++) {
            double v = 0.0;
            if (i >= P) {
                v = w > 0.0 ? swap_y(tc, hr_new, xpad, o, i - P) : 0.0;
                if (w < 1.0)
                    v = (1.0 - w) * swap_y(tc, hr_old, xpad, o, i - P) + w * v;
            }
            const double d = (double)r->y[i * out_ch + o] - v;
            num += d * d;
            den += v * v;
            if (ref)
                ref[i * out_ch + o] = v;
        }
    }
    const double err = sqrt(num) / sqrt(den);
    if (!(err < SWAP_TOLERANCE))
        fail_msg("%s: relative L2 error %.3g over %zu outputs (%zu swaps)", tc->name, err, count,
                 r->nfilters - 1);
    if (ref)
        for (unsigned o = 0; o < out_ch; o++) {
            double got = 0.0, want = 0.0;
            for (size_t i = 1; i < frames; i++) {
                const double a = fabs((double)r->y[i * out_ch + o] - r->y[(i - 1) * out_ch + o]);
                const double b = fabs(ref[i * out_ch + o] - ref[(i - 1) * out_ch + o]);
                got = a > got ? a : got;
                want = b > want ? b : want;
            }
            if (got > want * (1.0 + 1e-5) + 1e-6)
                fail_msg("%s: output %u's largest step %.9g exceeds the reference's %.9g",
                         tc->name, o, got, want);
        }
    for (unsigned c = 0; c < in_ch; c++)
        free(xpad[c]);
    free(hr_old);
    free(hr_new);
    free(ref);
}

static inline void swap_run_free(swap_run *r)
{
    free(r->taps);
    free(r->at);
    free(r->fade);
    free(r->delay);
    free(r->x);
    free(r->y);
}

static inline void swap_check(const swap_case *tc)
{
    uint64_t rng = 0x5eed5eedULL + tc->ntaps * 31 + tc->every;
    swap_run r;
    memset(&r, 0, sizeof r);
    swap_stream(tc, &r, &rng);
    swap_compare(tc, &r, &rng);
    swap_run_free(&r);
}

#endif
