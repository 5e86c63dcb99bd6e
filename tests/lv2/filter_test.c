/*
 * filter_test.c - gfir filter in a liblilv host (host.h): control changes
 * designed on the worker and handed over while the audio runs, in calls of
 * 64 frames. The latency port must say the delay of the filter whose output
 * leaves the call, so the test takes each handover's frame from the port
 * alone and checks the output against float64 with those frames: a new
 * filter for the running plan (the library's crossfade), a second one asked
 * for during that fade (it waits for the fade to end, and so must the
 * port), and a longer one that needs a new plan (primed with the input it
 * has missed, then crossfaded). Every filter as if it had always run;
 * relative L2 error under 1e-5 (float taps, sums of up to 1200 products
 * stay near 1e-7; a handover a call off is far above).
 */
#include "gfir.h"
#include "host.h"
#include "test_util.h"

#include <malloc.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#define RATE 48000.0
#define FADE 2400 /* gl_fade_frames at 48 kHz: 50 ms */
#define BLOCK 64
#define TOLERANCE 1e-5

typedef struct design {
    float *taps;
    size_t ntaps;
} design;

/* A lowpass at 4 kHz, 80 dB, as the plugin designs it from its controls. */
static design lowpass(double transition_hz)
{
    design d;
    assert_int_equal(gfir_design_length(GFIR_LOWPASS, RATE, transition_hz, 80, &d.ntaps), GFIR_OK);
    assert_non_null(d.taps = malloc(d.ntaps * sizeof *d.taps));
    assert_int_equal(gfir_design_kaiser(GFIR_LOWPASS, RATE, 4000, 0, transition_hz, 80, d.taps,
                                        d.ntaps),
                     GFIR_OK);
    return d;
}

static double convolve(const design *d, const float *x, size_t i)
{
    double y = 0;
    for (size_t k = 0; k < d->ntaps && k <= i; k++)
        y += (double)d->taps[k] * x[i - k];
    return y;
}

static void test_latency_follows_the_handover(void **state)
{
    enum { CALLS = 400, NDESIGNS = 4 };
    static const double transitions[NDESIGNS] = {400, 440, 480, 200};
    design d[NDESIGNS];
    size_t start[NDESIGNS], found = 0, asked = 1;
    float *x, *y;
    host h;
    uint64_t rng = 35;
    double err = 0, ref = 0, last = -1;
    (void)state;
    for (int i = 0; i < NDESIGNS; i++)
        d[i] = lowpass(transitions[i]);
    /* 1 and 2 fit the first filter's plan; 3 is longer: a new plan */
    assert_true(d[1].ntaps < d[0].ntaps && d[2].ntaps < d[1].ntaps && d[3].ntaps > d[0].ntaps);
    assert_non_null(x = malloc(CALLS * BLOCK * sizeof *x));
    assert_non_null(y = calloc(CALLS * BLOCK, sizeof *y));
    test_fill(x, CALLS * BLOCK, &rng);
    assert_int_equal(host_open(&h, "urn:gfir:lv2:filter-mono", RATE, BLOCK), 0);
    const int transition = host_port(&h, "transition_hz"), latency = host_port(&h, "latency");
    assert_true(transition >= 0 && latency >= 0);
    for (size_t c = 0; c < CALLS; c++) {
        float *in = x + c * BLOCK, *out = y + c * BLOCK;
        /* 1 soon; 2 in the call after 1 took over (its fade runs); 3 long after */
        if ((c == 10 && asked == 1) || (found == 2 && asked == 2) ||
            (found == 3 && asked == 3 && c * BLOCK > start[2] + 2 * FADE))
            h.controls[transition] = (float)transitions[asked++];
        host_cycle(&h, &in, &out, BLOCK);
        if (h.controls[latency] != last) {
            assert_true(found < NDESIGNS);
            assert_int_equal((size_t)h.controls[latency], (d[found].ntaps - 1) / 2);
            start[found++] = c * BLOCK;
            last = h.controls[latency];
        }
    }
    assert_int_equal(found, NDESIGNS);
    for (size_t i = 0; i < CALLS * BLOCK; i++) {
        size_t e = found - 1;
        while (start[e] > i)
            e--;
        double want = convolve(&d[e], x, i);
        if (e > 0 && i - start[e] < FADE) {
            const double w = 0.5 - 0.5 * cos(M_PI * ((double)(i - start[e]) + 0.5) / FADE);
            want = (1 - w) * convolve(&d[e - 1], x, i) + w * want;
        }
        err += (y[i] - want) * (y[i] - want);
        ref += want * want;
    }
    printf("handovers at frames %zu, %zu, %zu (latency %zu, %zu, %zu): relative L2 error %.3g\n",
           start[1], start[2], start[3], (d[1].ntaps - 1) / 2, (d[2].ntaps - 1) / 2,
           (d[3].ntaps - 1) / 2, sqrt(err / ref));
    /* the second waited for the first one's fade */
    assert_true(start[2] >= start[1] + FADE);
    assert_true(sqrt(err / ref) < TOLERANCE);
    host_close(&h);
    for (int i = 0; i < NDESIGNS; i++)
        free(d[i].taps);
    free(x);
    free(y);
}

