/*
 * fold.c - two filter stages folded into one: their full convolution,
 * accumulated in double.
 */
#include "gfir.h"

#include <stddef.h>

gfir_status gfir_fold(const float *a, size_t na, const float *b, size_t nb, float *out)
{
    if (!a || !b || !out)
        return GFIR_ERR_NULL;
    if (na == 0 || nb == 0 || na > GFIR_MAX_TAPS || nb > GFIR_MAX_TAPS ||
        na + nb - 1 > GFIR_MAX_TAPS)
        return GFIR_ERR_TAPS;
    for (size_t i = 0; i < na + nb - 1; i++) {
        /* the j with 0 <= j < na and 0 <= i - j < nb */
        size_t first = i >= nb ? i - nb + 1 : 0;
        size_t last = i < na ? i : na - 1;
        double acc = 0.0;
        for (size_t j = first; j <= last; j++)
            acc += (double)a[j] * (double)b[i - j];
        out[i] = (float)acc;
    }
    return GFIR_OK;
}
