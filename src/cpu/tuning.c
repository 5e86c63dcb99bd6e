/*
 * tuning.c - the CPU backend's measured rules and models (tuning.h): the
 * uniform FFT engine's partitions and break-even, the zero-latency
 * engine's scheme, break-even and model, and the engines' cost models.
 */
#include "cpu/tuning.h"
#include "cpu/pool.h"

#include <string.h>

/*
 * Partition size P, a power of two, within a latency budget:
 *   P = clamp(min(floor_pow2(max_block_frames), ceil_pow2(ntaps)), 64, 32768)
 * and at most the budget (offline, with no budget, see offline_partition).
 * Latency is P, so P never exceeds the block a live caller asked for (its
 * callback size, which the audio device already buffers); longer filters then
 * cost K = ntaps / P multiply-adds per frame instead. P never exceeds the
 * filter rounded up to a power of two: past one partition a longer FFT only
 * adds latency and work. 64 is the floor because below it the FFTs cost more
 * per frame than direct convolution of any filter short enough to fit.
 * 32768 is the ceiling: `cpu_fft_bench --partition` (mono, calls of one
 * partition) found longer FFTs no faster per frame even for 2^20 taps (they
 * leave the L2 cache; stereo in 65536-frame calls they are, below), while the
 * delay line's memory, 16 bytes per tap and channel, does not depend on P.
 * Plans whose latency budget (max_latency_frames) fits no partition get the
 * zero-latency engine of fft_nonuniform.c instead (core/policy.c): a head
 * and growing partitions, which costs 1.1 to 3.5 times as much per frame as
 * this engine at its best partition (tools/bench/cpu_nupc.sh,
 * docs/BENCHMARKS.md).
 */
#define MIN_PARTITION ((size_t)64)
#define MAX_PARTITION ((size_t)32768)

/* ---- the uniform FFT engine: partitions and break-even ---------------------- */

static size_t floor_pow2(size_t n)
{
    size_t p = 1;
    while (p <= n / 2)
        p *= 2;
    return p;
}

static size_t ceil_pow2(size_t n)
{
    size_t p = 1;
    while (p < n)
        p *= 2;
    return p;
}

/*
 * Offline (a budget of GFIR_LATENCY_ANY: a file, whose writer drops the
 * latency) the block bounds nothing, and P is the fastest per frame for the
 * filter's length: one partition up to 16384 taps (below); 4096 up to
 * 32768 taps, where a transform that stays in the L1 and L2 caches beats
 * fewer partitions; 65536 from 65536 taps, where the delay line streams from
 * memory and every partition fewer pays.
 * Measured with `cpu_fft_bench --partition 65536` (stereo, one thread,
 * 65536-frame calls, the thread's CPU time, best of five; 2-core Intel Xeon
 * VM, load average 2.5 to 4 from other work, 2026-11-27), ns a frame and
 * channel at the old rule's P and at this one's:
 *     256 taps 5.7 (P 256, the same)     4096 7.2 (P 4096, the same)
 *     8192     8.2 (8192), 7.5 (4096)    16384 10.1 (16384), 7.9 (4096)
 *     32768   11.5 (32768), 9.4 (4096)   65536 12.1 (32768), 11.4 (65536)
 *     131072  13.5 (32768), 12.2 (65536; 131072 12.0)
 *     262144  16.1 (32768), 13.5 (65536; 131072 13.0)
 *     2^20    30.4 (32768), 20.3 (65536; 131072 16.9)
 * Within 0.5 ns of the fastest P in every row but 2^20's. 131072 is left
 * out for what FFTW_MEASURE costs the first plan of a size on a machine
 * (before its wisdom is cached): 6.7 s of CPU for the transforms of 262144,
 * 3.3 s for 131072's and 1.85 s for 65536's (a one-second input, an empty
 * XDG_CACHE_HOME, same machine and day), against 4% a frame at 262144 taps.
 * Since then only the jobs that repay measuring measure (FFTW planning,
 * below), so that cost now falls on long jobs and streams; not re-tuned.
 */
#define OFFLINE_MID_PARTITION ((size_t)4096)
#define OFFLINE_MAX_PARTITION ((size_t)65536)

