/*
 * cuda_fft_test.c - the CUDA FFT kernel (overlap-save: smfft's own
 * transforms and cuFFT) against float64 references. Exits 77 (skipped) when
 * no CUDA device is usable.
 *
 * - The engine of kernels/fft/, in smfft's transforms (one-pass up to 16384
 *   points, four-step above) and as cuFFT passes, at every FFT
 *   size gf_fft_size() can choose
 *   up to 2^23 (the size of a 2^21-tap filter), planar and interleaved output,
 *   whole blocks and short ones; and partitioned, at the partition size the
 *   rule picks and at small ones, with tap counts on both sides of every case
 *   of the partition arithmetic. Everything in the input rows past the halo
 *   and the samples is NaN, so an engine that reads past its input shows.
 * - The plan API: channels {1, 2, 6}, shared and per-channel taps, chunks of
 *   1, 2, 7, 997 and random sizes, in place, pipelined big calls, reset and
 *   flush, AUTO's choice.
 * - Long filters through the plan API: 65536 and 2^21 taps, and a 30-second
 *   stereo impulse response (1.44 M taps per channel) in live-sized calls.
 * Tolerance: relative L2 1e-5 up to 65536 taps, 1e-4 beyond: the project's
 * rule for fast paths, since longer float32 sums and transforms round more. Long
 * filters are checked at a subset of outputs (the first and last ones, both
 * sides of every segment boundary, random ones) to keep the float64
 * reference affordable.
 *
 * `cuda_fft_test --quick` runs a smaller set, for compute-sanitizer.
 */
#define _POSIX_C_SOURCE 200809L
#include "core/cache.h"
#include "cuda/tuning.h"
#include "fft/fft.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "stream_check.h"

static int quick;

