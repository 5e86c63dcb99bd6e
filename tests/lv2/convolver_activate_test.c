/*
 * convolver_activate_test.c - gfir convolver (mono) in a liblilv host
 * (host.h), deactivated and activated by the host (as Ardour does around an
 * export) while the load of a longer IR (a new plan, primed on the worker
 * with the input so far) waits on its worker; the load runs and answers
 * after activate(). The activation starts the stream again: from it on the
 * output is the running IR with no history before it, then the new IR,
 * also with no history before the activation (a plan primed with the input
 * before it, as the answer's was, differs for its first ntaps frames),
 * crossfaded in at whatever call boundary the worker's answers allow: each
 * is tried and the best must match float64 with relative L2 error under
 * 1e-5 (float taps, sums of up to 3001 products stay near 1e-7).
 *
 * Also: a host that drops the load waiting on its worker when it
 * deactivates the plugin (the flag of a request in flight blocked every
 * later load), and what save() stores when the load asked for before an
 * activation finishes on the worker after it but never plays (it stored
 * that load's path while the old IR played on); and a host whose response
 * queue refuses a load's answer (the load stayed in flight for good).
 */
#include "host.h"
#include "test_util.h"

#include <math.h>
#include <setjmp.h>
#include <sndfile.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#define RATE 48000.0
#define FADE 2400 /* gl_fade_frames at 48 kHz: 50 ms */
#define TOLERANCE 1e-5

static float *write_ir(char *path, size_t path_size, const char *dir, const char *name,
                       size_t ntaps, uint64_t *rng)
{
    SF_INFO info = {0, (int)RATE, 1, SF_FORMAT_WAV | SF_FORMAT_FLOAT, 0, 0};
    float *taps = malloc(ntaps * sizeof *taps);
    SNDFILE *sf;
    assert_non_null(taps);
    test_fill(taps, ntaps, rng);
    snprintf(path, path_size, "%s/%s", dir, name);
    assert_non_null(sf = sf_open(path, SFM_WRITE, &info));
    assert_int_equal(sf_writef_float(sf, taps, (sf_count_t)ntaps), (sf_count_t)ntaps);
    sf_close(sf);
    return taps;
}

/* the convolution at frame i of the input from frame from on */
static double convolve(const float *h, size_t ntaps, const float *x, size_t from, size_t i)
{
    double y = 0;
    for (size_t k = 0; k < ntaps && k <= i - from; k++)
        y += (double)h[k] * x[i - k];
    return y;
}

/* gfir convolver (mono) in blocks of block, unnormalised, its IR set to path */
static void open_with(host *h, int32_t block, const char *path)
{
    assert_int_equal(host_open(h, "urn:gfir:lv2:convolver-mono", RATE, block), 0);
    h->controls[host_port(h, "normalize")] = 0;
    host_set_ir(h, path);
}

/* The host deactivates and activates the plugin, dropping the work it held
 * back where drop says so, and holds no more back. */
static void reactivate(host *h, int drop)
{
    lilv_instance_deactivate(h->instance);
    if (drop)
        host_drop_work(h);
    lilv_instance_activate(h->instance);
    h->hold_work = 0;
}

static void test_activate_while_a_load_waits(void **state)
{
    enum { BLOCK = 256, CALLS = 120, AT = 40, NA = 500, NC = 3001 };
    const size_t from = AT * BLOCK, frames = CALLS * BLOCK;
    char dir[] = "/tmp/gfir_lv2_XXXXXX", a_path[256], c_path[256];
    uint64_t rng = 38;
    float *x = malloc(frames * sizeof *x), *y = calloc(frames, sizeof *y);
    double *ya = malloc(frames * sizeof *ya), *yc = malloc(frames * sizeof *yc), best = INFINITY;
    size_t best_at = 0;
    host h;
    (void)state;
    assert_true(x && y && ya && yc);
    assert_non_null(mkdtemp(dir));
    float *a = write_ir(a_path, sizeof a_path, dir, "a.wav", NA, &rng);
    float *c = write_ir(c_path, sizeof c_path, dir, "c.wav", NC, &rng); /* a new plan */
    test_fill(x, frames, &rng);
    open_with(&h, BLOCK, a_path);
    for (size_t k = 0; k < CALLS; k++) {
        float *in = x + k * BLOCK, *out = y + k * BLOCK;
        if (k == AT - 1) {
            host_set_ir(&h, c_path);
            h.hold_work = 1;
        }
        if (k == AT) {
            reactivate(&h, 0);
            host_work(&h); /* the load asked for before, answered now */
        }
        host_cycle(&h, &in, &out, BLOCK);
    }
    assert_string_equal(h.notified_path, c_path);
    for (size_t i = from; i < frames; i++) {
        ya[i] = convolve(a, NA, x, from, i);
        yc[i] = convolve(c, NC, x, from, i);
    }
    for (size_t s = from; s < frames; s += BLOCK) {
        double err = 0, ref = 0;
        for (size_t i = from; i < frames; i++) {
            const double w = i < s             ? 0
                             : i - s >= FADE ? 1
                                             : 0.5 - 0.5 * cos(M_PI * ((double)(i - s) + 0.5) / FADE);
            const double want = (1 - w) * ya[i] + w * yc[i];
            err += (y[i] - want) * (y[i] - want);
            ref += want * want;
        }
        if (sqrt(err / ref) < best)
            best = sqrt(err / ref), best_at = s;
    }
    printf("activated at frame %zu while a load waited: the new IR in at frame %zu, relative L2 "
           "error %.3g\n", from, best_at, best);
    assert_true(best < TOLERANCE);
    host_close(&h);
    free(a), free(c), free(x), free(y), free(ya), free(yc);
}

