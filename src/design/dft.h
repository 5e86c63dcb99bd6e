/*
 * dft.h - what the design functions share: pi, an argument check, and a
 * double-precision FFT for analysing filters (response peaks and grids).
 * Design-time code only: it allocates, and nothing here runs in a plan's
 * execute.
 */
#ifndef GF_DESIGN_DFT_H
#define GF_DESIGN_DFT_H

#include <stddef.h>

/* math.h's M_PI is not C11; this literal is the double nearest pi, numpy.pi. */
#define GF_PI 3.14159265358979323846
static const double pi = GF_PI;

/* 1 only for a finite x > 0; 0 for NaN. */
int gf_positive_finite(double x);

/* In place, n a power of two: the forward DFT of (re, im), X[k] = sum x[t]
 * e^{-2 pi i k t / n}. 0 on success, -1 without memory for its twiddles. */
int gf_dft(double *re, double *im, size_t n);

/* The twiddles of an n-point gf_dft, for callers that transform many times
 * at one size: n / 2 complex values (malloc'd; NULL without memory). */
double *gf_dft_twiddles(size_t n);
/* gf_dft with twiddles from gf_dft_twiddles(n). */
void gf_dft_with(double *re, double *im, size_t n, const double *tw);

/* |X[k]| for k = 0 .. n / 2 of the n-point DFT of a real sequence x, given
 * as its even samples in zr and its odd ones in zi (n / 2 each, both
 * overwritten), into mag (n / 2 + 1): one complex FFT of n / 2 points, half
 * the work and memory of transforming x as complex. n a power of two, at
 * least 2. 0, or -1 without memory for the twiddles. */
int gf_dft_real_magnitudes(double *zr, double *zi, size_t n, double *mag);

#endif
