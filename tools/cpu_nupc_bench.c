/*
 * cpu_nupc_bench.c - measures the zero-latency FFT engine
 * (src/cpu/fft_nonuniform.c) through the public API, against the uniform FFT
 * engine and the direct one (one thread each):
 *
 *   cpu_nupc_bench --table [RUNS]       ns per frame per channel, stereo, by
 *                                       tap count (4096 to 2^20) and block
 *                                       (256, 65536): non-uniform, uniform at
 *                                       the partition its rule picks and at
 *                                       its fastest one, direct
 *   cpu_nupc_bench --calls [RUNS]       the spread of one call's time at
 *                                       calls of 64 and 256 frames, stereo:
 *                                       mean, 99th percentile and worst
 *   cpu_nupc_bench --swaps [RUNS]       the calls from a filter swap
 *                                       (gfir_plan_swap) to its fade's end,
 *                                       which make the new filter's blocks
 *                                       and crossfade, against the calls
 *                                       with no swap: mean and worst
 *   cpu_nupc_bench --swap-calls TAPS CALL [RUNS]
 *                                       one such swap call by call, stereo:
 *                                       each call's frame from the fade's
 *                                       first and its least time, beside
 *                                       the same call of the cycle with no
 *                                       swap (where a swap's worst calls
 *                                       come from)
 *   cpu_nupc_bench --crossover [RUNS]   per call size, the tap count from
 *                                       which the engine beats direct (mono):
 *                                       the crossover table of
 *                                       gf_cpu_fft_nonuniform_preferred()
 *   cpu_nupc_bench --schemes [RUNS]     candidate partition schemes by tap
 *                                       count, stereo, fastest first at
 *                                       256-frame blocks, the five best also
 *                                       at 65536 and with worst/mean at
 *                                       64-frame calls: the basis of
 *                                       gf_cpu_fft_nonuniform_scheme()
 *   cpu_nupc_bench --compare TAPS SCHEME... [--runs RUNS]
 *                                       the given schemes (head,size,...,
 *                                       e.g. 128,1024,8192) side by side,
 *                                       their runs interleaved, stereo,
 *                                       256-frame blocks: the thresholds of
 *                                       gf_cpu_fft_nonuniform_scheme()
 *
 * Each figure is the median of RUNS (default 5) timed runs after a warm-up
 * that fills the delay lines; a run lasts at least 0.1 s and two blocks of
 * the longest partition. Times are the thread's CPU time (less the cost of
 * reading that clock, for single calls): other processes' load still slows
 * caches and memory, but no longer adds the time spent descheduled. On a
 * shared machine, run it twice and compare.
 */
#include "core/swap.h"
#include "cpu/fft_nonuniform.h"
#include "gfir.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum engine { DIRECT, UNIFORM, NONUNIFORM };

static int runs = 5;

/* This thread's CPU time: every plan here runs on the calling thread alone,
 * and on a shared machine the time it spends descheduled would otherwise
 * land on whichever call was running, hundreds of times its length. */
static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void fill(float *v, size_t n)
{
    uint64_t s = 0x2545F4914F6CDD1DULL;
    for (size_t i = 0; i < n; i++) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        v[i] = (float)((double)(s >> 11) / 9007199254740992.0 * 2.0 - 1.0);
    }
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* A plan of one engine, one thread; part forces the uniform engine's
 * partition, scheme the non-uniform one's. NULL if it cannot be made. */
