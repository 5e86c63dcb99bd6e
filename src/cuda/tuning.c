/*
 * tuning.c - the CUDA backend's measured figures (tuning.h holds those that
 * are constants): the direct/FFT crossover, with a device's calibration,
 * and the FFT engine's shapes (kernels/fft/): the FFT size for a whole
 * filter and the partition size for a long one.
 */
#include "cuda/tuning.h"
#include "core/cache.h"
#include "fft/smfft.h"

#include <cuda_runtime_api.h>
#include <pthread.h>
#include <string.h>

/*
 * AUTO's crossover from direct to FFT on the GPU, in taps. Measured on an H100
 * with 2 x 2^24 samples on the device (`gfir-bench --calibrate`, 2026-11-23,
 * commit a462bbc): the direct kernel's time grows with the taps (0.24 ms at
 * 127, 0.33 at 191, 0.41 at 255) while the one-pass smfft
 * (kernels/fft/smfft_onepass.cu) stays near 0.31-0.33 ms, so they cross
 * between 127 and 191 taps. This is the
 * default: `gfir-bench --calibrate` measures the crossover of the device it
 * runs on and keeps it in the user's cache directory
 * (GF_CUDA_CROSSOVER_FILE, a line per device name), which AUTO prefers.
 */
#define AUTO_FFT_MIN_TAPS 191

/* Devices whose name is remembered; the name is all AUTO needs of the
 * device's properties, whose query reads every attribute (the slowest call
 * of a create after the context, and once for each CUDA engine asked). */
#define NAMED_DEVICES 64
static pthread_mutex_t names_lock = PTHREAD_MUTEX_INITIALIZER;
static char names[NAMED_DEVICES][sizeof(((struct cudaDeviceProp *)0)->name)];

/* The device's name into name (its size at least names[0]'s): 1, or 0 when
 * it cannot be read. */
static int device_name(int device, char *name)
{
    struct cudaDeviceProp prop;
    const int kept = device >= 0 && device < NAMED_DEVICES;
    if (kept) {
        pthread_mutex_lock(&names_lock);
        memcpy(name, names[device], sizeof names[device]);
        pthread_mutex_unlock(&names_lock);
        if (name[0])
            return 1;
    }
    if (cudaGetDeviceProperties(&prop, device) != cudaSuccess) {
        cudaGetLastError(); /* leave no sticky error for the next launch */
        return 0;
    }
    prop.name[sizeof prop.name - 1] = '\0';
    memcpy(name, prop.name, sizeof prop.name);
    if (kept) {
        pthread_mutex_lock(&names_lock);
        memcpy(names[device], prop.name, sizeof prop.name);
        pthread_mutex_unlock(&names_lock);
    }
    return 1;
}

size_t gf_cuda_fft_min_taps(int device)
{
    char name[sizeof names[0]];
    if (!device_name(device, name))
        return AUTO_FFT_MIN_TAPS;
    const size_t calibrated = gf_cache_lookup(GF_CUDA_CROSSOVER_FILE, name);
    return calibrated ? calibrated : AUTO_FFT_MIN_TAPS;
}

