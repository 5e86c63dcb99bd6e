/*
 * fuzz_plan.c - libFuzzer target: the plan API against a double reference.
 * The input picks the shape (taps, channels, per-channel filters, CPU
 * kernel, latency budget, block size, threads) and the chunking, including
 * empty and in-place calls and a reset midway; taps and signal are random
 * from a seed the input also gives, so they are never zeros. Each chunking
 * must give the contract's samples, y[i] = sum_k h[k] x[i-k], delayed by the
 * plan's latency, to 1e-5 of the output's scale (the project's tolerance up
 * to 65536 taps; see scaled_error): a mismatch aborts, which libFuzzer
 * reports as a crash.
 */
#include "gfir.h"
#include "test_util.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TAPS 600
#define MAX_CHANNELS 4
#define MAX_FRAMES 2048
#define TOLERANCE 1e-5

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct shape {
    size_t ntaps, frames, block;
    unsigned channels, filter_channels, threads;
    gfir_kernel kernel;
    size_t latency_budget;
    uint64_t seed;
} shape;

/* ||got - want|| over ||h|| ||x||, summed over channels: for random signals
 * ||h|| ||x|| is the output's expected norm, so this is the relative L2
 * error the project's tests use; unlike ||want|| it stays a fair scale for an
 * output of a few samples, where an FFT's rounding follows the whole block's
 * norm rather than those samples'. */
static double scaled_error(const shape *s, const float *taps, const float *x, const float *got,
                           const double *want)
{
    double num = 0.0, scale = 0.0;
    for (unsigned c = 0; c < s->channels; c++) {
        const float *h = taps + (s->filter_channels == 1 ? 0 : c) * s->ntaps;
        double hh = 0.0, xx = 0.0;
        for (size_t k = 0; k < s->ntaps; k++)
            hh += (double)h[k] * h[k];
        for (size_t i = 0; i < s->frames; i++) {
            const size_t at = i * s->channels + c;
            const double d = (double)got[at] - want[at];
            xx += (double)x[at] * x[at];
            num += d * d;
        }
        scale += hh * xx;
    }
    return sqrt(num / scale);
}

static void check(const shape *s, const float *taps, const float *x, const float *got,
                  const double *want, const char *what)
{
    const double err = scaled_error(s, taps, x, got, want);
    if (!(err <= TOLERANCE)) {
        fprintf(stderr, "fuzz_plan: %s: %zu taps x %u filter channels, %u channels, %zu frames, "
                "kernel %s, block %zu, latency budget %zu, threads %u: error %.3g\n", what,
                s->ntaps, s->filter_channels, s->channels, s->frames,
                gfir_kernel_name(s->kernel), s->block, s->latency_budget, s->threads, err);
        abort();
    }
}

/* Feeds x (frames x channels) in the chunks the input gives, then flushes
 * the latency; returns the output with the latency dropped, in out. */
static void run(gfir_plan *plan, const shape *s, const float *x, float *out, float *scratch,
                const uint8_t **cut, const uint8_t *end)
{
    const size_t ch = s->channels, latency = gfir_plan_latency(plan);
    size_t done = 0, have = 0;
    while (done < s->frames) {
        size_t n = *cut + 1 < end ? (size_t)((*cut)[0] | (*cut)[1] << 8) % 1100 : 777;
        int in_place = *cut < end && ((*cut)[0] & 0x80);
        *cut += *cut + 1 < end ? 2 : 0;
        if (n > s->frames - done)
            n = s->frames - done;
        memcpy(scratch, x + done * ch, n * ch * sizeof *x);
        if (gfir_plan_execute(plan, in_place ? scratch : x + done * ch, scratch, n) != GFIR_OK)
            abort();
        for (size_t i = 0; i < n; i++, have++)
            if (have >= latency)
                memcpy(out + (have - latency) * ch, scratch + i * ch, ch * sizeof *out);
        done += n;
    }
    for (size_t left = latency; left > 0;) {
        size_t n = left < MAX_FRAMES ? left : MAX_FRAMES;
        if (gfir_plan_flush(plan, scratch, n) != GFIR_OK)
            abort();
        for (size_t i = 0; i < n; i++, have++)
            if (have >= latency && have - latency < s->frames)
                memcpy(out + (have - latency) * ch, scratch + i * ch, ch * sizeof *out);
        left -= n;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const gfir_kernel kernels[] = {GFIR_KERNEL_AUTO, GFIR_KERNEL_GOLD,
                                          GFIR_KERNEL_DIRECT, GFIR_KERNEL_FFT};
    const uint8_t *cut = data + 12, *end = data + size;
    gfir_config cfg;
    gfir_plan *plan;
    shape s;
    float *taps, *x, *out, *scratch;
    double *want;

    if (size < 12)
        return 0;
    s.ntaps = 1 + (size_t)(data[0] | data[1] << 8) % MAX_TAPS;
    s.channels = 1 + data[2] % MAX_CHANNELS;
    s.filter_channels = (data[2] & 0x80) ? s.channels : 1;
    s.kernel = kernels[data[3] % 4];
    s.latency_budget = (data[3] & 0x10) ? GFIR_LATENCY_ANY : 0;
    s.threads = 1 + ((data[3] >> 5) & 1);
    s.block = (size_t)(data[4] | data[5] << 8) % 5000; /* 0: the default */
    s.frames = 1 + (size_t)(data[6] | data[7] << 8) % MAX_FRAMES;
    memcpy(&s.seed, data + 8, 4);
    s.seed = s.seed * 0x9E3779B97F4A7C15ULL + 1;

    taps = malloc(s.ntaps * s.filter_channels * sizeof *taps);
    x = malloc(s.frames * s.channels * sizeof *x);
    out = calloc(s.frames * s.channels, sizeof *out);
    scratch = malloc(MAX_FRAMES * s.channels * sizeof *scratch);
    want = malloc(s.frames * s.channels * sizeof *want);
    if (!taps || !x || !out || !scratch || !want)
        abort();
    test_fill(taps, s.ntaps * s.filter_channels, &s.seed);
    test_fill(x, s.frames * s.channels, &s.seed);
    test_reference(x, s.frames, s.channels, taps, s.ntaps, s.filter_channels, want);

    gfir_config_init(&cfg);
    cfg.channels = s.channels;
    cfg.filter_channels = s.filter_channels;
    cfg.backend = GFIR_BACKEND_CPU;
    cfg.kernel = s.kernel;
    cfg.max_block_frames = s.block;
    cfg.threads = s.threads;
    cfg.max_latency_frames = s.latency_budget;
    if (gfir_plan_create(&plan, taps, s.ntaps, &cfg) == GFIR_OK) {
        run(plan, &s, x, out, scratch, &cut, end);
        check(&s, taps, x, out, want, "one pass");
        /* after a reset the plan is as new */
        if (gfir_plan_reset(plan) != GFIR_OK)
            abort();
        memset(out, 0, s.frames * s.channels * sizeof *out);
        run(plan, &s, x, out, scratch, &cut, end);
        check(&s, taps, x, out, want, "after reset");
        gfir_plan_destroy(plan);
    } else if (s.kernel != GFIR_KERNEL_FFT || s.latency_budget != 0) {
        /* only an FFT kernel held to no latency may refuse (it has no such form) */
        fprintf(stderr, "fuzz_plan: create failed: %s\n", gfir_plan_error_detail(NULL));
        abort();
    }
    free(taps);
    free(x);
    free(out);
    free(scratch);
    free(want);
    return 0;
}
