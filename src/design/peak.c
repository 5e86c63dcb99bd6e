/*
 * peak.c - the peak of a filter's magnitude response (peak.h).
 *
 * One real FFT per tap set at M points, M the smallest 2^a 3^b 5^c of at
 * least twice the length (and 8192), samples the response; what lies between
 * the samples is bounded and refined without another transform.
 *
 * The bound. Let P be the true peak, at w*, and L the length. Turned by the
 * phase that makes each set's term real at w*, the sum of magnitudes is at
 * least R(w) = Re sum_s |g_s| e^{j phi_s} e^{j w (L-1)/2} H_s(w), a real
 * trigonometric polynomial of degree m = (L-1)/2 whose largest value is
 * R(w*) = P. By Szego's inequality R'^2 + m^2 R^2 <= m^2 P^2, so
 * R(w* + t) >= P cos(m t): the sample nearest w*, within r of it, is at
 * least P cos(m r) (Ehlich and Zeller's bound, 1964). On the grid r = pi / M
 * and m r < pi / 4, so the grid's largest is within a factor cos(pi / 4) of
 * P, and only samples that large can be the nearest one.
 *
 * The refinement halves r around those samples: each keeps its value and
 * gains two more at +-r/2, until cos(m r) is within 1e-6 of 1 (eleven halvings
 * at most) or a budget of evaluations is spent. A value off the grid comes
 * from the grid itself: the taps are zero on [L, M), so with any window w
 * equal to 1 on [0, L) and supported within the zeros on either side,
 * H(w) = (1/M) sum_k H_k W(w - w_k). The window here is a rectangle
 * smoothed by ten boxes, so |W| falls as the eleventh power of the distance
 * in bins; 81 terms leave under 1e-7 of the largest bin, which the bound
 * counts.
 */
#define _DEFAULT_SOURCE /* madvise, posix_memalign */
#include "design/peak.h"
#include "cpu/fftw.h"
#include "cpu/pool.h"
#include "design/dft.h"
#include "gfir.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define PEAK_MIN_GRID 8192
#define PEAK_SMOOTHING 10      /* boxes smoothing the window: p */
#define PEAK_TERMS 40          /* bins each side of the nearest: K */
#define PEAK_TOLERANCE 1e-6    /* bound / peak - 1 where the refinement stops */

/* Memory for the grid: aligned for FFTW's SIMD and, from a few megabytes
 * on, in huge pages where the system gives them on request: the first
 * touch of 4 KB pages (a fault each) cost as much as the transform itself.
 * Released with free(); NULL without memory. */
#define HUGE_PAGE ((size_t)2 << 20)

