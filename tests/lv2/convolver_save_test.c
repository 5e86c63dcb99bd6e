/*
 * convolver_save_test.c - gfir convolver's state save() on a thread of its
 * own while run() goes on and the IR changes every few calls (the worker on
 * a thread too, as in jalv): LV2 state lets a host save while it runs the
 * plugin. Every save() must store a path (one IR plays throughout), one of
 * the IRs set, whole. The paths are long and differ in every letter, so
 * that a save reading a path while it is written would store a mixture;
 * under ThreadSanitizer (tools/ci/tsan.sh) the unordered read is itself a
 * report.
 *
 * And what save() stores around a restore whose IR does not load: the
 * restored path until its load answers (the IR that will play), then again
 * the path of the IR that plays on (it kept the restored one).
 */
#include "host.h"
#include "test_util.h"

#include <lv2/state/state.h>

#include <pthread.h>
#include <setjmp.h>
#include <sndfile.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

enum { NAME_LETTERS = 160 };

typedef struct saver {
    host *h;
    const char *paths[2];
    _Atomic int stop;
    int saves, stored, torn;
    char last[4096];
} saver;

static LV2_State_Status store(LV2_State_Handle handle, uint32_t key, const void *value,
                              size_t size, uint32_t type, uint32_t flags)
{
    saver *s = handle;
    (void)key, (void)type, (void)flags;
    s->stored++;
    snprintf(s->last, sizeof s->last, "%.*s", (int)size, (const char *)value);
    if (strcmp(s->last, s->paths[0]) && strcmp(s->last, s->paths[1]))
        s->torn++;
    return LV2_STATE_SUCCESS;
}

/* save() as a host's session thread calls it: no mapPath, so the path as is */
static void *save_loop(void *arg)
{
    saver *s = arg;
    const LV2_State_Interface *state =
        lilv_instance_get_extension_data(s->h->instance, LV2_STATE__interface);
    static const LV2_Feature *const none[] = {NULL};
    while (!atomic_load(&s->stop)) {
        state->save(lilv_instance_get_handle(s->h->instance), store, s, 0, none);
        s->saves++;
        usleep(10); /* a host saves now and then, not in a spin */
    }
    return NULL;
}

static void write_ir(char *path, size_t size, const char *dir, char letter, size_t ntaps,
                     uint64_t *rng)
{
    SF_INFO info = {0, 48000, 1, SF_FORMAT_WAV | SF_FORMAT_FLOAT, 0, 0};
    float *taps = malloc(ntaps * sizeof *taps);
    char name[NAME_LETTERS + 1];
    SNDFILE *sf;
    assert_non_null(taps);
    memset(name, letter, NAME_LETTERS);
    name[NAME_LETTERS] = '\0';
    snprintf(path, size, "%s/%s.wav", dir, name);
    test_fill(taps, ntaps, rng);
    assert_non_null(sf = sf_open(path, SFM_WRITE, &info));
    sf_writef_float(sf, taps, (sf_count_t)ntaps);
    sf_close(sf);
    free(taps);
}

