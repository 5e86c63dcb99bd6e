/*
 * dft.c - an iterative radix-2 FFT in double (see dft.h): bit-reversal, then
 * log2(n) butterfly passes over a twiddle table made per call.
 */
#include "design/dft.h"

#include <math.h>
#include <stdlib.h>

static void bit_reverse(double *re, double *im, size_t n)
{
    for (size_t i = 1, j = 0; i < n; i++) {
        size_t bit = n >> 1;
        for (; j & bit; bit >>= 1)
            j ^= bit;
        j ^= bit;
        if (i < j) {
            double t = re[i];
            re[i] = re[j];
            re[j] = t;
            t = im[i];
            im[i] = im[j];
            im[j] = t;
        }
    }
}

double *gf_dft_twiddles(size_t n)
{
    double *tw = malloc((n / 2 + 1) * 2 * sizeof *tw);
    if (!tw)
        return NULL;
    for (size_t k = 0; k < n / 2; k++) {
        tw[2 * k] = cos(2.0 * pi * (double)k / (double)n);
        tw[2 * k + 1] = -sin(2.0 * pi * (double)k / (double)n);
    }
    return tw;
}

void gf_dft_with(double *re, double *im, size_t n, const double *tw)
{
    bit_reverse(re, im, n);
    for (size_t len = 2; len <= n; len <<= 1) {
        const size_t half = len / 2, stride = n / len;
        for (size_t i = 0; i < n; i += len) {
            for (size_t k = 0; k < half; k++) {
                const double wr = tw[2 * k * stride], wi = tw[2 * k * stride + 1];
                const size_t a = i + k, b = a + half;
                const double tr = re[b] * wr - im[b] * wi, ti = re[b] * wi + im[b] * wr;
                re[b] = re[a] - tr;
                im[b] = im[a] - ti;
                re[a] += tr;
                im[a] += ti;
            }
        }
    }
}

int gf_dft(double *re, double *im, size_t n)
{
    double *tw = gf_dft_twiddles(n);
    if (!tw)
        return -1;
    gf_dft_with(re, im, n, tw);
    free(tw);
    return 0;
}
