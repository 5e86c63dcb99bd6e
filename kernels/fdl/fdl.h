/*
 * fdl.h - the kernels of the low-latency partitioned engine (src/cuda/fdl.c):
 * a direct head for the filter's first B taps, and a frequency-domain delay
 * line of input spectra for the rest, in uniform partitions of B taps.
 *
 * Layouts, all in device memory (B = part, T = tail partitions, "packed"
 * spectra hold bins 0..B-1 of a 2B-point real transform, with bin 0 carrying
 * the real DC value in .x and the real Nyquist value in .y):
 *   xw       inputs x 2 x B floats: each input's previous and current block,
 *            the halves swapping roles (parity) at every block boundary
 *   head     sets x B floats: each tap set's first B taps
 *   tail     outputs x B floats: the partitions' output for the current block
 *   far      outputs x len floats: a ring of what partitions too far back for the
 *            tail add, by frame (gf_fdl_ring; src/cuda/fdl_far.c fills it)
 *   x        inputs x R x B float2: packed spectra of the last R >= T input windows,
 *            a ring
 *   h        sets x T x B float2: packed spectra of partitions 1..T, scaled by 1/2B
 *   partial  outputs x chunks x B float2: per chunk of partitions, summed by
 *            the inverse in a fixed order
 *   tw       B float2: e^(-2 pi i k / 2B), k < B, computed on the host in double
 * Paths are in output order: output o's are out_start[o] .. out_start[o + 1].
 *
 * Launchers check their arguments, launch on the stream and return
 * cudaGetLastError(); they never synchronise.
 */
#ifndef GF_FDL_H
#define GF_FDL_H

#include <cuda_runtime_api.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The largest partition: a 2B-point transform of float2 is 32 KB of shared
 * memory, within every CUDA GPU's default per-block limit. */
#define GF_FDL_MAX_PART 2048
#define GF_FDL_MIN_PART 16

/* Where the engine's blocks stand, in device memory: what the kernels of a
 * replayed CUDA graph read in place of their launch's arguments (fdl.c
 * replays one graph per block of B frames), advanced by the tick kernel at
 * the graph's end. */
typedef struct gf_fdl_clock {
    unsigned parity;     /* the near section's current half of xw */
    unsigned newest;     /* the near delay line's slot for the block's window */
    unsigned far_pos;    /* frames of the current far block so far */
    unsigned far_parity; /* the far section's current half of its xw and ring */
} gf_fdl_clock;

/* Device words a kernel reads in place of its pos, parity and slot
 * arguments; a NULL word: the argument stands. */
typedef struct gf_fdl_at {
    const unsigned *pos, *parity, *slot;
} gf_fdl_at;

/* A ring of outputs x len floats that the head adds, frame pos + i of the
 * call's piece at index (pos + i) % len; buf NULL: nothing to add. With
 * at.pos (and at.parity), pos is at.parity x len / 2 + at.pos. */
typedef struct gf_fdl_ring {
    const float *buf;
    size_t len, pos;
    gf_fdl_at at;
} gf_fdl_ring;

typedef struct gf_fdl_paths {
    const unsigned *out_start;  /* outputs + 1 */
    const unsigned *input;      /* per path */
    const unsigned *set;
    const float *gain;
} gf_fdl_paths;

/* Packed spectra of partitions 1..tparts of `sets` tap sets, each the len
 * taps from `skip` of a row of `stride` (d_taps: sets x stride, natural
 * order), into d_h. */
cudaError_t gf_launch_fdl_spectra(const float *d_taps, size_t stride, size_t skip, size_t len,
                                  unsigned sets, size_t part, size_t tparts, const float2 *d_tw,
                                  float2 *d_h, cudaStream_t stream);
/* n frames of interleaved d_in (NULL: silence; device or mapped host
 * memory, read once, in order) into each input's current block at frame
 * pos (pos + n <= part). */
cudaError_t gf_launch_fdl_stage(const float *d_in, unsigned inputs, size_t n, float *d_xw,
                                size_t part, size_t pos, int parity, gf_fdl_at at,
                                cudaStream_t stream);
/* Outputs pos .. pos + n of the current block, interleaved into d_out: each
 * output's paths through their first head_len (<= B) taps, plus the tail,
 * plus the far ring's frames. */
cudaError_t gf_launch_fdl_head(const float *d_xw, const float *d_head, const float *d_tail,
                               gf_fdl_ring far, gf_fdl_paths paths, unsigned outputs,
                               size_t part, size_t head_len, size_t pos, size_t n, int parity,
                               gf_fdl_at at, float *d_out, cudaStream_t stream);
/* Each input's window (previous block, then the completed current one) into
 * the delay line's slot, of a ring of `ring`. */
cudaError_t gf_launch_fdl_forward(const float *d_xw, unsigned inputs, size_t part, int parity,
                                  const float2 *d_tw, float2 *d_x, size_t ring, size_t slot,
                                  gf_fdl_at at, cudaStream_t stream);
/* Per output and chunk of `per_chunk` partitions: sum over paths of gain
 * times sum over partitions j of H_j times the spectrum j - 1 windows before
 * the newest (in slot `newest` of the ring of `ring` >= tparts). */
cudaError_t gf_launch_fdl_mac(const float2 *d_x, const float2 *d_h, gf_fdl_paths paths,
                              unsigned outputs, size_t part, size_t tparts, size_t ring,
                              size_t newest, size_t per_chunk, size_t chunks, gf_fdl_at at,
                              float2 *d_partial, cudaStream_t stream);
/* Per output: the chunks' sum, back to time; its last B samples are the next
 * block's tail, written to d_tail + output * stride. */
cudaError_t gf_launch_fdl_inverse(const float2 *d_partial, unsigned outputs, size_t part,
                                  size_t chunks, const float2 *d_tw, float *d_tail,
                                  size_t stride, cudaStream_t stream);

/* The clock past one block of `part` frames: the near ring of near_ring
 * slots, and the far block of far_part frames (0: no far partitions). */
cudaError_t gf_launch_fdl_tick(gf_fdl_clock *d_clock, size_t part, size_t near_ring,
                               size_t far_part, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
