/*
 * convolver_test.c - gfir convolver in a liblilv host (host.h): an IR set by
 * patch:Set on the control port and loaded on the worker, random block sizes
 * from 1 to 4096 frames, the IR changed mid-stream (a filter that fits the
 * running plan: the library's crossfade with the new filter's whole history;
 * one that does not: a new plan primed with the recent input, crossfaded with
 * the same weights and also as if it had always run, runner.h), a file that fails (the old IR stays, the reason comes on
 * notify), then the state saved and restored into a fresh instance. Every
 * output against the convolution in float64, with wet, dry and output gain:
 * relative L2 error under 1e-5 (float taps and sums over up to 2000 taps
 * stay near 1e-7; a wrong frame of a handover or a wrong weight is far above).
 */
#include "host.h"
#include "ir_file.h"
#include "test_util.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#define RATE 48000.0
#define FADE 2400 /* gl_fade_frames at 48 kHz: 50 ms */
#define TOLERANCE 1e-5

typedef struct ir_file {
    char path[256];
    unsigned channels;
    size_t ntaps;
    float *taps;        /* planar, as the plugin runs them (after trim) */
} ir_file;

/* One filter in force from frame start, its history from frame since. */
typedef struct epoch {
    const ir_file *ir;
    size_t start, since;
    double scale;
} epoch;

static void write_ir(ir_file *f, const char *dir, const char *name, unsigned channels,
                     size_t ntaps, size_t lead_zeros, uint64_t *rng)
{
    snprintf(f->path, sizeof f->path, "%s/%s", dir, name);
    f->channels = channels;
    f->ntaps = ntaps;
    assert_non_null(f->taps = malloc(ntaps * channels * sizeof *f->taps));
    test_fill(f->taps, ntaps * channels, rng);
    assert_int_equal(ir_file_write(f->path, RATE, f->taps, channels, ntaps, lead_zeros), 0);
}

/* y of output o at frame i under epoch e: the plugin's layouts (ir.h). */
static double convolve(const epoch *e, const float *const *x, unsigned inputs, unsigned o,
                       size_t i)
{
    const ir_file *f = e->ir;
    double y = 0;
    for (unsigned p = 0; p < 4; p++) {
        unsigned in, set;
        if (f->channels == 4) {
            in = p / 2, set = p;
            if (p % 2 != o)
                continue;
        } else if (p == 0) {
            in = inputs == 1 ? 0 : o;
            set = f->channels == 1 ? 0 : o;
        } else {
            continue;
        }
        const float *h = f->taps + (size_t)set * f->ntaps;
        for (size_t k = 0; k < f->ntaps && k <= i - e->since && k <= i; k++)
            y += (double)h[k] * x[in][i - k];
    }
    return y * e->scale;
}

/* The crossfade's incoming weight at frame k of the fade (runner.h). */
static double fade_weight(size_t k)
{
    return k >= FADE ? 1 : 0.5 - 0.5 * cos(M_PI * ((double)k + 0.5) / FADE);
}

/* The whole expected output: epochs in order, each fading from the one before. */
static double expected(const epoch *ep, size_t nep, const float *const *x, unsigned inputs,
                       unsigned o, size_t i)
{
    size_t e = nep;
    while (e > 0 && ep[e - 1].start > i)
        e--;
    if (e == 0)
        return 0;
    e--;
    const double now = convolve(&ep[e], x, inputs, o, i);
    if (e == 0 || i - ep[e].start >= FADE)
        return now;
    const double w = fade_weight(i - ep[e].start);
    return (1 - w) * convolve(&ep[e - 1], x, inputs, o, i) + w * now;
}

/* Where the fade from epoch a to b begins, found from the output: the CPU's
 * zero-latency engine begins it once the new filter's blocks are the ones
 * read, up to twice its longest partition and a block of its head (at most
 * 135168 frames) after the swap (gfir.h, gfir_plan_swap), so the swap's
 * frame alone does not say.
 * The incoming weight w (what y is of the way from the old output to the
 * new, both channels) rises from 0 to 1 across the fade: the frame where it
 * crosses one half, found by bisection, and the fade's shape around it give
 * the start. Checked by the caller against every sample it draws. */