/*
 * A filter of up to 16384 taps, offline, is one partition with a transform
 * of N = 8 * ceil_pow2(ntaps) points, 4096 to 65536, and a hop (the
 * partition, and the latency) of N - ntaps + 1: classic overlap-save, whose
 * 2P-point transforms above spent half their points on the filter's overlap.
 * Measured with `cpu_fft_bench --transform 65536` (stereo, one thread,
 * 65536-frame calls, the thread's CPU time, medians of five; three runs,
 * their medians here; 2-core Intel Xeon VM, load average 3 to 3.5 from other
 * work, 2026-11-27), ns a frame and channel at the rule before this one
 * (hop ceil_pow2(ntaps), N = 2 ceil_pow2; for 8191 and 16383 hop 4096 and
 * several partitions) and at N points, 4 to 16 (255 taps: 128) times
 * ceil_pow2(ntaps):
 *     255 taps   9.24               1024 6.87   2048 6.22   4096 4.99
 *                                   8192 6.03  16384 6.16  32768 7.37
 *     511        6.42               2048 4.61   4096 4.30   8192 4.65
 *     1023       6.75               4096 5.01   8192 4.88  16384 4.95
 *     2047       7.07               8192 5.17  16384 7.19  32768 5.39
 *     4095       7.14              16384 6.30  32768 5.89  65536 7.12
 *     8191       8.81              32768 7.69  65536 7.77 131072 7.30
 *     16383      9.25              65536 7.97 131072 7.94 262144 7.61
 * 8x (4096 points for 255 taps) is within the noise (a run's figures
 * scatter by 20%) of each row's best up to 4095 taps, and 17 to 46% below
 * the old rule but at 2047 taps (7.19 against 7.07; its three runs gave
 * 7.8, 5.2 and 7.2 at 16384 points). 65536 points is
 * the cap for what FFTW_MEASURE costs the first plan of a larger size
 * (below); at 8191 and 16383 taps it is 12 to 14% below the old rule.
 */
#define ONE_PART_MAX_TAPS ((size_t)16384)
#define ONE_PART_MIN_POINTS ((size_t)4096)
#define ONE_PART_MAX_POINTS ((size_t)65536)

static size_t offline_partition(size_t ntaps)
{
    const size_t fit = ceil_pow2(ntaps);
    if (fit <= ONE_PART_MAX_TAPS) {
        size_t points = 8 * fit;
        points = points < ONE_PART_MIN_POINTS ? ONE_PART_MIN_POINTS
                 : points > ONE_PART_MAX_POINTS ? ONE_PART_MAX_POINTS : points;
        return points - ntaps + 1;
    }
    if (fit <= 8 * OFFLINE_MID_PARTITION)
        return OFFLINE_MID_PARTITION;
    return fit < OFFLINE_MAX_PARTITION ? fit : OFFLINE_MAX_PARTITION;
}

size_t gf_cpu_fft_uniform_points(size_t ntaps, size_t partition)
{
    if (ntaps > partition)
        return 2 * partition;
    return ceil_pow2(partition + ntaps - 1);
}

size_t gf_cpu_fft_partition(size_t ntaps, size_t block_frames, size_t max_latency)
{
    size_t p = floor_pow2(block_frames ? block_frames : 1);
    size_t fit = ceil_pow2(ntaps);
    if (max_latency == GFIR_LATENCY_ANY)
        return offline_partition(ntaps);
    if (p > fit)
        p = fit;
    if (p > MAX_PARTITION)
        p = MAX_PARTITION;
    if (p < MIN_PARTITION)
        p = MIN_PARTITION;
    if (p > max_latency)
        p = max_latency >= MIN_PARTITION ? floor_pow2(max_latency) : 0;
    return p;
}

/*
 * From how many taps the FFT engine with partitions of P frames is faster
 * than direct convolution in calls of P frames.
 *
 * Measured with `cpu_fft_bench --crossover 1.0` (one thread, mono, AVX-512
 * direct kernel, 2-core development machine, best of five runs of 30 ms per
 * point, 2026-11-23, with other builds running): FFT wins from 192 taps at
 * every partition, as the file benchmark found for whole files (127 taps
 * direct 0.39 s against FFT 0.44; 255 taps 0.52 against 0.43). An earlier
 * run put the 64-frame row at 24 taps; the direct kernel's short calls have
 * since become about 4 times faster (halving-width tails), and the rerun
 * gave 192 there too. This is break-even, not a margin: the policy only
 * considers this engine where the caller's latency budget already covers P,
 * so its latency costs nothing unasked.
 */
