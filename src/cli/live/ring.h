/*
 * ring.h - a lock-free single-producer/single-consumer ring of interleaved
 * float frames, for handing audio between a PortAudio callback and a worker
 * thread. One thread writes, one thread reads; neither ever blocks, allocates
 * or takes a lock (C11 atomics, acquire/release on two frame counters).
 */
#ifndef GFIR_RING_H
#define GFIR_RING_H

#include <stdatomic.h>
#include <stddef.h>

typedef struct ring {
    float *data;
    size_t capacity;        /* frames; a power of two */
    unsigned channels;
    /* Frames ever written and ever read; each counter has one writer, and
     * the two live on separate cache lines so the threads do not share one. */
    _Alignas(64) atomic_size_t written;
    _Alignas(64) atomic_size_t read;
} ring;

/* Allocates room for at least min_frames frames of `channels` samples.
 * Returns 0, or -1 when out of memory or the size overflows. Not real-time
 * safe; pair with ring_free(). */
int ring_init(ring *r, size_t min_frames, unsigned channels);
void ring_free(ring *r);

/* Frames the consumer can read now, and the producer can write now. Each
 * side may call either; the answer is exact for its own side and a lower
 * bound for the other one's. */
size_t ring_readable(const ring *r);
size_t ring_writable(const ring *r);

/* Producer: copies up to frames frames from src (NULL: silence) and returns
 * how many fitted. */
size_t ring_write(ring *r, const float *src, size_t frames);

/* Consumer: copies up to frames frames into dst and returns how many there were. */
size_t ring_read(ring *r, float *dst, size_t frames);

#endif
