/*
 * runner_test.c - the LV2 plugins' runner (src/lv2/runner.h) on its own:
 * every plan and filter it is handed or makes is freed exactly once, by the
 * worker (the garbage run() sends it) or at cleanup (gl_runner_free), also
 * while the host's queue refuses that garbage for long stretches (a worker
 * that never gets to empty the trash) and activations replace the running
 * plan and make the answers asked for before them of an older generation,
 * thrown away. The trash once held 16 and then dropped what came: a plan
 * replaced at activation, an answer thrown away, never freed.
 *
 * The library's create, swap, retire and destroy are wrapped at link time
 * (-Wl,--wrap, as tests/core/realtime_test wraps malloc) to follow each
 * object's owner: a filter swapped into a plan belongs to it (the plan frees
 * it) until gfir_plan_retired hands it back.
 */
#include "lv2/runner.h"
#include "test_util.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

/* ---- owners, followed through the wrapped library calls --------------------------- */

enum { MAX_OBJECTS = 4096 };
typedef struct object {
    const void *p;
    int is_plan;
    const gfir_plan *owner;     /* a filter swapped in: the plan that holds it */
} object;
static object live[MAX_OBJECTS];
static size_t nlive, made, freed, errors;

static object *find(const void *p)
{
    for (size_t i = 0; i < nlive; i++)
        if (live[i].p == p)
            return &live[i];
    return NULL;
}

static void add(const void *p, int is_plan)
{
    assert_true(nlive < MAX_OBJECTS);
    live[nlive++] = (object){p, is_plan, NULL};
    made++;
}

static void drop(object *o)
{
    *o = live[--nlive];
    freed++;
}

gfir_status __real_gfir_plan_create(gfir_plan **plan, const float *taps, size_t ntaps,
                                    const gfir_config *cfg);
void __real_gfir_plan_destroy(gfir_plan *plan);
gfir_status __real_gfir_filter_create(gfir_filter **filter, const gfir_plan *plan,
                                      const float *taps, size_t ntaps);
void __real_gfir_filter_destroy(gfir_filter *filter);
gfir_status __real_gfir_plan_swap(gfir_plan *plan, gfir_filter *filter, size_t crossfade_frames);
gfir_filter *__real_gfir_plan_retired(gfir_plan *plan);

gfir_status __wrap_gfir_plan_create(gfir_plan **plan, const float *taps, size_t ntaps,
                                    const gfir_config *cfg)
{
    const gfir_status st = __real_gfir_plan_create(plan, taps, ntaps, cfg);
    if (st == GFIR_OK)
        add(*plan, 1);
    return st;
}

gfir_status __wrap_gfir_filter_create(gfir_filter **filter, const gfir_plan *plan,
                                      const float *taps, size_t ntaps)
{
    const gfir_status st = __real_gfir_filter_create(filter, plan, taps, ntaps);
    if (st == GFIR_OK)
        add(*filter, 0);
    return st;
}

gfir_status __wrap_gfir_plan_swap(gfir_plan *plan, gfir_filter *filter, size_t crossfade_frames)
{
    const gfir_status st = __real_gfir_plan_swap(plan, filter, crossfade_frames);
    object *o = find(filter);
    if (st == GFIR_OK && o)
        o->owner = plan;
    return st;
}

gfir_filter *__wrap_gfir_plan_retired(gfir_plan *plan)
{
    gfir_filter *f = __real_gfir_plan_retired(plan);
    object *o = f ? find(f) : NULL;
    if (o)
        o->owner = NULL;
    return f;
}

void __wrap_gfir_filter_destroy(gfir_filter *filter)
{
    object *o = filter ? find(filter) : NULL;
    if (filter && (!o || o->is_plan || o->owner)) {
        errors++; /* freed twice, or freed while a plan holds it */
        fprintf(stderr, "runner_test: filter %p freed twice or while held\n", (void *)filter);
    } else if (o) {
        drop(o);
    }
    __real_gfir_filter_destroy(filter);
}

void __wrap_gfir_plan_destroy(gfir_plan *plan)
{
    object *o = plan ? find(plan) : NULL;
    if (plan && (!o || !o->is_plan)) {
        errors++;
        fprintf(stderr, "runner_test: plan %p freed twice\n", (void *)plan);
    } else if (o) {
        drop(o);
        /* the filters it holds go with it */
        for (size_t i = nlive; i-- > 0;)
            if (live[i].owner == plan)
                drop(&live[i]);
    }
    __real_gfir_plan_destroy(plan);
}

/* ---- the host's queue: refuses while closed, keeps what it takes ------------------- */

enum { QUEUE = 4096, MESSAGE_BYTES = 64 };
typedef struct queue {
    int open;
    size_t n;
    uint32_t size[QUEUE];
    uint64_t data[QUEUE][MESSAGE_BYTES / 8];
} queue;
static queue q;

static LV2_Worker_Status schedule(LV2_Worker_Schedule_Handle handle, uint32_t size,
                                  const void *data)
{
    (void)handle;
    if (!q.open || q.n == QUEUE || size > MESSAGE_BYTES)
        return LV2_WORKER_ERR_NO_SPACE;
    q.size[q.n] = size;
    memcpy(q.data[q.n++], data, size);
    return LV2_WORKER_SUCCESS;
}