static gfir_plan *make(enum engine e, size_t ntaps, size_t block, unsigned channels, size_t part,
                       const gf_nu_scheme *scheme)
{
    float *taps = malloc(ntaps * sizeof *taps);
    gfir_plan *plan = NULL;
    gfir_config cfg;
    if (!taps)
        return NULL;
    fill(taps, ntaps);
    gfir_config_init(&cfg);
    cfg.channels = channels;
    cfg.max_block_frames = block;
    cfg.backend = GFIR_BACKEND_CPU;
    cfg.kernel = e == DIRECT ? GFIR_KERNEL_DIRECT : GFIR_KERNEL_FFT;
    cfg.threads = 1;
    cfg.max_latency_frames = e == UNIFORM ? GFIR_LATENCY_ANY : 0;
    if (gfir_plan_create(&plan, taps, ntaps, &cfg) != GFIR_OK)
        plan = NULL;
    if (plan && e == UNIFORM && part) {
        plan->engine->destroy(plan);
        plan->partition = part;
        if (gf_engine_build(plan, taps) != GFIR_OK) {
            gfir_plan_destroy(plan);
            plan = NULL;
        }
    }
    if (plan && e == NONUNIFORM && scheme) {
        plan->engine->destroy(plan);
        if (gf_cpu_fft_nonuniform_create_scheme(plan, scheme) != GFIR_OK ||
            gf_engine_finish(plan, taps) != GFIR_OK) {
            gfir_plan_destroy(plan);
            plan = NULL;
        }
    }
    free(taps);
    return plan;
}

/* Frames a run covers at least: two cycles of the longest partition. */
static size_t cycle_frames(size_t ntaps)
{
    size_t p = 1;
    while (p < ntaps && p < 65536)
        p *= 2;
    return 2 * p;
}

/* Median ns per frame per channel of plan in calls of `call` frames. */
static double throughput(gfir_plan *plan, size_t ntaps, size_t call, unsigned channels,
                         int direct)
{
    float *in = malloc(call * channels * sizeof *in), *out = malloc(call * channels * sizeof *out);
    double t[64];
    const size_t cycle = direct ? call : cycle_frames(ntaps);
    if (!in || !out) {
        free(in);
        free(out);
        return -1.0;
    }
    fill(in, call * channels);
    /* Warm-up: the delay lines fill (direct: a call touches its history). */
    for (size_t f = 0; f < (direct ? call : ntaps + cycle); f += call)
        gfir_plan_execute(plan, in, out, call);
    for (int r = 0; r < runs; r++) {
        size_t frames = 0;
        double t0 = now_s(), dt;
        do {
            gfir_plan_execute(plan, in, out, call);
            frames += call;
            dt = now_s() - t0;
        } while (dt < 0.1 || frames < cycle);
        t[r] = dt * 1e9 / (double)frames / channels;
    }
    free(in);
    free(out);
    return median(t, (size_t)runs);
}

static double measure(enum engine e, size_t ntaps, size_t block, unsigned channels, size_t part,
                      const gf_nu_scheme *scheme)
{
    gfir_plan *plan = make(e, ntaps, block, channels, part, scheme);
    double ns = -1.0;
    if (plan)
        ns = throughput(plan, ntaps, block, channels, e == DIRECT);
    gfir_plan_destroy(plan);
    return ns;
}

/* ---- --calls: the time of single calls -------------------------------------------- */

typedef struct call_stats {
    double mean_us, p99_us, max_us;
} call_stats;

/* --swap-calls: every call of the swap is printed, beside the call at the
 * same place of the cycle with no swap (call_stats_of's last cycle). */
static int print_calls;
static double *cycle_us;
static size_t cycle_ncalls;

/* What reading the clock twice costs, in microseconds: the least of many. */
static double clock_cost_us(void)
{
    double best = 1e9;
    for (int i = 0; i < 10000; i++) {
        const double t0 = now_s(), t1 = now_s();
        if (t1 - t0 < best)
            best = t1 - t0;
    }
    return best * 1e6;
}

/* Calls of `call` frames until the filter is full and a cycle has passed,
 * then on to a cycle boundary, so that timing starts on whole cycles. */
static void warm_up(gfir_plan *plan, size_t ntaps, size_t call, const float *in, float *out)
{
    const size_t cycle = cycle_frames(ntaps);
    for (size_t f = 0; f < ntaps + cycle; f += call)
        gfir_plan_execute(plan, in, out, call);
    for (size_t f = (ntaps + cycle + call - 1) / call * call; f % cycle; f += call)
        gfir_plan_execute(plan, in, out, call);
}

