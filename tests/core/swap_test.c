/*
 * swap_test.c - changing a running plan's filter (gfir_filter_create,
 * gfir_plan_swap, gfir_plan_retired) on every CPU engine, against the
 * crossfade computed in float64 (tests/common/swap_check.h): a new random
 * filter every 10 ms at 48 kHz with crossfades of 0 to 5 ms, in random
 * calls of 1 to 1000 frames.
 *
 * The case, 60 s of audio, runs on the gold and direct kernels and
 * on both FFT engines at lengths where the float64 reference (one dot
 * product per output and filter) stays within seconds. The FFT engines'
 * long filters, where the zero-latency engine spreads its partitions over
 * calls (from 4097 taps) and the threaded paths, run on shorter signals
 * (0.5 to 4 s) for that reason: their reference costs the filter's length
 * per output. Then routed plans, swapping a filter back in, reset and
 * flush during a fade, the refusals, and a filter made on another thread
 * while the plan runs.
 */
#include "gfir.h"
#include "test_util.h"

#include "core/plan.h"

#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>

#include <cmocka.h>

#include "swap_check.h"

#define RATE 48000
#define EVERY (RATE / 100) /* 10 ms */

/* A CPU case of one channel on one thread, with a swap every 10 ms and
 * fades of up to 5 ms, in calls of up to 1000 frames; each test changes
 * what it needs. */
static swap_case cpu_case(const char *name, gfir_kernel kernel, size_t ntaps, size_t block)
{
    const swap_case tc = {.name = name, .backend = GFIR_BACKEND_CPU, .kernel = kernel,
                          .inputs = 1, .sets = 1, .ntaps = ntaps, .block = block, .threads = 1,
                          .frames = RATE, .every = EVERY, .fade_min = 0, .fade_max = RATE / 200,
                          .max_call = 1000};
    return tc;
}

/* The case: 60 s, a swap every 10 ms. */
static void test_sixty_seconds(void **state)
{
    (void)state;
    swap_case tc = cpu_case("gold, stereo, 31 taps", GFIR_KERNEL_GOLD, 31, 256);
    tc.inputs = tc.sets = 2;
    tc.frames = 60 * RATE;
    swap_check(&tc);

    tc = cpu_case("direct, mono, 127 taps", GFIR_KERNEL_DIRECT, 127, 256);
    tc.frames = 60 * RATE;
    swap_check(&tc);

    tc = cpu_case("fft uniform, P 64, mono, 200 taps", GFIR_KERNEL_FFT, 200, 256);
    tc.budget = 64;
    tc.frames = 60 * RATE;
    swap_check(&tc);

    tc = cpu_case("fft zero latency, mono, 300 taps", GFIR_KERNEL_FFT, 300, 256);
    tc.frames = 60 * RATE;
    swap_check(&tc);
}

/* Long filters: the uniform engine's many partitions, and the zero-latency
 * engine's spread levels (1024 from 4097 taps, 8192 from 32769), swapped
 * while their blocks are in flight, with fades across blocks. */
static void test_long_filters(void **state)
{
    (void)state;
    swap_case tc = cpu_case("fft uniform, P 1024, stereo, 5000 taps", GFIR_KERNEL_FFT, 5000,
                            1024);
    tc.budget = 1024;
    tc.inputs = tc.sets = 2;
    tc.frames = 2 * RATE;
    swap_check(&tc);

    /* offline, one partition: a hop of 28674 frames, calls longer than it */
    tc = cpu_case("fft uniform, one partition of 32768 points, stereo, 4095 taps",
                  GFIR_KERNEL_FFT, 4095, 65536);
    tc.budget = GFIR_LATENCY_ANY;
    tc.inputs = tc.sets = 2;
    tc.frames = 3 * RATE;
    tc.max_call = 40000;
    swap_check(&tc);

    tc = cpu_case("fft zero latency, stereo, 9000 taps", GFIR_KERNEL_FFT, 9000, 256);
    tc.inputs = 2;
    tc.max_call = 300;
    swap_check(&tc);

    tc = cpu_case("fft zero latency, mono, 40000 taps", GFIR_KERNEL_FFT, 40000, 512);
    tc.every = tc.fade_max = 3 * EVERY;
    tc.max_call = 700;
    tc.sampled = 1;
    swap_check(&tc);
}