static void test_save_while_running(void **state)
{
    enum { BLOCK = 64, CALLS = 4000, EVERY = 25 };
    char dir[] = "/tmp/gfir_lv2_XXXXXX", a[512], b[512], saved[4096];
    static float x[BLOCK], y[BLOCK];
    float *in = x, *out = y;
    uint64_t rng = 39;
    host h;
    saver s;
    pthread_t thread;
    (void)state;
    assert_non_null(mkdtemp(dir));
    write_ir(a, sizeof a, dir, 'a', 300, &rng);
    write_ir(b, sizeof b, dir, 'b', 200, &rng); /* fits a's plan: a filter swap */
    test_fill(x, BLOCK, &rng);
    assert_int_equal(host_open(&h, "urn:gfir:lv2:convolver-mono", 48000, BLOCK), 0);
    memset(&s, 0, sizeof s);
    s.h = &h;
    s.paths[0] = a, s.paths[1] = b;
    /* b loaded first, its work done between the calls: from then on every
     * save stores a path, whenever the threads run */
    host_set_ir(&h, b);
    for (int k = 0; k < 3; k++)
        host_cycle(&h, &in, &out, BLOCK);
    assert_int_equal(host_saved(&h, "urn:gfir:lv2:ir", saved, sizeof saved), 0);
    assert_string_equal(saved, b);
    assert_int_equal(host_worker_thread(&h, 1), 0);
    assert_int_equal(pthread_create(&thread, NULL, save_loop, &s), 0);
    for (int k = 0; k < CALLS; k++) {
        if (k % EVERY == 0)
            host_set_ir(&h, k / EVERY % 2 ? b : a);
        host_cycle(&h, &in, &out, BLOCK);
        usleep(20); /* a pace the worker keeps up with */
    }
    atomic_store(&s.stop, 1);
    assert_int_equal(pthread_join(thread, NULL), 0);
    assert_int_equal(host_worker_thread(&h, 0), 0);
    printf("%d saves while %d calls ran and the IR changed %d times: %d stored a path, %d "
           "of them torn\n", s.saves, CALLS, CALLS / EVERY, s.stored, s.torn);
    assert_int_equal(s.stored, s.saves);
    assert_int_equal(s.torn, 0);
    host_close(&h);
}

/* A session saved with b, restored (as jalv does, through restore's own
 * worker schedule) into an instance playing a after b's file went away:
 * a plays on, and save() keeps b, the session's reference, until the user
 * loads another file. */
static void test_restore_that_fails(void **state)
{
    enum { BLOCK = 64 };
    char dir[] = "/tmp/gfir_lv2_XXXXXX", a[512], b[512], saved[4096];
    static float x[BLOCK], y[BLOCK];
    float *in = x, *out = y;
    uint64_t rng = 40;
    host h;
    (void)state;
    assert_non_null(mkdtemp(dir));
    write_ir(a, sizeof a, dir, 'a', 300, &rng);
    write_ir(b, sizeof b, dir, 'b', 200, &rng);
    test_fill(x, BLOCK, &rng);
    assert_int_equal(host_open(&h, "urn:gfir:lv2:convolver-mono", 48000, BLOCK), 0);
    host_set_ir(&h, b);
    for (int k = 0; k < 4; k++)
        host_cycle(&h, &in, &out, BLOCK);
    assert_string_equal(h.notified_path, b);
    assert_int_equal(host_save(&h, dir), 0);
    host_close(&h);
    assert_int_equal(unlink(b), 0);

    assert_int_equal(host_open(&h, "urn:gfir:lv2:convolver-mono", 48000, BLOCK), 0);
    host_set_ir(&h, a);
    for (int k = 0; k < 4; k++)
        host_cycle(&h, &in, &out, BLOCK);
    assert_int_equal(host_restore(&h, dir, 1), 0);
    assert_int_equal(host_saved(&h, "urn:gfir:lv2:ir", saved, sizeof saved), 0);
    printf("restored: save() stores %s\n", saved);
    assert_non_null(strstr(saved, "bbbb")); /* b's name, wherever the state put it */
    for (int k = 0; k < 4; k++)
        host_cycle(&h, &in, &out, BLOCK);
    assert_int_equal(host_saved(&h, "urn:gfir:lv2:ir", saved, sizeof saved), 0);
    printf("its load failed (%s): %s plays, save() stores %s\n", h.notified_status,
           h.notified_path, saved);
    /* the IR before it plays on; the session keeps the file it names */
    assert_string_equal(h.notified_path, a);
    assert_non_null(strstr(saved, "bbbb"));
    /* a file the user then loads is what plays and what is saved */
    host_set_ir(&h, a);
    for (int k = 0; k < 4; k++)
        host_cycle(&h, &in, &out, BLOCK);
    assert_int_equal(host_saved(&h, "urn:gfir:lv2:ir", saved, sizeof saved), 0);
    assert_string_equal(saved, a);
    host_close(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_save_while_running),
        cmocka_unit_test(test_restore_that_fails),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