#define MIN_TAPS ((size_t)192)

size_t gf_cpu_fft_uniform_min_taps(size_t partition)
{
    (void)partition; /* the same at every partition measured, 64 to 32768 */
    return MIN_TAPS;
}

/* ---- the zero-latency FFT engine: scheme, break-even, cost ------------------- */

/*
 * Head N (the first level's partitions too, from tap 0: a segment of a
 * whole grid block takes the head's taps in the frequency domain, a shorter
 * one from the direct head), then levels of 8 N, 8192 and 65536, each once
 * the filter is longer than 4 times its partition: a level starts at twice
 * its size, so the one before it then holds 14 partitions beyond the first
 * level's and this one at least 3 (sizes not above the last are skipped).
 * N follows max_block_frames: 128 below 256, 256 from there, 1024 from
 * 16384 and 4096 from 65536, and at most half the filter. A whole segment
 * costs one transform of 2N where a head of 128 cost 128 direct
 * multiply-adds a frame and a level of its own, while frames in a segment
 * shorter than N (a call shorter than N, or the ends of a call that does
 * not start on the grid) pay the direct head: 7 ns a frame at 256, 115 at
 * 4096. Plugins and live callers give max_block_frames, not the calls'
 * sizes, and hosts' maxima reach 8192 where their calls are 256 or less, so
 * heads grow only for the blocks of offline callers (gfir.h's default is
 * 4096, which keeps 256), whose calls fill them.
 *
 * First chosen with `cpu_nupc_bench --schemes` (stereo, one thread,
 * 256-frame blocks; every head of 64 or 128 with sizes growing by 4, 8, 16 or
 * 32 per level up to 65536), whose fastest schemes came within 10% of each
 * other, then the thresholds timed side by side with `cpu_nupc_bench
 * --compare TAPS SCHEME... --runs 5` (2-core development VM, AMD EPYC,
 * 2026-11-23, shared and busy; medians, thread CPU time; ns a frame and
 * channel):
 *     4096 taps    128 11.8, 128,1024 13.7 (64,256,1024 16.5)
 *     8192         128 19.0, 128,1024 14.7
 *     32768        128,1024 21.3, 128,1024,8192 21.5
 *     65536        128,1024 29.6, 128,1024,8192 23.5 (64,256,...,16384 29.5)
 *     262144       128,1024,8192 32.0, with 65536 36.4
 *     524288       128,1024,8192 60.6, with 65536 43.0
 *     2^20         128,1024,8192,65536 51.9 (64,256,...,65536 64.0)
 * With the head in the frequency domain, heads of 256 (2026-11-26, the
 * same command on a 2-core Intel Xeon VM under a load average of 4 to 9:
 * compare within a row only):
 *     4096 taps    128 16.1, 256 12.6, 256,2048 11.7, 256,1024 16.2
 *     16384        128,1024 24.9, 256,2048 20.3, 256,1024 22.0
 *     65536        128,1024,8192 39.2, 256,2048 35.7, 256,2048,8192 33.9
 *     262144       128,1024,8192 52.2, 256,2048,16384 43.6, with 65536 52.7
 *     2^20         128,1024,8192,65536 73.4, 256,2048,16384,65536 72.4,
 *                  256,2048,16384 87.0
 * and against 256,2048,8192, taken: under FFTW_ESTIMATE (FFTW 3.3.10) the
 * four-step transforms of 16384 and up allocate inside fftwf_execute_dft (a
 * malloc counter around gf_sliced_forward; lv2_realtime_test caught it), and
 * a level of 16384 would bring that to filters from 65536 taps:
 *     16384        128,1024 24.7, 256,2048 20.3
 *     262144       128,1024,8192 52.6, 256,2048,8192 51.9, 256,2048,16384 45.2
 *     2^20         128,1024,8192,65536 78.1, 256,2048,8192,65536 73.7
 * Since 2026-11-27 every transform an engine executes is planned with
 * FFTW_NO_BUFFERING (src/cpu/fftw.c), which allocates nothing inside
 * execute, so that reason is gone; the same command then (2-core Xeon VM,
 * load near 5) gave 256,2048,8192 against 256,2048,16384: 65536 taps 31.0
 * and 35.1, 262144 49.6 and 43.6, 2^20 (with 65536) 63.7 and 65.2. A level
 * of 16384 would pay only between 65536 and 262144 taps; not yet re-tuned.
 * And in calls of 65536 frames (the same command with its call size
 * changed, one run each):
 *     4096 taps    256 11.2, 1024 7.7, 2048 10.5
 *     65536        256,2048,8192 33.0, 1024,8192 22.0, 2048,16384 23.3, 4096 13.0
 *     262144       256,2048,8192 48.8, 1024,8192 38.4, 4096,32768 29.0
 *     2^20         256,2048,8192,65536 71.2, 1024,8192,65536 58.9, 4096,65536 53.9
 * The cost model behind it (Wefers): every level costs one forward and one
 * inverse transform per frame, about what the uniform engine's whole
 * transform costs (2.5 to 4 ns a frame here), and every partition one
 * multiply-accumulate per bin (0.2 ns from the L2 cache, several times that
 * from memory). Partitions stay at 65536 and below, as in the uniform
 * engine, whose longer transforms were no faster.
 */
