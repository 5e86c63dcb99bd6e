/*
 * pipeline.c - the three-thread pipeline of pipeline.h.
 */
#include "file/pipeline.h"
#include "message.h"

#include <stdlib.h>
#include <string.h>

static void q_init(pipe_queue *q)
{
    memset(q, 0, sizeof *q);
    pthread_mutex_init(&q->mu, NULL);
    pthread_cond_init(&q->cv, NULL);
}

static void q_destroy(pipe_queue *q)
{
    pthread_mutex_destroy(&q->mu);
    pthread_cond_destroy(&q->cv);
}

/* Never full: each queue serves PIPE_DEPTH buffers. */
static void q_push(pipe_queue *q, pipe_slot s)
{
    pthread_mutex_lock(&q->mu);
    q->items[(q->head + q->count++) % PIPE_DEPTH] = s;
    pthread_cond_signal(&q->cv);
    pthread_mutex_unlock(&q->mu);
}

/* 0 once the queue is closed and empty. */
static int q_pop(pipe_queue *q, pipe_slot *s)
{
    pthread_mutex_lock(&q->mu);
    while (!q->count && !q->closed)
        pthread_cond_wait(&q->cv, &q->mu);
    int got = q->count > 0;
    if (got) {
        *s = q->items[q->head];
        q->head = (q->head + 1) % PIPE_DEPTH;
        q->count--;
    }
    pthread_mutex_unlock(&q->mu);
    return got;
}

static void q_close(pipe_queue *q)
{
    pthread_mutex_lock(&q->mu);
    q->closed = 1;
    pthread_cond_broadcast(&q->cv);
    pthread_mutex_unlock(&q->mu);
}

/* The reader can be cancelled only inside io->read, where it may wait for
 * a pipe that stays open and silent (`arecord | gfir - out.wav`) after the
 * filter or the writer gave up; never in the queues, whose locks a
 * cancellation there would leave held. */
static long read_cancellable(pipeline *p, float *buf)
{
    int old;
    long got;
    pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, &old);
    got = p->io->read(p->io->ctx, buf, p->block);
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
    return got;
}

static void *reader_main(void *arg)
{
    pipeline *p = arg;
    pipe_slot s;
    int old;
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
    cli_message_redirect(p->sink);
    while (!atomic_load(&p->stop) && q_pop(&p->free_in, &s)) {
        long got = read_cancellable(p, s.buf);
        if (got <= 0) {
            atomic_store(&p->read_failed, got < 0);
            break;
        }
        s.frames = (size_t)got;
        q_push(&p->full_in, s);
    }
    q_close(&p->full_in);
    return NULL;
}

static void *writer_main(void *arg)
{
    pipeline *p = arg;
    pipe_slot s;
    cli_message_redirect(p->sink);
    /* after a failure it keeps taking blocks, unwritten, so the filter never
     * waits, and it ends the input: the caller may be waiting for a block
     * that a pipe will not send for a long time */
    while (q_pop(&p->full_out, &s)) {
        if (!atomic_load(&p->write_failed) &&
            p->io->write(p->io->ctx, s.buf, s.frames, s.limit)) {
            atomic_store(&p->write_failed, 1);
            atomic_store(&p->stop, 1);
            q_close(&p->full_in);
        }
        q_push(&p->free_out, s);
    }
    return NULL;
}

static void free_all(pipeline *p)
{
    q_destroy(&p->free_in);
    q_destroy(&p->full_in);
    q_destroy(&p->free_out);
    q_destroy(&p->full_out);
    for (int i = 0; i < 2 * PIPE_DEPTH; i++)
        free(p->bufs[i]);
}

int pipeline_start(pipeline *p, const pipeline_io *io, size_t block, unsigned channels)
{
    memset(p, 0, sizeof *p);
    p->io = io;
    p->block = block;
    p->sink = cli_message_current_sink();
    q_init(&p->free_in);
    q_init(&p->full_in);
    q_init(&p->free_out);
    q_init(&p->full_out);
    for (int i = 0; i < 2 * PIPE_DEPTH; i++) {
        p->bufs[i] = malloc(block * channels * sizeof *p->bufs[i]);
        if (!p->bufs[i]) {
            free_all(p);
            return cli_error("out of memory for blocks of %zu frames", block);
        }
    }
    for (int i = 0; i < PIPE_DEPTH; i++) {
        q_push(&p->free_in, (pipe_slot){p->bufs[i], 0, 0});
        q_push(&p->free_out, (pipe_slot){p->bufs[PIPE_DEPTH + i], 0, 0});
    }
    if (pthread_create(&p->reader, NULL, reader_main, p) != 0) {
        free_all(p);
        return cli_error("cannot start a reader thread");
    }
    if (pthread_create(&p->writer, NULL, writer_main, p) != 0) {
        atomic_store(&p->stop, 1);
        q_close(&p->free_in);
        pthread_cancel(p->reader);
        pthread_join(p->reader, NULL);
        free_all(p);
        return cli_error("cannot start a writer thread");
    }
    p->started = 1;
    return 0;
}

int pipeline_next_input(pipeline *p, pipe_slot *in)
{
    return q_pop(&p->full_in, in);
}

void pipeline_release_input(pipeline *p, pipe_slot in)
{
    q_push(&p->free_in, in);
}

int pipeline_emit(pipeline *p, const float *in, size_t n, uint64_t limit)
{
    pipe_slot out;
    if (!q_pop(&p->free_out, &out))
        return 1;
    if (p->io->filter(p->io->ctx, in, out.buf, n)) {
        q_push(&p->free_out, out);
        return 1;
    }
    out.frames = n;
    out.limit = limit;
    q_push(&p->full_out, out);
    return atomic_load(&p->write_failed);
}

int pipeline_read_failed(pipeline *p)
{
    return atomic_load(&p->read_failed);
}

int pipeline_write_failed(pipeline *p)
{
    return atomic_load(&p->write_failed);
}

int pipeline_finish(pipeline *p)
{
    int failed;
    if (!p->started)
        return 1;
    /* stop the reader (it may be waiting for a free block, or for a pipe
     * after a failure: a reader at the end of its input is past cancelling),
     * drain the writer */
    atomic_store(&p->stop, 1);
    q_close(&p->free_in);
    pthread_cancel(p->reader);
    pthread_join(p->reader, NULL);
    q_close(&p->full_out);
    pthread_join(p->writer, NULL);
    failed = atomic_load(&p->write_failed);
    free_all(p);
    p->started = 0;
    return failed;
}