/* The relative L2 error of y against ntaps of h over x from frame from on
 * (no history before it), at frames [at, end). */
static double error_against(const float *h, size_t ntaps, const float *x, const float *y,
                            size_t from, size_t at, size_t end)
{
    double err = 0, ref = 0;
    for (size_t i = at; i < end; i++) {
        const double want = convolve(h, ntaps, x, from, i);
        err += (y[i] - want) * (y[i] - want);
        ref += want * want;
    }
    return sqrt(err / ref);
}

/* What the convolver's save() stores now ("" nothing). */
static void saved_path(host *h, char *path, size_t size)
{
    assert_int_equal(host_saved(h, "urn:gfir:lv2:ir", path, size), 0);
}

/* Three IRs in a fresh folder: a (400 taps), b (900: a new plan) and c
 * (700: it fits b's), and a random signal of `frames` frames with room for
 * the output. */
enum { TAPS_A = 400, TAPS_B = 900, TAPS_C = 700 };
typedef struct three_irs {
    char dir[32], a_path[256], b_path[256], c_path[256];
    float *a, *b, *c, *x, *y;
} three_irs;

static void three_irs_make(three_irs *t, size_t frames, uint64_t seed)
{
    uint64_t rng = seed;
    strcpy(t->dir, "/tmp/gfir_lv2_XXXXXX");
    t->x = malloc(frames * sizeof *t->x);
    t->y = calloc(frames, sizeof *t->y);
    assert_true(t->x && t->y);
    assert_non_null(mkdtemp(t->dir));
    t->a = write_ir(t->a_path, sizeof t->a_path, t->dir, "a.wav", TAPS_A, &rng);
    t->b = write_ir(t->b_path, sizeof t->b_path, t->dir, "b.wav", TAPS_B, &rng);
    t->c = write_ir(t->c_path, sizeof t->c_path, t->dir, "c.wav", TAPS_C, &rng);
    test_fill(t->x, frames, &rng);
}

static void three_irs_free(three_irs *t)
{
    free(t->a), free(t->b), free(t->c), free(t->x), free(t->y);
}

/* The load waiting on the worker is dropped by the host at deactivation:
 * activate() asks for it again, and a patch:Set after that loads too. The
 * output from the activation on: a's (the load had not played), then b,
 * then c, each checked once faded in, against float64 with no history
 * before the activation (relative L2 error under 1e-5, as above). */
static void test_load_dropped_at_deactivation(void **state)
{
    enum { BLOCK = 128, CALLS = 240, AT = 20, SET_C = 120 };
    const size_t from = AT * BLOCK, frames = CALLS * BLOCK;
    char saved[4096];
    size_t b_at = 0;
    three_irs t;
    host h;
    (void)state;
    three_irs_make(&t, frames, 42);
    open_with(&h, BLOCK, t.a_path);
    for (size_t k = 0; k < CALLS; k++) {
        float *in = t.x + k * BLOCK, *out = t.y + k * BLOCK;
        if (k == AT - 1) {
            host_set_ir(&h, t.b_path);
            h.hold_work = 1;
        }
        if (k == AT)
            reactivate(&h, 1);
        if (k == SET_C)
            host_set_ir(&h, t.c_path);
        host_cycle(&h, &in, &out, BLOCK);
        if (!b_at && !strcmp(h.notified_path, t.b_path))
            b_at = (k + 1) * BLOCK;
        if (k == SET_C - 1) {
            saved_path(&h, saved, sizeof saved);
            assert_string_equal(saved, t.b_path);
        }
    }
    assert_true(b_at > 0 && b_at < SET_C * BLOCK - FADE);
    assert_string_equal(h.notified_path, t.c_path);
    saved_path(&h, saved, sizeof saved);
    assert_string_equal(saved, t.c_path);
    const double ea = error_against(t.a, TAPS_A, t.x, t.y, from, from, b_at - BLOCK);
    const double eb = error_against(t.b, TAPS_B, t.x, t.y, from, b_at + FADE, SET_C * BLOCK);
    const double ec = error_against(t.c, TAPS_C, t.x, t.y, from, (SET_C + 2) * BLOCK + FADE, frames);
    printf("load dropped at deactivation: asked for again, in at frame %zu; a patch:Set "
           "after it loads too: relative L2 errors %.3g (a), %.3g (b), %.3g (c)\n", b_at, ea, eb,
           ec);
    assert_true(ea < TOLERANCE && eb < TOLERANCE && ec < TOLERANCE);
    host_close(&h);
    three_irs_free(&t);
}