/*
 * The time of single calls of `call` frames. The engine's schedule repeats
 * with its longest partition, so RUNS cycles are timed and each call of the
 * cycle keeps its least time over them: an interrupt or a cold cache left by
 * another process rarely strikes the same call of every cycle, while the
 * engine's own uneven work does. Mean, 99th percentile and worst are taken
 * over the calls of that cycle.
 */
static call_stats call_stats_of(gfir_plan *plan, size_t ntaps, size_t call, unsigned channels)
{
    const size_t cycle = cycle_frames(ntaps), ncalls = cycle / call;
    const double clock_us = clock_cost_us();
    float *in = malloc(call * channels * sizeof *in), *out = malloc(call * channels * sizeof *out);
    double *t = malloc(ncalls * sizeof *t), sum = 0.0;
    call_stats s = {-1.0, -1.0, -1.0};
    if (!in || !out || !t)
        goto done;
    fill(in, call * channels);
    warm_up(plan, ntaps, call, in, out);
    for (int r = 0; r < runs; r++)
        for (size_t i = 0; i < ncalls; i++) {
            const double t0 = now_s();
            double us;
            gfir_plan_execute(plan, in, out, call);
            /* Reading the clock costs a system call; that comes off. */
            us = (now_s() - t0) * 1e6 - clock_us;
            if (r == 0 || us < t[i])
                t[i] = us;
        }
    for (size_t i = 0; i < ncalls; i++)
        sum += t[i];
    free(cycle_us);
    cycle_us = malloc(ncalls * sizeof *t);
    if (cycle_us)
        memcpy(cycle_us, t, ncalls * sizeof *t);
    cycle_ncalls = ncalls;
    s.mean_us = sum / (double)ncalls;
    qsort(t, ncalls, sizeof *t, cmp_double);
    s.p99_us = t[ncalls * 99 / 100];
    s.max_us = t[ncalls - 1];
done:
    free(in);
    free(out);
    free(t);
    return s;
}

static const size_t table_taps[] = {4096, 16384, 65536, 262144, 1048576};
#define NTABLE (sizeof table_taps / sizeof table_taps[0])

/* ---- --swaps: the calls of a swap ------------------------------------------------------ */

typedef struct swap_stats {
    double mean_us;             /* calls with no swap running */
    double swap_mean_us, swap_max_us;
    size_t frames;              /* from the swap to the fade's end */
} swap_stats;

#define SWAP_FADE 2400

/*
 * The calls of `call` frames from a swap (a crossfade of SWAP_FADE frames,
 * 50 ms at 48 kHz) until its fade has ended, between the plan's filter and
 * `other`, which come back through gfir_plan_retired in turn: the engine
 * makes the incoming filter's blocks in those calls before the fade
 * begins. Each swap starts a third of the way into the cycle of the
 * longest partition, with blocks of every level in flight, so every run
 * sees the same calls, and each call keeps its least time over RUNS swaps
 * (as in call_stats_of).
 */
