/*
 * fold.c - two filter stages folded into one: their full convolution,
 * accumulated in double. Short stages are summed directly; long ones go
 * through a double FFT, where the direct sum's na * nb multiply-adds would
 * take hours (two stages of 10^6 taps: 10^12).
 */
#include "gfir.h"
#include "design/dft.h"

#include <stddef.h>
#include <stdlib.h>

/* Direct up to this many multiply-adds (a few milliseconds), or when the
 * shorter stage is this short, and wherever the FFT's buffers cannot be had:
 * the FFT costs about 24 bytes a point of the padded length. */
#define FOLD_DIRECT_MAX_MACS ((double)(1 << 20))
#define FOLD_DIRECT_MAX_SHORT 32

static void fold_direct(const float *a, size_t na, const float *b, size_t nb, float *out)
{
    for (size_t i = 0; i < na + nb - 1; i++) {
        /* the j with 0 <= j < na and 0 <= i - j < nb */
        size_t first = i >= nb ? i - nb + 1 : 0;
        size_t last = i < na ? i : na - 1;
        double acc = 0.0;
        for (size_t j = first; j <= last; j++)
            acc += (double)a[j] * (double)b[i - j];
        out[i] = (float)acc;
    }
}

/*
 * Both stages go into one complex sequence z = a + i b, so one forward FFT
 * gives both spectra: with Z its transform, A[k] = (Z[k] + conj Z[n-k]) / 2
 * and B[k] = (Z[k] - conj Z[n-k]) / 2i, hence
 *     A[k] B[k] = (Z[k]^2 - conj(Z[n-k])^2) / 4i,
 * and the product's inverse transform is real: out = Re(DFT(conj(A B))) / n.
 * 0, or -1 without memory.
 */
static int fold_fft(const float *a, size_t na, const float *b, size_t nb, float *out)
{
    const size_t nout = na + nb - 1;
    size_t n = 1;
    double *re, *im;
    int rc = -1;

    while (n < nout)
        n <<= 1;
    re = calloc(n, sizeof *re);
    im = calloc(n, sizeof *im);
    if (!re || !im)
        goto done;
    for (size_t i = 0; i < na; i++)
        re[i] = a[i];
    for (size_t i = 0; i < nb; i++)
        im[i] = b[i];
    if (gf_dft(re, im, n) != 0)
        goto done;
    /* k and n - k together; conj(A B) goes straight in, ready for the inverse */
    for (size_t k = 0; k <= n / 2; k++) {
        const size_t m = (n - k) & (n - 1);
        const double zr = re[k], zi = im[k], wr = re[m], wi = -im[m];
        const double dr = (zr * zr - zi * zi) - (wr * wr - wi * wi);
        const double di = 2.0 * (zr * zi - wr * wi);
        const double cr = di / 4.0, ci = -dr / 4.0; /* (dr + i di) / 4i */
        re[k] = cr;
        im[k] = -ci;
        re[m] = cr;
        im[m] = ci;
    }
    if (gf_dft(re, im, n) != 0)
        goto done;
    for (size_t i = 0; i < nout; i++)
        out[i] = (float)(re[i] / (double)n);
    rc = 0;
done:
    free(re);
    free(im);
    return rc;
}

gfir_status gfir_fold(const float *a, size_t na, const float *b, size_t nb, float *out)
{
    if (!a || !b || !out)
        return GFIR_ERR_NULL;
    if (na == 0 || nb == 0 || na > GFIR_MAX_TAPS || nb > GFIR_MAX_TAPS ||
        na + nb - 1 > GFIR_MAX_TAPS)
        return GFIR_ERR_TAPS;
    if ((double)na * (double)nb <= FOLD_DIRECT_MAX_MACS || na <= FOLD_DIRECT_MAX_SHORT ||
        nb <= FOLD_DIRECT_MAX_SHORT || fold_fft(a, na, b, nb, out) != 0)
        fold_direct(a, na, b, nb, out);
    return GFIR_OK;
}