static double weight_at(const epoch *a, const epoch *b, const float *const *x,
                        float *const *y, size_t i)
{
    double num = 0, den = 0;
    for (size_t j = i; j < i + 8; j++)
        for (unsigned o = 0; o < 2; o++) {
            const double old = convolve(a, x, 2, o, j), d = convolve(b, x, 2, o, j) - old;
            num += (y[o][j] - old) * d;
            den += d * d;
        }
    return num / den;
}

static size_t fade_start(const epoch *a, const epoch *b, const float *const *x,
                         float *const *y, size_t swapped, size_t frames)
{
    size_t lo = swapped, hi = swapped + 2 * 65536 + FADE, best = swapped;
    double best_err = INFINITY;
    hi = hi < frames - 8 ? hi : frames - 8;
    while (hi - lo > 1) {
        const size_t mid = lo + (hi - lo) / 2;
        if (weight_at(a, b, x, y, mid) < 0.5)
            lo = mid;
        else
            hi = mid;
    }
    /* w crosses 1/2 at k = FADE / 2 - 1/2: the start is near hi - FADE / 2 */
    for (size_t s = hi - FADE / 2 - 64; s <= hi - FADE / 2 + 64; s++) {
        double err = 0;
        for (size_t j = hi - 256; j < hi + 256; j += 32) {
            double w = 0; /* weight_at's frames, each weighted as it is */
            for (size_t k = j; k < j + 8; k++)
                w += fade_weight(k - s) / 8;
            err += (weight_at(a, b, x, y, j) - w) * (weight_at(a, b, x, y, j) - w);
        }
        if (err < best_err)
            best_err = err, best = s;
    }
    return best;
}

static double rel_error(const host *h, const epoch *ep, size_t nep, float *const *x,
                        float *const *y, size_t from, size_t frames, double wet, double dry,
                        double gain)
{
    double err = 0, ref = 0;
    for (unsigned o = 0; o < h->outputs; o++)
        for (size_t i = from; i < frames; i++) {
            const double want =
                gain * (wet * expected(ep, nep, (const float *const *)x, h->inputs, o, i) +
                        dry * x[h->inputs == 1 ? 0 : o][i]);
            err += (y[o][i] - want) * (y[o][i] - want);
            ref += want * want;
        }
    return sqrt(err / ref);
}

static size_t draw_block(uint64_t *rng, int small)
{
    return 1 + (size_t)(test_uniform(rng) * (small ? 64 : 4096));
}

/* Streams frames through h from frame done, blocks drawn at random; when the
 * cycle delivers a response, *taken (if set) gets the frame where it acts. */
static size_t stream(host *h, float *const *x, float *const *y, size_t done, size_t until,
                     uint64_t *rng, int small, size_t *taken)
{
    while (done < until) {
        size_t n = draw_block(rng, small);
        float *in[2], *out[2];
        n = n < until - done ? n : until - done;
        for (unsigned c = 0; c < h->inputs; c++)
            in[c] = x[c] + done;
        for (unsigned c = 0; c < h->outputs; c++)
            out[c] = y[c] + done;
        host_cycle(h, in, out, (uint32_t)n);
        if (h->delivered && taken && *taken == (size_t)-1)
            *taken = done;
        done += n;
    }
    return done;
}

static void set_db(host *h, const char *symbol, float db)
{
    const int port = host_port(h, symbol);
    assert_true(port >= 0);
    h->controls[port] = db;
}

/* Random inputs, and zeroed room for the outputs. */
static void signals_new(float **x, unsigned ins, float **y, unsigned outs, size_t frames,
                        uint64_t *rng)
{
    for (unsigned c = 0; c < ins; c++) {
        assert_non_null(x[c] = malloc(frames * sizeof *x[c]));
        test_fill(x[c], frames, rng);
    }
    for (unsigned c = 0; c < outs; c++)
        assert_non_null(y[c] = calloc(frames, sizeof *y[c]));
}

static void signals_free(float **x, unsigned ins, float **y, unsigned outs)
{
    for (unsigned c = 0; c < ins; c++)
        free(x[c]);
    for (unsigned c = 0; c < outs; c++)
        free(y[c]);
}

