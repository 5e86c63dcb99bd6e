/*
 * swap.h - the plan layer's side of filter swaps (swap.c): the crossfade's
 * progress through the calls, which plan.c and core/device.c drive block by block.
 */
#ifndef GF_CORE_SWAP_H
#define GF_CORE_SWAP_H

#include "core/plan.h"

/* Before a block of *n frames: begins a swap's fade (the engine's
 * fade_begin) in the first call after it, ends a fade of no frames, and
 * shortens *n so that the block ends within a fade. GFIR_OK or the
 * engine's failure. */
gfir_status gf_fade_step(gfir_plan *plan, size_t *n);
/* One block of n <= block_frames frames of a call, which moves on the
 * call's own buffers (arg). */
typedef gfir_status (*gf_block_fn)(gfir_plan *plan, void *arg, size_t n);
/* The one block-and-fade loop of host and device calls: frames cut into
 * blocks of at most block_frames, none straddling a fade's end, each
 * between gf_fade_step and gf_fade_advance. GFIR_OK or the first failure. */
gfir_status gf_fade_blocks(gfir_plan *plan, size_t frames, gf_block_fn block, void *arg);
/* After a block of n frames: the fade advances and ends when complete. */
void gf_fade_advance(gfir_plan *plan, size_t n);
/* Ends a fade at once (reset, and the device calls that clear the history). */
void gf_fade_finish(gfir_plan *plan);
/* Every filter the plan holds, freed (gfir_plan_destroy, a failed create). */
void gf_filters_release(gfir_plan *plan);
/* The plan's engine (set by the policy) built in two phases around its
 * first filter, taps the engine's tap sets: the engine's create, then
 * gf_engine_finish. On failure nothing of the engine's or the filter's is
 * left and plan->detail says why. Also for tools that remake an engine
 * with other sizes (after its destroy; a filter there before is released). */
gfir_status gf_engine_build(gfir_plan *plan, const float *taps);
/* The engine's form of taps, whose sets are already the engine's (padded,
 * expanded), into a new filter; why gets the reason for a failure. What
 * gfir_filter_create runs after its checks; tools call it to measure swaps
 * the library refuses. */
gfir_status gf_filter_prepare(const gfir_plan *plan, const float *taps, gfir_filter **out,
                              char *why, size_t whylen);
/* Phase two alone, after an engine's create: the first filter through
 * prepare (the path gfir_filter_create takes), the engine's start, the
 * plan's latency from the engine. */
gfir_status gf_engine_finish(gfir_plan *plan, const float *taps);

#endif