/*
 * The FFT size rule. A transform pair of N points yields L = N - ntaps + 1
 * outputs, so the cost per output is about N log N / L: larger N wastes less
 * on the overlap, smaller N keeps each transform inside cuFFT's fast sizes and
 * the buffers small. Measured on an H100 (gfir-bench --fft-sizes, 2 x 2^24
 * samples on the device, 2026-11-22), the fastest N per filter length was:
 *   1023 taps: 16384 (0.62 ms; 4096 took 0.71)   4095: 16384 (0.73)
 *   16383: 65536 (0.95)   65535: 524288 or 2^20 (1.49; 262144 took 1.71)
 *   262143: 2^20 (1.75; 524288 took 2.41)
 * hence N >= 4 * ntaps up to 16384 taps and >= 8 * ntaps above, never below
 * 16384, and no larger than 2^20 unless the filter needs it (N > ntaps).
 * That was cuFFT's. The smfft transforms now take every whole filter up to
 * N = GF_SMFFT_MAX: one-pass up to FFT_ONEPASS_TAPS, never below
 * FFT_ONEPASS_MIN; its fastest N, same command and machine (the cuFFT
 * passes' best in brackets):
 *   255 taps: 2048 (0.327 ms; 1024 0.345, 4096 0.359)   [16384: 0.60]
 *   1023 taps: 4096 (0.430; 2048 0.529, 8192 0.526)      [16384: 0.62]
 * Above that, four-step (2026-11-23, a RelWithDebInfo build with
 * one float2 of shared-memory padding per 8 points; gpu.sh has the final
 * code's figures at the sizes this rule picks):
 *   2500 taps: 131072 0.66 ms, 65536 0.69, 262144 0.70   [32768: 0.71]
 *   4095: 65536 or 131072 0.69, 262144 0.69, 32768 0.71  [16384: 0.73]
 *   16383: 131072 0.73, 262144 0.74, 65536 0.82          [65536: 0.97]
 *   65535: 262144 0.86, 524288 0.90, 131072 1.15         [2^20: 1.49]
 *   262143: 2^20 1.10, 2^21 1.09, 2^19 1.39              [2^21: 1.63]
 * so N is 4 ntaps, but at least FFT_FOURSTEP_MIN. Filters too long for
 * GF_SMFFT_MAX points go to cuFFT at 2 ntaps.
 *
 * One-pass reached 2^14 points later, and became much faster (twiddles as
 * products, no local-memory pass table: smfft_kernels.cuh), which moved the
 * line. Same command and machine, 2026-11-24, tree after 8dac5fb (ms):
 *   255 taps: 2048 0.228 (1024 0.238, 4096 0.247)
 *   1023: 4096 0.281 (2048 0.320, 8192 0.300)
 *   1500: 4096 0.312, 8192 0.314        2047: 8192 0.334 (16384 0.359)
 *   2500: 8192 0.356 (16384 0.388)      3000: 8192 0.380, 16384 0.389
 *   4095: 16384 0.410 (8192 0.462; four-step 65536 0.586)
 *   5000: 16384 0.435 (four-step 65536 0.592)
 *   8000: 16384 0.525 (four-step 65536 0.605, 131072 0.613)
 *   12000: four-step 131072 0.632 (65536 0.658)
 * hence one-pass at N = 3 ntaps, up to its largest size, for every filter
 * of at most half that (FFT_ONEPASS_TAPS); four-step above.
 *
 * Four-step's loads then came in flight together (its points' loops
 * unrolled, smfft_fourstep.cu), which made larger transforms pay. Same
 * command, 2026-11-24 (ms; the best first):
 *   16383 taps: 131072 0.583, 262144 0.605, 524288 0.621, 65536 0.633
 *   65535: 524288 0.659, 262144 0.692, 2^20 0.720, 2^21 0.835
 *   262143: 2^20 0.814, 2^21 0.845, 524288 1.001
 * hence N = 8 ntaps up to FFT_FOURSTEP_8X_MAX points, 4 ntaps for longer
 * filters, never below FFT_FOURSTEP_MIN. A filter's spectrum is N points of
 * 8 bytes, so from 8193 to 131072 taps it takes twice the memory it did at
 * 4 ntaps (256 per-channel filters of 131072 taps: 2 GB).
 *
 * The transforms' first and last passes then came to read and write device
 * memory themselves (smfft_kernels.cuh, transform_io), and every size but
 * 4096 got faster. Same command, 2026-11-24 (ms; the best first):
 *   255 taps: 2048 0.182, 8192 0.213, 16384 0.234, 4096 0.261
 *   511: 2048 0.198, 8192 0.219, 16384 0.250, 4096 0.271
 *   1023: 8192 0.227, 16384 0.254, 2048 0.271, 4096 0.293
 *   1500: 8192 0.238, 16384 0.256, 4096 0.327
 *   2047: 8192 0.256, 16384 0.257    2500: 8192 0.274, 16384 0.274
 *   3000: 16384 0.275, 8192 0.293    4095: 16384 0.297, 8192 0.358
 *   8000: 16384 0.386 (four-step 131072 0.492)
 *   12000: 131072 0.501, 262144 0.535    16383: 131072 0.505, 262144 0.535
 *   32767: 524288 0.554, 262144 0.563    65535: 524288 0.580, 2^20 0.612
 *   131071: 524288 0.648, 2^20 0.649     262143: 2^20 0.682, 2^21 0.720
 * hence the same rule, but never 4096 points (FFT_ONEPASS_SKIP): the
 * filters that would take it go to 8192. (A short block that a pair of
 * 4096-point segments covers still takes it, below.)
 *
 * Short blocks. A segment pair is one complex transform (smfft.h), so a
 * block that one segment covers would leave half of it empty: the rule
 * covers a block with a pair of segments of half the length instead, which
 * costs less whatever the shape. 256 channels of 72,000 frames through
 * per-channel 8000-tap filters (a batch for gfir_plan_set_taps_device) took
 * 0.330 ms at 16384 and 0.979 at 131072, one segment a channel.
 *
 * Never more than a pair of segments covering the whole block needs, so
 * small blocks with few taps do not transform mostly zeros; but never below
 * FFT_SMALLEST, the floor when a block is tiny (a live callback): filters
 * need at least 4 points (gf_fft_filter_create), and 32 is the smallest size
 * cuda_fft_test checks the engine at. gfir-bench --fft-sizes times other
 * sizes beside the rule's.
 */