static void test_stereo_changes_and_state(void **state)
{
    enum { FRAMES = 100000, AFTER = 30000 };
    char dir[] = "/tmp/gfir_lv2_XXXXXX";
    uint64_t rng = 27;
    ir_file a, b, c;
    epoch ep[3];
    host h, fresh;
    float *x[2], *y[2];
    size_t done = 0, at;
    (void)state;
    assert_non_null(mkdtemp(dir));
    write_ir(&a, dir, "a.wav", 2, 1500, 0, &rng);
    write_ir(&b, dir, "b.wav", 2, 1400, 0, &rng);   /* fits a's plan: swapped */
    write_ir(&c, dir, "c.wav", 4, 1700, 0, &rng);   /* true stereo: a new plan */
    signals_new(x, 2, y, 2, FRAMES, &rng);
    assert_int_equal(host_open(&h, "urn:gfir:lv2:convolver-stereo", RATE, 4096), 0);
    set_db(&h, "normalize", 0);
    set_db(&h, "dry_db", -6);
    set_db(&h, "gain_db", -3);

    host_set_ir(&h, a.path);
    at = (size_t)-1;
    done = stream(&h, x, y, done, 20000, &rng, 0, &at);
    assert_string_equal(h.notified_path, a.path);
    ep[0] = (epoch){&a, at, at, 1};

    host_set_ir(&h, b.path);
    at = (size_t)-1;
    done = stream(&h, x, y, done, 45000, &rng, 1, &at);
    assert_string_equal(h.notified_path, b.path);
    ep[1] = (epoch){&b, at, ep[0].since, 1};

    host_set_ir(&h, "/nonexistent/ir.wav");
    done = stream(&h, x, y, done, 55000, &rng, 0, NULL);
    assert_non_null(strstr(h.notified_status, "cannot read"));
    assert_string_equal(h.notified_path, b.path);

    host_set_ir(&h, c.path);
    at = (size_t)-1;
    done = stream(&h, x, y, done, FRAMES, &rng, 0, &at);
    assert_string_equal(h.notified_path, c.path);
    /* a new plan, primed with the input before the handover: as if it had
     * always run, like a swapped filter */
    ep[2] = (epoch){&c, at, 0, 1};

    const double wet = 1, dry = pow(10, -6 / 20.0), gain = pow(10, -3 / 20.0);
    const double err = rel_error(&h, ep, 3, x, y, 0, FRAMES, wet, dry, gain);
    printf("stereo, IR changes at frames %zu, %zu, %zu: relative L2 error %.3g\n", ep[0].start,
           ep[1].start, ep[2].start, err);
    assert_true(err < TOLERANCE);

    /* The state into a fresh instance: the IR and the controls come back.
     * The IR loads on the worker from the first cycle on, with the restored
     * controls, starting cold (nothing ran before): compared once its
     * history is whole. */
    assert_int_equal(host_save_restore(&h, dir, &fresh), 0);
    host_close(&h);
    memset(y[0], 0, AFTER * sizeof *y[0]);
    memset(y[1], 0, AFTER * sizeof *y[1]);
    stream(&fresh, x, y, 0, AFTER, &rng, 0, NULL);
    assert_non_null(strstr(fresh.notified_path, "c.wav"));
    epoch restored = {&c, 0, 0, 1};
    const double err2 = rel_error(&fresh, &restored, 1, x, y, AFTER / 2, AFTER, wet, dry, gain);
    printf("restored into a fresh instance: relative L2 error %.3g\n", err2);
    assert_true(err2 < TOLERANCE);
    host_close(&fresh);
    signals_free(x, 2, y, 2);
    free(a.taps), free(b.taps), free(c.taps);
}

/* Mono to stereo with normalize energy: the louder output's set at unity
 * gain for white noise; blocks of 1 to 64 frames. */
