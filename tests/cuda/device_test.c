/*
 * device_test.c - the plan API on device memory (gfir.h, "Device memory")
 * against the float64 reference: planar rows with a pitch, interleaved
 * frames, one layout in and the other out; calls shorter and longer than
 * the filter and than a block; device and host calls mixed on one plan;
 * flush; new taps from the device, per-row filters of a batch; the
 * delay-line engine; everything on a stream of the test's own, with no
 * synchronisation but the stream's at the end. Exits 77 (skipped) without
 * a usable CUDA device.
 *
 * Tolerance: relative L2 1e-5, as the streaming tests (stream_check.h). The
 * float64 reference is computed at every frame where that costs up to 2e8
 * multiply-adds, else at every k-th frame with k below ntaps, plus the
 * first and last frames: a wrong halo spoils ntaps - 1 outputs after it,
 * so no history error falls between the frames checked.
 */
#include "gfir.h"

#include <cuda_runtime_api.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_util.h"

#define TOLERANCE 1e-5
#define CHECK_CUDA(call) assert_int_equal((call), cudaSuccess)

enum layout { PLANAR, INTERLEAVED, PLANAR_IN, PLANAR_OUT };
static const char *const layout_names[] = {"planar", "interleaved", "planar-in", "planar-out"};

typedef struct dev_case {
    gfir_kernel kernel;
    size_t ntaps;
    unsigned channels, filter_channels;
    size_t block;           /* max_block_frames */
    size_t frames;          /* the signal; then ntaps - 1 frames are flushed */
    enum layout layout;
    size_t chunk;           /* frames per call, 0 for one call */
    int mix_host;           /* every third call through gfir_plan_execute() */
    int new_taps;           /* made with other taps, used once, then given these */
    int legacy_stream;      /* the legacy default stream rather than one of ours */
} dev_case;

/* Where sample (i, c) of a strided buffer lies. */
typedef struct strides {
    size_t stride, dist;
} strides;

static strides layout_of(int planar, size_t pitch, unsigned channels)
{
    strides s = {planar ? 1 : channels, planar ? pitch : 1};
    return s;
}

#define REFERENCE_MACS 2e8
#define ENDS 512

/* The frames checked: all, or every step-th and the ends. */
static size_t check_step(size_t total, unsigned channels, size_t ntaps)
{
    const double macs = (double)total * channels * ntaps;
    size_t step = macs <= REFERENCE_MACS ? 1 : (size_t)ceil(macs / REFERENCE_MACS);
    return step < ntaps ? step : ntaps > 1 ? ntaps - 1 : 1;
}

static int checked(size_t i, size_t total, size_t step)
{
    return i % step == 0 || i < ENDS || i + ENDS >= total;
}

/* test_reference at one frame, every channel: y[c] = sum_k h_c[k] x[i - k][c]. */
static void reference_at(const float *x, unsigned channels, const float *taps, size_t ntaps,
                         unsigned filter_channels, size_t i, double *y)
{
    for (unsigned c = 0; c < channels; c++)
        y[c] = test_reference_at(x, channels, taps, ntaps, filter_channels, c, i);
}

static void *pinned(size_t bytes)
{
    void *p = NULL;
    CHECK_CUDA(cudaMallocHost(&p, bytes));
    return p;
}