#define SCHEME_HEAD ((size_t)128)

static size_t scheme_head(size_t ntaps, size_t block_frames)
{
    size_t head = block_frames >= 65536   ? 4096
                  : block_frames >= 16384 ? 1024
                  : block_frames >= 256   ? 256
                                          : SCHEME_HEAD;
    /* the first level holds the head's partition and at least one more */
    while (head > SCHEME_HEAD && 2 * head > ntaps)
        head /= 2;
    return head;
}

void gf_cpu_fft_nonuniform_scheme(size_t ntaps, size_t block_frames, gf_nu_scheme *scheme)
{
    const size_t head = scheme_head(ntaps, block_frames);
    const size_t sizes[] = {8 * head, 8192, 65536};
    memset(scheme, 0, sizeof *scheme);
    scheme->head = head;
    for (size_t i = 0; i < 3 && ntaps > 4 * sizes[i]; i++)
        if (sizes[i] > (scheme->nlevels ? scheme->sizes[scheme->nlevels - 1] : head))
            scheme->sizes[scheme->nlevels++] = sizes[i];
}

/*
 * Against the direct engine (both without latency): the engine from
 * crossover_taps[i] taps on when max_block_frames rounds down to 16 << i
 * (below 16: row 0; above 32768: the last row).
 *
 * Measured with `cpu_nupc_bench --crossover 3` (one thread, mono, calls of
 * the block size, AVX-512 direct kernel; 2-core development VM, AMD EPYC,
 * 2026-11-23, shared and busy; medians of 3 runs, thread CPU time), run twice:
 * the tap count from which the non-uniform engine is at least as fast as
 * direct at every larger tap count of the grid (16 to 4096 taps). Both runs
 * gave the same table. Up to 128 taps the engine is its direct head alone,
 * as fast as direct give or take 10%; at 192 and 256 its first partitions
 * cost more than direct's extra taps (0.6 to 0.9 times direct's speed); at
 * 384 it breaks even (1.01 to 1.13) and at 512 it is 1.15 to 1.44 times
 * faster, 3 to 6 times at 2048 and beyond. At 16-frame calls direct pays
 * for sliding its history every call and the engine wins from 192 taps.
 */
static const size_t crossover_taps[] = {
    /*    16 */ 192,
    /*    32 */ 384,
    /*    64 */ 384,
    /*   128 */ 384,
    /*   256 */ 384,
    /*   512 */ 384,
    /*  1024 */ 384,
    /*  2048 */ 384,
    /*  4096 */ 384,
    /*  8192 */ 384,
    /* 16384 */ 384,
    /* 32768 */ 384,
};

int gf_cpu_fft_nonuniform_preferred(size_t ntaps, size_t block_frames)
{
    const size_t rows = sizeof crossover_taps / sizeof crossover_taps[0];
    size_t i = 0;
    while (i + 1 < rows && ((size_t)16 << (i + 1)) <= block_frames)
        i++;
    return ntaps >= crossover_taps[i];
}

/*
 * The cost model of the scheme's comment with its figures: 0.02 ns per head
 * tap, 3 ns per level for its two transforms, and per partition 0.3 ns
 * while a level's spectra stay in the caches, 0.7 ns from 8192 on, where
 * they stream from memory. Against `cpu_nupc_bench --table` (stereo,
 * 2026-11-23, the development VM), modelled and measured: 4096 taps 14.9 and
 * 11 to 13.7; 65536 24.5 and 21 to 23; 262144 41.3 and 28 to 32; 2^20 42.9
 * and 51 to 56.
 */