static void test_mono_to_stereo_energy(void **state)
{
    enum { FRAMES = 40000 };
    char dir[] = "/tmp/gfir_lv2_XXXXXX";
    uint64_t rng = 28;
    ir_file a;
    host h;
    float *x[1], *y[2];
    size_t at = (size_t)-1;
    double loudest = 0;
    (void)state;
    assert_non_null(mkdtemp(dir));
    write_ir(&a, dir, "m.wav", 2, 777, 0, &rng);
    for (unsigned c = 0; c < 2; c++) {
        double e = 0;
        for (size_t k = 0; k < a.ntaps; k++)
            e += (double)a.taps[c * a.ntaps + k] * a.taps[c * a.ntaps + k];
        loudest = sqrt(e) > loudest ? sqrt(e) : loudest;
    }
    signals_new(x, 1, y, 2, FRAMES, &rng);
    assert_int_equal(host_open(&h, "urn:gfir:lv2:convolver-mono-stereo", RATE, 64), 0);
    set_db(&h, "normalize", 2);
    host_set_ir(&h, a.path);
    stream(&h, x, y, 0, FRAMES, &rng, 1, &at);
    epoch e = {&a, at, at, 1 / loudest};
    const double err = rel_error(&h, &e, 1, x, y, 0, FRAMES, 1, 0, 1);
    printf("mono to stereo, normalize energy: relative L2 error %.3g\n", err);
    assert_true(err < TOLERANCE);
    host_close(&h);
    signals_free(x, 1, y, 2);
    free(a.taps);
}

/* Mono with ir_trim_db: the leading near-silence is cut (no added delay);
 * the IR set through a control sequence off 64-bit alignment. */
static void test_mono_trim(void **state)
{
    enum { FRAMES = 30000, LEAD = 300 };
    char dir[] = "/tmp/gfir_lv2_XXXXXX";
    uint64_t rng = 29;
    ir_file a;
    host h;
    float *x[1], *y[1];
    size_t at = (size_t)-1;
    (void)state;
    assert_non_null(mkdtemp(dir));
    write_ir(&a, dir, "t.wav", 1, 901, LEAD, &rng);
    signals_new(x, 1, y, 1, FRAMES, &rng);
    assert_int_equal(host_open(&h, "urn:gfir:lv2:convolver-mono", RATE, 1024), 0);
    /* as jalv 1.6.6 hands it: the plugin must read it all the same (the
     * sanitized build's UBSan checks the alignment of what it reads) */
    h.misaligned_control = 1;
    set_db(&h, "normalize", 0);
    set_db(&h, "ir_trim_db", -120);
    host_set_ir(&h, a.path);
    stream(&h, x, y, 0, FRAMES, &rng, 0, &at);
    /* the first tap of test_fill's random values is far above -120 dB */
    epoch e = {&a, at, at, 1};
    const double err = rel_error(&h, &e, 1, x, y, 0, FRAMES, 1, 0, 1);
    printf("mono, %d leading zeros trimmed: relative L2 error %.3g\n", LEAD, err);
    assert_true(err < TOLERANCE);
    host_close(&h);
    signals_free(x, 1, y, 1);
    free(a.taps);
}

/* A long IR (2^16 + 1 taps, where the zero-latency partitioned engines
 * work) asked to run on CUDA, then another one: a new plan each (neither
 * those engines nor CUDA plans take filters), the second primed on the
 * worker and crossfaded. Without a GPU the plugin runs on the CPU and says
 * so on notify; on a GPU this is the CUDA path's check. 4000 outputs
 * sampled at random against float64, a quarter of them in the handover's
 * fade and the new IR's first ntaps frames (each a sum of up to 262148
 * products: float rounding stays near 1e-6). */
