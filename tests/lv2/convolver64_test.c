/*
 * convolver64_test.c - gfir convolver-64 in the liblilv host (host.h): 64
 * audio inputs and outputs, channel c through the IR file's channel c. A
 * random 64-channel IR of odd length set by patch:Set, random block sizes
 * (1 to 4096 frames, then 1 to 64), the IR changed mid-stream to another
 * 64-channel one that fits the running plan (the library's crossfade) and
 * then to a 1-channel one applied to every channel (a new plan, primed and
 * crossfaded, runner.h); a 3-channel file refused with the reason on notify
 * while the old IR plays on; the state restored into a fresh instance; on
 * the CPU backend and on CUDA (the CPU, said so on notify, without a GPU).
 * Every output of all 64 channels against a float64 convolution per
 * channel, with wet, dry and output gain: relative L2 error under 1e-5
 * (float taps and sums over a few hundred taps stay near 1e-7; a channel
 * through another channel's taps, or a frame of a handover off, is near 1).
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

#include <cmocka.h>

#define RATE 48000.0
#define FADE 2400 /* gl_fade_frames at 48 kHz: 50 ms */
#define TOLERANCE 1e-5
#define CH 64

typedef struct ir64 {
    char path[256];
    unsigned channels;
    size_t ntaps;
    float *taps; /* planar: channels sets of ntaps */
} ir64;

/* One IR in force from frame start, its history from frame since. */
typedef struct span {
    const ir64 *ir;
    size_t start, since;
} span;

static void make_ir(ir64 *f, const char *dir, const char *name, unsigned channels,
                    size_t ntaps, uint64_t *rng)
{
    snprintf(f->path, sizeof f->path, "%s/%s", dir, name);
    f->channels = channels;
    f->ntaps = ntaps;
    assert_non_null(f->taps = malloc(ntaps * channels * sizeof *f->taps));
    test_fill(f->taps, ntaps * channels, rng);
    assert_int_equal(ir_file_write(f->path, RATE, f->taps, channels, ntaps, 0), 0);
}

/* Channel c at frame i under s: its own set, or the only one. */
static double convolve(const span *s, const float *const *x, unsigned c, size_t i)
{
    const ir64 *f = s->ir;
    const float *h = f->taps + (f->channels == 1 ? 0 : (size_t)c * f->ntaps);
    double y = 0;
    for (size_t k = 0; k < f->ntaps && k <= i - s->since && k <= i; k++)
        y += (double)h[k] * x[c][i - k];
    return y;
}

/* The wet output: spans in order, each crossfaded from the one before. */
static double wet_at(const span *sp, size_t n, const float *const *x, unsigned c, size_t i)
{
    size_t e = n;
    while (e > 0 && sp[e - 1].start > i)
        e--;
    if (e-- == 0)
        return 0;
    const double now = convolve(&sp[e], x, c, i);
    if (e == 0 || i - sp[e].start >= FADE)
        return now;
    const size_t k = i - sp[e].start;
    const double w = 0.5 - 0.5 * cos(M_PI * ((double)k + 0.5) / FADE);
    return (1 - w) * convolve(&sp[e - 1], x, c, i) + w * now;
}

static double rel_error(const span *sp, size_t n, float *const *x, float *const *y,
                        size_t from, size_t to, double dry, double gain)
{
    double err = 0, ref = 0;
    for (unsigned c = 0; c < CH; c++)
        for (size_t i = from; i < to; i++) {
            const double want = gain * (wet_at(sp, n, (const float *const *)x, c, i) +
                                        dry * x[c][i]);
            err += (y[c][i] - want) * (y[c][i] - want);
            ref += want * want;
        }
    return sqrt(err / ref);
}

/* Frames [done, until) through h in blocks of 1 to max_block; *taken (when
 * not yet set) gets the frame of the call that took in a response. */
static size_t stream(host *h, float *const *x, float *const *y, size_t done, size_t until,
                     size_t max_block, uint64_t *rng, size_t *taken)
{
    while (done < until) {
        size_t n = 1 + (size_t)(test_uniform(rng) * (double)max_block);
        n = n < until - done ? n : until - done;
        host_cycle_at(h, x, y, done, (uint32_t)n);
        if (h->delivered && taken && *taken == (size_t)-1)
            *taken = done;
        done += n;
    }
    return done;
}

/* backend: 1 cpu; 2 cuda (on a machine without a GPU the CPU, and the
 * plugin says so; on a GPU the CUDA plans: every IR a new plan, primed) */
