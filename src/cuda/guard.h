/*
 * guard.h - the CUDA backend's one device guard (guard.c): the only place
 * the library changes the calling thread's current device. Every entry
 * point of a CUDA engine (core/engine.h's table) and a filter's release run
 * between gf_cuda_enter and gf_cuda_leave, so a plan runs on its own device
 * without moving the caller's later CUDA work elsewhere; nothing inside
 * them selects a device again.
 */
#ifndef GF_CUDA_GUARD_H
#define GF_CUDA_GUARD_H

#include "core/plan.h"

#include <cuda_runtime_api.h>

/* Saves the calling thread's device in *theirs (-1 when it cannot be read)
 * and makes `device` current; cudaSuccess or the failure, which the caller
 * reports (the guard must still be left). */
cudaError_t gf_cuda_enter(int device, int *theirs);
/* gf_cuda_enter for the plan's device: GFIR_OK, or the failure with its
 * sentence in why (the guard must still be left). */
gfir_status gf_cuda_enter_plan(const gfir_plan *plan, int *theirs, char *why, size_t why_len);
/* Gives the thread its device back; a failure leaves no sticky error. */
void gf_cuda_leave(int theirs);

#endif