static void test_long_ir_backend_cuda(void **state)
{
    enum { FRAMES = 300000, SAMPLES = 4000, NTAPS = 65537 };
    char dir[] = "/tmp/gfir_lv2_XXXXXX";
    uint64_t rng = 30;
    ir_file a, b;
    host h;
    float *x[2], *y[2];
    size_t at = (size_t)-1, done;
    double err = 0, ref = 0;
    epoch ep[2];
    (void)state;
    assert_non_null(mkdtemp(dir));
    write_ir(&a, dir, "long.wav", 2, NTAPS, 0, &rng);
    write_ir(&b, dir, "long2.wav", 2, NTAPS, 0, &rng);
    signals_new(x, 2, y, 2, FRAMES, &rng);
    assert_int_equal(host_open(&h, "urn:gfir:lv2:convolver-stereo", RATE, 4096), 0);
    set_db(&h, "normalize", 0);
    set_db(&h, "backend", 2);
    host_set_ir(&h, a.path);
    done = stream(&h, x, y, 0, FRAMES / 2, &rng, 0, &at);
    assert_string_equal(h.notified_path, a.path);
    printf("backend cuda: status \"%s\"\n", h.notified_status);
    if (h.notified_status[0])
        assert_non_null(strstr(h.notified_status, "running on the CPU"));
    ep[0] = (epoch){&a, at, at, 1};
    host_set_ir(&h, b.path);
    at = (size_t)-1;
    stream(&h, x, y, done, FRAMES, &rng, 0, &at);
    assert_string_equal(h.notified_path, b.path);
    ep[1] = (epoch){&b, at, 0, 1};
    ep[1].start = fade_start(&ep[0], &ep[1], (const float *const *)x, y, at, FRAMES);
    printf("swapped at frame %zu, the fade begins %zu frames later\n", at, ep[1].start - at);
    for (int s = 0; s < SAMPLES; s++) {
        const size_t from = s % 4 ? ep[0].start : ep[1].start;
        const size_t span = s % 4 ? FRAMES - from : FADE + NTAPS;
        const size_t i = from + (size_t)(test_uniform(&rng) * (double)span);
        const unsigned o = (unsigned)s % 2;
        const double want = expected(ep, 2, (const float *const *)x, 2, o, i);
        err += (y[o][i] - want) * (y[o][i] - want);
        ref += want * want;
    }
    printf("stereo, 65537 taps, changed at frame %zu, blocks 1 to 4096: relative L2 error %.3g "
           "(sampled)\n", ep[1].start, sqrt(err / ref));
    assert_true(sqrt(err / ref) < TOLERANCE);
    host_close(&h);
    signals_free(x, 2, y, 2);
    free(a.taps), free(b.taps);
}

/* Calls of exactly block frames from frame done, count of them. */
static size_t cycles(host *h, float *const *x, float *const *y, size_t done, size_t count,
                     size_t block)
{
    for (size_t k = 0; k < count; k++, done += block) {
        float *in[2], *out[2];
        for (unsigned c = 0; c < h->inputs; c++)
            in[c] = x[c] + done;
        for (unsigned c = 0; c < h->outputs; c++)
            out[c] = y[c] + done;
        host_cycle(h, in, out, (uint32_t)block);
    }
    return done;
}

/* A new plan whose response reaches the audio thread HELD calls after the
 * worker primed it: run() feeds it the frames that came since, two blocks a
 * call, and fades it in once it has heard them all (at HELD - 2 calls after
 * the response: the gap shrinks by a block a call). Output through the
 * swap against float64: the old IR crossfaded into the new one's
 * convolution of the whole input. */
static void test_late_response_catches_up(void **state)
{
    enum { BLOCK = 256, HELD = 10, FRAMES = 40 * 1024 };
    char dir[] = "/tmp/gfir_lv2_XXXXXX";
    uint64_t rng = 34;
    ir_file a, c;
    host h;
    float *x[1], *y[1];
    size_t done = 0;
    epoch ep[2];
    (void)state;
    assert_non_null(mkdtemp(dir));
    write_ir(&a, dir, "a.wav", 1, 1000, 0, &rng);
    write_ir(&c, dir, "c.wav", 1, 3001, 0, &rng); /* longer: a new plan */
    signals_new(x, 1, y, 1, FRAMES, &rng);
    assert_int_equal(host_open(&h, "urn:gfir:lv2:convolver-mono", RATE, BLOCK), 0);
    set_db(&h, "normalize", 0);
    host_set_ir(&h, a.path);
    done = cycles(&h, x, y, done, 2, BLOCK);
    ep[0] = (epoch){&a, BLOCK, BLOCK, 1}; /* loaded after the first call: a cold start */
    done = cycles(&h, x, y, done, 40, BLOCK);
    host_set_ir(&h, c.path);
    done = cycles(&h, x, y, done, 1, BLOCK); /* asked for, built and primed */
    h.hold_responses = 1;
    done = cycles(&h, x, y, done, HELD, BLOCK);
    h.hold_responses = 0;
    ep[1] = (epoch){&c, done + (HELD - 2) * BLOCK, 0, 1};
    done = cycles(&h, x, y, done, (FRAMES - done) / BLOCK, BLOCK);
    assert_string_equal(h.notified_path, c.path);
    const double err = rel_error(&h, ep, 2, x, y, 0, done, 1, 0, 1);
    printf("new plan handed over %d calls after it was primed: in at frame %zu, relative L2 "
           "error %.3g\n", HELD, ep[1].start, err);
    assert_true(err < TOLERANCE);
    host_close(&h);
    signals_free(x, 1, y, 1);
    free(a.taps), free(c.taps);
}

