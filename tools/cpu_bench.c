/*
 * cpu_bench.c - throughput of the CPU direct path through the public API.
 *
 *     cpu_bench [RUNS]
 *
 * Stereo, shared taps, ntaps 15 to 4095, on the calling thread alone
 * (threads = 1) and on every core (threads = 0); the gold reference at small
 * tap counts for scale. Each case filters FRAMES frames of fresh random input
 * (never zeros: denormal-free, and no kernel can skip work) in one
 * gfir_plan_execute() call that the plan splits into BLOCK_FRAMES blocks. One
 * warm-up run, then the median of RUNS (default 9, at least 7) timed runs.
 *
 * Prints a Markdown table: Msamples/s counts channel-samples (frames x 2),
 * GMAC/s multiply-adds (samples x ntaps). "% peak" compares with a measured FMA
 * peak: a loop of independent FMAs in registers at the width the direct kernel
 * uses, on one core, times the cores in use (so it assumes no clock drop with
 * all cores busy).
 */
#include "cpu/direct.h" /* private: only to name the ISA the direct kernel picked */
#include "gfir.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#include <immintrin.h>
#define BENCH_X86 1
#endif

#define CHANNELS 2
#define FRAMES ((size_t)1 << 20)
#define BLOCK_FRAMES 16384
#define MIN_RUNS 7
#define GOLD_MAX_TAPS 255

static const size_t tap_counts[] = {15, 63, 255, 1023, 4095};
#define NTAPCOUNTS (sizeof tap_counts / sizeof tap_counts[0])

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* xorshift64*, mapped to [-1, -2^-24] U [2^-24, 1): no zeros, no denormals. */
static void fill_random(float *v, size_t n, uint64_t *state)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t x = *state;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        *state = x;
        float u = (float)((x * 0x2545F4914F6CDD1DULL) >> 40) * (1.0f / 16777216.0f);
        float mag = u < 1.0f / 16777216.0f ? 1.0f / 16777216.0f : u;
        v[i] = (x & 1) ? mag : -mag;
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median seconds of runs timed passes over FRAMES frames, after one warm-up;
 * negative when the plan cannot be made. */
static double time_case(gfir_kernel kernel, unsigned threads, size_t ntaps, int runs,
                        float *in, float *out, uint64_t *rng)
{
    float *taps = malloc(ntaps * sizeof *taps);
    double *t = malloc((size_t)runs * sizeof *t);
    gfir_plan *plan = NULL;
    gfir_config cfg;
    double median = -1.0;

    if (!taps || !t)
        goto done;
    fill_random(taps, ntaps, rng);
    gfir_config_init(&cfg);
    cfg.channels = CHANNELS;
    cfg.backend = GFIR_BACKEND_CPU;
    cfg.kernel = kernel;
    cfg.threads = threads;
    cfg.max_block_frames = BLOCK_FRAMES;
    if (gfir_plan_create(&plan, taps, ntaps, &cfg) != GFIR_OK) {
        fprintf(stderr, "cpu_bench: %s\n", gfir_plan_error_detail(NULL));
        goto done;
    }
    for (int r = -1; r < runs; r++) {
        fill_random(in, FRAMES * CHANNELS, rng); /* fresh input, outside the clock */
        gfir_plan_reset(plan);
        double t0 = now_s();
        if (gfir_plan_execute(plan, in, out, FRAMES) != GFIR_OK)
            goto done;
        double dt = now_s() - t0;
        if (r >= 0)
            t[r] = dt;
    }
    qsort(t, (size_t)runs, sizeof *t, cmp_double);
    median = runs % 2 ? t[runs / 2] : 0.5 * (t[runs / 2 - 1] + t[runs / 2]);
done:
    gfir_plan_destroy(plan);
    free(taps);
    free(t);
    return median;
}

/*
 * One core's multiply-add peak at a vector width: ACC independent FMA chains
 * kept in registers, enough to cover FMA latency times the FMA ports of any
 * current x86 core (4 cycles x 2 ports = 8). Returns MAC/s.
 */
#define PEAK_ACC 16
#define PEAK_ITERS 20000000L

#if BENCH_X86
__attribute__((target("avx512f"))) static double peak_avx512(void)
{
    __m512 acc[PEAK_ACC], a = _mm512_set1_ps(0.999999f), b = _mm512_set1_ps(1e-7f);
    for (int k = 0; k < PEAK_ACC; k++)
        acc[k] = _mm512_set1_ps((float)k);
    double t0 = now_s();
    for (long i = 0; i < PEAK_ITERS; i++)
        for (int k = 0; k < PEAK_ACC; k++)
            acc[k] = _mm512_fmadd_ps(acc[k], a, b);
    double dt = now_s() - t0;
    float sink = 0.0f;
    for (int k = 0; k < PEAK_ACC; k++)
        sink += _mm512_reduce_add_ps(acc[k]);
    return sink == 12345.0f ? 0.0 : (double)PEAK_ITERS * PEAK_ACC * 16 / dt;
}