static swap_stats swap_stats_of(gfir_plan *plan, size_t ntaps, size_t call, unsigned channels,
                                gfir_filter *other)
{
    const size_t cycle = cycle_frames(ntaps), most = (3 * cycle + SWAP_FADE) / call + 2;
    const double clock_us = clock_cost_us();
    float *in = malloc(call * channels * sizeof *in), *out = malloc(call * channels * sizeof *out);
    double *t = malloc(most * sizeof *t);
    size_t ncalls = 0, frames = 0;
    swap_stats s = {-1.0, -1.0, -1.0, 0};
    if (!in || !out || !t)
        goto done;
    s.mean_us = call_stats_of(plan, ntaps, call, channels).mean_us;
    fill(in, call * channels);
    warm_up(plan, ntaps, call, in, out);
    for (int r = 0; r < runs; r++) {
        gfir_filter *back = NULL;
        size_t i = 0;
        /* to a third of the cycle: warm_up and the runs end on its boundary */
        for (size_t f = 0; f < cycle / 3 / call * call; f += call)
            gfir_plan_execute(plan, in, out, call);
        if (gfir_plan_swap(plan, other, SWAP_FADE) != GFIR_OK)
            goto done;
        for (; !back && i < most; i++) {
            const double t0 = now_s();
            double us;
            gfir_plan_execute(plan, in, out, call);
            us = (now_s() - t0) * 1e6 - clock_us;
            back = gfir_plan_retired(plan);
            if (r == 0 || i >= ncalls || us < t[i])
                t[i] = us;
        }
        if (!back)
            goto done;
        other = back;
        ncalls = r == 0 || i < ncalls ? i : ncalls;
        frames = i * call;
        for (size_t f = (cycle / 3 / call + i) * call; f % cycle; f += call)
            gfir_plan_execute(plan, in, out, call);
    }
    s.swap_mean_us = 0.0;
    s.swap_max_us = 0.0;
    for (size_t i = 0; i < ncalls; i++) {
        s.swap_mean_us += t[i] / (double)ncalls;
        s.swap_max_us = t[i] > s.swap_max_us ? t[i] : s.swap_max_us;
    }
    s.frames = frames;
    for (size_t i = 0; print_calls && cycle_us && i < ncalls; i++)
        printf("| %zu | %ld | %.2f | %.2f |\n", i, (long)(i * call) - (long)plan->fade_delay, t[i],
               cycle_us[(cycle / 3 / call + i) % cycle_ncalls]);
done:
    gfir_filter_destroy(other);
    free(in);
    free(out);
    free(t);
    return s;
}

static void swaps(void)
{
    static const size_t sizes[] = {64, 256};
    printf("| taps | call frames | mean us | swap to fade's end, frames | its calls: mean us |"
           " worst us | worst / mean with no swap |\n");
    printf("|---|---|---|---|---|---|---|\n");
    for (size_t t = 0; t < NTABLE; t++) {
        float *taps = malloc(table_taps[t] * sizeof *taps);
        if (!taps)
            return;
        fill(taps, table_taps[t]);
        for (size_t c = 0; c < 2; c++) {
            gfir_plan *plan = make(NONUNIFORM, table_taps[t], sizes[c], 2, 0, NULL);
            gfir_filter *other = NULL;
            swap_stats s;
            if (!plan || gfir_filter_create(&other, plan, taps, table_taps[t]) != GFIR_OK) {
                gfir_plan_destroy(plan);
                continue;
            }
            s = swap_stats_of(plan, table_taps[t], sizes[c], 2, other);
            printf("| %zu | %zu | %.2f | %zu | %.2f | %.2f | %.2f |\n", table_taps[t], sizes[c],
                   s.mean_us, s.frames, s.swap_mean_us, s.swap_max_us,
                   s.swap_max_us / s.mean_us);
            fflush(stdout);
            gfir_plan_destroy(plan);
        }
        free(taps);
    }
}

/* --swap-calls: one swap's calls at ntaps taps in calls of `call` frames. */
static int swap_calls(size_t ntaps, size_t call)
{
    float *taps = malloc(ntaps * sizeof *taps);
    gfir_plan *plan = taps && call ? make(NONUNIFORM, ntaps, call, 2, 0, NULL) : NULL;
    gfir_filter *other = NULL;
    if (plan)
        fill(taps, ntaps);
    if (!plan || gfir_filter_create(&other, plan, taps, ntaps) != GFIR_OK) {
        gfir_plan_destroy(plan);
        free(taps);
        return 1;
    }
    print_calls = 1;
    printf("| call | frames from the fade's first | us | us at that call with no swap |\n");
    printf("|---|---|---|---|\n");
    swap_stats_of(plan, ntaps, call, 2, other);
    gfir_plan_destroy(plan);
    free(taps);
    free(cycle_us);
    return 0;
}