/* The worker on a thread of its own, as in jalv, while the calls go on:
 * the new plan is primed while the input ring moves under it, then caught
 * up in run(). When the handover happened is up to the threads, so every
 * call boundary after the patch:Set is tried as the fade's start, and the
 * best must match float64 as closely as the deterministic tests do (a
 * plan missing frames of its history matches at no boundary). With the
 * backend auto, then cuda (on the CPU without a GPU; on a GPU the CUDA
 * plans are made and primed, their graphs captured, on the worker's
 * thread: a profiler shows no capture on the calling one). */
static void threaded_worker(int backend)
{
    enum { BLOCK = 256, FRAMES = 60000, SET_AT = 8192, NA = 1000, NC = 3001 };
    char dir[] = "/tmp/gfir_lv2_XXXXXX";
    uint64_t rng = 36;
    ir_file a, c;
    host h;
    float *x[1], *y[1];
    double *ya = malloc(FRAMES * sizeof *ya), *yc = malloc(FRAMES * sizeof *yc);
    size_t *bounds = malloc(FRAMES * sizeof *bounds), nb = 0, done = 0, at = (size_t)-1,
           best_at = 0;
    double best = INFINITY;
    assert_true(ya && yc && bounds);
    assert_non_null(mkdtemp(dir));
    write_ir(&a, dir, "a.wav", 1, NA, 0, &rng);
    write_ir(&c, dir, "c.wav", 1, NC, 0, &rng); /* longer: a new plan */
    signals_new(x, 1, y, 1, FRAMES, &rng);
    assert_int_equal(host_open(&h, "urn:gfir:lv2:convolver-mono", RATE, BLOCK), 0);
    set_db(&h, "normalize", 0);
    set_db(&h, "backend", (float)backend);
    host_set_ir(&h, a.path);
    done = stream(&h, x, y, done, 512, &rng, 1, &at); /* a, loaded between calls */
    assert_int_equal(host_worker_thread(&h, 1), 0);
    done = stream(&h, x, y, done, SET_AT, &rng, 1, NULL);
    host_set_ir(&h, c.path);
    while (done < FRAMES) {
        float *in = x[0] + done, *out = y[0] + done;
        size_t n = 1 + (size_t)(test_uniform(&rng) * BLOCK);
        n = n < FRAMES - done ? n : FRAMES - done;
        bounds[nb++] = done;
        host_cycle(&h, &in, &out, (uint32_t)n);
        done += n;
        usleep(50); /* a pace the worker can keep up with, as a period would */
    }
    assert_int_equal(host_worker_thread(&h, 0), 0);
    assert_string_equal(h.notified_path, c.path);
    epoch ea = {&a, at, at, 1}, ec = {&c, 0, 0, 1};
    for (size_t i = SET_AT; i < FRAMES; i++) {
        ya[i] = convolve(&ea, (const float *const *)x, 1, 0, i);
        yc[i] = convolve(&ec, (const float *const *)x, 1, 0, i);
    }
    for (size_t b = 0; b < nb; b++) {
        double err = 0, ref = 0;
        for (size_t i = SET_AT; i < FRAMES; i++) {
            const double w = i < bounds[b] ? 0 : fade_weight(i - bounds[b]);
            const double want = (1 - w) * ya[i] + w * yc[i];
            err += (y[0][i] - want) * (y[0][i] - want);
            ref += want * want;
        }
        if (sqrt(err / ref) < best)
            best = sqrt(err / ref), best_at = bounds[b];
    }
    printf("worker on a thread, backend %d: new plan in at frame %zu (asked at %d), relative L2 "
           "error %.3g\n", backend, best_at, SET_AT, best);
    assert_true(best < TOLERANCE);
    host_close(&h);
    signals_free(x, 1, y, 1);
    free(ya), free(yc), free(bounds), free(a.taps), free(c.taps);
}

