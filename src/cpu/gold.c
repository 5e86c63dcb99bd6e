/*
 * gold.c - the reference convolution every fast path is tested against.
 * Deliberately plain: one output at a time, products summed in double.
 */
#include "cpu/direct.h"

void gf_cpu_gold(const float *xh, const float *hr, size_t ntaps, float *y, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        double acc = 0.0;
        for (size_t m = 0; m < ntaps; m++)
            acc += (double)hr[m] * (double)xh[i + m];
        y[i] = (float)acc;
    }
}