__attribute__((target("avx2,fma"))) static double peak_avx2(void)
{
    __m256 acc[PEAK_ACC], a = _mm256_set1_ps(0.999999f), b = _mm256_set1_ps(1e-7f);
    for (int k = 0; k < PEAK_ACC; k++)
        acc[k] = _mm256_set1_ps((float)k);
    double t0 = now_s();
    for (long i = 0; i < PEAK_ITERS; i++)
        for (int k = 0; k < PEAK_ACC; k++)
            acc[k] = _mm256_fmadd_ps(acc[k], a, b);
    double dt = now_s() - t0;
    float lanes[8], sink = 0.0f;
    for (int k = 0; k < PEAK_ACC; k++) {
        _mm256_storeu_ps(lanes, acc[k]);
        for (int j = 0; j < 8; j++)
            sink += lanes[j];
    }
    return sink == 12345.0f ? 0.0 : (double)PEAK_ITERS * PEAK_ACC * 8 / dt;
}

/* SSE has no FMA: one multiply and one add per MAC, on separate ports. */
static double peak_sse(void)
{
    __m128 acc[PEAK_ACC], a = _mm_set1_ps(0.999999f), b = _mm_set1_ps(1e-7f);
    for (int k = 0; k < PEAK_ACC; k++)
        acc[k] = _mm_set1_ps((float)k);
    double t0 = now_s();
    for (long i = 0; i < PEAK_ITERS; i++)
        for (int k = 0; k < PEAK_ACC; k++)
            acc[k] = _mm_add_ps(_mm_mul_ps(acc[k], a), b);
    double dt = now_s() - t0;
    float lanes[4], sink = 0.0f;
    for (int k = 0; k < PEAK_ACC; k++) {
        _mm_storeu_ps(lanes, acc[k]);
        for (int j = 0; j < 4; j++)
            sink += lanes[j];
    }
    return sink == 12345.0f ? 0.0 : (double)PEAK_ITERS * PEAK_ACC * 4 / dt;
}
#endif

/* The best of three tries: the peak is what the core can do, not its average. */
static double peak_macs(const char *isa)
{
    double best = 0.0;
    for (int i = 0; i < 3; i++) {
        double p = 0.0;
#if BENCH_X86
        if (strcmp(isa, "avx512") == 0)
            p = peak_avx512();
        else if (strcmp(isa, "avx2") == 0)
            p = peak_avx2();
        else
            p = peak_sse();
#else
        (void)isa;
#endif
        best = p > best ? p : best;
    }
    return best;
}

static void print_row(const char *kernel, unsigned threads, unsigned cores, size_t ntaps,
                      double seconds, double peak_core)
{
    const double samples = (double)FRAMES * CHANNELS;
    const double macs = samples * (double)ntaps;
    const unsigned used = threads ? threads : cores;
    char pct[16] = "";
    if (peak_core > 0.0)
        snprintf(pct, sizeof pct, "%.0f%%", 100.0 * macs / seconds / (peak_core * used));
    if (threads)
        printf("| %s | %u | %zu | %.1f | %.2f | %s |\n", kernel, threads, ntaps,
               samples / seconds / 1e6, macs / seconds / 1e9, pct);
    else
        printf("| %s | all (%u) | %zu | %.1f | %.2f | %s |\n", kernel, cores, ntaps,
               samples / seconds / 1e6, macs / seconds / 1e9, pct);
}

int main(int argc, char **argv)
{
    int runs = argc > 1 ? atoi(argv[1]) : 9;
    const char *isa = "unknown";
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    unsigned cores = ncpu > 0 ? (unsigned)ncpu : 1;
    uint64_t rng = 0x853C49E6748FEA9BULL;
    float *in = malloc(FRAMES * CHANNELS * sizeof *in);
    float *out = malloc(FRAMES * CHANNELS * sizeof *out);

    if (runs < MIN_RUNS) {
        fprintf(stderr, "cpu_bench: RUNS must be at least %d\n", MIN_RUNS);
        return 2;
    }
    if (!in || !out) {
        fprintf(stderr, "cpu_bench: out of memory\n");
        return 1;
    }
    gf_cpu_direct_select(&isa);
    double peak = peak_macs(isa);

    printf("Direct kernel ISA: **%s**. Online CPUs: %u. Stereo, shared taps, %zu frames per "
           "run in blocks of %d frames; median of %d runs after one warm-up.\n",
           isa, cores, (size_t)FRAMES, BLOCK_FRAMES, runs);
    printf("Measured FMA peak (%s, one core, %d independent FMA chains in registers): "
           "%.1f GMAC/s per core, %.1f GMAC/s on all %u.\n\n",
           isa, PEAK_ACC, peak / 1e9, peak * cores / 1e9, cores);
    printf("| kernel | threads | ntaps | Msamples/s | GMAC/s | %% peak |\n");
    printf("|---|---|---:|---:|---:|---:|\n");
    fflush(stdout);

    static const unsigned thread_settings[] = {1, 0};
    for (size_t s = 0; s < 2; s++) {
        for (size_t t = 0; t < NTAPCOUNTS; t++) {
            double sec = time_case(GFIR_KERNEL_DIRECT, thread_settings[s], tap_counts[t], runs,
                                   in, out, &rng);
            if (sec < 0.0)
                return 1;
            print_row("direct", thread_settings[s], cores, tap_counts[t], sec, peak);
            fflush(stdout);
        }
    }
    for (size_t t = 0; t < NTAPCOUNTS && tap_counts[t] <= GOLD_MAX_TAPS; t++) {
        double sec = time_case(GFIR_KERNEL_GOLD, 1, tap_counts[t], runs, in, out, &rng);
        if (sec < 0.0)
            return 1;
        print_row("gold", 1, cores, tap_counts[t], sec, peak);
    }
    free(in);
    free(out);
    return 0;
}