static double run_case(const dev_case *tc)
{
    uint64_t rng = 0xD1CEULL + tc->ntaps * 7919 + tc->channels * 131 + tc->layout * 17 +
                   tc->chunk + (unsigned)tc->kernel;
    const unsigned ch = tc->channels;
    const size_t ntaps = tc->ntaps, frames = tc->frames, total = frames + ntaps - 1;
    const size_t set_len = ntaps * tc->filter_channels;
    const int planar_in = tc->layout == PLANAR || tc->layout == PLANAR_IN;
    const int planar_out = tc->layout == PLANAR || tc->layout == PLANAR_OUT;
    /* odd pitches, so rows never line up with anything by chance */
    const strides in = layout_of(planar_in, frames + 5, ch);
    const strides out = layout_of(planar_out, total + 3, ch);
    const size_t in_len = planar_in ? ch * (frames + 5) : frames * ch;
    const size_t out_len = planar_out ? ch * (total + 3) : total * ch;

    float *taps = malloc(set_len * sizeof *taps), *other = malloc(set_len * sizeof *other);
    float *x = calloc(total * ch, sizeof *x);      /* interleaved, zeros after the signal */
    float *y = malloc(total * ch * sizeof *y);     /* interleaved result */
    float *y_host = malloc(total * ch * sizeof *y_host);
    char *by_host = calloc(total, 1);
    double *ref = malloc(total * ch * sizeof *ref);
    float *h_in = pinned(in_len * sizeof(float)), *h_out = pinned(out_len * sizeof(float));
    float *d_in, *d_out, *d_taps;
    assert_true(taps && other && x && y && y_host && by_host && ref);
    test_fill(taps, set_len, &rng);
    test_fill(other, set_len, &rng);
    test_fill(x, frames * ch, &rng);
    const size_t step = check_step(total, ch, ntaps);
    for (size_t i = 0; i < total; i++)
        if (checked(i, total, step))
            reference_at(x, ch, taps, ntaps, tc->filter_channels, i, ref + i * ch);
    for (size_t i = 0; i < frames; i++)
        for (unsigned c = 0; c < ch; c++)
            h_in[i * in.stride + c * in.dist] = x[i * ch + c];

    cudaStream_t stream = NULL;
    if (!tc->legacy_stream)
        CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    CHECK_CUDA(cudaMalloc((void **)&d_in, in_len * sizeof(float)));
    CHECK_CUDA(cudaMalloc((void **)&d_out, out_len * sizeof(float)));
    CHECK_CUDA(cudaMalloc((void **)&d_taps, set_len * sizeof(float)));
    /* all of it queued, nothing waited for: the plan must order itself */
    CHECK_CUDA(cudaMemcpyAsync(d_in, h_in, in_len * sizeof(float), cudaMemcpyHostToDevice,
                               stream));
    CHECK_CUDA(cudaMemsetAsync(d_out, 0xff, out_len * sizeof(float), stream)); /* NaN */
    CHECK_CUDA(cudaMemcpyAsync(d_taps, taps, set_len * sizeof(float), cudaMemcpyHostToDevice,
                               stream));

    gfir_plan *plan;
    gfir_config cfg;
    gfir_config_init(&cfg);
    cfg.channels = ch;
    cfg.filter_channels = tc->filter_channels;
    cfg.backend = GFIR_BACKEND_CUDA;
    cfg.kernel = tc->kernel;
    cfg.max_block_frames = tc->block;
    assert_int_equal(gfir_plan_create(&plan, tc->new_taps ? other : taps, ntaps, &cfg), GFIR_OK);
    if (tc->new_taps) {
        /* a first signal through the old taps, which the new ones must forget */
        assert_int_equal(gfir_plan_execute_device(plan, d_in, in.stride, in.dist, d_out,
                                                  out.stride, out.dist, frames, stream),
                         GFIR_OK);
        assert_int_equal(gfir_plan_set_taps_device(plan, d_taps, stream), GFIR_OK);
    }

    size_t call = 0;
    for (size_t done = 0, n; done < frames; done += n, call++) {
        n = tc->chunk && tc->chunk < frames - done ? tc->chunk : frames - done;
        if (tc->mix_host && call % 3 == 2) {
            assert_int_equal(gfir_plan_execute(plan, x + done * ch, y_host + done * ch, n),
                             GFIR_OK);
            memset(by_host + done, 1, n);
            continue;
        }
        gfir_status st = gfir_plan_execute_device(plan, d_in + done * in.stride, in.stride,
                                                  in.dist, d_out + done * out.stride,
                                                  out.stride, out.dist, n, stream);
        if (st != GFIR_OK)
            fail_msg("execute_device: %s", gfir_plan_error_detail(plan));
    }
    assert_int_equal(gfir_plan_flush_device(plan, d_out + frames * out.stride, out.stride,
                                            out.dist, ntaps - 1, stream),
                     GFIR_OK);
    CHECK_CUDA(cudaMemcpyAsync(h_out, d_out, out_len * sizeof(float), cudaMemcpyDeviceToHost,
                               stream));
    CHECK_CUDA(cudaStreamSynchronize(stream));
    gfir_plan_destroy(plan);

    size_t kept = 0; /* the checked frames, packed at the front of y and ref */
    for (size_t i = 0; i < total; i++) {
        if (!checked(i, total, step))
            continue;
        for (unsigned c = 0; c < ch; c++) {
            y[kept * ch + c] =
                by_host[i] ? y_host[i * ch + c] : h_out[i * out.stride + c * out.dist];
            ref[kept * ch + c] = ref[i * ch + c];
        }
        kept++;
    }
    const double err = test_rel_l2(y, ref, kept * ch);

    if (stream)
        cudaStreamDestroy(stream);
    cudaFree(d_in);
    cudaFree(d_out);
    cudaFree(d_taps);
    cudaFreeHost(h_in);
    cudaFreeHost(h_out);
    free(taps);
    free(other);
    free(x);
    free(y);
    free(y_host);
    free(by_host);
    free(ref);
    return err;
}

