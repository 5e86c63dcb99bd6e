/*
 * startup.h - starting CUDA on a device (startup.c): on a thread of its own
 * ahead of the first plan (gfir_backend_prepare), how much of the start-up
 * a plan made now would still wait for (AUTO weighs it), and a create's wait
 * for a start-up under way.
 */
#ifndef GF_CUDA_STARTUP_H
#define GF_CUDA_STARTUP_H

#include "gfir.h"

/* Starts the device on a detached thread and returns at once: GFIR_OK (under
 * way, or done, or a device this process does not track), or the status an
 * earlier start-up on it ended with. */
gfir_status gf_cuda_prepare(int device);
/* Returns once no start-up of the device is under way. */
void gf_cuda_prepare_wait(int device);
/* Seconds a first plan on this device would still spend starting CUDA: the
 * measured cost (tuning.h), less what a start-up under way has done; 0 once
 * one has finished or a plan has been made on it here. */
double gf_cuda_startup_s(int device);
/* Called when a plan has been made on the device. */
void gf_cuda_mark_started(int device);

#endif