/* Big calls on two threads, where each engine shares a block out to its
 * workers: the direct engine's output ranges, the uniform engine's
 * channels, the zero-latency engine's lanes. Fades of 2000 to 6000 frames,
 * so that calls inside them are big too. */
static swap_case threaded(swap_case tc)
{
    tc.threads = 2;
    tc.every = 6000;
    tc.fade_min = 2000;
    tc.fade_max = 6000;
    tc.max_call = 8192;
    return tc;
}

static void test_threads(void **state)
{
    (void)state;
    swap_case tc = threaded(cpu_case("direct, 4 channels, threads", GFIR_KERNEL_DIRECT, 512,
                                     4096));
    tc.inputs = tc.sets = 4;
    swap_check(&tc);

    tc = threaded(cpu_case("fft uniform, 4 channels, threads", GFIR_KERNEL_FFT, 32768, 1024));
    tc.budget = GFIR_LATENCY_ANY;
    tc.inputs = 4;
    tc.frames = RATE / 2;
    tc.sampled = 1;
    swap_check(&tc);

    tc = threaded(cpu_case("fft uniform, one partition, 4 channels, threads", GFIR_KERNEL_FFT,
                           2000, 65536));
    tc.budget = GFIR_LATENCY_ANY;
    tc.inputs = 4;
    tc.max_call = 30000;
    swap_check(&tc);

    tc = threaded(cpu_case("fft zero latency, stereo, threads", GFIR_KERNEL_FFT, 5000, 8192));
    tc.inputs = tc.sets = 2;
    swap_check(&tc);
}

/* The uniform engine shares one channel's multiply-accumulate out by bins
 * only with many long partitions (32 of 32768 here), where a float64
 * reference of every sample would take minutes: the same case on one
 * thread, checked against float64 above at smaller sizes, must give the
 * same samples, since each bin's sum is the same whoever computes it. */
static void test_threads_mono_bins(void **state)
{
    (void)state;
    swap_case tc = threaded(cpu_case("fft uniform, mono bins, threads", GFIR_KERNEL_FFT,
                                     32 * 32768, 32768));
    swap_run two, one;
    uint64_t rng = 17;
    tc.budget = 32768; /* offline (no budget) the partitions would be 131072 */
    tc.frames = 6 * 32768;
    tc.every = 20000;
    tc.fade_min = 10000;
    tc.fade_max = 20000;
    tc.max_call = 40000;
    memset(&two, 0, sizeof two);
    memset(&one, 0, sizeof one);
    swap_stream(&tc, &two, &rng);
    tc.threads = 1;
    rng = 17;
    swap_stream(&tc, &one, &rng);
    assert_int_equal(two.latency, 32768);
    for (size_t i = 0; i < tc.frames; i++)
        if (two.y[i] != one.y[i])
            fail_msg("frame %zu: %.9g on two threads, %.9g on one", i, two.y[i], one.y[i]);
    swap_run_free(&two);
    swap_run_free(&one);
}

/* Routed plans: every path's channel fades, and the outputs are their sums. */
static void test_routed(void **state)
{
    (void)state;
    static const gfir_path three_to_two[] = {
        {0, 0, 0, 0.7f}, {1, 0, 1, -0.4f}, {1, 1, 0, 1.0f}, {2, 1, 1, 0.5f}, {0, 1, 1, 0.25f},
    };
    static const gfir_kernel kernels[] = {GFIR_KERNEL_GOLD, GFIR_KERNEL_DIRECT, GFIR_KERNEL_FFT,
                                          GFIR_KERNEL_FFT, GFIR_KERNEL_FFT};
    static const size_t budgets[] = {0, 0, 128, 0, GFIR_LATENCY_ANY};
    static const size_t taps[] = {40, 90, 300, 600, 1000};
    static const char *const names[] = {"routed gold", "routed direct", "routed fft uniform",
                                        "routed fft zero latency",
                                        "routed fft uniform, one partition of 8192 points"};
    for (size_t k = 0; k < 5; k++) {
        swap_case tc = cpu_case(names[k], kernels[k], taps[k], 256);
        tc.budget = budgets[k];
        tc.inputs = 3;
        tc.outputs = 2;
        tc.sets = 2;
        tc.paths = three_to_two;
        tc.npaths = 5;
        tc.frames = 2 * RATE;
        tc.max_call = 600;
        swap_check(&tc);
    }
}