#define FFT_ONEPASS_TAPS (GF_SMFFT_ONEPASS_MAX / 2)
#define FFT_ONEPASS_MIN 2048
#define FFT_ONEPASS_SKIP 4096
#define FFT_FOURSTEP_MIN ((size_t)1 << 17)
#define FFT_FOURSTEP_8X_MAX ((size_t)1 << 20)
#define FFT_SMALLEST 32

static size_t pow2_at_least(size_t v)
{
    size_t p = 1;
    while (p < v)
        p <<= 1;
    return p;
}

size_t gf_fft_size(size_t ntaps, size_t max_n)
{
    size_t want;
    if (max_n == 0)
        max_n = 1;
    if (ntaps <= FFT_ONEPASS_TAPS) { /* smfft one-pass */
        want = pow2_at_least(3 * ntaps);
        want = want == FFT_ONEPASS_SKIP ? 2 * want : want;
        want = want < FFT_ONEPASS_MIN ? FFT_ONEPASS_MIN
               : want > GF_SMFFT_ONEPASS_MAX ? GF_SMFFT_ONEPASS_MAX
                                             : want;
    } else { /* smfft four-step: 8 ntaps up to FFT_FOURSTEP_8X_MAX, else 4 ntaps */
        want = pow2_at_least(8 * ntaps);
        if (want > FFT_FOURSTEP_8X_MAX)
            want = pow2_at_least(4 * ntaps);
        want = want > FFT_FOURSTEP_MIN ? want : FFT_FOURSTEP_MIN;
        if (want > GF_SMFFT_MAX) /* the longest filters: cuFFT, or 2 ntaps */
            want = pow2_at_least(2 * ntaps) > GF_SMFFT_MAX ? pow2_at_least(2 * ntaps)
                                                           : GF_SMFFT_MAX;
    }
    /* a pair of segments covers the block */
    size_t whole = pow2_at_least(ntaps - 1 + (max_n + 1) / 2);
    if (whole < FFT_SMALLEST)
        whole = FFT_SMALLEST;
    return want < whole ? want : whole;
}

/*
 * Partitioned overlap-save, for long filters over long blocks. The taps are
 * cut into parts of P taps (the last zero-padded) and every transform has
 * N = 2P points: segment s of a channel is the 2P samples starting at
 * sP - front of its row (zeros before the row), and output block j (outputs
 * jP .. jP + P - 1) is
 *     Y_j = sum_p H_p X_{j + parts - 1 - p},
 * whose inverse transform holds the block at columns P .. 2P - 1. front is
 * parts * P - (ntaps - 1), the samples before the halo, which only ever meet
 * zero taps. Each input spectrum is made once and used by `parts` output
 * blocks, so a long filter costs transforms of 2P points and a
 * multiply-accumulate over the parts, instead of transforms of several times
 * ntaps points.
 *
 * The partition rule, measured on an H100 (gfir-bench --fft-parts, 2 x 2^24
 * samples on the device, 2026-11-22; ms, against the best whole size):
 *   16383 taps: P = 4096 or 8192 0.95, whole 0.95 (so it stays whole)
 *   65535:  P = 8192 0.98 (4096: 1.02, 16384: 1.10), whole 1.48
 *   262143: P = 8192 1.15 (16384: 1.17, 4096: 1.43), whole 1.76
 *   1048575: P = 32768 1.55 (16384: 1.63, 8192: 2.07, 65536: 2.60)
 * hence P = 8192, doubled until at most FFT_MAX_PARTS partitions hold the
 * taps (the multiply-accumulate grows with the partitions, the transforms'
 * cost per sample with log P), from FFT_PART_MIN_TAPS taps on (between
 * 16383, where partitions gained nothing, and 65535), and only for
 * blocks of at least P frames: a shorter block would transform a partition's
 * worth of input spectra per call for few outputs. Blocks of at least
 * FFT_WHOLE_BLOCKS times the filter stay whole in smfft's four-step,
 * which beat the partitions there (65535 taps: 0.86 ms against 0.99;
 * 262143: 1.10 against 1.16, same command, 2026-11-23).
 */
#define FFT_PART 8192
#define FFT_PART_MIN_TAPS 32768
#define FFT_MAX_PARTS 32
#define FFT_WHOLE_BLOCKS 4

size_t gf_fft_part(size_t ntaps, size_t max_n)
{
    size_t part = FFT_PART;
    while (part * FFT_MAX_PARTS < ntaps)
        part *= 2;
    if (ntaps < FFT_PART_MIN_TAPS || max_n < part)
        return 0;
    /* blocks long beside the filter: whole, in smfft's four-step */
    if (max_n / FFT_WHOLE_BLOCKS >= ntaps && gf_smfft_fits(gf_fft_size(ntaps, max_n)))
        return 0;
    return part;
}