double gf_cpu_fft_nonuniform_ns(size_t ntaps)
{
    gf_nu_scheme s;
    double ns;
    /* The figures were fitted to the scheme of 128-frame calls; larger
     * calls' heads of 256 run faster than this says (by up to a third at
     * 4096 taps), which leaves the model on the safe side. */
    gf_cpu_fft_nonuniform_scheme(ntaps, SCHEME_HEAD, &s);
    ns = 0.02 * (double)(ntaps < s.head ? ntaps : s.head);
    for (size_t i = 0; i <= s.nlevels && ntaps > s.head; i++) {
        const size_t part = i ? s.sizes[i - 1] : s.head, first = i ? 2 * part : part;
        const size_t end = i < s.nlevels ? 2 * s.sizes[i] : ntaps;
        const double parts = (double)((end - first + part - 1) / part);
        ns += 3.0 + parts * (part >= 8192 ? 0.7 : 0.3);
    }
    return ns;
}

/* ---- FFTW planning: when measuring pays -------------------------------------- */

/*
 * FFTW_MEASURE times candidate algorithms for each shape with no wisdom;
 * FFTW_ESTIMATE picks by a model in well under 10 ms. Measured with
 * `cpu_fft_bench --planner 3` (no wisdom before each plan, thread CPU time,
 * medians of 3; 2-core Intel Xeon VM, load average 2 to 5 from other work,
 * FFTW 3.3.10, 2026-11-27): per size, MEASURE's planning in ms, and one
 * forward and one inverse in us under MEASURE's plan and ESTIMATE's:
 *     real pair  n    plan   MEASURE ESTIMATE   four-step n  plan  MEAS.  EST.
 *                128    46     0.52   0.59                2048   14    4.60   4.63
 *                256    84     0.74   0.90                4096   17    9.30   9.31
 *                512   124     1.22   1.56                8192   20   19.1   19.2
 *               1024   177     2.32   3.16               16384   22   42.5   42.4
 *               2048   227     4.71   6.29               32768   26  110    188
 *               4096   292     9.57  13.0                65536   27  235    308
 *               8192   384    19.8   29.3               131072   41  491    764
 *              16384   568    47.8   57.2
 *              32768   888    96.6  149
 *              65536  1471   214    335
 *             131072  3085   675    734
 * MEASURE's plan repays its planning after 12000 (65536 points) to 680000
 * (128) uses of the pair: a 5-s stereo file at partitions of 65536 uses
 * its pair 8 times and saved 0.5 ms for 3.1 s of measuring. With the length
 * unknown (a stream: live audio, a plugin) the work is unbounded and
 * measuring pays wherever it saves at least MEASURE_MARGIN a use; the pair
 * of 131072 (8%) and the four-step transforms below 32768 (their batches of
 * short DFTs, none) save less, and are estimated. Estimated plans are not
 * saved as wisdom; a later job that measures does, and every job reuses it.
 */
#define MEASURE_MARGIN 0.10

typedef struct planning_row {
    size_t n;           /* real points */
    double plan_s;      /* FFTW_MEASURE's planning, no wisdom */
    double measured_s;  /* a forward and an inverse, MEASURE's plan */
    double estimated_s; /* the same, ESTIMATE's */
} planning_row;

static const planning_row pair_rows[] = {
    {128, 0.046, 0.52e-6, 0.59e-6},      {256, 0.084, 0.74e-6, 0.90e-6},
    {512, 0.124, 1.22e-6, 1.56e-6},      {1024, 0.177, 2.32e-6, 3.16e-6},
    {2048, 0.227, 4.71e-6, 6.29e-6},     {4096, 0.292, 9.57e-6, 13.04e-6},
    {8192, 0.384, 19.80e-6, 29.34e-6},   {16384, 0.568, 47.80e-6, 57.24e-6},
    {32768, 0.888, 96.64e-6, 149.22e-6}, {65536, 1.471, 214.0e-6, 335.4e-6},
    {131072, 3.085, 675.1e-6, 733.7e-6},
};

