/*
 * fftw.h - FFTW plans for the CPU FFT engines: a real forward and inverse
 * transform pair of one size, or a batch of strided complex transforms (the
 * steps of a transform cut into slices, fft_sliced.h), measured once per
 * shape and machine and kept as wisdom in the cache directory
 * ($XDG_CACHE_HOME/gfir/fftw-wisdom, else ~/.cache/gfir/fftw-wisdom).
 * Only where the caller says measuring pays for its work
 * (gf_cpu_fftw_measure_pays, tuning.h); otherwise a shape the wisdom lacks
 * is planned with FFTW_ESTIMATE and nothing is saved. In the environment,
 * GFIR_FFTW_PLANNER=estimate skips both the measuring and the file, and
 * GFIR_FFTW_PLANNER=measure measures every shape.
 *
 * FFTW's planner, wisdom import/export and plan destruction are not
 * thread-safe, so they run under one lock, at create and destroy only; and
 * since the host process may plan with the same FFTW on its own threads,
 * FFTW's own planner lock is installed too (fftwf_make_planner_thread_safe,
 * at load).
 * Executing plans with new arrays (fftwf_execute_dft_r2c/c2r/dft) is thread-safe
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
 * same sizes. measure: whether measuring pays where wisdom has no plan (see
 * above). 1 on success; on failure nothing is left to destroy. */
int gf_fftw_pair_make(gf_fftw_pair *pair, int n, float *real_in, fftwf_complex *spec,
                      float *real_out, int measure);
/* a x b x c floats, FFTW-aligned (fftwf_free them), or NULL when there is no
 * memory or the count overflows. */
float *gf_fftw_floats(size_t a, size_t b, size_t c);

/* Destroys what make made; a zeroed pair is allowed. */
void gf_fftw_pair_destroy(gf_fftw_pair *pair);

/* Plans howmany complex transforms of n points through FFTW's advanced
 * interface (strides and distances counted in complex elements; in == out
 * plans in place), sign FFTW_FORWARD or FFTW_BACKWARD, under the same lock and
 * wisdom as the pairs. As with the pairs, new-array execute then works on any
 * other arrays of the same alignment. NULL on failure. */
fftwf_plan gf_fftw_many_make(int n, int howmany, fftwf_complex *in, int istride, int idist,
                             fftwf_complex *out, int ostride, int odist, int sign, int measure);
/* A forward real transform of n points planned for one use (FFTW_ESTIMATE,
 * neither measured nor saved as wisdom: measuring a size met once would cost
 * more than the transform), under the same lock; in place when in is
 * (float *)out. NULL on failure; destroy with gf_fftw_plan_destroy. */
fftwf_plan gf_fftw_r2c_once(int n, float *in, fftwf_complex *out);

/* Destroys what many_make or r2c_once made; NULL is allowed. */
void gf_fftw_plan_destroy(fftwf_plan plan);

/* How many transforms pair_make and many_make have planned in this process
 * (a pair counts two), by where their plan came from: for tests. */
typedef struct gf_fftw_count {
    unsigned long from_wisdom;  /* the wisdom file's or this process's measurements */
    unsigned long measured;     /* FFTW_MEASURE, then saved as wisdom */
    unsigned long estimated;    /* FFTW_ESTIMATE */
} gf_fftw_count;
void gf_fftw_counts(gf_fftw_count *out);

#endif