/* the worker: frees what the garbage holds */
static void work(void)
{
    for (size_t i = 0; i < q.n; i++)
        assert_int_equal(gl_runner_take_garbage(q.size[i], q.data[i]), 1);
    q.n = 0;
}

/* ---- the plugins' part ------------------------------------------------------------- */

enum { BLOCK = 64, FADE = 48 };
static const gl_shape mono = {1, 1, 1, 0, {{0}}, GFIR_BACKEND_CPU};

/* what the worker builds for taps of ntaps against what runs (cur: as a
 * request carries it; NULL: as activate() builds, a new plan) */
static gl_handover build(const gl_runner *r, size_t ntaps, const gfir_plan *cur, uint64_t *rng)
{
    float taps[600];
    char why[256], note[256];
    gl_handover h;
    assert_true(ntaps <= sizeof taps / sizeof *taps);
    test_fill(taps, ntaps, rng);
    assert_int_equal(gl_build(r, &mono, taps, ntaps, (gfir_plan *)cur, cur ? &r->shape : NULL,
                              &h, why, sizeof why, note, sizeof note),
                     0);
    h.generation = r->generation;
    return h;
}

static void process(gl_runner *r, uint64_t *rng)
{
    const size_t n = 1 + (size_t)(test_uniform(rng) * BLOCK);
    test_fill(r->in, n, rng);
    gl_runner_process(r, n);
}

static void check_all_freed(void)
{
    printf("%zu plans and filters made, %zu freed, %zu freed wrongly\n", made, freed, errors);
    assert_int_equal(errors, 0);
    assert_int_equal(nlive, 0);
    assert_int_equal(made, freed);
}

/* The plugins' life: a request when the runner is settled (a filter that
 * fits the running plan, or a new plan, in turn), answered three calls
 * later; an activation every other call (a new plan, as gfir filter's,
 * two times in three, else none, as gfir convolver's); the host's queue closed for 75 calls out of
 * every 100, the worker emptying it only now and then, and the rest at the
 * end (a host works everything it took). */
static void test_every_object_freed_once(void **state)
{
    enum { CALLS = 400 };
    static LV2_Worker_Schedule s = {NULL, schedule};
    static const size_t lengths[] = {200, 500, 300};
    gl_runner r;
    gl_handover answer;
    int asked = 0;
    size_t asked_at = 0, requests = 0, activations = 0, peak = 0;
    uint64_t rng = 51;
    (void)state;
    memset(&q, 0, sizeof q);
    assert_int_equal(gl_runner_init(&r, 1, 1, BLOCK, FADE), 0);
    gl_handover first = build(&r, 300, NULL, &rng);
    assert_int_equal(gl_runner_reset(&r, &first), 0);
    for (size_t k = 0; k < CALLS; k++) {
        q.open = k % 100 >= 75;
        gl_runner_send_garbage(&r, &s);
        if (q.open && k % 5 == 0)
            work();
        if (!asked && gl_runner_settled(&r)) {
            answer = build(&r, lengths[requests++ % 3], r.plan, &rng);
            gl_runner_asked(&r);
            asked = 1, asked_at = k;
        }
        process(&r, &rng);
        if (k % 2 == 1) {
            gl_handover h = build(&r, lengths[k % 3], NULL, &rng);
            const int with_plan = k % 3 != 0;
            activations++;
            if (gl_runner_reset(&r, with_plan ? &h : NULL) || !with_plan)
                gl_handover_free(&h);
        }
        if (asked && k - asked_at >= 3) {
            gl_runner_answer(&r, &answer);
            asked = 0;
        }
        peak = r.ntrash > peak ? r.ntrash : peak;
    }
    if (asked)
        gl_runner_answer(&r, &answer);
    work();
    gl_runner_free(&r);
    printf("%zu requests, %zu activations, at most %zu waiting in the trash\n", requests,
           activations, peak);
    check_all_freed();
    assert_true(peak > GL_TRASH); /* the trash was full: the case tested */
}

/* An answer asked for before GL_TRASH + 4 activations that each replaced
 * the plan while the queue was closed, thrown away after them: it finds
 * its slot kept. */
static void test_answer_after_activations(void **state)
{
    static LV2_Worker_Schedule s = {NULL, schedule};
    gl_runner r;
    uint64_t rng = 52;
    (void)state;
    memset(&q, 0, sizeof q);
    made = freed = errors = 0;
    assert_int_equal(gl_runner_init(&r, 1, 1, BLOCK, FADE), 0);
    gl_handover first = build(&r, 300, NULL, &rng);
    assert_int_equal(gl_runner_reset(&r, &first), 0);
    process(&r, &rng);
    assert_true(gl_runner_settled(&r));
    gl_handover answer = build(&r, 200, r.plan, &rng); /* a filter for the running plan */
    gl_runner_asked(&r);
    for (int k = 0; k < GL_TRASH + 4; k++) {
        gl_handover h = build(&r, 300, NULL, &rng);
        assert_int_equal(gl_runner_reset(&r, &h), 0);
        gl_runner_send_garbage(&r, &s);
        process(&r, &rng);
    }
    assert_int_equal(gl_runner_answer(&r, &answer), 1); /* of an older generation */
    gl_runner_free(&r);
    check_all_freed();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_object_freed_once),
        cmocka_unit_test(test_answer_after_activations),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