static gfir_plan *mono_plan(gfir_kernel kernel, size_t budget, const float *taps, size_t ntaps)
{
    gfir_plan *plan = NULL;
    gfir_config cfg;
    gfir_config_init(&cfg);
    cfg.backend = GFIR_BACKEND_CPU;
    cfg.kernel = kernel;
    cfg.max_latency_frames = budget;
    cfg.max_block_frames = 256;
    cfg.threads = 1;
    assert_int_equal(gfir_plan_create(&plan, taps, ntaps, &cfg), GFIR_OK);
    return plan;
}

/* A retired filter swapped in again: A, B, A, B, each time the same as a
 * plan made with that filter, once the fade is over and the history has
 * passed through (reset between). */
static void test_reuse(void **state)
{
    (void)state;
    enum { NT = 500, N = 4000 };
    uint64_t rng = 7;
    float a[NT], b[NT], x[N], y[N], want[N];
    gfir_filter *fa = NULL, *fb = NULL;
    test_fill(a, NT, &rng);
    test_fill(b, NT, &rng);
    test_fill(x, N, &rng);
    for (size_t k = 0; k < 3; k++) {
        const gfir_kernel kernel = k == 0 ? GFIR_KERNEL_DIRECT : GFIR_KERNEL_FFT;
        gfir_plan *plan = mono_plan(kernel, k == 1 ? 256 : 0, a, NT);
        gfir_plan *ref_a = mono_plan(kernel, k == 1 ? 256 : 0, a, NT);
        gfir_plan *ref_b = mono_plan(kernel, k == 1 ? 256 : 0, b, NT);
        assert_int_equal(gfir_filter_create(&fb, plan, b, NT), GFIR_OK);
        assert_null(gfir_plan_retired(plan));
        for (int round = 0; round < 4; round++) {
            gfir_filter *in = round % 2 == 0 ? fb : fa;
            gfir_plan *ref = round % 2 == 0 ? ref_b : ref_a;
            assert_int_equal(gfir_plan_swap(plan, in, 100), GFIR_OK);
            assert_int_equal(gfir_plan_execute(plan, x, y, 100), GFIR_OK);
            assert_int_equal(gfir_plan_reset(plan), GFIR_OK);
            gfir_filter *out = gfir_plan_retired(plan);
            assert_non_null(out);
            assert_null(gfir_plan_retired(plan));
            if (round == 0)
                fa = out; /* the plan's first filter, now the caller's */
            else
                assert_ptr_equal(out, round % 2 == 0 ? fa : fb);
            assert_int_equal(gfir_plan_execute(plan, x, y, N), GFIR_OK);
            assert_int_equal(gfir_plan_reset(ref), GFIR_OK);
            assert_int_equal(gfir_plan_execute(ref, x, want, N), GFIR_OK);
            for (size_t i = 0; i < N; i++)
                if (fabsf(y[i] - want[i]) > 1e-5f * (1.0f + fabsf(want[i])))
                    fail_msg("round %d, frame %zu: %.9g, a plan made with it %.9g", round, i,
                             y[i], want[i]);
        }
        gfir_plan_destroy(plan); /* holds fa again */
        gfir_filter_destroy(fb);
        gfir_plan_destroy(ref_a);
        gfir_plan_destroy(ref_b);
    }
}

/* Reset during a fade ends it with the new filter, from a clear history;
 * flush during a fade fades the tail. */