/* The host deactivates and activates the plugin (as Ardour does around an
 * export) while a design request for a longer filter (a new plan) waits on
 * its worker; that request runs and answers after activate(), which has
 * designed the controls of that moment. The answer must be thrown away: from
 * the activation on the output is the activation's design with no history
 * before it, and with second, a control change after the activation (a new
 * filter for the activation's plan, asked while the stale answer waits to
 * be delivered) crossfades in at the call the latency port names. With
 * twice, two activations with no run() between (the plan the request reads
 * must outlive both: AddressSanitizer reports a use after free where it
 * does not, LeakSanitizer a stale handover overwritten). Relative L2 error
 * under 1e-5, as above. */
static void activate_while_queued(int second, int twice)
{
    enum { CALLS = 200, AT = 21 };
    const size_t from = AT * BLOCK;
    design d1 = lowpass(440), d2 = lowpass(480), stale = lowpass(200);
    size_t start2 = 0;
    float *x, *y;
    host h;
    uint64_t rng = 37;
    double err = 0, ref = 0;
    assert_non_null(x = malloc(CALLS * BLOCK * sizeof *x));
    assert_non_null(y = calloc(CALLS * BLOCK, sizeof *y));
    /* the stale design needs a new plan, the second fits the activation's */
    assert_true(stale.ntaps > d1.ntaps && d2.ntaps < d1.ntaps);
    test_fill(x, CALLS * BLOCK, &rng);
    assert_int_equal(host_open(&h, "urn:gfir:lv2:filter-mono", RATE, BLOCK), 0);
    const int transition = host_port(&h, "transition_hz"), latency = host_port(&h, "latency");
    for (size_t c = 0; c < CALLS; c++) {
        float *in = x + c * BLOCK, *out = y + c * BLOCK;
        if (c == AT - 1) {
            h.controls[transition] = 200; /* longer than the default's: a new plan */
            h.hold_work = 1;
        }
        if (c == AT) {
            for (int k = 0; k < 1 + twice; k++) {
                lilv_instance_deactivate(h.instance);
                h.controls[transition] = 440;
                lilv_instance_activate(h.instance);
            }
            h.hold_work = 0;
            h.hold_responses = 1;
            host_work(&h); /* the request made before, answered now */
            if (second)
                h.controls[transition] = 480;
        }
        if (c == AT + 1)
            h.hold_responses = 0;
        host_cycle(&h, &in, &out, BLOCK);
        if (c >= AT && !start2 && h.controls[latency] != (float)((d1.ntaps - 1) / 2)) {
            assert_true(second);
            assert_int_equal((size_t)h.controls[latency], (d2.ntaps - 1) / 2);
            start2 = c * BLOCK;
        }
    }
    assert_true(!second || start2 > from);
    for (size_t i = from; i < CALLS * BLOCK; i++) {
        /* no history before the activation */
        double want = convolve(&d1, x + from, i - from);
        if (second && i >= start2) {
            const double w = i - start2 >= FADE
                                 ? 1
                                 : 0.5 - 0.5 * cos(M_PI * ((double)(i - start2) + 0.5) / FADE);
            want = (1 - w) * want + w * convolve(&d2, x + from, i - from);
        }
        err += (y[i] - want) * (y[i] - want);
        ref += want * want;
    }
    printf("activated at frame %zu while a request waited%s%s: relative L2 error %.3g\n", from,
           second ? ", a change after" : "", twice ? ", twice" : "", sqrt(err / ref));
    assert_true(sqrt(err / ref) < TOLERANCE);
    host_close(&h);
    free(d1.taps), free(d2.taps), free(stale.taps);
    free(x);
    free(y);
}

