/*
 * tuning.h - every measured number of the CPU backend, with the command,
 * machine and date that measured it (CUB's policies beside its agents): the
 * partition rules and break-evens its engines answer the policy with, the
 * cost models (tuning.c), and when threads pay. The engines hold none of
 * their own; a new measurement changes this file and tuning.c only.
 */
#ifndef GF_CPU_TUNING_H
#define GF_CPU_TUNING_H

#include "core/plan.h"

#include <stddef.h>

/* ---- threads ------------------------------------------------------------------ */

/* The direct engine: blocks with fewer multiply-adds than this run on the
 * calling thread alone: below it, waking workers costs more than it saves,
 * and the call stays free of any synchronisation (audio callbacks). Plans
 * whose blocks never reach it start no threads at all. */
#define GF_CPU_DIRECT_PARALLEL_MIN_MACS ((size_t)1 << 22)

/*
 * The uniform FFT engine's threads, measured with `cpu_fft_bench --threads`
 * (2-core development VM, the worker pool of pool.h). The work of F frames is
 * channels * F * (K + log2(2P)); whether threads start is decided once, at
 * create, from the most work one synchronisation can cover (a block of P
 * frames, or a call of up to max_block_frames, capped at 65536); plans below
 * these thresholds start no threads and their blocks take no locks.
 * - Several channels: a task per channel. A call of many blocks whose work
 *   reaches GF_CPU_FFT_CHANNELS_MIN_WORK runs each channel through all its
 *   blocks as one task (one wake-up a call: files, whose calls are 65536
 *   frames while a 255-tap filter's blocks are 256); otherwise a block that
 *   reaches it is shared out alone. Stereo 2^20-tap filters at blocks
 *   of 4096 and more ran 2x faster on two threads in every run; from about
 *   2^17 (65536 taps at any block size) gains of 1.1-1.4x showed in some
 *   runs, within this shared machine's run-to-run noise of about 30%.
 * - One channel: the transforms stay on the calling thread and only the
 *   multiply-accumulate is shared out by ranges of bins. That paid (up to
 *   1.25x) only with many partitions; with few, the serial transforms
 *   dominate and it lost up to 2x.
 */
#define GF_CPU_FFT_CHANNELS_MIN_WORK ((size_t)1 << 17)
#define GF_CPU_FFT_BINS_MIN_WORK ((size_t)1 << 20)
#define GF_CPU_FFT_BINS_MIN_PARTS ((size_t)32)

/* The zero-latency FFT engine: calls from this many frames on share their
 * paths (channels) out to worker threads, when the plan has several channels
 * and threads; shorter calls, audio callbacks among them, stay on the
 * calling thread and take no lock. */
#define GF_CPU_NU_PARALLEL_MIN_FRAMES ((size_t)4096)


/* ---- the uniform FFT engine ------------------------------------------------- */

/* The partition size (and latency) for ntaps taps in calls of up to
 * block_frames frames, within a latency budget of max_latency frames: a
 * power of two, 64 to 32768, or 0 when the budget is below 64. With
 * GFIR_LATENCY_ANY (offline) the fastest per frame for the filter, whatever
 * the block: up to 16384 taps the hop of one partition in a transform of
 * 4096 to 65536 points (N - ntaps + 1, no power of two), beyond 4096 to
 * 65536. */
size_t gf_cpu_fft_partition(size_t ntaps, size_t block_frames, size_t max_latency);

/* The points of the engine's transform for ntaps taps and partitions (hops)
 * of `partition` frames: 2 * partition when the filter takes several
 * partitions, else the smallest power of two holding a block and the filter,
 * partition + ntaps - 1 (which is 2 * partition for a power of two from
 * ntaps / 2 on). */
size_t gf_cpu_fft_uniform_points(size_t ntaps, size_t partition);

/* From how many taps this engine beats direct convolution at that partition. */
size_t gf_cpu_fft_uniform_min_taps(size_t partition);

/* ---- the zero-latency FFT engine -------------------------------------------- */

#define GF_NU_MAX_LEVELS 16

/* A partition scheme: the direct head's length N (a power of two), which is
 * also the first level's partition size, then the larger levels' sizes,
 * increasing powers of two. Levels that start past the filter's end are
 * dropped. */
typedef struct gf_nu_scheme {
    size_t head;
    size_t nlevels;               /* levels after the first */
    size_t sizes[GF_NU_MAX_LEVELS];
} gf_nu_scheme;

/* The scheme the engine uses for ntaps taps in calls of up to block_frames. */
void gf_cpu_fft_nonuniform_scheme(size_t ntaps, size_t block_frames, gf_nu_scheme *scheme);

/* 1 when the non-uniform engine beats the direct one for this shape (both add
 * no latency). */
int gf_cpu_fft_nonuniform_preferred(size_t ntaps, size_t block_frames);

/* Nanoseconds per frame and channel on one thread, by model: right to
 * within a factor of about 1.5. */
double gf_cpu_fft_nonuniform_ns(size_t ntaps);

/* ---- planning --------------------------------------------------------------- */

/* Whether FFTW_MEASURE pays, where no wisdom has the plan, for an engine's
 * transforms of n real points (n = 2P: a real pair, or with four_step the
 * sliced transform of fft_sliced.h) that will run `uses` times each
 * (forward and inverse), 0 when unknown (a stream): 1 when the time the
 * measured plan saves over those uses exceeds the time measuring takes, or
 * with uses unknown when it saves a margin per use. */
int gf_cpu_fftw_measure_pays(int four_step, size_t n, double uses);

/* How many times a plan of gfir_plan.expected_frames frames runs each
 * transform of partitions of `part` frames: one forward and one inverse a
 * partition and channel; 0 when the plan does not know its length. */
double gf_cpu_fft_uses(const gfir_plan *plan, size_t part);

/* ---- cost models (each engine's cost_s, core/engine.h) ---------------------- */

/* Seconds of compute for `frames` frames of the plan's shape on
 * plan->threads threads (0: every core), as far as the engine uses them:
 * the direct engine, the uniform FFT engine at plan->partition, the
 * zero-latency FFT engine. */
double gf_cpu_direct_seconds(const gfir_plan *plan, double frames);
double gf_cpu_fft_uniform_seconds(const gfir_plan *plan, double frames);
double gf_cpu_fft_zero_latency_seconds(const gfir_plan *plan, double frames);

#endif