static void test_threaded_worker(void **state)
{
    (void)state;
    threaded_worker(0);
    threaded_worker(2);
}

/* A restore while a load waits on the worker (held back, or running on the
 * worker's thread at that moment): the restored IR is the one that plays,
 * after the load asked for before it, and restore touches nothing that
 * work() does (the threaded cases run under ThreadSanitizer in a sanitized
 * build: main's restore wrote the worker's IR). Both ways hosts restore:
 * with a worker schedule of restore's own (state:threadSafeRestore) and
 * without. Compared against float64 once both handovers have faded in. */
static void restore_during_load(int thread_safe, int threaded)
{
    enum { FRAMES = 40000, FROM = 20000, BLOCK = 64 };
    char dir[] = "/tmp/gfir_lv2_XXXXXX";
    uint64_t rng = 33;
    ir_file a, b;
    host h, g;
    float *x[1], *y[1];
    size_t done = 0;
    assert_non_null(mkdtemp(dir));
    write_ir(&a, dir, "a.wav", 1, 500, 0, &rng);
    write_ir(&b, dir, "b.wav", 1, 600, 0, &rng);
    signals_new(x, 1, y, 1, FRAMES, &rng);
    assert_int_equal(host_open(&h, "urn:gfir:lv2:convolver-mono", RATE, 512), 0);
    set_db(&h, "normalize", 0);
    host_set_ir(&h, b.path);
    stream(&h, x, y, 0, 2000, &rng, 1, NULL);
    assert_string_equal(h.notified_path, b.path);
    assert_int_equal(host_save(&h, dir), 0);
    host_close(&h);

    assert_int_equal(host_open(&g, "urn:gfir:lv2:convolver-mono", RATE, 512), 0);
    set_db(&g, "normalize", 0);
    assert_int_equal(host_worker_thread(&g, threaded), 0);
    host_set_ir(&g, a.path);
    g.hold_work = !threaded;
    done = cycles(&g, x, y, done, 2, BLOCK);
    assert_int_equal(host_restore(&g, dir, thread_safe), 0);
    g.hold_work = 0;
    host_work(&g);
    while (done < FRAMES) {
        done = cycles(&g, x, y, done, 1, BLOCK);
        if (threaded)
            usleep(200); /* a pace the worker keeps up with */
    }
    assert_int_equal(host_worker_thread(&g, 0), 0);
    assert_string_equal(g.notified_path, b.path);
    epoch e = {&b, 0, 0, 1};
    const double err = rel_error(&g, &e, 1, x, y, FROM, FRAMES, 1, 0, 1);
    printf("restored %s while a load %s: %s plays, relative L2 error %.3g\n",
           thread_safe ? "through restore's worker" : "without a worker",
           threaded ? "ran on the worker's thread" : "waited", g.notified_path, err);
    assert_true(err < TOLERANCE);
    host_close(&g);
    signals_free(x, 1, y, 1);
    free(a.taps), free(b.taps);
}

static void test_restore_during_load(void **state)
{
    (void)state;
    restore_during_load(0, 0);
    restore_during_load(1, 0);
}

static void test_restore_during_threaded_load(void **state)
{
    (void)state;
    restore_during_load(0, 1);
    restore_during_load(1, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stereo_changes_and_state),
        cmocka_unit_test(test_mono_to_stereo_energy),
        cmocka_unit_test(test_mono_trim),
        cmocka_unit_test(test_long_ir_backend_cuda),
        cmocka_unit_test(test_late_response_catches_up),
        cmocka_unit_test(test_threaded_worker),
        cmocka_unit_test(test_restore_during_load),
        cmocka_unit_test(test_restore_during_threaded_load),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