static void test_activate_while_a_design_waits(void **state)
{
    (void)state;
    activate_while_queued(0, 0);
    activate_while_queued(1, 0);
    activate_while_queued(1, 1);
}

/* A host with no worker (lv2apply, GStreamer's wrapper: work:schedule is an
 * optional feature of gfir filter) that deactivates and activates the
 * plugin often, as GStreamer does at every pause. activate() designs the
 * controls itself; the plan it replaces has no worker to go to and must be
 * freed there, not kept (the trash of runner.h holds 16, then every further
 * activation lost its plan: tens of kilobytes each). The heap in use may not
 * grow with the activations, and the output after the last is the design's
 * with no history before it (relative L2 error under 1e-5). */
static void test_activations_without_a_worker(void **state)
{
    enum { CALLS = 40, WARM = 20, MORE = 400 };
    design d = lowpass(400);
    float *x, *y;
    host h;
    uint64_t rng = 41;
    double err = 0, ref = 0;
    size_t before = 0;
    (void)state;
    assert_non_null(x = malloc(CALLS * BLOCK * sizeof *x));
    assert_non_null(y = calloc(CALLS * BLOCK, sizeof *y));
    test_fill(x, CALLS * BLOCK, &rng);
    host_without_worker = 1;
    assert_int_equal(host_open(&h, "urn:gfir:lv2:filter-mono", RATE, BLOCK), 0);
    host_without_worker = 0;
    for (int k = 0; k < WARM + MORE; k++) {
        float *in = x, *out = y;
        if (k == WARM)
            before = mallinfo2().uordblks;
        lilv_instance_deactivate(h.instance);
        lilv_instance_activate(h.instance);
        host_cycle(&h, &in, &out, BLOCK);
    }
    const size_t after = mallinfo2().uordblks;
    printf("heap in use after %d activations more: %+.0f kB\n", MORE,
           ((double)after - (double)before) / 1024);
    assert_true(after < before + 256 * 1024);
    lilv_instance_deactivate(h.instance);
    lilv_instance_activate(h.instance);
    for (size_t c = 0; c < CALLS; c++) {
        float *in = x + c * BLOCK, *out = y + c * BLOCK;
        host_cycle(&h, &in, &out, BLOCK);
    }
    for (size_t i = 0; i < CALLS * BLOCK; i++) {
        const double want = convolve(&d, x, i);
        err += (y[i] - want) * (y[i] - want);
        ref += want * want;
    }
    printf("after them: relative L2 error %.3g\n", sqrt(err / ref));
    assert_true(sqrt(err / ref) < TOLERANCE);
    host_close(&h);
    free(d.taps);
    free(x);
    free(y);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_latency_follows_the_handover),
        cmocka_unit_test(test_activate_while_a_design_waits),
        cmocka_unit_test(test_activations_without_a_worker),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