static const planning_row four_step_rows[] = {
    {2048, 0.014, 4.60e-6, 4.63e-6},      {4096, 0.017, 9.30e-6, 9.31e-6},
    {8192, 0.020, 19.14e-6, 19.15e-6},    {16384, 0.022, 42.47e-6, 42.44e-6},
    {32768, 0.026, 110.3e-6, 188.3e-6},   {65536, 0.027, 235.4e-6, 307.6e-6},
    {131072, 0.041, 491.2e-6, 764.1e-6},
};

int gf_cpu_fftw_measure_pays(int four_step, size_t n, double uses)
{
    const planning_row *rows = four_step ? four_step_rows : pair_rows;
    const size_t nrows = four_step ? sizeof four_step_rows / sizeof four_step_rows[0]
                                   : sizeof pair_rows / sizeof pair_rows[0];
    size_t i = 0;
    double saved;
    /* the nearest size measured: sizes beyond the table cost at least its ends */
    while (i + 1 < nrows && rows[i].n < n)
        i++;
    saved = rows[i].estimated_s - rows[i].measured_s;
    if (uses <= 0)
        return saved >= MEASURE_MARGIN * rows[i].estimated_s;
    return saved * uses > rows[i].plan_s;
}

double gf_cpu_fft_uses(const gfir_plan *plan, size_t part)
{
    if (!plan->expected_frames || !part)
        return 0;
    return (double)((plan->expected_frames + part - 1) / part) * plan->channels;
}

/*
 * The CPU's time to filter, by a model fitted to measurements. It only has to
 * be right to a factor well under two: it decides whether a GPU's start-up, a
 * third of a second, pays.
 *
 * Direct convolution: ntaps multiply-adds per frame and channel at
 * DIRECT_MACS_PER_S per thread (tools/bench/cpu.sh, docs/BENCHMARKS.md: 18-22
 * GMAC/s on one thread of the 2-core development machine from 255 taps up),
 * shared across every thread.
 *
 * Uniformly partitioned FFT with partitions of P frames and K = ntaps / P
 * partitions: FFT_LOG_NS * log2(2P) + FFT_PART_NS * K ns per frame and channel
 * on one thread (times N / 2P, and log2(N) for log2(2P), for transforms of
 * N points), fitted to `cpu_fft_bench --partition` (same machine, 2026-11-23):
 * 512 taps at P = 512 3.5 ns, 65536 at 32768 5.4 ns, 262144 at 32768 6.3 ns
 * (model 8.8) and at 8192 16.0 (model 20.2), 2^20 at 32768 23.3
 * (model 20.8). The engine spreads channels over threads, and a single
 * channel's partitions only when there are many of them. The zero-latency FFT
 * engine's model is its own (gf_cpu_fft_nonuniform_ns()).
 */
#define DIRECT_MACS_PER_S 20e9
#define FFT_LOG_NS 0.3
#define FFT_PART_NS 0.5

static double log2_of(double n)
{
    double l = 0;
    while (n > 1) {
        n /= 2;
        l++;
    }
    return l;
}

static double threads_of(const gfir_plan *plan)
{
    return plan->threads ? plan->threads : gf_cpu_count();
}

double gf_cpu_direct_seconds(const gfir_plan *plan, double frames)
{
    const double samples = frames * plan->channels;
    return samples * (double)plan->ntaps / (DIRECT_MACS_PER_S * threads_of(plan));
}

double gf_cpu_fft_uniform_seconds(const gfir_plan *plan, double frames)
{
    const double threads = threads_of(plan), samples = frames * plan->channels;
    const double p = (double)plan->partition;
    const double n = (double)gf_cpu_fft_uniform_points(plan->ntaps, plan->partition);
    const double parts = (double)((plan->ntaps + plan->partition - 1) / plan->partition);
    /* transforms of N points every P frames; the fit was made at N = 2P */
    const double ns = (FFT_LOG_NS * log2_of(n) + FFT_PART_NS * parts) * n / (2 * p);
    double used = plan->channels > 1 ? plan->channels : parts >= 32 ? threads : 1;
    used = used < threads ? used : threads;
    return samples * ns * 1e-9 / used;
}

double gf_cpu_fft_zero_latency_seconds(const gfir_plan *plan, double frames)
{
    const double threads = threads_of(plan), samples = frames * plan->channels;
    /* Large calls spread their channels over the threads. */
    const double used = plan->channels < threads ? plan->channels : threads;
    return samples * gf_cpu_fft_nonuniform_ns(plan->ntaps) * 1e-9 / used;
}
