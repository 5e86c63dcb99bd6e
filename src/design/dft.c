/*
 * dft.c - an iterative radix-2 FFT in double (see dft.h): bit-reversal, then
 * log2(n) butterfly passes over a twiddle table made per call; and the
 * magnitudes of a real sequence's transform through one of half the length.
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

/* The table's values for k <= n / 8 come from cos and sin; the rest are
 * the same numbers mirrored about pi / 4 and pi / 2, so a table costs an
 * eighth of its length in calls, and its symmetries hold exactly. */
double *gf_dft_twiddles(size_t n)
{
    double *tw = malloc((n / 2 + 1) * 2 * sizeof *tw);
    if (!tw)
        return NULL;
    for (size_t k = 0; k < n / 2; k++) {
        double c, s;
        if (8 * k <= n) {
            c = cos(2.0 * pi * (double)k / (double)n);
            s = sin(2.0 * pi * (double)k / (double)n);
        } else if (4 * k <= n) {
            /* theta = pi / 2 - theta', k' = n / 4 - k <= n / 8 */
            c = tw[2 * (n / 4 - k) + 1] * -1.0;
            s = tw[2 * (n / 4 - k)];
        } else {
            /* theta = pi / 2 + theta'', k'' = k - n / 4 < n / 4 */
            c = tw[2 * (k - n / 4) + 1];
            s = tw[2 * (k - n / 4)];
        }
        tw[2 * k] = c;
        tw[2 * k + 1] = -s;
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

/* With Z the m = n / 2 point transform of z[j] = x[2j] + i x[2j+1], the
 * even and odd samples' transforms are E = (Z[k] + conj Z[m-k]) / 2 and
 * O = (Z[k] - conj Z[m-k]) / 2i, and X[k] = E + e^{-2 pi i k / n} O. The
 * half-length table holds e^{-2 pi i k / n} for even k; an odd k's is its
 * even neighbour's turned by one step, e^{-2 pi i / n}. */
int gf_dft_real_magnitudes(double *zr, double *zi, size_t n, double *mag)
{
    const size_t m = n / 2;
    const double c1 = cos(2.0 * pi / (double)n), s1 = -sin(2.0 * pi / (double)n);
    double *tw = gf_dft_twiddles(m);
    if (!tw)
        return -1;
    gf_dft_with(zr, zi, m, tw);
    for (size_t k = 0; k <= m; k++) {
        const size_t a = k % m, b = (m - k) % m;
        const double er = (zr[a] + zr[b]) / 2, ei = (zi[a] - zi[b]) / 2;
        const double or = (zi[a] + zi[b]) / 2, oi = -(zr[a] - zr[b]) / 2;
        double wr = k == m ? -1 : k > 1 ? tw[2 * (k / 2)] : 1;
        double wi = k == m || k < 2 ? 0 : tw[2 * (k / 2) + 1];
        if (k % 2 && k < m) {
            const double t = wr * c1 - wi * s1;
            wi = wr * s1 + wi * c1;
            wr = t;
        }
        const double xr = er + wr * or - wi * oi, xi = ei + wr * oi + wi * or;
        mag[k] = sqrt(xr * xr + xi * xi);
    }
    free(tw);
    return 0;
}