/* The host refuses the answer to b's load (its response queue full): the
 * answer waits in the plugin's mailbox for the next run(), so b plays, and
 * a patch:Set of c after it loads too (relative L2 error of each stretch
 * against float64 under 1e-5). */
static void test_answer_refused(void **state)
{
    enum { BLOCK = 128, CALLS = 200, SET_B = 40, SET_C = 110 };
    const size_t frames = CALLS * BLOCK;
    size_t a_at = 0, b_at = 0, c_at = 0;
    three_irs t;
    host h;
    (void)state;
    three_irs_make(&t, frames, 43);
    open_with(&h, BLOCK, t.a_path);
    for (size_t k = 0; k < CALLS; k++) {
        float *in = t.x + k * BLOCK, *out = t.y + k * BLOCK;
        if (k == SET_B) {
            host_set_ir(&h, t.b_path);
            host_refuse_responses(1);
        }
        if (k == SET_C)
            host_set_ir(&h, t.c_path);
        host_cycle(&h, &in, &out, BLOCK);
        if (!a_at && !strcmp(h.notified_path, t.a_path))
            a_at = (k + 1) * BLOCK;
        if (!b_at && !strcmp(h.notified_path, t.b_path))
            b_at = (k + 1) * BLOCK;
        if (!c_at && !strcmp(h.notified_path, t.c_path))
            c_at = (k + 1) * BLOCK;
    }
    host_refuse_responses(0);
    assert_true(a_at > 0 && a_at < SET_B * BLOCK - FADE);
    assert_true(b_at > 0 && b_at < SET_C * BLOCK - FADE);
    assert_true(c_at > 0 && c_at < frames - FADE);
    const double ea = error_against(t.a, TAPS_A, t.x, t.y, 0, a_at + FADE, SET_B * BLOCK);
    const double eb = error_against(t.b, TAPS_B, t.x, t.y, 0, b_at + FADE, SET_C * BLOCK);
    const double ec = error_against(t.c, TAPS_C, t.x, t.y, 0, c_at + FADE, frames);
    printf("a load's answer refused by the host: b in at frame %zu, then c at %zu: relative L2 "
           "errors %.3g (a), %.3g (b), %.3g (c)\n", b_at, c_at, ea, eb, ec);
    assert_true(ea < TOLERANCE && eb < TOLERANCE && ec < TOLERANCE);
    host_close(&h);
    three_irs_free(&t);
}

/* A load of b asked for, then a patch:Set of a file that does not load
 * waiting behind it, when the host deactivates and activates the plugin;
 * b's load finishes on the worker after that, its answer (of the older
 * generation) is thrown away, and the newer file fails: a plays on, and
 * save() must store a, not b (relative L2 error of the output against a
 * with no history before the activation under 1e-5). */
static void test_saved_path_after_a_superseded_load(void **state)
{
    enum { BLOCK = 128, CALLS = 80, AT = 20 };
    const size_t from = AT * BLOCK, frames = CALLS * BLOCK;
    char dir[] = "/tmp/gfir_lv2_XXXXXX", a_path[256], b_path[256], gone[300], saved[4096];
    uint64_t rng = 43;
    float *x = malloc(frames * sizeof *x), *y = calloc(frames, sizeof *y);
    host h;
    (void)state;
    assert_true(x && y);
    assert_non_null(mkdtemp(dir));
    float *a = write_ir(a_path, sizeof a_path, dir, "a.wav", TAPS_A, &rng);
    float *b = write_ir(b_path, sizeof b_path, dir, "b.wav", TAPS_B, &rng);
    snprintf(gone, sizeof gone, "%s/no such file.wav", dir);
    test_fill(x, frames, &rng);
    open_with(&h, BLOCK, a_path);
    for (size_t k = 0; k < CALLS; k++) {
        float *in = x + k * BLOCK, *out = y + k * BLOCK;
        if (k == AT - 2) {
            host_set_ir(&h, b_path);
            h.hold_work = 1;
        }
        if (k == AT - 1)
            host_set_ir(&h, gone); /* waits: b's load is in flight */
        if (k == AT) {
            reactivate(&h, 0);
            host_work(&h); /* b loaded on the worker now */
        }
        host_cycle(&h, &in, &out, BLOCK);
    }
    assert_true(strstr(h.notified_status, "no such file") != NULL);
    assert_string_equal(h.notified_path, a_path);
    saved_path(&h, saved, sizeof saved);
    const double err = error_against(a, TAPS_A, x, y, from, from, frames);
    printf("a load superseded across an activation, the newer one failed: %s plays (relative "
           "L2 error %.3g), save() stores %s\n", h.notified_path, err, saved);
    assert_string_equal(saved, a_path);
    assert_true(err < TOLERANCE);
    host_close(&h);
    free(a), free(b), free(x), free(y);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_activate_while_a_load_waits),
        cmocka_unit_test(test_load_dropped_at_deactivation),
        cmocka_unit_test(test_saved_path_after_a_superseded_load),
        cmocka_unit_test(test_answer_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
