/*
 * cpu_fft_bench.c - measures the CPU kernels through the public API, to set
 * the constants of src/cpu/fft_uniform.c (tools/cpu_nupc_bench.c does the
 * same for the zero-latency engine, src/cpu/fft_nonuniform.c):
 *
 *   cpu_fft_bench --crossover [MARGIN]
 *                               per block size, the tap count from which the
 *                               FFT kernel is MARGIN (default 1) times faster
 *                               than the direct one (one thread, mono): the
 *                               crossover_taps table
 *   cpu_fft_bench --partition [CALL]
 *                               ns per frame of the FFT kernel by tap count
 *                               and partition size: gf_cpu_fft_partition();
 *                               with CALL, stereo in calls of CALL frames
 *                               (a file's: 65536) and partitions to 131072,
 *                               whatever the latency
 *   cpu_fft_bench --transform [CALL]
 *                               ns per frame of filters that fit one
 *                               partition by transform size N (2C to
 *                               16C or 32768, C = ceil_pow2(ntaps)), hop
 *                               N - ntaps + 1 (classic overlap-save), beside
 *                               the offline rule's choice: stereo in calls
 *                               of CALL frames (default 65536), medians
 *   cpu_fft_bench --threads     one thread against all cores across block
 *                               sizes and tap counts: CHANNELS_MIN_WORK and
 *                               BINS_MIN_WORK
 *   cpu_fft_bench --planner [RUNS]
 *                               per transform size the engines plan (the
 *                               real pairs of 2P points and the sliced
 *                               four-step transforms), the planning time
 *                               and the time of one forward and inverse
 *                               under FFTW_MEASURE and FFTW_ESTIMATE, with
 *                               no wisdom (medians of RUNS, default 3):
 *                               gf_cpu_fftw_measure_pays()
 *
 * Every figure is the best of five runs of at least 30 ms each (of the
 * thread's CPU time where one thread works, else wall time), in ns per
 * frame per channel: the minimum is the figure least disturbed by the
 * machine's other load. Rerun when a table looks ragged.
 */
#include "core/swap.h"
#include "cpu/fft_sliced.h"
#include "cpu/fftw.h"
#include "cpu/tuning.h"
#include "gfir.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* One thread's work is timed by its own CPU time, which other processes on
 * a shared machine do not inflate (only their use of the caches does);
 * several threads' by the wall clock. */