static void calls(void)
{
    static const size_t sizes[] = {64, 256};
    printf("| taps | call frames | mean us | p99 us | worst us | p99/mean | worst/mean |\n");
    printf("|---|---|---|---|---|---|---|\n");
    for (size_t t = 0; t < NTABLE; t++) {
        for (size_t c = 0; c < 2; c++) {
            gfir_plan *plan = make(NONUNIFORM, table_taps[t], sizes[c], 2, 0, NULL);
            call_stats s;
            if (!plan)
                continue;
            s = call_stats_of(plan, table_taps[t], sizes[c], 2);
            printf("| %zu | %zu | %.2f | %.2f | %.2f | %.2f | %.2f |\n", table_taps[t], sizes[c],
                   s.mean_us, s.p99_us, s.max_us, s.p99_us / s.mean_us, s.max_us / s.mean_us);
            fflush(stdout);
            gfir_plan_destroy(plan);
        }
    }
}

/* ---- --table: throughput ------------------------------------------------------------ */

/* The uniform engine's fastest partition for ntaps at this block, and its time. */
static double uniform_best(size_t ntaps, size_t block, unsigned channels, size_t *best_part)
{
    double best = -1.0;
    *best_part = 0;
    for (size_t p = 256; p <= 65536; p *= 2) {
        double ns;
        if (p > 2 * ntaps || ntaps / p > 1024)
            continue;
        ns = measure(UNIFORM, ntaps, block, channels, p, NULL);
        if (ns > 0 && (best < 0 || ns < best)) {
            best = ns;
            *best_part = p;
        }
    }
    return best;
}

static void table(void)
{
    static const size_t blocks[] = {256, 65536};
    printf("| taps | block | non-uniform | uniform (rule's P) | uniform (fastest P) | direct |"
           " non-uniform / fastest uniform |\n");
    printf("|---|---|---|---|---|---|---|\n");
    for (size_t t = 0; t < NTABLE; t++) {
        for (size_t b = 0; b < 2; b++) {
            const size_t ntaps = table_taps[t], block = blocks[b];
            /* the rule's P for a budget of one block (offline, with any
             * budget, the rule ignores the block) */
            const size_t rule = gf_cpu_fft_partition(ntaps, block, block);
            size_t best_p;
            const double nu = measure(NONUNIFORM, ntaps, block, 2, 0, NULL);
            const double ur = measure(UNIFORM, ntaps, block, 2, rule, NULL);
            const double ub = uniform_best(ntaps, block, 2, &best_p);
            /* Direct costs the same per frame at any block past its vector
             * width; long filters are timed in 256-frame calls to keep the
             * run short. */
            const double dir = measure(DIRECT, ntaps, ntaps > 65536 ? 256 : block, 2, 0, NULL);
            printf("| %zu | %zu | %.2f | %.2f (P %zu) | %.2f (P %zu) | %.1f | %.2f |\n", ntaps,
                   block, nu, ur, rule, ub, best_p, dir, nu / ub);
            fflush(stdout);
        }
    }
}

/* ---- --crossover: against direct ----------------------------------------------------- */

static const size_t grid[] = {16,  24,  32,  48,   64,   96,   128,  192,  256,
                              384, 512, 768, 1024, 1536, 2048, 3072, 4096};
#define NGRID (sizeof grid / sizeof grid[0])

static void crossover(void)
{
    printf("| call frames | non-uniform faster from | direct/non-uniform time at");
    for (size_t g = 0; g < NGRID; g++)
        printf(" %zu", grid[g]);
    printf(" taps |\n|---|---|---|\n");
    for (size_t block = 16; block <= 32768; block *= 2) {
        double r[NGRID];
        size_t cross = NGRID;
        for (size_t g = 0; g < NGRID; g++)
            r[g] = measure(DIRECT, grid[g], block, 1, 0, NULL) /
                   measure(NONUNIFORM, grid[g], block, 1, 0, NULL);
        for (size_t g = NGRID; g-- > 0 && r[g] >= 1.0;)
            cross = g;
        printf("| %zu | ", block);
        if (cross < NGRID)
            printf("%zu |", grid[cross]);
        else
            printf("> %zu |", grid[NGRID - 1]);
        for (size_t g = 0; g < NGRID; g++)
            printf(" %.2f", r[g]);
        printf(" |\n");
        fflush(stdout);
    }
}