static void *grid_alloc(size_t bytes)
{
    const int huge = bytes >= 2 * HUGE_PAGE;
    void *p = NULL;
    if (huge)
        bytes = (bytes + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
    if (posix_memalign(&p, huge ? HUGE_PAGE : 64, bytes ? bytes : 1))
        return NULL;
#ifdef MADV_HUGEPAGE
    if (huge)
        madvise(p, bytes, MADV_HUGEPAGE); /* advice: without it, 4 KB pages */
#endif
    return p;
}

/* The smallest 2^a 3^b 5^c (a >= 1) of at least n. */
static size_t friendly_size(size_t n)
{
    size_t best = SIZE_MAX;
    for (size_t p5 = 1; p5 < 2 * n; p5 *= 5)
        for (size_t p3 = p5; p3 < 2 * n; p3 *= 3) {
            size_t v = 2 * p3;
            while (v < n)
                v *= 2;
            best = v < best ? v : best;
        }
    return best;
}

struct gf_spectra {
    size_t m_points;            /* M */
    size_t ntaps;               /* L */
    size_t stride;              /* complex values from one set's bins to the next's */
    fftwf_complex *bins;        /* set s's bins 0 .. M/2 at s * stride */
    /* the interpolation's window: a rectangle of length rect smoothed by
     * PEAK_SMOOTHING boxes of length box; cos and sin of pi q u / M for
     * u = -K .. K and q = 1, rect, box, L - 1 */
    size_t rect, box;
    double tab[4][2 * PEAK_TERMS + 1][2];
};

/* The sets one peak is over, and what the dropped terms of the
 * interpolation can add to a value of their sum. */
typedef struct group {
    const gf_spectra *sp;
    const unsigned *sets;
    const double *gains;
    unsigned n;
    double eps;
} group;

/* cos and sin of pi (q u mod 2M) / M, reduced exactly in integers. */
static void table_angle(size_t q, long u, size_t m_points, double out[2])
{
    const uint64_t two_m = 2 * (uint64_t)m_points;
    const uint64_t uu = u < 0 ? two_m - ((uint64_t)(-u) % two_m) : (uint64_t)u % two_m;
    const uint64_t r = ((uint64_t)q % two_m) * uu % two_m;
    const double a = pi * (double)r / (double)m_points;
    out[0] = cos(a);
    out[1] = sin(a);
}

static void interpolator_init(gf_spectra *sp)
{
    const size_t m = sp->m_points, gap = m - sp->ntaps;
    const size_t q[4] = {1, 0, 0, sp->ntaps - 1};
    size_t qs[4];
    sp->box = gap / PEAK_SMOOTHING + 1;
    sp->rect = sp->ntaps + PEAK_SMOOTHING * (sp->box - 1);
    memcpy(qs, q, sizeof qs);
    qs[1] = sp->rect;
    qs[2] = sp->box;
    for (int k = 0; k < 4; k++)
        for (long u = -PEAK_TERMS; u <= PEAK_TERMS; u++)
            table_angle(qs[k], u, m, sp->tab[k][u + PEAK_TERMS]);
}

/* |sin(x)| >= 2|x|/pi bounds each dropped weight by (1/2d) (beta/d)^p at d
 * bins, beta = M / (2 box); summed over both sides from d = K:
 * (1/p) (beta/K)^p of the largest bin. */
static double dropped_share(const gf_spectra *sp)
{
    const double beta = (double)sp->m_points / (2.0 * (double)sp->box);
    return pow(beta / PEAK_TERMS, PEAK_SMOOTHING) / PEAK_SMOOTHING;
}

/* Set s's bin k of the whole circle (the upper half mirrored). */
static void bin_at(const gf_spectra *sp, unsigned s, long k, double *re, double *im)
{
    const long m = (long)sp->m_points;
    k %= m;
    if (k < 0)
        k += m;
    const int mirrored = k > m / 2;
    const fftwf_complex *b = sp->bins + (size_t)s * sp->stride + (size_t)(mirrored ? m - k : k);
    *re = (*b)[0];
    *im = mirrored ? -(*b)[1] : (*b)[1];
}

/* The interpolation's weights at w_k0 + t, 0 < |t| < pi / M, the same for
 * every k0: term i takes the bin k0 + K - i, at nu = t + 2 pi (i - K) / M
 * from the point. */
static void weights(const gf_spectra *sp, double t, double *w_re, double *w_im)
{
    double at[4][2];
    const double halves[4] = {t / 2, (double)sp->rect * t / 2, (double)sp->box * t / 2,
                              (double)(sp->ntaps - 1) * t / 2};
    const double inv_m = 1.0 / (double)sp->m_points, inv_box = 1.0 / (double)sp->box;
    for (int q = 0; q < 4; q++) {
        at[q][0] = cos(halves[q]);
        at[q][1] = sin(halves[q]);
    }
    for (int i = 0; i <= 2 * PEAK_TERMS; i++) {
        double sn[4], c3;
        for (int q = 0; q < 4; q++)
            sn[q] = at[q][1] * sp->tab[q][i][0] + at[q][0] * sp->tab[q][i][1];
        c3 = at[3][0] * sp->tab[3][i][0] - at[3][1] * sp->tab[3][i][1];
        double smooth = sn[2] * inv_box / sn[0], w = sn[1] / sn[0] * inv_m;
        for (int p = 0; p < PEAK_SMOOTHING; p++)
            w *= smooth;
        w_re[i] = w * c3;
        w_im[i] = -w * sn[3];
    }
}

/* The sum of magnitudes at w_k0 + t, t's weights given. */
static double interpolate(const group *g, long k0, const double *w_re, const double *w_im)
{
    const gf_spectra *sp = g->sp;
    double sum = 0;
    /* away from 0 and pi the bins lie in order, k0 + K down to k0 - K */
    const int inside = k0 >= PEAK_TERMS && k0 + PEAK_TERMS <= (long)(sp->m_points / 2);
    for (unsigned j = 0; j < g->n; j++) {
        const float *b = sp->bins[(size_t)g->sets[j] * sp->stride];
        double re = 0, im = 0;
        for (int i = 0; i <= 2 * PEAK_TERMS; i++) {
            double br, bi;
            if (inside) {
                br = b[2 * (k0 + PEAK_TERMS - i)];
                bi = b[2 * (k0 + PEAK_TERMS - i) + 1];
            } else {
                bin_at(sp, g->sets[j], k0 - (i - PEAK_TERMS), &br, &bi);
            }
            re += w_re[i] * br - w_im[i] * bi;
            im += w_re[i] * bi + w_im[i] * br;
        }
        sum += fabs(g->gains[j]) * sqrt(re * re + im * im);
    }
    return sum;
}

/* Offsets from a grid point are multiples of pi / M / 2^PEAK_LEVELS; the
 * weights of each are made once, for the first PEAK_CACHED offsets met
 * (the early levels, where most samples are). */
#define PEAK_LEVELS 11
#define PEAK_CACHED 256
#define PEAK_WEIGHTS (2 * (2 * PEAK_TERMS + 1))

typedef struct weight_cache {
    double *slot[2 << PEAK_LEVELS];     /* by offset + 2^PEAK_LEVELS: weights, or NULL */
    double *store;                      /* PEAK_CACHED sets of weights */
    size_t used;
} weight_cache;

/* The sum of magnitudes at w_k0 + offset pi / M / 2^PEAK_LEVELS. */
static double evaluate(const group *g, weight_cache *wc, long k0, long offset)
{
    const double t = pi / (double)g->sp->m_points * (double)offset / (double)(1 << PEAK_LEVELS);
    double local[PEAK_WEIGHTS], **slot = &wc->slot[offset + (1 << PEAK_LEVELS)];
    double *w = *slot;
    if (!w) {
        w = wc->store && wc->used < PEAK_CACHED ? wc->store + PEAK_WEIGHTS * wc->used++ : local;
        weights(g->sp, t, w, w + 2 * PEAK_TERMS + 1);
        if (w != local)
            *slot = w;
    }
    return interpolate(g, k0, w, w + 2 * PEAK_TERMS + 1);
}

typedef struct sample {
    long k0;
    long offset;                /* from w_k0, in pi / M / 2^PEAK_LEVELS */
    double v;
} sample;

/* The samples of list (n) that may be the one nearest the peak, their
 * children at +-r/2 after them, into next; returns the count, or 0 past the
 * budget (nothing written) and (size_t)-1 without memory. */
static size_t refine_stage(const group *g, weight_cache *wc, const sample *list, size_t n,
                           double threshold, long half, size_t budget, sample **next,
                           double *best)
{
    size_t keep = 0, k = 0;
    for (size_t i = 0; i < n; i++)
        keep += list[i].v >= threshold;
    if (2 * keep > budget)
        return 0;
    sample *out = malloc(3 * keep * sizeof *out);
    if (!out)
        return (size_t)-1;
    for (size_t i = 0; i < n; i++) {
        if (list[i].v < threshold)
            continue;
        out[k++] = list[i];
        for (int side = -1; side <= 1; side += 2) {
            sample c = {list[i].k0, list[i].offset + side * half, 0};
            c.v = evaluate(g, wc, c.k0, c.offset);
            *best = c.v > *best ? c.v : *best;
            out[k++] = c;
        }
    }
    *next = out;
    return k;
}

/* The sum of magnitudes at grid point k, in double. */
static double grid_value(const group *g, size_t k)
{
    const gf_spectra *sp = g->sp;
    double v = 0;
    for (unsigned j = 0; j < g->n; j++) {
        const float *b = sp->bins[(size_t)g->sets[j] * sp->stride + k];
        v += fabs(g->gains[j]) * sqrt((double)b[0] * b[0] + (double)b[1] * b[1]);
    }
    return v;
}

/* The largest of n non-negative floats: their bits order as unsigned
 * integers do, and that reduction vectorises where a float one may not. */
static float largest_of(const float *v, size_t n)
{
    uint32_t top = 0;
    float out;
    for (size_t k = 0; k < n; k++) {
        uint32_t u;
        memcpy(&u, &v[k], sizeof u);
        top = u > top ? u : top;
    }
    memcpy(&out, &top, sizeof out);
    return out;
}

/* The grid's sums of magnitudes, in float (a scan, not a result), into
 * vals; the sum over the sets of each one's largest weighted bin (what
 * bounds any interpolated value's dropped terms) into *largest. */
static void grid_values(const group *g, float *vals, double *largest)
{
    const gf_spectra *sp = g->sp;
    const size_t points = sp->m_points / 2 + 1;
    *largest = 0;
    for (unsigned j = 0; j < g->n; j++) {
        const float *b = sp->bins[(size_t)g->sets[j] * sp->stride];
        const float gain = (float)fabs(g->gains[j]);
        uint32_t top = 0;
        float most;
        for (size_t k = 0; k < points; k++) {
            const float a = gain * sqrtf(b[2 * k] * b[2 * k] + b[2 * k + 1] * b[2 * k + 1]);
            uint32_t u;
            memcpy(&u, &a, sizeof u);
            top = u > top ? u : top;
            vals[k] = j ? vals[k] + a : a;
        }
        memcpy(&most, &top, sizeof most);
        *largest += most;
    }
}

/* The grid's points whose float value is within a float's rounding of
 * threshold or above, as samples (*n of them) with their values in double,
 * or NULL without memory or when they are more than most. */
static sample *grid_candidates(const group *g, const float *vals, double threshold, size_t most,
                               size_t *n)
{
    const size_t points = g->sp->m_points / 2 + 1;
    const float below = (float)(threshold * (1 - 1e-6));
    sample *list;
    size_t count = 0;
    for (size_t k = 0; k < points; k++)
        count += vals[k] >= below;
    *n = count;
    if (count > most || !(list = malloc((count ? count : 1) * sizeof *list)))
        return NULL;
    count = 0;
    for (size_t k = 0; k < points; k++)
        if (vals[k] >= below)
            list[count++] = (sample){(long)k, 0, grid_value(g, k)};
    return list;
}

/* The grid's largest value, in double (a float sum can round either way),
 * and the float values into vals. */
static double grid_best(const group *g, float *vals, double *largest)
{
    const size_t points = g->sp->m_points / 2 + 1;
    size_t top = 0;
    grid_values(g, vals, largest);
    const float most = largest_of(vals, points);
    while (top + 1 < points && vals[top] != most)
        top++;
    return grid_value(g, top);
}

static int refine(group *g, gf_peak_result *out)
{
    const gf_spectra *sp = g->sp;
    const double m = (double)(sp->ntaps - 1) / 2;
    const size_t budget = 16384 + sp->m_points / 64, points = sp->m_points / 2 + 1;
    double best, largest = 0;
    size_t n = 0;
    sample *list = NULL;
    float *vals = grid_alloc(points * sizeof *vals);
    weight_cache *wc = calloc(1, sizeof *wc);
    int st = GFIR_ERR_NOMEM;

    if (!vals || !wc)
        goto done;
    wc->store = malloc(PEAK_CACHED * PEAK_WEIGHTS * sizeof *wc->store);
    out->evaluations = 0;
    best = grid_best(g, vals, &largest);
    g->eps = largest * dropped_share(sp);
    /* level s: every point within pi / M / 2^s of a sample */
    for (int level = 0;; level++) {
        const double r = pi / (double)sp->m_points / (double)(1L << level);
        const double c = cos(m * r), eps = g->eps, threshold = (best - eps) * c - eps;
        const size_t left = budget - out->evaluations;
        out->bound = (best + eps) / c;
        if (!(best > 0) || out->bound <= best * (1 + PEAK_TOLERANCE) || level == PEAK_LEVELS)
            break;
        if (!list) {
            /* the grid, whose candidates are listed once the bound is known */
            list = grid_candidates(g, vals, threshold, left / 2, &n);
            if (!list && n <= left / 2)
                goto done;
            if (!list)
                break;
        }
        sample *next = NULL;
        const size_t got = refine_stage(g, wc, list, n, threshold,
                                        1L << (PEAK_LEVELS - level - 1), left, &next, &best);
        if (got == (size_t)-1)
            goto done;
        if (got == 0)
            break;
        out->evaluations += 2 * (got / 3);
        free(list);
        list = next;
        n = got;
    }
    out->peak = best;
    if (!(best > 0))
        out->bound = 0;
    st = GFIR_OK;
done:
    free(list);
    free(vals);
    if (wc)
        free(wc->store);
    free(wc);
    return st;
}

/* The sets' transforms, in place: each set's taps zero-padded where its
 * bins go. */
typedef struct transform_job {
    gf_spectra *sp;
    const float *taps;
    fftwf_plan plan;
} transform_job;

/* Task 0 plans the transform while the others lay out a set each (the
 * first touch of their memory, which costs about as much as the plan). */
static void plan_or_lay_out(void *arg, size_t task)
{
    transform_job *job = arg;
    gf_spectra *sp = job->sp;
    if (task == 0) {
        job->plan = gf_fftw_r2c_once((int)sp->m_points, (float *)sp->bins, sp->bins);
        return;
    }
    float *in = (float *)(sp->bins + (task - 1) * sp->stride);
    memcpy(in, job->taps + (task - 1) * sp->ntaps, sp->ntaps * sizeof *in);
    memset(in + sp->ntaps, 0, (2 * (sp->m_points / 2 + 1) - sp->ntaps) * sizeof *in);
}

static void transform_set(void *arg, size_t s)
{
    transform_job *job = arg;
    fftwf_complex *bins = job->sp->bins + s * job->sp->stride;
    fftwf_execute_dft_r2c(job->plan, (float *)bins, bins);
}

/* pool's threads (or the caller alone, without one) run fn for tasks
 * 0 .. n - 1. */
static void run_tasks(gf_pool *pool, gf_task_fn fn, void *arg, size_t n)
{
    if (pool) {
        gf_pool_run(pool, fn, arg, n);
        return;
    }
    for (size_t t = 0; t < n; t++)
        fn(arg, t);
}

gf_spectra *gf_spectra_make(const float *taps, size_t ntaps, unsigned nsets, gf_pool *pool)
{
    gf_spectra *sp = calloc(1, sizeof *sp);
    transform_job job = {sp, taps, NULL};
    const size_t target = 2 * ntaps > PEAK_MIN_GRID ? 2 * ntaps : PEAK_MIN_GRID;

    if (!sp)
        return NULL;
    sp->m_points = friendly_size(target);
    sp->ntaps = ntaps;
    /* each set's bins start 32-byte aligned, as the plan's did */
    sp->stride = (sp->m_points / 2 + 1 + 3) & ~(size_t)3;
    if (sp->m_points > INT32_MAX || !(sp->bins = grid_alloc(sp->stride * nsets * sizeof *sp->bins)))
        goto fail;
    /* a set a task: one set's transform is a pass over memory that no
     * thread splits */
    run_tasks(pool, plan_or_lay_out, &job, (size_t)nsets + 1);
    if (!job.plan)
        goto fail;
    run_tasks(pool, transform_set, &job, nsets);
    gf_fftw_plan_destroy(job.plan);
    interpolator_init(sp);
    return sp;
fail:
    gf_spectra_free(sp);
    return NULL;
}

void gf_spectra_free(gf_spectra *sp)
{
    if (!sp)
        return;
    free(sp->bins);
    free(sp);
}

int gf_spectra_peak(const gf_spectra *sp, const unsigned *sets, const double *gains, unsigned n,
                    gf_peak_result *out)
{
    group g = {sp, sets, gains, n, 0};
    out->grid = sp->m_points;
    return refine(&g, out);
}
