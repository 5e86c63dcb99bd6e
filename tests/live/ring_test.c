/*
 * ring_test.c - the live path's SPSC ring: wrap-around, partial reads and
 * writes, silence, and a producer and a consumer thread passing a numbered
 * sequence at odd chunk sizes, which must arrive whole and in order.
 */
#include "ring.h"

#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#define CH 3
#define TOTAL_FRAMES 2000003

static void wraps_and_reports_room(void **state)
{
    ring r;
    float in[10 * CH], out[10 * CH];
    (void)state;
    assert_int_equal(ring_init(&r, 5, CH), 0);
    assert_int_equal(r.capacity, 8);
    for (int i = 0; i < 10 * CH; i++)
        in[i] = (float)i + 0.5f;

    assert_int_equal(ring_write(&r, in, 6), 6);
    assert_int_equal(ring_readable(&r), 6);
    assert_int_equal(ring_writable(&r), 2);
    assert_int_equal(ring_read(&r, out, 4), 4);
    assert_memory_equal(out, in, 4 * CH * sizeof *in);
    /* 2 left; 6 more fit, the write wraps past the end */
    assert_int_equal(ring_write(&r, in, 10), 6);
    assert_int_equal(ring_read(&r, out, 10), 8);
    assert_memory_equal(out, in + 4 * CH, 2 * CH * sizeof *in);
    assert_memory_equal(out + 2 * CH, in, 6 * CH * sizeof *in);
    assert_int_equal(ring_read(&r, out, 1), 0);

    assert_int_equal(ring_write(&r, NULL, 3), 3);
    assert_int_equal(ring_read(&r, out, 3), 3);
    for (int i = 0; i < 3 * CH; i++)
        assert_true(out[i] == 0.0f);
    ring_free(&r);
}

static void refuses_impossible_sizes(void **state)
{
    ring r;
    (void)state;
    assert_int_equal(ring_init(&r, 4, 0), -1);
    assert_int_equal(ring_init(&r, SIZE_MAX, 2), -1);
}

static void *producer(void *arg)
{
    ring *r = arg;
    float chunk[97 * CH];
    size_t next = 0, sizes[] = {1, 7, 97, 64, 33};
    for (unsigned k = 0; next < TOTAL_FRAMES; k++) {
        size_t n = sizes[k % 5], done = 0;
        if (n > TOTAL_FRAMES - next)
            n = TOTAL_FRAMES - next;
        for (size_t i = 0; i < n; i++)
            for (int c = 0; c < CH; c++)
                chunk[i * CH + c] = (float)((next + i) % 1000003) + 0.25f * (float)c;
        while (done < n)
            done += ring_write(r, chunk + done * CH, n - done);
        next += n;
    }
    return NULL;
}

static void two_threads_pass_every_frame_in_order(void **state)
{
    ring r;
    pthread_t t;
    float chunk[61 * CH];
    size_t next = 0, bad = 0;
    (void)state;
    assert_int_equal(ring_init(&r, 256, CH), 0);
    assert_int_equal(pthread_create(&t, NULL, producer, &r), 0);
    while (next < TOTAL_FRAMES) {
        size_t n = ring_read(&r, chunk, 1 + next % 61);
        for (size_t i = 0; i < n; i++)
            for (int c = 0; c < CH; c++)
                bad += chunk[i * CH + c] != (float)((next + i) % 1000003) + 0.25f * (float)c;
        next += n;
    }
    pthread_join(t, NULL);
    assert_int_equal(bad, 0);
    assert_int_equal(ring_readable(&r), 0);
    ring_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(wraps_and_reports_room),
        cmocka_unit_test(refuses_impossible_sizes),
        cmocka_unit_test(two_threads_pass_every_frame_in_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