static void test_reset_and_flush(void **state)
{
    (void)state;
    enum { NT = 300, N = 2000, L = 700 };
    uint64_t rng = 11;
    float a[NT], b[NT], x[N], y[N];
    double want[N], yb[N];
    for (size_t k = 0; k < 3; k++) {
        const gfir_kernel kernel = k == 0 ? GFIR_KERNEL_DIRECT : GFIR_KERNEL_FFT;
        const size_t budget = k == 1 ? 64 : 0;
        gfir_plan *plan;
        gfir_filter *fb;
        test_fill(a, NT, &rng);
        test_fill(b, NT, &rng);
        test_fill(x, N, &rng);
        plan = mono_plan(kernel, budget, a, NT);
        const size_t P = gfir_plan_latency(plan);

        assert_int_equal(gfir_filter_create(&fb, plan, b, NT), GFIR_OK);
        assert_int_equal(gfir_plan_execute(plan, x, y, 333), GFIR_OK);
        assert_int_equal(gfir_plan_swap(plan, fb, L), GFIR_OK);
        assert_int_equal(gfir_plan_execute(plan, x, y, 100), GFIR_OK);
        assert_int_equal(gfir_plan_reset(plan), GFIR_OK);
        assert_int_equal(gfir_plan_execute(plan, x, y, N), GFIR_OK);
        test_reference(x, N, 1, b, NT, 1, yb);
        for (size_t i = 0; i < N; i++)
            want[i] = i >= P ? yb[i - P] : 0.0;
        assert_true(test_rel_l2(y, want, N) < SWAP_TOLERANCE);

        /* the signal, a swap back to a, then its tail flushed through the fade */
        gfir_filter *fa = gfir_plan_retired(plan);
        double ya[N + NT];
        float xx[N + NT], out[N + NT];
        assert_non_null(fa);
        assert_int_equal(gfir_plan_reset(plan), GFIR_OK);
        memcpy(xx, x, sizeof x);
        memset(xx + N, 0, NT * sizeof *xx);
        assert_int_equal(gfir_plan_execute(plan, x, out, N), GFIR_OK);
        assert_int_equal(gfir_plan_swap(plan, fa, L), GFIR_OK);
        assert_int_equal(gfir_plan_flush(plan, out + N, NT), GFIR_OK);
        /* every engine fades from the next frame here, the zero-latency one
         * too: 300 taps are its first level alone, whose share it makes at
         * once (only larger levels make the fade wait) */
        const size_t D = plan->fade_delay;
        assert_int_equal(D, 0);
        test_reference(xx, N + NT, 1, a, NT, 1, ya);
        double full[N + NT], ybb[N + NT];
        test_reference(xx, N + NT, 1, b, NT, 1, ybb);
        for (size_t i = 0; i < N + NT; i++) {
            const double w =
                i < N + D ? 0.0
                          : 0.5 - 0.5 * cos(3.14159265358979323846 *
                                            ((double)(i - N - D) + 0.5) / L);
            full[i] = i >= P ? (1.0 - w) * ybb[i - P] + w * ya[i - P] : 0.0;
        }
        assert_true(test_rel_l2(out, full, N + NT) < SWAP_TOLERANCE);
        gfir_plan_destroy(plan);
    }
}

/* The zero-latency engine takes swaps at any length, 2^20 taps in 64-frame
 * calls of odd sizes included: it makes the new filter's blocks over the
 * calls before the fade begins, at most two of its longest partitions
 * (65536 frames) and a grid block after the swap, and the output is the
 * crossfade from there
 * against float64 (sampled: 2^20-tap sums). */
static void test_long_swaps(void **state)
{
    (void)state;
    swap_case tc = cpu_case("fft zero latency, mono, 2^20 taps, 64-frame calls",
                            GFIR_KERNEL_FFT, (size_t)1 << 20, 64);
    tc.every = 140001;
    tc.fade_min = 1;
    tc.fade_max = 9000;
    tc.frames = 4 * tc.every + 50000;
    tc.max_call = 97;
    tc.sampled = 1;
    swap_check(&tc);
}

/* The zero-latency engine makes a level's blocks for both filters only
 * where they are read within the fade, the current filter's alone before it
 * and the incoming one's after it: fades from one frame to several of the
 * 2048- and 8192-frame partitions of a 40000-tap plan (head 256), four
 * channels with a tap set each, odd calls. */
static void test_fade_spans(void **state)
{
    (void)state;
    swap_case tc = cpu_case("fft zero latency, 4 channels, 40000 taps, fades to 20000 frames",
                            GFIR_KERNEL_FFT, 40000, 512);
    tc.inputs = tc.sets = 4;
    tc.every = 47017;
    tc.fade_min = 1;
    tc.fade_max = 20000;
    tc.frames = 5 * tc.every;
    tc.max_call = 517;
    tc.sampled = 1;
    swap_check(&tc);
}

