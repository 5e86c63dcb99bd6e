/*
 * fft_sliced.h - a real FFT of 2P points and its inverse, cut into slices that
 * run one at a time, in order, with any amount of other work between them.
 * The non-uniform engine (fft_nonuniform.c) spreads a long partition's
 * transforms over the calls in which their result may be computed this way:
 * one FFTW execute of 2^17 points would otherwise take one audio callback a
 * hundred times the average.
 *
 * Small transforms (P < GF_SLICED_MIN_PART) are one slice, one FFTW real
 * transform. Larger ones are the four-step algorithm on the complex transform
 * of P points that a real one of 2P reduces to (z[n] = w[2n] + i w[2n+1]),
 * with P = R x S:
 *   forward  R-point DFTs down the S columns, in slices of columns;
 *            twiddle and S-point DFTs along the R rows, in slices of rows;
 *            the real spectrum unpacked from row pairs (q, R - q).
 *   inverse  the same steps mirrored.
 * FFTW runs every DFT (its advanced interface, fftw.h); the loops here are
 * the twiddles and the unpacking, compiled per instruction set like cmac.h.
 *
 * Spectra are split (real parts, then imaginary parts) and hold the P + 1
 * bins of the real transform in the transform's own order: natural for one
 * slice; for four steps, bin q + R t at q S + t and bin P last. The order
 * does not matter to a multiply-accumulate as long as the filter's spectra
 * come from the same transform.
 *
 * Scaling is FFTW's: the inverse of the forward is 2P times the input.
 */
#ifndef GF_CPU_FFT_SLICED_H
#define GF_CPU_FFT_SLICED_H

#include "cpu/fftw.h"

#include <stddef.h>

/* Smallest P transformed in four steps: below it one FFTW execute is short
 * enough (half a microsecond) to be a slice itself. At 1024 four steps cost
 * about what one execute does, and with P = 1024 in one slice the worst
 * 64-frame call of a 16384-tap stereo filter rose from 1.8 to 2.1 times the
 * mean (cpu_nupc_bench --calls). */
#define GF_SLICED_MIN_PART ((size_t)1024)

typedef void (*gf_sliced_unpack_fn)(const float *za, const float *bre, const float *bim,
                                    const float *wr, const float *wi, float *xar, float *xai,
                                    float *xbr, float *xbi, size_t n);
typedef void (*gf_sliced_pack_fn)(const float *yar, const float *yai, const float *ybr,
                                  const float *ybi, const float *wr, const float *wi, float *za,
                                  float *tbr, float *tbi, size_t n);
typedef void (*gf_sliced_twiddle_fn)(float *z, const float *wr, const float *wi, float sign,
                                     size_t n);

typedef struct gf_sliced_fft {
    size_t part;         /* P */
    double uses;         /* how many times the transforms will run; 0: unknown */
    size_t rows, cols;   /* R x S = P; rows == 0: one slice */
    size_t col_chunk;    /* columns per slice of the column step */
    size_t row_chunk;    /* rows per slice of the row step */
    size_t pair_chunk;   /* row pairs per slice of the (un)packing step */
    size_t ncol, nrow, npair; /* slices of each step */
    gf_fftw_pair whole;  /* one slice: FFTW's real transforms of 2P */
    fftwf_plan col_fwd, row_fwd, col_inv, row_inv;
    float *twiddle;      /* W_P^(q s) at q S + s: P real parts, then P imaginary */
    float *unpack;       /* W_2P^k at the place of bin k (k < P): likewise */
    gf_sliced_unpack_fn unpack_run;
    gf_sliced_pack_fn pack_run;
    gf_sliced_twiddle_fn twiddle_run;
} gf_sliced_fft;

/* Plans the transforms of 2 * part reals (part a power of two, at least 16),
 * to run `uses` times each (0: unknown), which decides whether FFTW measures
 * them (gf_cpu_fftw_measure_pays). 1 on success; on failure nothing is left
 * to destroy. */
int gf_sliced_make(gf_sliced_fft *f, size_t part, double uses);
/* The same as one slice at any size, FFTW's whole real transforms: for
 * work that is never spread (the non-uniform engine's first level). */
int gf_sliced_make_whole(gf_sliced_fft *f, size_t part, double uses);
/* Destroys what make made; a zeroed struct is allowed. */
void gf_sliced_destroy(gf_sliced_fft *f);

/* Slices of each direction. */
size_t gf_sliced_count(const gf_sliced_fft *f);

/* Floats of the work buffer a forward transform keeps between its slices
 * (one per transform in flight) and of the scratch a single slice uses (any
 * number of transforms may share one, one thread at a time). */
size_t gf_sliced_work_floats(const gf_sliced_fft *f);
size_t gf_sliced_scratch_floats(const gf_sliced_fft *f);

/*
 * Forward slice i: window holds 2P reals, aligned like fftwf_malloc's
 * memory or offset from it by a multiple of P floats; after the last slice,
 * re and im (each P + 1 floats) hold the spectrum. work must not change
 * between the slices of one transform.
 */
void gf_sliced_forward(const gf_sliced_fft *f, size_t slice, const float *window, float *work,
                       float *scratch, float *re, float *im);
/*
 * Inverse slice i: after the last slice, out (2P floats, aligned like
 * fftwf_malloc's memory) holds the inverse transform of the spectrum in re
 * and im times 2P. re and im must not change between the slices, and out is
 * the inverse's working space until then.
 */
void gf_sliced_inverse(const gf_sliced_fft *f, size_t slice, const float *re, const float *im,
                       float *scratch, float *out);

#endif