/* ---- --schemes: candidate partitions ------------------------------------------------- */

#define MAX_CANDIDATES 256

/* Every scheme with head 64 or 128 whose sizes grow by 4, 8, 16 or 32 at
 * each step (the head counts as the first size), up to 65536, keeping the
 * levels that start inside the filter; duplicates dropped. */
static size_t candidates(size_t ntaps, gf_nu_scheme *out)
{
    size_t n = 0;
    for (size_t head = 64; head <= 128; head *= 2) {
        /* Ratios as base-4..32 digits of a counter: each sequence once. */
        for (unsigned code = 0; code < 4 * 4 * 4 * 4 * 4; code++) {
            gf_nu_scheme s;
            size_t p = head, c = code;
            int dup = 0;
            memset(&s, 0, sizeof s);
            s.head = head;
            for (int step = 0; step < 5; step++, c /= 4) {
                p <<= 2 + c % 4;
                if (p > 65536 || 2 * p >= ntaps)
                    break;
                s.sizes[s.nlevels++] = p;
            }
            for (size_t i = 0; i < n && !dup; i++)
                dup = memcmp(&out[i], &s, sizeof s) == 0;
            if (!dup && n < MAX_CANDIDATES)
                out[n++] = s;
        }
    }
    return n;
}

static void print_scheme(const gf_nu_scheme *s)
{
    printf("%zu", s->head);
    for (size_t i = 0; i < s->nlevels; i++)
        printf(",%zu", s->sizes[i]);
}

/* Per tap count, every candidate at 256-frame blocks; the five fastest then
 * at 65536-frame blocks and at 64-frame calls (worst over mean). */
static void schemes(void)
{
    static const size_t taps[] = {1024, 4096, 16384, 65536, 262144, 1048576};
    static gf_nu_scheme cand[MAX_CANDIDATES];
    printf("| taps | scheme (head, sizes) | ns/frame at 256 | ns/frame at 65536 |"
           " worst/mean at 64 |\n|---|---|---|---|---|\n");
    for (size_t t = 0; t < sizeof taps / sizeof taps[0]; t++) {
        const size_t ntaps = taps[t], n = candidates(ntaps, cand);
        double ns[MAX_CANDIDATES];
        size_t order[MAX_CANDIDATES];
        gf_nu_scheme rule;
        gf_cpu_fft_nonuniform_scheme(ntaps, 256, &rule);
        for (size_t i = 0; i < n; i++) {
            ns[i] = measure(NONUNIFORM, ntaps, 256, 2, 0, &cand[i]);
            order[i] = i;
        }
        for (size_t i = 1; i < n; i++)
            for (size_t j = i; j > 0 && ns[order[j]] < ns[order[j - 1]]; j--) {
                const size_t k = order[j];
                order[j] = order[j - 1];
                order[j - 1] = k;
            }
        for (size_t r = 0; r < n && r < 5; r++) {
            const gf_nu_scheme *s = &cand[order[r]];
            gfir_plan *plan = make(NONUNIFORM, ntaps, 64, 2, 0, s);
            call_stats cs = {0, 0, 0};
            if (plan) {
                cs = call_stats_of(plan, ntaps, 64, 2);
                gfir_plan_destroy(plan);
            }
            printf("| %zu | ", ntaps);
            print_scheme(s);
            printf("%s | %.2f | %.2f | %.2f |\n", memcmp(s, &rule, sizeof *s) ? "" : " (rule)",
                   ns[order[r]], measure(NONUNIFORM, ntaps, 65536, 2, 0, s),
                   cs.max_us / cs.mean_us);
            fflush(stdout);
        }
        printf("| %zu | rule: ", ntaps);
        print_scheme(&rule);
        printf(" | %.2f | | |\n", measure(NONUNIFORM, ntaps, 256, 2, 0, &rule));
        fflush(stdout);
    }
}

/* ---- --compare: given schemes side by side -------------------------------------------- */

