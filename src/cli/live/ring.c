/*
 * ring.c - the SPSC ring of ring.h. The counters only grow (size_t wraps
 * harmlessly because the capacity is a power of two); a side publishes its
 * counter with release after copying, and reads the other's with acquire
 * before copying, so the data always travels with the counter.
 */
#include "ring.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

_Static_assert((sizeof(size_t) == sizeof(long) ? ATOMIC_LONG_LOCK_FREE : ATOMIC_INT_LOCK_FREE) == 2,
               "the ring needs lock-free size_t atomics to be safe in an audio callback");

int ring_init(ring *r, size_t min_frames, unsigned channels)
{
    size_t cap = 1;
    while (cap < min_frames && cap <= SIZE_MAX / 2)
        cap <<= 1;
    r->data = NULL;
    if (cap < min_frames || channels == 0 || cap > SIZE_MAX / sizeof(float) / channels)
        return -1;
    r->data = calloc(cap * channels, sizeof *r->data);
    if (!r->data)
        return -1;
    r->capacity = cap;
    r->channels = channels;
    atomic_init(&r->written, 0);
    atomic_init(&r->read, 0);
    return 0;
}

void ring_free(ring *r)
{
    free(r->data);
    r->data = NULL;
}

size_t ring_readable(const ring *r)
{
    size_t w = atomic_load_explicit(&r->written, memory_order_acquire);
    size_t rd = atomic_load_explicit(&r->read, memory_order_acquire);
    return w - rd;
}

size_t ring_writable(const ring *r)
{
    return r->capacity - ring_readable(r);
}

size_t ring_write(ring *r, const float *src, size_t frames)
{
    const size_t w = atomic_load_explicit(&r->written, memory_order_relaxed);
    const size_t rd = atomic_load_explicit(&r->read, memory_order_acquire);
    const size_t room = r->capacity - (w - rd);
    const size_t n = frames < room ? frames : room;
    const size_t at = w & (r->capacity - 1);
    const size_t first = n < r->capacity - at ? n : r->capacity - at;
    const size_t ch = r->channels;

    if (src) {
        memcpy(r->data + at * ch, src, first * ch * sizeof *src);
        memcpy(r->data, src + first * ch, (n - first) * ch * sizeof *src);
    } else {
        memset(r->data + at * ch, 0, first * ch * sizeof *r->data);
        memset(r->data, 0, (n - first) * ch * sizeof *r->data);
    }
    atomic_store_explicit(&r->written, w + n, memory_order_release);
    return n;
}

size_t ring_read(ring *r, float *dst, size_t frames)
{
    const size_t rd = atomic_load_explicit(&r->read, memory_order_relaxed);
    const size_t w = atomic_load_explicit(&r->written, memory_order_acquire);
    const size_t avail = w - rd;
    const size_t n = frames < avail ? frames : avail;
    const size_t at = rd & (r->capacity - 1);
    const size_t first = n < r->capacity - at ? n : r->capacity - at;
    const size_t ch = r->channels;

    memcpy(dst, r->data + at * ch, first * ch * sizeof *dst);
    memcpy(dst + first * ch, r->data, (n - first) * ch * sizeof *dst);
    atomic_store_explicit(&r->read, rd + n, memory_order_release);
    return n;
}
