/*
 * mailbox.h - a worker's answer that the host would not take. When
 * respond() fails (the host's response queue is full), work() leaves the
 * answer here and the next run() takes it in as the host would have
 * delivered it, so a request is never left unanswered (a load in flight for
 * good, every later one waiting behind it) and nothing it built is lost.
 * One slot, written by the worker and read by the audio thread, without a
 * lock; run() neither waits nor allocates for it.
 */
#ifndef GFIR_LV2_MAILBOX_H
#define GFIR_LV2_MAILBOX_H

#include <lv2/core/lv2.h>
#include <lv2/worker/worker.h>

#include <stdatomic.h>
#include <stdint.h>

/* the largest answer either plugin sends (the convolver's: a path and a
 * message beside its response) */
#define GL_MAILBOX_BYTES 8192

typedef struct gl_mailbox {
    atomic_int full;
    uint32_t size;
    _Alignas(16) unsigned char data[GL_MAILBOX_BYTES];
} gl_mailbox;

void gl_mailbox_init(gl_mailbox *m);

/* The answer through respond(), or, where the host refuses it, into the
 * mailbox: LV2_WORKER_SUCCESS when one took it, else respond()'s status
 * (a second answer refused before a run() took the first, or one too
 * large): the caller then frees what the answer holds. */
LV2_Worker_Status gl_respond(gl_mailbox *m, LV2_Worker_Respond_Function respond,
                             LV2_Worker_Respond_Handle handle, uint32_t size, const void *data);

/* In run(), before anything else: the answer waiting, if any, handed to
 * take (the plugin's work_response), then the slot freed. */
void gl_mailbox_deliver(gl_mailbox *m, LV2_Handle h,
                        LV2_Worker_Status (*take)(LV2_Handle, uint32_t, const void *));

#endif