static void sixty_four(int backend)
{
    enum { FRAMES = 48000, AFTER = 16000 };
    char dir[] = "/tmp/gfir_lv2_64_XXXXXX";
    uint64_t rng = 64;
    ir64 a, b, one, three;
    span sp[3];
    host h, fresh;
    float *x[CH], *y[CH];
    size_t done, at;
    assert_non_null(mkdtemp(dir));
    make_ir(&a, dir, "a.wav", CH, 301, &rng);
    make_ir(&b, dir, "b.wav", CH, 287, &rng);   /* fits a's CPU plan: swapped */
    make_ir(&one, dir, "one.wav", 1, 333, &rng); /* every channel: a new plan */
    make_ir(&three, dir, "three.wav", 3, 99, &rng);
    for (unsigned c = 0; c < CH; c++) {
        assert_non_null(x[c] = malloc(FRAMES * sizeof *x[c]));
        assert_non_null(y[c] = calloc(FRAMES, sizeof *y[c]));
        test_fill(x[c], FRAMES, &rng);
    }
    assert_int_equal(host_open(&h, "urn:gfir:lv2:convolver-64", RATE, 4096), 0);
    assert_int_equal(h.inputs, CH);
    assert_int_equal(h.outputs, CH);
    assert_int_equal(host_set_control(&h, "normalize", 0), 0);
    assert_int_equal(host_set_control(&h, "dry_db", -6), 0);
    assert_int_equal(host_set_control(&h, "gain_db", -3), 0);
    assert_int_equal(host_set_control(&h, "backend", (float)backend), 0);

    host_set_ir(&h, a.path);
    at = (size_t)-1;
    done = stream(&h, x, y, 0, 12000, 4096, &rng, &at);
    assert_string_equal(h.notified_path, a.path);
    printf("backend %d: status \"%s\"\n", backend, h.notified_status);
    if (h.notified_status[0])
        assert_non_null(strstr(h.notified_status, "running on the CPU"));
    sp[0] = (span){&a, at, at};

    host_set_ir(&h, b.path);
    at = (size_t)-1;
    done = stream(&h, x, y, done, 24000, 64, &rng, &at);
    assert_string_equal(h.notified_path, b.path);
    sp[1] = (span){&b, at, sp[0].since};

    host_set_ir(&h, three.path);
    done = stream(&h, x, y, done, 28000, 4096, &rng, NULL);
    printf("a 3-channel IR: \"%s\"\n", h.notified_status);
    assert_non_null(strstr(h.notified_status, "does not fit 64 inputs"));
    assert_string_equal(h.notified_path, b.path);

    host_set_ir(&h, one.path);
    at = (size_t)-1;
    done = stream(&h, x, y, done, FRAMES, 4096, &rng, &at);
    assert_string_equal(h.notified_path, one.path);
    sp[2] = (span){&one, at, 0}; /* primed: as if it had always run */

    const double dry = pow(10, -6 / 20.0), gain = pow(10, -3 / 20.0);
    const double err = rel_error(sp, 3, x, y, 0, FRAMES, dry, gain);
    printf("backend %d, 64 channels, IRs in at frames %zu (64 sets), %zu (64 other sets), "
           "%zu (1 set, every channel): relative L2 error %.3g\n", backend, sp[0].start,
           sp[1].start, sp[2].start, err);
    assert_true(err < TOLERANCE);

    /* the state into a fresh instance: the 1-channel IR comes back, cold */
    assert_int_equal(host_save_restore(&h, dir, &fresh), 0);
    host_close(&h);
    for (unsigned c = 0; c < CH; c++)
        memset(y[c], 0, AFTER * sizeof *y[c]);
    stream(&fresh, x, y, 0, AFTER, 4096, &rng, NULL);
    assert_non_null(strstr(fresh.notified_path, "one.wav"));
    span restored = {&one, 0, 0};
    const double err2 = rel_error(&restored, 1, x, y, AFTER / 2, AFTER, dry, gain);
    printf("restored into a fresh instance: relative L2 error %.3g\n", err2);
    assert_true(err2 < TOLERANCE);
    host_close(&fresh);
    for (unsigned c = 0; c < CH; c++)
        free(x[c]), free(y[c]);
    free(a.taps), free(b.taps), free(one.taps), free(three.taps);
}

static void test_64_channels_cpu(void **state)
{
    (void)state;
    sixty_four(1);
}

static void test_64_channels_cuda(void **state)
{
    (void)state;
    sixty_four(2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_64_channels_cpu),
        cmocka_unit_test(test_64_channels_cuda),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
