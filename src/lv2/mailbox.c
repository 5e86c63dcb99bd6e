/*
 * mailbox.c - the worker's answers the host refused (mailbox.h).
 */
#include "mailbox.h"

#include <string.h>

void gl_mailbox_init(gl_mailbox *m)
{
    atomic_init(&m->full, 0);
    m->size = 0;
}

LV2_Worker_Status gl_respond(gl_mailbox *m, LV2_Worker_Respond_Function respond,
                             LV2_Worker_Respond_Handle handle, uint32_t size, const void *data)
{
    const LV2_Worker_Status st = respond(handle, size, data);
    if (st == LV2_WORKER_SUCCESS)
        return st;
    /* the slot is the worker's only while empty: run() empties it after
     * it has read it (release), and this load sees that (acquire) */
    if (size > GL_MAILBOX_BYTES || atomic_load_explicit(&m->full, memory_order_acquire))
        return st;
    memcpy(m->data, data, size);
    m->size = size;
    atomic_store_explicit(&m->full, 1, memory_order_release);
    return LV2_WORKER_SUCCESS;
}

void gl_mailbox_deliver(gl_mailbox *m, LV2_Handle h,
                        LV2_Worker_Status (*take)(LV2_Handle, uint32_t, const void *))
{
    if (!atomic_load_explicit(&m->full, memory_order_acquire))
        return;
    take(h, m->size, m->data);
    atomic_store_explicit(&m->full, 0, memory_order_release);
}
