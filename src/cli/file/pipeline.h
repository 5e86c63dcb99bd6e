/*
 * pipeline.h - reading, filtering and writing on three threads, handing
 * blocks along through small queues, so a file takes about as long as the
 * slowest of the three rather than their sum.
 *
 * The reader thread calls io->read, the writer thread io->write, in order;
 * the calling thread takes input blocks (pipeline_next_input) and passes
 * filtered ones on (pipeline_emit) with io->filter. Only the writer touches
 * what io->write does (alignment, dither, counts), so that needs no lock.
 * A write that fails ends the input at once: pipeline_next_input says 0.
 */
#ifndef GFIR_CLI_PIPELINE_H
#define GFIR_CLI_PIPELINE_H

#include "message.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* Blocks in flight on each side of the filter: the reader can be one ahead
 * and the writer one behind while a third is filtered. */
#define PIPE_DEPTH 3

typedef struct pipeline_io {
    void *ctx;
    /* Up to max frames into buf: the frames read, 0 at the end, -1 on error. */
    long (*read)(void *ctx, float *buf, size_t max);
    /* Filters frames from in (NULL: silence, for the tail) into out; 0 or,
     * after printing why, 1. */
    int (*filter)(void *ctx, const float *in, float *out, size_t frames);
    /* Takes frames of filtered output, of which the first `limit` frames of
     * the whole stream are wanted; 0 or, after printing why, 1. */
    int (*write)(void *ctx, float *buf, size_t frames, uint64_t limit);
} pipeline_io;

typedef struct pipe_slot {
    float *buf;
    size_t frames;
    uint64_t limit;
} pipe_slot;

typedef struct pipe_queue {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pipe_slot items[PIPE_DEPTH];
    size_t head, count;
    int closed;
} pipe_queue;

typedef struct pipeline {
    const pipeline_io *io;
    size_t block;
    float *bufs[2 * PIPE_DEPTH];    /* block x channels each */
    pipe_queue free_in, full_in, free_out, full_out;
    pthread_t reader, writer;
    const cli_message_sink *sink;   /* the starting thread's, for the reader and writer */
    int started;
    atomic_int stop;                /* the filter gave up: the reader stops too */
    atomic_int read_failed, write_failed;
} pipeline;

/* Allocates the blocks and starts the reader and writer. One line and 1 on failure. */
int pipeline_start(pipeline *p, const pipeline_io *io, size_t block, unsigned channels);
/* The next block of input: 1 with *in set, 0 at the end of the input. */
int pipeline_next_input(pipeline *p, pipe_slot *in);
/* Hands an input block back to the reader. */
void pipeline_release_input(pipeline *p, pipe_slot in);
/* Filters n frames of in (NULL: silence) into a free block and queues it for
 * the writer. 0, or 1 when the filter or the writer failed. */
int pipeline_emit(pipeline *p, const float *in, size_t n, uint64_t limit);
/* Stops the reader (cancelling a read that waits for a pipe: after a
 * failure gfir does not wait for the end of a live input), drains the
 * writer, frees everything. Returns 1 when
 * reading or writing failed (io said why, except a read error: see
 * pipeline_read_failed), else 0. */
int pipeline_finish(pipeline *p);
/* Whether the reader stopped on an error rather than at the end. */
int pipeline_read_failed(pipeline *p);
/* Whether a write failed (io said why): the input may have ended early. */
int pipeline_write_failed(pipeline *p);

#endif