static void test_refusals(void **state)
{
    (void)state;
    enum { NT = 64 };
    uint64_t rng = 3;
    float h[2 * NT], x[64], y[64];
    gfir_filter *f = NULL, *g = NULL, *other = NULL;
    test_fill(h, 2 * NT, &rng);
    test_fill(x, 64, &rng);
    gfir_plan *plan = mono_plan(GFIR_KERNEL_DIRECT, 0, h, NT);
    gfir_plan *plan2 = mono_plan(GFIR_KERNEL_DIRECT, 0, h, NT);

    assert_int_equal(gfir_filter_create(NULL, plan, h, NT), GFIR_ERR_NULL);
    assert_int_equal(gfir_filter_create(&f, NULL, h, NT), GFIR_ERR_NULL);
    assert_null(f);
    assert_int_equal(gfir_filter_create(&f, plan, NULL, NT), GFIR_ERR_NULL);
    assert_int_equal(gfir_filter_create(&f, plan, h, 0), GFIR_ERR_TAPS);
    assert_int_equal(gfir_filter_create(&f, plan, h, NT + 1), GFIR_ERR_TAPS);
    assert_true(strstr(gfir_plan_error_detail(NULL), "1 to 64") != NULL);
    h[5] = NAN;
    assert_int_equal(gfir_filter_create(&f, plan, h, NT), GFIR_ERR_TAPS);
    assert_true(strstr(gfir_plan_error_detail(NULL), "not finite") != NULL);
    h[5] = 0.5f;

    assert_int_equal(gfir_filter_create(&f, plan, h, NT), GFIR_OK);
    assert_int_equal(gfir_filter_create(&g, plan, h + NT, 10), GFIR_OK);
    assert_int_equal(gfir_filter_create(&other, plan2, h, NT), GFIR_OK);
    assert_int_equal(gfir_plan_swap(NULL, f, 0), GFIR_ERR_NULL);
    assert_int_equal(gfir_plan_swap(plan, NULL, 0), GFIR_ERR_NULL);
    assert_int_equal(gfir_plan_swap(plan, other, 0), GFIR_ERR_ARG);
    assert_int_equal(gfir_plan_swap(plan, f, 1000), GFIR_OK);
    assert_int_equal(gfir_plan_swap(plan, f, 10), GFIR_ERR_ARG); /* held already */
    assert_int_equal(gfir_plan_swap(plan, g, 10), GFIR_ERR_BUSY);
    gfir_filter_destroy(f); /* held: ignored, the plan frees it */
    assert_int_equal(gfir_plan_execute(plan, x, y, 64), GFIR_OK);
    assert_int_equal(gfir_plan_swap(plan, g, 10), GFIR_ERR_BUSY);
    assert_null(gfir_plan_retired(plan));
    for (int i = 0; i < 15; i++)
        assert_int_equal(gfir_plan_execute(plan, x, y, 64), GFIR_OK);
    assert_null(gfir_plan_retired(NULL));
    gfir_filter *first = gfir_plan_retired(plan);
    assert_non_null(first);
    assert_int_equal(gfir_plan_swap(plan, g, 0), GFIR_OK);
    assert_int_equal(gfir_plan_execute(plan, x, y, 1), GFIR_OK);
    assert_ptr_equal(gfir_plan_retired(plan), f);
    gfir_filter_destroy(f);
    gfir_filter_destroy(first);
    gfir_filter_destroy(NULL);
    gfir_plan_destroy(plan);
    /* a filter outlives its plan */
    gfir_plan_destroy(plan2);
    gfir_filter_destroy(other);
}

/* Filters made on another thread while the plan runs, handed over through
 * an atomic mailbox and swapped in by the executing thread, which records
 * where: the output matches the crossfade at those frames. */
typedef struct mailbox {
    gfir_plan *plan;
    const float *taps;          /* the filters' taps, ntaps each, in order */
    size_t ntaps, count;
    _Atomic(gfir_filter *) box;
    atomic_int stop;
} mailbox;