static int parse_scheme(const char *text, gf_nu_scheme *s)
{
    char *end;
    memset(s, 0, sizeof *s);
    s->head = strtoul(text, &end, 10);
    while (*end == ',' && s->nlevels < GF_NU_MAX_LEVELS)
        s->sizes[s->nlevels++] = strtoul(end + 1, &end, 10);
    return *end == '\0' && s->head > 0;
}

/* The plans are made first and their runs interleaved, so a change in the
 * machine's load strikes every scheme alike. */
static int compare(size_t ntaps, int nschemes, char **texts)
{
    enum { CALL = 256, CH = 2 };
    gfir_plan *plans[16];
    double t[16][64];
    float *in = malloc(CALL * CH * sizeof *in), *out = malloc(CALL * CH * sizeof *out);
    const size_t cycle = cycle_frames(ntaps);
    if (nschemes > 16 || !in || !out)
        return 2;
    fill(in, CALL * CH);
    for (int k = 0; k < nschemes; k++) {
        gf_nu_scheme s;
        if (!parse_scheme(texts[k], &s) ||
            !(plans[k] = make(NONUNIFORM, ntaps, CALL, CH, 0, &s))) {
            fprintf(stderr, "cpu_nupc_bench: bad scheme '%s'\n", texts[k]);
            return 2;
        }
        for (size_t f = 0; f < ntaps + cycle; f += CALL)
            gfir_plan_execute(plans[k], in, out, CALL);
    }
    for (int r = 0; r < runs; r++)
        for (int k = 0; k < nschemes; k++) {
            size_t frames = 0;
            double t0 = now_s(), dt;
            do {
                gfir_plan_execute(plans[k], in, out, CALL);
                frames += CALL;
                dt = now_s() - t0;
            } while (dt < 0.05 || frames < cycle);
            t[k][r] = dt * 1e9 / (double)frames / CH;
        }
    printf("| taps | scheme (head, sizes) | ns/frame at 256 |\n|---|---|---|\n");
    for (int k = 0; k < nschemes; k++) {
        printf("| %zu | %s | %.2f |\n", ntaps, texts[k], median(t[k], (size_t)runs));
        gfir_plan_destroy(plans[k]);
    }
    free(in);
    free(out);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 4 && strcmp(argv[1], "--compare") == 0) {
        int n = argc - 3;
        if (argc >= 6 && strcmp(argv[argc - 2], "--runs") == 0) {
            runs = atoi(argv[argc - 1]);
            n -= 2;
        }
        if (runs < 1 || runs > 64 || n < 1)
            return 2;
        return compare(strtoul(argv[2], NULL, 10), n, argv + 3);
    }
    if (argc >= 4 && strcmp(argv[1], "--swap-calls") == 0) {
        if (argc == 5)
            runs = atoi(argv[4]);
        if (argc > 5 || runs < 1 || runs > 64)
            return 2;
        return swap_calls(strtoul(argv[2], NULL, 10), strtoul(argv[3], NULL, 10));
    }
    if (argc == 3)
        runs = atoi(argv[2]);
    if (argc < 2 || argc > 3 || runs < 1 || runs > 64) {
        fprintf(stderr, "usage: cpu_nupc_bench --table | --calls | --swaps | --crossover | "
                        "--schemes [RUNS]\n       cpu_nupc_bench --compare TAPS SCHEME... "
                        "[--runs RUNS]\n       cpu_nupc_bench --swap-calls TAPS CALL [RUNS]\n");
        return 2;
    }
    if (strcmp(argv[1], "--table") == 0)
        table();
    else if (strcmp(argv[1], "--calls") == 0)
        calls();
    else if (strcmp(argv[1], "--swaps") == 0)
        swaps();
    else if (strcmp(argv[1], "--crossover") == 0)
        crossover();
    else if (strcmp(argv[1], "--schemes") == 0)
        schemes();
    else {
        fprintf(stderr, "cpu_nupc_bench: unknown mode '%s'\n", argv[1]);
        return 2;
    }
    return 0;
}