#define CHECK_CUDA(call) assert_int_equal((call), cudaSuccess)
#define CHECK_GFIR(call, why)                                                              \
    do {                                                                                   \
        gfir_status s_ = (call);                                                           \
        if (s_ != GFIR_OK)                                                                 \
            fail_msg("%s: %s (%s)", #call, gfir_strerror(s_), why);                        \
    } while (0)

static double tolerance(size_t ntaps)
{
    return ntaps <= 65536 ? 1e-5 : 1e-4;
}

/* Output indices worth checking among n: the ends, both sides of the first
 * segment boundaries (multiples of hop), and random ones up to budget. */
static size_t pick_indices(size_t n, size_t hop, size_t budget, uint64_t *rng, size_t *idx)
{
    size_t k = 0;
    for (size_t i = 0; i < 32 && i < n; i++)
        idx[k++] = i;
    for (size_t i = n > 64 ? n - 32 : 32; i < n; i++)
        idx[k++] = i;
    for (size_t s = 1; s <= 48 && s * hop < n; s++) {
        idx[k++] = s * hop - 1;
        idx[k++] = s * hop;
    }
    while (k < budget)
        idx[k++] = (size_t)(test_uniform(rng) * (double)n);
    return k;
}

/* How many outputs a reference of ntaps taps can afford per channel. */
static size_t budget_for(size_t ntaps)
{
    size_t b = ((size_t)1 << 28) / ntaps;
    return b < 200 ? 200 : b > 3000 ? 3000 : b;
}

/* ---- the engine at every FFT size ------------------------------------------ */

typedef struct engine_case {
    size_t n_fft, ntaps, max_n;
    unsigned channels;
    int shared;
    size_t part; /* 0: whole */
} engine_case;

/* Uploads rows of x_stride samples from h_x, of which only the halo and n
 * samples of each are kept: the rest of the buffer NaN. */
static void upload(float *d_x, const float *h_x, size_t x_stride, size_t keep, unsigned C)
{
    const size_t total = C * x_stride;
    float *h = malloc(total * sizeof *h);
    assert_non_null(h);
    for (size_t i = 0; i < total; i++)
        h[i] = NAN;
    for (unsigned c = 0; c < C; c++)
        memcpy(h + c * x_stride, h_x + c * x_stride, keep * sizeof *h);
    CHECK_CUDA(cudaMemcpy(d_x, h, total * sizeof *h, cudaMemcpyHostToDevice));
    free(h);
}

/* Runs n frames through the engine; compares output subset idx (< n) with ref. */
static void engine_run(const engine_case *ec, gf_fft_engine *e, cudaStream_t stream,
                       float *d_x, const float *h_x, size_t x_stride, size_t n,
                       int interleaved, const size_t *idx, size_t nidx, const double *ref)
{
    const unsigned C = ec->channels;
    const size_t y_stride = ec->max_n + 3;
    const size_t total = interleaved ? n * C : C * y_stride;
    float *d_y, *h_y = malloc(total * sizeof *h_y);
    char why[256] = "";
    assert_non_null(h_y);
    upload(d_x, h_x, x_stride, ec->ntaps - 1 + n, C);
    CHECK_CUDA(cudaMalloc((void **)&d_y, total * sizeof(float)));
    CHECK_CUDA(cudaMemset(d_y, 0xff, total * sizeof(float))); /* NaN poison */
    /* The upload and the memset are on the legacy stream, which the engine's
     * non-blocking stream does not wait for, and a cudaMemcpy from pageable
     * memory may return before its data lands: without this the engine read
     * stale input whenever the GPU was busy (ctest -j beside cuda_test). */
    CHECK_CUDA(cudaDeviceSynchronize());
    CHECK_GFIR(gf_fft_run(e, d_x, x_stride, n, d_y, interleaved ? C : 1,
                            interleaved ? 1 : y_stride, why, sizeof why),
               why);
    CHECK_CUDA(cudaStreamSynchronize(stream));
    CHECK_CUDA(cudaMemcpy(h_y, d_y, total * sizeof(float), cudaMemcpyDeviceToHost));
    /* Relative L2 over the outputs of this run, its denominator the mean
     * square of every checked reference value times the count: the same as
     * plain relative L2 for a whole block, and for a run of one or a few
     * outputs, error against the signal's size rather than against whatever
     * size those few samples happen to have (an FFT's error is set by the
     * norms of taps and input, not by |y_i|: one output near zero once gave
     * 3.7e-5 "relative" from an absolute error of a few 1e-7). */
    double num = 0.0, all = 0.0;
    size_t used = 0;
    for (size_t k = 0; k < nidx; k++) {
        for (unsigned c = 0; c < C; c++)
            all += ref[k * C + c] * ref[k * C + c];
        if (idx[k] >= n)
            continue;
        for (unsigned c = 0; c < C; c++) {
            const size_t i = idx[k];
            const float got = interleaved ? h_y[i * C + c] : h_y[c * y_stride + i];
            const double d = (double)got - ref[k * C + c];
            num += d * d;
        }
        used++;
    }
    const double den = all / (double)nidx * (double)used;
    /* every output written: the whole written range is free of poison */
    for (size_t i = 0; i < n; i++)
        for (unsigned c = 0; c < C; c++) {
            const float got = interleaved ? h_y[i * C + c] : h_y[c * y_stride + i];
            if (!isfinite(got))
                fail_msg("fft N=%zu part=%zu ntaps=%zu n=%zu ch=%u: output %zu of channel %u "
                         "not finite",
                         ec->n_fft, ec->part, ec->ntaps, n, C, i, c);
        }
    double err = sqrt(num / den);
    if (getenv("GFIR_TEST_VERBOSE"))
        fprintf(stderr, "fft N=%zu part=%zu ntaps=%zu n=%zu ch=%u %s%s: rel L2 %.3g\n",
                ec->n_fft, ec->part, ec->ntaps, n, C, gf_fft_engine_smfft(e) ? "smfft " : "",
                interleaved ? "interleaved" : "planar", err);
    if (!(err < tolerance(ec->ntaps)))
        fail_msg("fft engine N=%zu part=%zu ntaps=%zu max_n=%zu n=%zu ch=%u shared=%d %s: "
                 "rel L2 %.3g",
                 ec->n_fft, ec->part, ec->ntaps, ec->max_n, n, C, ec->shared,
                 interleaved ? "interleaved" : "planar", err);
    cudaFree(d_y);
    free(h_y);
}

static void engine_check(const engine_case *ec)
{
    uint64_t rng = 0xFF7ULL + ec->n_fft * 31 + ec->ntaps;
    const unsigned C = ec->channels, filters = ec->shared ? 1 : C;
    const size_t halo = ec->ntaps - 1, hop = ec->part ? ec->part : ec->n_fft - halo;
    const size_t budget = budget_for(ec->ntaps);
    float *h_taps = malloc(filters * ec->ntaps * sizeof(float));
    size_t *idx = malloc((budget + 200) * sizeof *idx);
    double *ref = malloc((budget + 200) * C * sizeof *ref);
    gf_fft_filter *f;
    gf_fft_engine *e;
    cudaStream_t stream, make;
    float *d_x;
    char why[256] = "";
    assert_non_null(h_taps);
    assert_non_null(idx);
    assert_non_null(ref);

    if (!ec->part)
        assert_int_equal(gf_fft_size(ec->ntaps, ec->max_n), ec->n_fft);
    test_fill(h_taps, filters * ec->ntaps, &rng);
    /* the spectra are made on a stream of their own: create must leave them
     * complete for the engines' stream, which does not wait for it */
    CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    CHECK_CUDA(cudaStreamCreateWithFlags(&make, cudaStreamNonBlocking));
    CHECK_GFIR(gf_fft_filter_create(&f, h_taps, ec->ntaps, filters, ec->n_fft, ec->part, make,
                                    why, sizeof why),
               why);
    assert_int_equal(gf_fft_filter_size(f), ec->n_fft);
    /* a filter of another size made afterwards, alive while f runs: one
     * filter's setup must not break another's (shared memory limits are
     * per kernel, not per filter) */
    gf_fft_filter *other;
    CHECK_GFIR(gf_fft_filter_create(&other, h_taps, 31 < ec->ntaps ? 31 : ec->ntaps, 1,
                                    ec->n_fft == 2048 ? 4096 : 2048, 0, make, why, sizeof why),
               why);
    const size_t x_stride = halo + ec->max_n + 5; /* an odd pitch on purpose */
    float *h_x = malloc(C * x_stride * sizeof(float));
    assert_non_null(h_x);
    test_fill(h_x, C * x_stride, &rng);
    const size_t nidx = pick_indices(ec->max_n, hop, budget, &rng, idx);
    for (size_t k = 0; k < nidx; k++)
        for (unsigned c = 0; c < C; c++) {
            const float *h = h_taps + (ec->shared ? 0 : c) * ec->ntaps;
            const float *x = h_x + c * x_stride + halo + idx[k];
            double acc = 0.0;
            for (size_t m = 0; m < ec->ntaps; m++)
                acc += (double)h[m] * (double)x[-(ptrdiff_t)m];
            ref[k * C + c] = acc;
        }

    CHECK_CUDA(cudaMalloc((void **)&d_x, C * x_stride * sizeof(float)));
    /* the library's choice (smfft for whole filters that fit it), then
     * the cuFFT passes for every case */
    for (unsigned flags = 0; flags <= GF_FFT_CUFFT_ONLY; flags += GF_FFT_CUFFT_ONLY) {
        CHECK_GFIR(gf_fft_engine_create(&e, f, C, ec->max_n, stream, flags, why, sizeof why),
                   why);
        assert_int_equal(gf_fft_engine_smfft(e),
                         !flags && !ec->part && ec->n_fft <= GF_SMFFT_MAX);
        /* whole blocks, the shortest, one past a segment, and an odd middle size */
        const size_t lengths[] = {ec->max_n, 1, hop + 1, ec->max_n / 2 + 1};
        for (size_t l = 0; l < sizeof lengths / sizeof lengths[0]; l++) {
            if (lengths[l] > ec->max_n || (quick && l > 1))
                continue;
            engine_run(ec, e, stream, d_x, h_x, x_stride, lengths[l], (int)(l & 1), idx, nidx,
                       ref);
            if (l == 0)
                engine_run(ec, e, stream, d_x, h_x, x_stride, lengths[l], 1, idx, nidx, ref);
        }
        gf_fft_engine_destroy(e);
    }
    gf_fft_filter_destroy(f);
    gf_fft_filter_destroy(other);
    cudaStreamDestroy(stream);
    cudaStreamDestroy(make);
    cudaFree(d_x);
    free(h_taps);
    free(h_x);
    free(idx);
    free(ref);
}

static void test_engine_every_size(void **state)
{
    (void)state;
    static const unsigned chans[] = {1, 2, 6};
    const size_t largest = quick ? (size_t)1 << 15 : (size_t)1 << 23;
    int k = 0;
    for (size_t n_fft = 32; n_fft <= largest; n_fft *= 2, k++) {
        engine_case ec = {n_fft, 0, 0, chans[k % 3], k & 1, 0};
        if (n_fft >= ((size_t)1 << 20) && ec.channels > 2)
            ec.channels = 2; /* keeps the biggest cases' memory and time down */
        /* a filter for which the rule itself picks this size, over several
         * segments; where none does, a short block that caps it (one pair of
         * segments: the rule covers a short block with a pair) */
        static const size_t divisors[] = {8, 4, 2};
        for (size_t d = 0; d < 3 && !ec.ntaps; d++) {
            const size_t ntaps = n_fft / divisors[d], hop = n_fft - (ntaps - 1);
            const size_t max_n = (n_fft <= ((size_t)1 << 18) ? 3 : 1) * hop + 123;
            if (gf_fft_size(ntaps, max_n) == n_fft)
                ec.ntaps = ntaps, ec.max_n = max_n;
        }
        if (!ec.ntaps) {
            ec.ntaps = n_fft / 4 + 1;
            ec.max_n = 2 * (n_fft - (ec.ntaps - 1));
        }
        engine_check(&ec);
    }
    /* the common short filter at the smallest full size; a one-tap filter */
    engine_case common = {2048, 255, 100003, 2, 0, 0};
    engine_check(&common);
    engine_case one_tap = {2048, 1, 50000, 6, 1, 0};
    engine_check(&one_tap);
}

/* Partitioned: at small partitions, tap counts that fill the last partition
 * but for one sample, exactly, or by one sample only; one under a partition,
 * and odd ones; then the rule's own shape for a long filter. */
static void test_engine_partitioned(void **state)
{
    (void)state;
    static const size_t parts[] = {64, 256, 1024};
    static const unsigned chans[] = {1, 2, 6};
    int k = 0;
    for (size_t p = 0; p < sizeof parts / sizeof parts[0]; p++) {
        const size_t P = parts[p];
        const size_t taps[] = {3 * P - 1, 3 * P, 4 * P + 1, P - 5, 5 * P + 37, 2 * P - 2};
        for (size_t t = 0; t < sizeof taps / sizeof taps[0]; t++, k++) {
            if (quick && t > 2)
                continue;
            engine_case ec = {2 * P, taps[t], 7 * P + 13, chans[k % 3], k & 1, P};
            engine_check(&ec);
        }
    }
    const size_t ntaps = quick ? 32768 : 65535, max_n = quick ? 40000 : 200003;
    assert_int_not_equal(gf_fft_part(ntaps, max_n), 0);
    engine_case rule = {2 * gf_fft_part(ntaps, max_n), ntaps, max_n, 2, 0,
                        gf_fft_part(ntaps, max_n)};
    engine_check(&rule);
}

/* ---- the plan API ----------------------------------------------------------- */

static void test_streaming_fft(void **state)
{
    (void)state;
    /* channels / filter sets, rotated over the chunkings so each meets each */
    static const unsigned shapes[][2] = {{1, 1}, {2, 2}, {6, 1}, {6, 6}};
    static const size_t taps[] = {1, 33, 1025, 4097};
    for (size_t t = 0; t < sizeof taps / sizeof taps[0]; t++)
        for (int how = WHOLE; how <= RANDOM; how++) {
            if (quick && (how == ONES || how == TWOS || taps[t] == 1 || taps[t] > 1025))
                continue;
            const unsigned *sh = shapes[(t + (size_t)how) % 4];
            stream_case tc = {GFIR_BACKEND_CUDA, GFIR_KERNEL_FFT, sh[0], sh[1], taps[t],
                              2 * taps[t] + 3001, 0, (enum chunking)how, how & 1};
            if (how == ONES || how == TWOS)
                tc.frames = taps[t] + 300;
            check(&tc);
        }
    /* every shape, whole and in odd chunks, through a block size of its own */
    for (size_t s = 0; s < 4 && !quick; s++) {
        stream_case tc = {GFIR_BACKEND_CUDA, GFIR_KERNEL_FFT, shapes[s][0], shapes[s][1], 2049,
                          20011, 997, PRIME997, (int)(s & 1)};
        check(&tc);
        tc.max_block = 5000;
        tc.chunking = RANDOM;
        check(&tc);
    }
}

/* Big calls are pipelined over sub-blocks and two streams: same samples. */
static void test_fft_pipelined(void **state)
{
    (void)state;
    check_pipelined(GFIR_KERNEL_FFT, quick);
    /* and a filter longer than the GPU FFT's smallest transform's hop */
    stream_case tc = {GFIR_BACKEND_CUDA, GFIR_KERNEL_FFT, 1, 1, 3001, 300007, 1 << 18,
                      PRIME997, 0};
    if (quick)
        tc.frames = 100003, tc.max_block = 1 << 17;
    check(&tc);
}

/* A long filter through the plan API, in chunks of `chunk` frames (0:
 * random sizes up to 3 * chunk_max), checked at a subset of outputs. */
static void long_case(gfir_kernel kernel, size_t ntaps, unsigned C, unsigned filters,
                      size_t frames, size_t max_block, size_t chunk, size_t chunk_max,
                      int in_place)
{
    uint64_t rng = 0x10ADULL + ntaps + C * 3 + chunk;
    const size_t budget = budget_for(ntaps) / C;
    float *taps = malloc(filters * ntaps * sizeof *taps);
    float *x = malloc(frames * C * sizeof *x);
    float *y = malloc(frames * C * sizeof *y);
    size_t *idx = malloc((budget + 200) * sizeof *idx);
    double *ref = malloc((budget + 200) * C * sizeof *ref);
    gfir_plan *plan;
    gfir_config cfg;
    assert_non_null(taps);
    assert_non_null(x);
    assert_non_null(y);
    assert_non_null(idx);
    assert_non_null(ref);

    test_fill(taps, filters * ntaps, &rng);
    test_fill(x, frames * C, &rng);
    const size_t nidx = pick_indices(frames, ntaps, budget, &rng, idx);
    for (size_t k = 0; k < nidx; k++)
        for (unsigned c = 0; c < C; c++) {
            const float *h = taps + (filters == 1 ? 0 : c) * ntaps;
            const size_t i = idx[k], kmax = i < ntaps - 1 ? i : ntaps - 1;
            double acc = 0.0;
            for (size_t m = 0; m <= kmax; m++)
                acc += (double)h[m] * (double)x[(i - m) * C + c];
            ref[k * C + c] = acc;
        }

    gfir_config_init(&cfg);
    cfg.channels = C;
    cfg.filter_channels = filters;
    cfg.backend = GFIR_BACKEND_CUDA;
    cfg.kernel = kernel;
    cfg.max_block_frames = max_block;
    CHECK_GFIR(gfir_plan_create(&plan, taps, ntaps, &cfg), gfir_plan_error_detail(NULL));
    assert_int_equal(gfir_plan_kernel(plan), GFIR_KERNEL_FFT);
    assert_int_equal(gfir_plan_latency(plan), 0);
    if (in_place)
        memcpy(y, x, frames * C * sizeof *y);
    else
        for (size_t i = 0; i < frames * C; i++)
            y[i] = NAN;
    for (size_t done = 0, n; done < frames; done += n) {
        n = chunk ? chunk : (size_t)(test_uniform(&rng) * 3.0 * (double)chunk_max);
        n = n < frames - done ? n : frames - done;
        const float *in = (in_place ? y : x) + done * C;
        CHECK_GFIR(gfir_plan_execute(plan, in, y + done * C, n), gfir_plan_error_detail(plan));
    }
    gfir_plan_destroy(plan);

    double num = 0.0, den = 0.0;
    for (size_t k = 0; k < nidx; k++)
        for (unsigned c = 0; c < C; c++) {
            const double d = (double)y[idx[k] * C + c] - ref[k * C + c];
            num += d * d;
            den += ref[k * C + c] * ref[k * C + c];
        }
    for (size_t i = 0; i < frames * C; i++)
        if (!isfinite(y[i]))
            fail_msg("fft ntaps=%zu: output %zu not finite", ntaps, i);
    double err = sqrt(num / den);
    if (!(err < tolerance(ntaps)))
        fail_msg("fft ntaps=%zu ch=%u fch=%u frames=%zu block=%zu chunk=%zu in_place=%d: "
                 "rel L2 %.3g",
                 ntaps, C, filters, frames, max_block, chunk, in_place, err);
    free(taps);
    free(x);
    free(y);
    free(idx);
    free(ref);
}

static void test_long_filters(void **state)
{
    (void)state;
    if (quick) {
        long_case(GFIR_KERNEL_FFT, 16384, 2, 2, 40000, 0, 0, 3000, 1);
        return;
    }
    /* 65536 taps: live-sized blocks in random chunks, in place; one big block */
    long_case(GFIR_KERNEL_FFT, 65536, 2, 2, 65536 + 50000, 0, 0, 3000, 1);
    long_case(GFIR_KERNEL_AUTO, 65536, 6, 1, 65536 + 70001, 1 << 20, 0, 1 << 18, 0);
    /* 2^21 taps (a 44-second reverb at 48 kHz): odd big chunks, then one call */
    long_case(GFIR_KERNEL_FFT, (size_t)1 << 21, 2, 2, ((size_t)1 << 21) + 300007, 1 << 20,
              99991, 0, 0);
    long_case(GFIR_KERNEL_FFT, (size_t)1 << 21, 1, 1, ((size_t)1 << 21) + 300007, 1 << 24, 0,
              1 << 20, 1);
    /* a 30-second stereo reverb at 48 kHz in live-sized calls, as AUTO plays it */
    long_case(GFIR_KERNEL_AUTO, 1440000, 2, 2, 1440000 + 60000, 0, 0, 1500, 1);
}

static void test_fft_reset_and_flush(void **state)
{
    (void)state;
    check_reset_and_flush(GFIR_BACKEND_CUDA, GFIR_KERNEL_FFT, 9000, 3000, 77);
}

/* AUTO's crossover at plan: direct below, fft from; lat 0 either way. */
static void expect_auto(const float *taps, size_t ntaps, gfir_kernel want)
{
    gfir_plan *plan;
    gfir_config cfg;
    gfir_config_init(&cfg);
    cfg.backend = GFIR_BACKEND_CUDA;
    assert_int_equal(gfir_plan_create(&plan, taps, ntaps, &cfg), GFIR_OK);
    if (gfir_plan_kernel(plan) != want)
        fail_msg("AUTO at %zu taps chose %s, expected %s", ntaps,
                 gfir_kernel_name(gfir_plan_kernel(plan)), gfir_kernel_name(want));
    assert_int_equal(gfir_plan_latency(plan), 0);
    gfir_plan_destroy(plan);
}

/* The built-in crossover without a calibration, then the one gfir-bench
 * --calibrate keeps for this device (in a scratch cache directory). */
static void test_auto_choice(void **state)
{
    (void)state;
    static float taps[384];
    uint64_t rng = 3;
    char dir[] = "/tmp/gfir-auto-XXXXXX";
    struct cudaDeviceProp prop;
    const char *old = getenv("XDG_CACHE_HOME");
    char *saved = old ? strdup(old) : NULL;
    test_fill(taps, 384, &rng);
    assert_non_null(mkdtemp(dir));
    assert_int_equal(setenv("XDG_CACHE_HOME", dir, 1), 0);
    expect_auto(taps, 190, GFIR_KERNEL_DIRECT);
    expect_auto(taps, 191, GFIR_KERNEL_FFT);
    CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
    assert_int_equal(gf_cache_store(GF_CUDA_CROSSOVER_FILE, prop.name, 200), 0);
    expect_auto(taps, 199, GFIR_KERNEL_DIRECT); /* FFT by the default */
    expect_auto(taps, 200, GFIR_KERNEL_FFT);
    assert_int_equal(gf_cache_store(GF_CUDA_CROSSOVER_FILE, "another device", 100), 0);
    expect_auto(taps, 199, GFIR_KERNEL_DIRECT);
    if (saved)
        setenv("XDG_CACHE_HOME", saved, 1);
    else
        unsetenv("XDG_CACHE_HOME");
    free(saved);
    char cmd[64];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

/* Bad arguments to the engine are refused with a reason, never run. */
static void test_engine_arguments(void **state)
{
    (void)state;
    float taps[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    gf_fft_filter *f;
    gf_fft_engine *e;
    char why[256];
    why[0] = '\0';
    assert_int_equal(gf_fft_filter_create(&f, taps, 8, 1, 48, 0, 0, why, sizeof why),
                     GFIR_ERR_ARG);
    assert_null(f);
    assert_true(strlen(why) > 0);
    assert_int_equal(gf_fft_filter_create(&f, taps, 8, 1, 4, 0, 0, why, sizeof why),
                     GFIR_ERR_ARG);
    /* partitions transform at twice their size, whatever the taps */
    assert_int_equal(gf_fft_filter_create(&f, taps, 8, 1, 16, 4, 0, why, sizeof why),
                     GFIR_ERR_ARG);
    assert_int_equal(gf_fft_filter_create(&f, taps, 8, 1, 8, 4, 0, why, sizeof why), GFIR_OK);
    gf_fft_filter_destroy(f);
    assert_int_equal(gf_fft_filter_create(&f, taps, 4, 2, 32, 0, 0, why, sizeof why), GFIR_OK);
    assert_int_equal(gf_fft_engine_create(&e, f, 3, 100, 0, 0, why, sizeof why), GFIR_ERR_ARG);
    assert_null(e);
    assert_int_equal(gf_fft_engine_create(&e, f, 2, 100, 0, 0, why, sizeof why), GFIR_OK);
    float *d_x, *d_y;
    CHECK_CUDA(cudaMalloc((void **)&d_x, 2 * 200 * sizeof(float)));
    CHECK_CUDA(cudaMalloc((void **)&d_y, 2 * 200 * sizeof(float)));
    CHECK_CUDA(cudaMemset(d_x, 0, 2 * 200 * sizeof(float)));
    /* more frames than the engine was made for; an input pitch without the halo */
    assert_int_equal(gf_fft_run(e, d_x, 200, 101, d_y, 2, 1, why, sizeof why), GFIR_ERR_ARG);
    assert_int_equal(gf_fft_run(e, d_x, 100, 100, d_y, 2, 1, why, sizeof why), GFIR_ERR_ARG);
    assert_int_equal(gf_fft_run(e, d_x, 103, 100, d_y, 2, 1, why, sizeof why), GFIR_OK);
    CHECK_CUDA(cudaDeviceSynchronize());
    gf_fft_engine_destroy(e);
    gf_fft_filter_destroy(f);
    cudaFree(d_x);
    cudaFree(d_y);
}

int main(int argc, char **argv)
{
    quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    if (!gfir_backend_available(GFIR_BACKEND_CUDA)) {
        printf("cuda_fft_test: no usable CUDA device here: skipped\n");
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_engine_arguments),   cmocka_unit_test(test_engine_every_size),
        cmocka_unit_test(test_streaming_fft),      cmocka_unit_test(test_fft_pipelined),
        cmocka_unit_test(test_long_filters),       cmocka_unit_test(test_fft_reset_and_flush),
        cmocka_unit_test(test_auto_choice),        cmocka_unit_test(test_engine_partitioned),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
