/*
 * fdl_far.h - the delay-line engine's far partitions (src/cuda/fdl.c).
 *
 * With uniform partitions of B taps, every block of B frames reads the whole
 * delay line: per second, 2 x channels x ntaps x 8 bytes x rate / B. At B = 32
 * that is 2.9 TB/s for 256 channels of 480,000 taps, all of an H100's memory
 * bandwidth, so calls queue behind the tail work. The far partitions take
 * the filter beyond its first 2P taps (P = GF_FDL_FAR_PART, far larger than
 * B) in partitions of P: one block of P frames reads their delay line once,
 * P / B times less often. Since they start 2P taps in, the block of P inputs
 * that completes at frame t feeds outputs from t + P on: their work runs on a
 * stream of the lowest priority with P frames to finish, never on a call's
 * clock. The near section (the head and the B-partitions) keeps the first
 * 2P taps.
 *
 * Layout, beside fdl.h's: xw (inputs x 2 x P, as the near section's), a ring
 * of R = T + 1 window spectra (one more than the T far partitions, so that a
 * crossfade can still make the current block's far part for a new filter),
 * and `out`, a ring of 2P frames per output: far block m (frames mP ..
 * mP + P - 1) in half m % 2, written at the end of block m - 2 and read by
 * the head kernels during block m.
 */
#ifndef GF_CUDA_FDL_FAR_H
#define GF_CUDA_FDL_FAR_H

#include "fdl/fdl.h"

#include <cuda_runtime_api.h>
#include <stddef.h>

/* The far partitions' size: the largest the kernels transform. */
#define GF_FDL_FAR_PART GF_FDL_MAX_PART

typedef struct gf_fdl_far gf_fdl_far;

/* The twiddles e^(-2 pi i k / 2 part), k < part, that a section's transforms
 * share, computed in double (the kernels build with --use_fast_math, whose
 * sincos is coarse) and copied to d_tw before it returns. */
cudaError_t gf_fdl_twiddles(float2 *d_tw, size_t part);

/* The taps the near section keeps for partitions of B over ntaps taps: all
 * of them, or 2P when far partitions pay: B at most P / 8 and ntaps over 4P. */
size_t gf_fdl_far_near_taps(size_t part, size_t ntaps);
/* Far partitions of filters of ntaps taps (more than gf_fdl_far_near_taps
 * keeps), paths as fdl.h's, on the device current now. */
cudaError_t gf_fdl_far_create(gf_fdl_far **far, size_t ntaps, unsigned inputs, unsigned outputs,
                              unsigned sets, gf_fdl_paths paths);
void gf_fdl_far_destroy(gf_fdl_far *far);
/* A filter's far spectra: bytes to hold them, and made from device taps
 * (sets x ntaps) on `stream`. */
size_t gf_fdl_far_spectra_bytes(const gf_fdl_far *far);
cudaError_t gf_fdl_far_spectra(const gf_fdl_far *far, const float *d_taps, float2 *d_h,
                               cudaStream_t stream);

/* Per piece of a call (within one near block, so within one far block):
 * its n frames (d_in interleaved, NULL: silence) into the window; the ring
 * the head adds (incoming: the incoming filter's, during a crossfade). */
cudaError_t gf_fdl_far_stage(gf_fdl_far *far, const float *d_in, size_t n, cudaStream_t stream);
gf_fdl_ring gf_fdl_far_ring(const gf_fdl_far *far, int incoming);
/* The same, as a replayed graph's kernels do them: at the place d_clock
 * holds (a graph's input is a whole near block, so never past the far one). */
cudaError_t gf_fdl_far_stage_clocked(gf_fdl_far *far, const float *d_in, size_t n,
                                     const gf_fdl_clock *d_clock, cudaStream_t stream);
/* The plan's ring, its position read from d_clock (a replayed graph's);
 * the far fields of a clock from the host's own count; the far block. */
gf_fdl_ring gf_fdl_far_ring_clocked(const gf_fdl_far *far, const gf_fdl_clock *d_clock);
void gf_fdl_far_clock(const gf_fdl_far *far, gf_fdl_clock *clock);
size_t gf_fdl_far_part(const gf_fdl_far *far);
/* After the piece's head kernels: the far block's end, when it comes,
 * queues the window's transform on `stream` and the far work (h, and
 * h_new when not NULL) on the far stream. */
cudaError_t gf_fdl_far_advance(gf_fdl_far *far, size_t n, const float2 *d_h,
                               const float2 *d_h_new, cudaStream_t stream);
/* History cleared, after the far work in flight, on `stream`. */
cudaError_t gf_fdl_far_clear(gf_fdl_far *far, cudaStream_t stream);
/* A crossfade's start: the incoming filter's far part of the current block
 * and of the next one (where its window is complete), on `stream`. */
cudaError_t gf_fdl_far_fade_begin(gf_fdl_far *far, const float2 *d_h_new, cudaStream_t stream);
/* Its end: the incoming ring becomes the plan's; `retired` is recorded after
 * the far work that still reads the outgoing filter. */
cudaError_t gf_fdl_far_fade_end(gf_fdl_far *far, cudaEvent_t retired);

#endif
