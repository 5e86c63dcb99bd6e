/*
 * peak.h - the largest magnitude over frequency of a filter, or of a sum of
 * several filters' magnitudes (an output fed by several paths), from one
 * real FFT per tap set and a refinement that bounds what lies between the
 * grid's points. Design-time code: it allocates and plans a transform.
 */
#ifndef GF_DESIGN_PEAK_H
#define GF_DESIGN_PEAK_H

#include "cpu/pool.h"

#include <stddef.h>

/* What gf_peak found: peak, a value the sum of magnitudes reaches (to the
 * rounding of a float FFT, about 1e-6 of it), and bound, no less than the
 * true largest value; bound / peak - 1 is at most 1e-6 unless the
 * refinement ran out of its budget (flat responses, see gfir.h). grid: the
 * transform's points (over the whole circle); evaluations: the points off
 * it the refinement interpolated. */
typedef struct gf_peak_result {
    double peak, bound;
    size_t grid, evaluations;
} gf_peak_result;

/* The transforms of nsets sets of ntaps taps (one after another in taps),
 * a set a task on pool's threads (NULL: the caller's alone), or NULL
 * without memory. */
typedef struct gf_spectra gf_spectra;
gf_spectra *gf_spectra_make(const float *taps, size_t ntaps, unsigned nsets, gf_pool *pool);
void gf_spectra_free(gf_spectra *sp);

/* max over w of sum_i |gains[i]| |H_{sets[i]}(e^{jw})| for i < n.
 * 0 (GFIR_OK), or GFIR_ERR_NOMEM. Several calls may run at once. */
int gf_spectra_peak(const gf_spectra *sp, const unsigned *sets, const double *gains, unsigned n,
                    gf_peak_result *out);

#endif
