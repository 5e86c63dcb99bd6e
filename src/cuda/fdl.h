/*
 * fdl.h - the CUDA backend's low-latency engine for long filters at small
 * calls (plan->form GF_FORM_FDL): zero latency, and a cost per call that does
 * not grow with the filter's history.
 *
 * The filter's first B taps (B = plan->partition, the call size a live
 * caller uses) run as a direct head inside each call. The rest is cut into
 * uniform partitions of B taps whose input spectra stay on the device in a
 * frequency-domain delay line: when a block of B input frames completes, one
 * forward transform per input, one multiply-accumulate per output over its
 * paths and partitions, and one inverse transform per output make the next
 * block's tail. That work is queued after the call's output has been copied
 * back, so it runs while the caller handles its output, not on its clock.
 *
 * Paths are native: each input is transformed once, each output is summed
 * in the frequency domain. A plan without paths uses channel c into output c.
 */
#ifndef GF_CUDA_FDL_H
#define GF_CUDA_FDL_H

#include "core/plan.h"

/* The engine serves plans whose calls are at most this many frames. */
#define GF_CUDA_FDL_MAX_BLOCK 2048

/* Its partition B for calls of up to block_frames frames: the largest power
 * of two within them, 16 to GF_CUDA_FDL_MAX_BLOCK. Calls of B frames each
 * end on a block boundary, which keeps the tail's work off their clock. */
size_t gf_cuda_fdl_partition(size_t block_frames);

/* The engine's operations, with backend.h's contracts; create takes the
 * plan's tap sets (filter_channels x ntaps) and plan->route when routed. */
gfir_status gf_cuda_fdl_create(gfir_plan *plan, const float *taps);
gfir_status gf_cuda_fdl_prepare(const gfir_plan *plan, const float *taps, gfir_filter *f,
                                char *why, size_t why_len);
gfir_status gf_cuda_fdl_fade_begin(gfir_plan *plan);
void gf_cuda_fdl_fade_end(gfir_plan *plan);
gfir_status gf_cuda_fdl_execute(gfir_plan *plan, const float *in, float *out, size_t n);
gfir_status gf_cuda_fdl_reset(gfir_plan *plan);
/* The device calls (backend.h): the caller's samples restrided into and out
 * of the engine's own interleaved buffers on the device, everything ordered
 * on the caller's stream by events, and the next block's tail work left
 * running after the output is handed back, as for host calls. */
gfir_status gf_cuda_fdl_execute_device(gfir_plan *plan, const gf_device_io *io, size_t n);
gfir_status gf_cuda_fdl_convolve_device(gfir_plan *plan, const gf_device_io *io, size_t frames,
                                        size_t start, size_t length);
gfir_status gf_cuda_fdl_set_taps_device(gfir_plan *plan, const float *taps, void *stream);
void gf_cuda_fdl_destroy(gfir_plan *plan);

#endif