static double now_s(unsigned threads)
{
    struct timespec ts;
    clock_gettime(threads == 1 ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC, &ts);
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

/* Set by --transform: the median of the runs rather than the best. */
static int median_of_runs;

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* ns per frame per channel of kernel for this shape, in block-sized calls;
 * negative when the plan cannot be made. A nonzero part forces the FFT
 * kernel's partition size past its rule. */
static double measure(gfir_kernel kernel, size_t ntaps, size_t block, unsigned channels,
                      unsigned threads, size_t part)
{
    float *taps = malloc(ntaps * sizeof *taps);
    float *buf = malloc(block * channels * sizeof *buf);
    gfir_plan *plan = NULL;
    gfir_config cfg;
    double best = -1.0, runs[5];
    if (!taps || !buf)
        goto done;
    fill(taps, ntaps);
    fill(buf, block * channels);
    gfir_config_init(&cfg);
    cfg.channels = channels;
    cfg.max_block_frames = block;
    cfg.backend = GFIR_BACKEND_CPU;
    cfg.kernel = kernel;
    cfg.threads = threads;
    /* the uniform engine at its own rule's partition, whatever the latency */
    cfg.max_latency_frames = GFIR_LATENCY_ANY;
    if (gfir_plan_create(&plan, taps, ntaps, &cfg) != GFIR_OK)
        goto done;
    if (part) {
        plan->engine->destroy(plan);
        plan->partition = part;
        if (gf_engine_build(plan, taps) != GFIR_OK)
            goto done;
    }
    for (int rep = 0; rep < 5; rep++) {
        size_t frames = 0;
        double t0 = now_s(threads), t;
        /* Fill the delay line once so every run does steady-state work. */
        do {
            gfir_plan_execute(plan, buf, buf, block);
            frames += block;
            t = now_s(threads) - t0;
        } while (t < 0.03 || frames < 4 * block);
        t = t * 1e9 / (double)frames / channels;
        runs[rep] = t;
        if (best < 0 || t < best)
            best = t;
        /* Keep the signal bounded: the output fed back in grows otherwise. */
        fill(buf, block * channels);
    }
    if (median_of_runs)
        best = median(runs, 5);
done:
    gfir_plan_destroy(plan);
    free(taps);
    free(buf);
    return best;
}

static const size_t grid[] = {16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024};
#define NGRID (sizeof grid / sizeof grid[0])

/* Per block size, direct time over FFT time along the grid of tap counts, and
 * the smallest grid tap count from which FFT is at least `margin` times
 * faster all the way up the grid. */
static void crossover(double margin)
{
    printf("| block | FFT %.2fx faster from | direct/FFT time at", margin);
    for (size_t g = 0; g < NGRID; g++)
        printf(" %zu", grid[g]);
    printf(" taps |\n|---|---|---|\n");
    for (size_t block = 64; block <= 32768; block *= 2) {
        double r[NGRID];
        size_t cross = NGRID;
        for (size_t g = 0; g < NGRID; g++)
            r[g] = measure(GFIR_KERNEL_DIRECT, grid[g], block, 1, 1, 0) /
                   measure(GFIR_KERNEL_FFT, grid[g], block, 1, 1, 0);
        for (size_t g = NGRID; g-- > 0 && r[g] >= margin;)
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

/* ns per frame of the FFT kernel by tap count and partition size, with the
 * partition the rule picks: the basis of gf_cpu_fft_partition(). Without a
 * call size, mono in calls of one partition each and the rule's P for an
 * unbounded block and budget; with one, stereo in calls of `call` frames (a
 * file's blocks) and the offline rule's P, where latency is free and P may
 * exceed the call. */
static void partition(size_t call)
{
    static const size_t taps[] = {256,   512,   1024,  2048,   4096,   8192,
                                  16384, 32768, 65536, 131072, 262144, 1 << 20};
    const size_t max_p = call ? 131072 : 65536;
    printf("| taps | rule's P | ns/frame at P = 256 512 ... %zu | fastest P |\n", max_p);
    printf("|---|---|---|---|\n");
    for (size_t t = 0; t < sizeof taps / sizeof taps[0]; t++) {
        size_t best_p = 0;
        double best = 0.0;
        printf("| %zu | %zu |", taps[t],
               call ? gf_cpu_fft_partition(taps[t], call, GFIR_LATENCY_ANY)
                    : gf_cpu_fft_partition(taps[t], (size_t)1 << 30, (size_t)1 << 30));
        for (size_t p = 256; p <= max_p; p *= 2) {
            double f;
            if (p > 2 * taps[t] || taps[t] / p > 1024) {
                printf(" -");
                continue;
            }
            f = measure(GFIR_KERNEL_FFT, taps[t], call ? call : p, call ? 2 : 1, 1, p);
            printf(" %.1f", f);
            if (best_p == 0 || f < best)
                best = f, best_p = p;
            fflush(stdout);
        }
        printf(" | %zu |\n", best_p);
    }
}

/* Filters that fit one partition, by transform size: hop N - ntaps + 1 at
 * N = 2C, 4C, ... 16C and on to 32768 (C = ceil_pow2(ntaps)), beside the offline rule's
 * hop (whatever engine layout that gives), stereo in calls of `call`
 * frames, one thread, medians of five: the basis of offline_partition(). */
static void transform(size_t call)
{
    static const size_t taps[] = {255, 511, 1023, 2047, 4095, 8191, 16383};
    median_of_runs = 1;
    printf("| taps | rule's hop | ns/frame at the rule | ns/frame at N = 2C 4C ... (hop) |\n");
    printf("|---|---|---|---|\n");
    for (size_t t = 0; t < sizeof taps / sizeof taps[0]; t++) {
        const size_t rule = gf_cpu_fft_partition(taps[t], call, GFIR_LATENCY_ANY);
        size_t c = 1;
        while (c < taps[t])
            c *= 2;
        printf("| %zu | %zu | %.2f |", taps[t], rule,
               measure(GFIR_KERNEL_FFT, taps[t], call, 2, 1, rule));
        for (size_t n = 2 * c; n <= 16 * c || n <= 32768; n *= 2) {
            printf(" %.2f (%zu)", measure(GFIR_KERNEL_FFT, taps[t], call, 2, 1, n - taps[t] + 1),
                   n - taps[t] + 1);
            fflush(stdout);
        }
        printf(" |\n");
    }
}

static void threads(void)
{
    static const size_t taps[] = {256, 4096, 65536, 1 << 20};
    static const unsigned chans[] = {1, 2};
    printf("| channels | taps | block | 1 thread ns/frame | all cores ns/frame |\n");
    printf("|---|---|---|---|---|\n");
    for (size_t c = 0; c < 2; c++)
        for (size_t t = 0; t < sizeof taps / sizeof taps[0]; t++)
            for (size_t block = 256; block <= 16384; block *= 4) {
                double one = measure(GFIR_KERNEL_FFT, taps[t], block, chans[c], 1, 0);
                double all = measure(GFIR_KERNEL_FFT, taps[t], block, chans[c], 0, 0);
                printf("| %u | %zu | %zu | %.2f | %.2f |\n", chans[c], taps[t], block, one, all);
                fflush(stdout);
            }
}

/* ---- --planner: what FFTW_MEASURE costs and saves per size ---------------- */

typedef struct planned {
    gf_fftw_pair pair;   /* whole real transforms, or */
    gf_sliced_fft sliced; /* the four steps */
    int four_step;
    float *in, *out, *work, *scratch, *re, *im;
} planned;

/* Plans the engines' transforms of 2 * part points as fftw.c would with no
 * wisdom, measuring or not, and returns the thread CPU seconds it took. */
static double plan_one(planned *t, size_t part, int four_step, int measure)
{
    double t0;
    setenv("GFIR_FFTW_PLANNER", measure ? "measure" : "estimate", 1);
    fftwf_forget_wisdom();
    t->four_step = four_step;
    t0 = now_s(1);
    if (four_step) {
        if (!gf_sliced_make(&t->sliced, part, 0))
            return -1.0;
    } else if (!gf_fftw_pair_make(&t->pair, (int)(2 * part), t->in, (fftwf_complex *)t->re,
                                  t->out, measure)) {
        return -1.0;
    }
    return now_s(1) - t0;
}

/* ns of one forward and one inverse transform, a median of runs of 30 ms */
static double execute_ns(planned *t, int runs)
{
    double v[9];
    for (int r = 0; r < runs; r++) {
        size_t n = 0;
        double t0 = now_s(1), dt;
        do {
            if (t->four_step) {
                const size_t slices = gf_sliced_count(&t->sliced);
                for (size_t i = 0; i < slices; i++)
                    gf_sliced_forward(&t->sliced, i, t->in, t->work, t->scratch, t->re, t->im);
                for (size_t i = 0; i < slices; i++)
                    gf_sliced_inverse(&t->sliced, i, t->re, t->im, t->scratch, t->out);
            } else {
                fftwf_execute_dft_r2c(t->pair.fwd, t->in, (fftwf_complex *)t->re);
                fftwf_execute_dft_c2r(t->pair.inv, (fftwf_complex *)t->re, t->out);
            }
            n++;
            dt = now_s(1) - t0;
        } while (dt < 0.03);
        v[r] = dt * 1e9 / (double)n;
    }
    return median(v, runs);
}

static void planner(int runs)
{
    char dir[] = "/tmp/gfir-planner-XXXXXX";
    if (runs < 1 || runs > 9 || !mkdtemp(dir)) {
        fprintf(stderr, "cpu_fft_bench: RUNS is 1 to 9, and a temporary directory is needed\n");
        return;
    }
    /* the wisdom fftw.c saves goes where no later run reads it */
    setenv("XDG_CACHE_HOME", dir, 1);
    printf("| transform | points | MEASURE plan ms | ESTIMATE plan ms | MEASURE us | "
           "ESTIMATE us | saved us | executes to repay |\n|---|---|---|---|---|---|---|---|\n");
    for (int four_step = 0; four_step < 2; four_step++) {
        for (size_t part = four_step ? GF_SLICED_MIN_PART : 64; part <= 65536; part *= 2) {
            double plan_s[2][9], exec[2][9], p[2], e[2];
            planned t;
            memset(&t, 0, sizeof t);
            t.in = gf_fftw_floats(2, part, 1);
            t.out = gf_fftw_floats(2, part, 1);
            t.re = gf_fftw_floats(2, part + 2, 1);
            t.im = t.re + part + 2;
            t.work = gf_fftw_floats(4, part, 1);
            t.scratch = gf_fftw_floats(4, part, 1);
            if (!t.in || !t.out || !t.re || !t.work || !t.scratch)
                return;
            fill(t.in, 2 * part);
            for (int r = 0; r < runs; r++) {
                for (int m = 0; m < 2; m++) {
                    plan_s[m][r] = plan_one(&t, part, four_step, m);
                    fill(t.in, 2 * part); /* measuring wrote over it */
                    exec[m][r] = execute_ns(&t, 3);
                    if (four_step)
                        gf_sliced_destroy(&t.sliced);
                    else
                        gf_fftw_pair_destroy(&t.pair);
                }
            }
            for (int m = 0; m < 2; m++) {
                p[m] = median(plan_s[m], runs);
                e[m] = median(exec[m], runs);
            }
            printf("| %s | %zu | %.1f | %.2f | %.2f | %.2f | %.2f | ",
                   four_step ? "four-step" : "real pair", 2 * part, 1e3 * p[1], 1e3 * p[0],
                   1e-3 * e[1], 1e-3 * e[0], 1e-3 * (e[0] - e[1]));
            if (e[0] > e[1])
                printf("%.0f |\n", (p[1] - p[0]) * 1e9 / (e[0] - e[1]));
            else
                printf("never |\n");
            fflush(stdout);
            fftwf_free(t.in);
            fftwf_free(t.out);
            fftwf_free(t.re);
            fftwf_free(t.work);
            fftwf_free(t.scratch);
        }
    }
}

int main(int argc, char **argv)
{
    if (argc >= 2 && argc <= 3 && strcmp(argv[1], "--crossover") == 0)
        crossover(argc == 3 ? atof(argv[2]) : 1.0);
    else if (argc >= 2 && argc <= 3 && strcmp(argv[1], "--partition") == 0)
        partition(argc == 3 ? (size_t)strtoul(argv[2], NULL, 10) : 0);
    else if (argc >= 2 && argc <= 3 && strcmp(argv[1], "--transform") == 0)
        transform(argc == 3 ? (size_t)strtoul(argv[2], NULL, 10) : 65536);
    else if (argc == 2 && strcmp(argv[1], "--threads") == 0)
        threads();
    else if (argc >= 2 && argc <= 3 && strcmp(argv[1], "--planner") == 0)
        planner(argc == 3 ? atoi(argv[2]) : 3);
    else {
        fprintf(stderr,
                "usage: cpu_fft_bench --crossover [MARGIN] | --partition [CALL] |"
                " --transform [CALL] | --threads | --planner [RUNS]\n");
        return 2;
    }
    return 0;
}