static void check(const dev_case *tc)
{
    const double err = run_case(tc);
    if (!(err < TOLERANCE))
        fail_msg("%s ntaps=%zu ch=%u fch=%u block=%zu frames=%zu %s chunk=%zu host=%d "
                 "new_taps=%d legacy=%d: rel L2 %.3g",
                 gfir_kernel_name(tc->kernel), tc->ntaps, tc->channels, tc->filter_channels,
                 tc->block, tc->frames, layout_names[tc->layout], tc->chunk, tc->mix_host,
                 tc->new_taps, tc->legacy_stream, err);
}

/* Every layout, one call and several (shorter than the filter too), with
 * host calls mixed in, for the direct and FFT kernels. */
static void test_layouts(void **state)
{
    (void)state;
    static const struct {
        gfir_kernel kernel;
        size_t ntaps;
        unsigned ch, fch;
        size_t block, frames, chunks[3];
    } shapes[] = {
        {GFIR_KERNEL_DIRECT, 33, 2, 2, 4096, 10007, {0, 1000, 7}},
        {GFIR_KERNEL_DIRECT, 1, 2, 1, 4096, 5003, {0, 999, 1}},
        {GFIR_KERNEL_BASIC, 17, 1, 1, 4096, 6007, {0, 1001, 5}},
        {GFIR_KERNEL_FFT, 255, 3, 1, 8192, 30011, {0, 3001, 100}},
        {GFIR_KERNEL_FFT, 1023, 2, 2, 16384, 20011, {0, 5003, 700}},
    };
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (int layout = PLANAR; layout <= PLANAR_OUT; layout++)
            for (int k = 0; k < 3; k++) {
                const dev_case tc = {shapes[s].kernel, shapes[s].ntaps, shapes[s].ch,
                                     shapes[s].fch,    shapes[s].block, shapes[s].frames,
                                     (enum layout)layout, shapes[s].chunks[k], k == 1, 0, 0};
                check(&tc);
            }
}

/* Long filters: four-step smfft behind pipelined lanes (blocks above the
 * sub-block), and partitioned cuFFT. */
