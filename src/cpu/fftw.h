/*
 * fftw.h - FFTW plans for the CPU FFT engines: a real forward and inverse
 * transform pair of one size, measured once per size and machine and kept as
 * wisdom in the cache directory ($XDG_CACHE_HOME/gfir/fftw-wisdom, else
 * ~/.cache/gfir/fftw-wisdom). GFIR_FFTW_PLANNER=estimate in the environment
 * skips both the measuring and the file.
 *
 * FFTW's planner, wisdom import/export and plan destruction are not
 * thread-safe, so they run under one lock, at create and destroy only.
 * Executing plans with new arrays (fftwf_execute_dft_r2c/c2r) is thread-safe
 * and allocation-free: engines execute without any lock.
 */
#ifndef GF_CPU_FFTW_H
#define GF_CPU_FFTW_H

#include <fftw3.h>

typedef struct gf_fftw_pair {
    fftwf_plan fwd;     /* n reals to n / 2 + 1 complex bins */
    fftwf_plan inv;     /* n / 2 + 1 bins to n reals, unnormalised (scaled by n) */
} gf_fftw_pair;

/* Plans both transforms of n points on these FFTW-aligned (fftwf_malloc)
 * buffers; new-array execute then works on any other aligned buffers of the
 * same sizes. 1 on success; on failure nothing is left to destroy. */
int gf_fftw_pair_make(gf_fftw_pair *pair, int n, float *real_in, fftwf_complex *spec,
                      float *real_out);
/* Destroys what make made; a zeroed pair is allowed. */
void gf_fftw_pair_destroy(gf_fftw_pair *pair);

#endif