static void *maker(void *arg)
{
    mailbox *m = arg;
    for (size_t i = 0; i < m->count && !atomic_load(&m->stop); i++) {
        gfir_filter *f = NULL;
        if (gfir_filter_create(&f, m->plan, m->taps + i * m->ntaps, m->ntaps) != GFIR_OK)
            return NULL;
        while (atomic_load(&m->box) != NULL && !atomic_load(&m->stop))
            ;
        atomic_store(&m->box, f);
    }
    return NULL;
}

static void test_made_on_another_thread(void **state)
{
    (void)state;
    static const gfir_kernel kernels[] = {GFIR_KERNEL_DIRECT, GFIR_KERNEL_FFT, GFIR_KERNEL_FFT};
    static const size_t budgets[] = {0, 128, 0};
    enum { NT = 2000, COUNT = 20, N = 20 * 2048, CALL = 128, L = 300 };
    for (size_t k = 0; k < 3; k++) {
        uint64_t rng = 99 + k;
        float *taps = malloc((COUNT + 1) * NT * sizeof *taps);
        swap_case tc = cpu_case("filters from another thread", kernels[k], NT, CALL);
        swap_run r;
        mailbox m;
        pthread_t t;
        memset(&r, 0, sizeof r);
        assert_non_null(taps);
        test_fill(taps, (COUNT + 1) * NT, &rng);
        r.taps = taps;
        r.at = calloc(COUNT + 1, sizeof *r.at);
        r.fade = calloc(COUNT + 1, sizeof *r.fade);
        r.delay = calloc(COUNT + 1, sizeof *r.delay);
        r.x = malloc(N * sizeof *r.x);
        r.y = malloc(N * sizeof *r.y);
        assert_true(r.at && r.fade && r.delay && r.x && r.y);
        test_fill(r.x, N, &rng);
        tc.budget = budgets[k];
        tc.frames = N;
        m.plan = mono_plan(kernels[k], budgets[k], taps, NT);
        m.taps = taps + NT;
        m.ntaps = NT;
        m.count = COUNT;
        atomic_init(&m.box, NULL);
        atomic_init(&m.stop, 0);
        r.latency = gfir_plan_latency(m.plan);
        r.nfilters = 1;
        assert_int_equal(pthread_create(&t, NULL, maker, &m), 0);
        for (size_t pos = 0; pos < N; pos += CALL) {
            gfir_filter *f = atomic_load(&m.box);
            /* now and then, wait for the next filter, so that all arrive */
            while (!f && pos % (N / COUNT) == 0 && r.nfilters <= COUNT) {
                sched_yield();
                f = atomic_load(&m.box);
            }
            int swapped = 0;
            if (f) {
                gfir_status st = gfir_plan_swap(m.plan, f, L);
                if (st == GFIR_OK) {
                    r.at[r.nfilters] = pos;
                    r.fade[r.nfilters++] = L;
                    atomic_store(&m.box, NULL);
                    swapped = 1;
                } else
                    assert_int_equal(st, GFIR_ERR_BUSY);
            }
            assert_int_equal(gfir_plan_execute(m.plan, r.x + pos, r.y + pos, CALL), GFIR_OK);
            if (swapped)
                r.delay[r.nfilters - 1] = m.plan->fade_delay;
            for (gfir_filter *old; (old = gfir_plan_retired(m.plan)) != NULL;)
                gfir_filter_destroy(old);
        }
        atomic_store(&m.stop, 1);
        pthread_join(t, NULL);
        gfir_filter_destroy(atomic_load(&m.box));
        assert_int_equal(r.nfilters, COUNT + 1);
        uint64_t rng2 = 5;
        swap_compare(&tc, &r, &rng2);
        gfir_plan_destroy(m.plan);
        swap_run_free(&r);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sixty_seconds),
        cmocka_unit_test(test_long_filters),
        cmocka_unit_test(test_threads),
        cmocka_unit_test(test_threads_mono_bins),
        cmocka_unit_test(test_routed),
        cmocka_unit_test(test_reuse),
        cmocka_unit_test(test_reset_and_flush),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_long_swaps),
        cmocka_unit_test(test_fade_spans),
        cmocka_unit_test(test_made_on_another_thread),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