static void test_long_filters(void **state)
{
    (void)state;
    const dev_case cases[] = {
        {GFIR_KERNEL_FFT, 1023, 2, 1, (size_t)1 << 17, 300007, PLANAR, 0, 0, 0, 0},
        {GFIR_KERNEL_FFT, 4097, 2, 1, (size_t)1 << 17, 300007, PLANAR, 0, 0, 0, 0},
        {GFIR_KERNEL_FFT, 4097, 2, 1, (size_t)1 << 17, 300007, PLANAR, 100003, 1, 0, 0},
        {GFIR_KERNEL_FFT, 4097, 2, 2, (size_t)1 << 17, 300007, INTERLEAVED, 0, 0, 0, 0},
        {GFIR_KERNEL_FFT, 40000, 1, 1, 65536, 100003, PLANAR, 0, 0, 0, 0},
        {GFIR_KERNEL_FFT, 40000, 2, 2, 65536, 100003, PLANAR_OUT, 30011, 0, 0, 0},
        {GFIR_KERNEL_DIRECT, 3000, 2, 2, (size_t)1 << 17, 200003, PLANAR, 0, 0, 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check(&cases[i]);
}

/* Calls of up to 2048 frames with a long filter: the delay-line engine. */
static void test_delay_line(void **state)
{
    (void)state;
    const dev_case cases[] = {
        {GFIR_KERNEL_FFT, 5000, 2, 2, 256, 5003, PLANAR, 256, 0, 0, 0},
        {GFIR_KERNEL_FFT, 5000, 2, 1, 256, 5003, INTERLEAVED, 100, 1, 0, 0},
        {GFIR_KERNEL_FFT, 5000, 1, 1, 512, 3001, PLANAR_IN, 0, 0, 1, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check(&cases[i]);
}

/* New taps from the device: the batch shape (one filter per row, planar),
 * each kind of engine, and the legacy default stream. */
static void test_new_taps(void **state)
{
    (void)state;
    const dev_case cases[] = {
        {GFIR_KERNEL_FFT, 801, 16, 16, 8000, 8000, PLANAR, 0, 0, 1, 0},
        {GFIR_KERNEL_FFT, 8000, 8, 8, 64000, 64000, PLANAR, 0, 0, 1, 0},
        {GFIR_KERNEL_FFT, 40000, 2, 2, 65536, 70001, PLANAR, 0, 0, 1, 0},
        {GFIR_KERNEL_DIRECT, 63, 4, 4, 4096, 9001, PLANAR, 0, 0, 1, 0},
        {GFIR_KERNEL_CONSTANT, 31, 2, 2, 4096, 5001, INTERLEAVED, 1000, 1, 1, 0},
        {GFIR_KERNEL_FFT, 255, 2, 2, 4096, 9001, PLANAR, 3000, 0, 1, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check(&cases[i]);
}

/* A window of the full convolution of a whole signal (gfir_plan_convolve_device):
 * kernel, taps, channels, the plan's block, the signal's frames, the
 * window, the layout; the history is clear after, and was not read. */
typedef struct window_case {
    gfir_kernel kernel;
    size_t ntaps;
    unsigned channels, filter_channels;
    size_t block, frames, start, length;
    enum layout layout;
} window_case;

static void check_window(const window_case *wc)
{
    uint64_t rng = 0x5EEDULL + wc->ntaps * 31 + wc->frames + wc->start * 7 + wc->layout;
    const unsigned ch = wc->channels;
    const size_t ntaps = wc->ntaps, frames = wc->frames, length = wc->length;
    const size_t set_len = ntaps * wc->filter_channels;
    const int planar_in = wc->layout == PLANAR || wc->layout == PLANAR_IN;
    const int planar_out = wc->layout == PLANAR || wc->layout == PLANAR_OUT;
    const strides in = layout_of(planar_in, frames + 5, ch);
    const strides out = layout_of(planar_out, length + 3, ch);
    const size_t in_len = planar_in ? ch * (frames + 5) : frames * ch;
    const size_t out_len = planar_out ? ch * (length + 3) : length * ch;
    /* the signal with zeros to the window's end, for the reference */
    const size_t span = wc->start + length > frames ? wc->start + length : frames;
    float *taps = malloc(set_len * sizeof *taps), *x = calloc(span * ch, sizeof *x);
    float *h_in = pinned(in_len * sizeof(float)), *h_out = pinned(out_len * sizeof(float));
    float *y = malloc(length * ch * sizeof *y);
    double *ref = malloc(length * ch * sizeof *ref);
    float *d_in, *d_out;
    assert_true(taps && x && y && ref);
    test_fill(taps, set_len, &rng);
    test_fill(x, frames * ch, &rng);
    for (size_t i = 0; i < frames; i++)
        for (unsigned c = 0; c < ch; c++)
            h_in[i * in.stride + c * in.dist] = x[i * ch + c];
    const size_t step = check_step(length, ch, ntaps);
    for (size_t i = 0; i < length; i++)
        if (checked(i, length, step))
            reference_at(x, ch, taps, ntaps, wc->filter_channels, wc->start + i, ref + i * ch);

    cudaStream_t stream;
    CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    CHECK_CUDA(cudaMalloc((void **)&d_in, in_len * sizeof(float)));
    CHECK_CUDA(cudaMalloc((void **)&d_out, out_len * sizeof(float)));
    CHECK_CUDA(cudaMemcpyAsync(d_in, h_in, in_len * sizeof(float), cudaMemcpyHostToDevice,
                               stream));
    CHECK_CUDA(cudaMemsetAsync(d_out, 0xff, out_len * sizeof(float), stream));
    gfir_plan *plan;
    gfir_config cfg;
    gfir_config_init(&cfg);
    cfg.channels = ch;
    cfg.filter_channels = wc->filter_channels;
    cfg.backend = GFIR_BACKEND_CUDA;
    cfg.kernel = wc->kernel;
    cfg.max_block_frames = wc->block;
    assert_int_equal(gfir_plan_create(&plan, taps, ntaps, &cfg), GFIR_OK);
    /* three times, each followed by an impulse through the streaming path,
     * which must find the history clear: straight after create (what the
     * whole signal staged itself must be cleared), after a streaming call
     * (whose history the whole signal must neither read nor keep), and
     * after the host call of that impulse; the backend skips the clearing
     * only when nothing was staged since the last. The last round's output
     * is checked below. */
    for (int round = 0; round < 3; round++) {
        if (round == 1)
            assert_int_equal(gfir_plan_execute_device(plan, d_in, in.stride, in.dist, d_out,
                                                      out.stride, out.dist,
                                                      frames < length ? frames : length, stream),
                             GFIR_OK);
        const gfir_status st = gfir_plan_convolve_device(plan, d_in, in.stride, in.dist, frames,
                                                         d_out, out.stride, out.dist, wc->start,
                                                         length, stream);
        if (st != GFIR_OK)
            fail_msg("convolve_device: %s", gfir_plan_error_detail(plan));
        CHECK_CUDA(cudaMemcpyAsync(h_out, d_out, out_len * sizeof(float), cudaMemcpyDeviceToHost,
                                   stream));
        CHECK_CUDA(cudaStreamSynchronize(stream));
        /* and after it the history is clear: an impulse gives the taps */
        float impulse[8 * 256] = {0}, first[8 * 256];
        for (unsigned c = 0; c < ch; c++)
            impulse[c] = 1.0f;
        assert_int_equal(gfir_plan_execute(plan, impulse, first, 8), GFIR_OK);
        for (size_t i = 0; i < 8 && i < ntaps; i++)
            for (unsigned c = 0; c < ch; c++)
                assert_true(fabsf(first[i * ch + c] -
                                  taps[(wc->filter_channels == 1 ? 0 : c) * ntaps + i]) < 1e-6f);
    }
    gfir_plan_destroy(plan);

    size_t kept = 0;
    for (size_t i = 0; i < length; i++) {
        if (!checked(i, length, step))
            continue;
        for (unsigned c = 0; c < ch; c++) {
            y[kept * ch + c] = h_out[i * out.stride + c * out.dist];
            ref[kept * ch + c] = ref[i * ch + c];
        }
        kept++;
    }
    /* a window wholly past the signal's convolution is zeros: exactly from
     * the direct kernels (sums of zeros); from an FFT, whose transforms
     * there still hold some of the signal, rounding noise, held to the
     * tolerance of the outputs' scale (about sqrt(ntaps) / 3 for these
     * uniform signals and taps) */
    double norm = 0.0;
    for (size_t i = 0; i < kept * ch; i++)
        norm += ref[i] * ref[i];
    const double err = norm > 0.0 ? test_rel_l2(y, ref, kept * ch) : 0.0;
    const double zero = wc->kernel == GFIR_KERNEL_FFT ? TOLERANCE * sqrt((double)ntaps) : 0.0;
    for (size_t i = 0; norm == 0.0 && i < kept * ch; i++)
        if (!(fabs(y[i]) <= zero))
            fail_msg("window %s ntaps=%zu ch=%u start=%zu length=%zu past the signal: output %zu "
                     "is %.3g, not zero", gfir_kernel_name(wc->kernel), ntaps, ch, wc->start,
                     length, i / ch, (double)y[i]);
    if (!(err < TOLERANCE))
        fail_msg("window %s ntaps=%zu ch=%u fch=%u block=%zu frames=%zu start=%zu length=%zu "
                 "%s: rel L2 %.3g",
                 gfir_kernel_name(wc->kernel), ntaps, ch, wc->filter_channels, wc->block, frames,
                 wc->start, length, layout_names[wc->layout], err);
    cudaStreamDestroy(stream);
    cudaFree(d_in);
    cudaFree(d_out);
    cudaFreeHost(h_in);
    cudaFreeHost(h_out);
    free(taps);
    free(x);
    free(y);
    free(ref);
}

/* The modes' windows (full, same, valid) and odd ones, for every engine:
 * smfft one-pass and four-step, partitioned cuFFT, direct kernels (in place
 * and staged), the delay-line engine; signals shorter than the filter;
 * windows longer than a block; strided input and interleaved output. */
static void test_whole_signals(void **state)
{
    (void)state;
    static const struct {
        gfir_kernel kernel;
        size_t ntaps;
        unsigned ch, fch;
        size_t block, frames;
    } shapes[] = {
        {GFIR_KERNEL_FFT, 255, 2, 1, 32768, 30011},
        {GFIR_KERNEL_FFT, 9001, 3, 3, (size_t)1 << 17, 150001},  /* four-step */
        {GFIR_KERNEL_FFT, 8000, 6, 6, (size_t)1 << 17, 30011},   /* one-pass at 2^14: a batch */
        {GFIR_KERNEL_FFT, 40000, 2, 2, 65536, 100003},
        {GFIR_KERNEL_FFT, 1023, 2, 2, 4096, 20011},   /* windows over several runs */
        {GFIR_KERNEL_DIRECT, 63, 4, 4, 8192, 10007},
        {GFIR_KERNEL_DIRECT, 63, 1, 1, 4096, 9001},
        {GFIR_KERNEL_DIRECT, 3000, 2, 1, 8192, 1001}, /* taps in segments; short signal */
        {GFIR_KERNEL_CACHED, 200, 2, 1, 4096, 5003},
        {GFIR_KERNEL_FFT, 5000, 2, 2, 512, 7001},    /* the delay-line engine */
        {GFIR_KERNEL_FFT, 3000, 2, 1, 8192, 1001},   /* a signal shorter than the filter */
    };
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        const size_t t = shapes[s].frames, m = shapes[s].ntaps;
        const size_t windows[][2] = {
            {0, t + m - 1},                              /* full */
            {(m - 1) / 2, t},                            /* same */
            {(t < m ? t : m) - 1, (t > m ? t - m : m - t) + 1}, /* valid */
            {t / 3, t / 2 + 17},                         /* inside */
            {t + m / 2, 100},                            /* partly past the end */
            {t + m + 5, 50},                             /* wholly past it: zeros */
        };
        for (size_t w = 0; w < sizeof windows / sizeof windows[0]; w++)
            for (int layout = PLANAR; layout <= PLANAR_OUT; layout += w == 0 ? 1 : 3) {
                const window_case wc = {shapes[s].kernel, m, shapes[s].ch, shapes[s].fch,
                                        shapes[s].block, t, windows[w][0], windows[w][1],
                                        (enum layout)layout};
                check_window(&wc);
            }
    }
}

static gfir_plan *small_plan(gfir_backend backend, unsigned channels)
{
    const float taps[5] = {0.5f, -0.25f, 0.125f, 0.0625f, 1.0f};
    gfir_plan *plan;
    gfir_config cfg;
    gfir_config_init(&cfg);
    cfg.channels = channels;
    cfg.backend = backend;
    assert_int_equal(gfir_plan_create(&plan, taps, 5, &cfg), GFIR_OK);
    return plan;
}

/* Refusals: buffers that overlap or collide, and plans that cannot take
 * device memory; nothing is queued for them. */
static void test_refusals(void **state)
{
    (void)state;
    float *d;
    CHECK_CUDA(cudaMalloc((void **)&d, 4096 * sizeof(float)));
    gfir_plan *plan = small_plan(GFIR_BACKEND_CUDA, 2);
    /* in place */
    assert_int_equal(gfir_plan_execute_device(plan, d, 2, 1, d, 2, 1, 100, NULL), GFIR_ERR_ARG);
    assert_non_null(strstr(gfir_plan_error_detail(plan), "overlap"));
    /* output rows on top of each other */
    assert_int_equal(gfir_plan_execute_device(plan, d, 1, 100, d + 200, 1, 50, 100, NULL),
                     GFIR_ERR_ARG);
    assert_int_equal(gfir_plan_execute_device(plan, d, 1, 100, d + 200, 1, 0, 100, NULL),
                     GFIR_ERR_ARG);
    assert_int_equal(gfir_plan_flush_device(plan, d, 0, 1, 3, NULL), GFIR_ERR_ARG);
    assert_int_equal(gfir_plan_execute_device(plan, NULL, 1, 100, d, 1, 100, 10, NULL),
                     GFIR_ERR_NULL);
    assert_int_equal(gfir_plan_set_taps_device(plan, NULL, NULL), GFIR_ERR_NULL);
    assert_int_equal(gfir_plan_convolve_device(plan, d, 1, 100, 100, d + 50, 1, 200, 0, 104,
                                               NULL),
                     GFIR_ERR_ARG);
    assert_int_equal(gfir_plan_convolve_device(plan, d, 1, 100, 100, d + 200, 1, 100, 0, 104,
                                               NULL),
                     GFIR_ERR_ARG);
    /* and the plan still works */
    assert_int_equal(gfir_plan_execute_device(plan, d, 1, 100, d + 200, 1, 100, 100, NULL),
                     GFIR_OK);
    CHECK_CUDA(cudaDeviceSynchronize());
    gfir_plan_destroy(plan);

    plan = small_plan(GFIR_BACKEND_CPU, 1);
    assert_int_equal(gfir_plan_execute_device(plan, d, 1, 0, d + 200, 1, 0, 100, NULL),
                     GFIR_ERR_UNAVAILABLE);
    assert_int_equal(gfir_plan_set_taps_device(plan, d, NULL), GFIR_ERR_UNAVAILABLE);
    gfir_plan_destroy(plan);

    const float taps[3] = {1.0f, 0.5f, 0.25f};
    const gfir_path paths[2] = {{0, 0, 0, 1.0f}, {0, 1, 0, 0.5f}};
    gfir_config cfg;
    gfir_config_init(&cfg);
    cfg.backend = GFIR_BACKEND_CUDA;
    cfg.out_channels = 2;
    cfg.paths = paths;
    cfg.npaths = 2;
    assert_int_equal(gfir_plan_create(&plan, taps, 3, &cfg), GFIR_OK);
    assert_int_equal(gfir_plan_execute_device(plan, d, 1, 0, d + 200, 1, 1000, 100, NULL),
                     GFIR_ERR_UNSUPPORTED);
    gfir_plan_destroy(plan);
    cudaFree(d);
}

/* device_test [TEST]: every test, or the one named (a sanitizer's run of
 * one kernel's launches, say). */
int main(int argc, char **argv)
{
    if (!gfir_backend_available(GFIR_BACKEND_CUDA)) {
        printf("device_test: no usable CUDA device here: skipped\n");
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layouts),   cmocka_unit_test(test_long_filters),
        cmocka_unit_test(test_delay_line), cmocka_unit_test(test_new_taps),
        cmocka_unit_test(test_whole_signals), cmocka_unit_test(test_refusals),
    };
    if (argc > 1)
        cmocka_set_test_filter(argv[1]);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
