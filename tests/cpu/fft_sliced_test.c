/*
 * fft_sliced_test.c - the real FFT cut into slices (src/cpu/fft_sliced.h)
 * against a float64 DFT computed here, for one-slice sizes and four-step
 * sizes from the smallest to the largest the engine uses: the spectrum bin
 * for bin in the transform's order, the inverse of a random spectrum, the
 * round trip, and two transforms in flight at once, their slices
 * interleaved and sharing one scratch buffer.
 *
 * Tolerance: relative L2 error 1e-5, the project's for filters up to 65536
 * taps (single precision FFTs land near 1e-7).
 */
#include "cpu/fft_sliced.h"
#include "test_util.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static const size_t parts[] = {16,   64,   GF_SLICED_MIN_PART / 2, GF_SLICED_MIN_PART,
                               2048, 4096, 16384,                  65536};
#define NPARTS (sizeof parts / sizeof parts[0])

/* In-place float64 complex FFT of n (a power of two) points, sign -1
 * forward, +1 inverse (unnormalised): the reference. */
static void ref_fft(double *re, double *im, size_t n, int sign)
{
    for (size_t i = 1, j = 0; i < n; i++) {
        size_t bit = n >> 1;
        for (; j & bit; bit >>= 1)
            j ^= bit;
        j |= bit;
        if (i < j) {
            double t = re[i];
            re[i] = re[j];
            re[j] = t;
            t = im[i];
            im[i] = im[j];
            im[j] = t;
        }
    }
    for (size_t len = 2; len <= n; len *= 2) {
        const double a = sign * 2.0 * 3.14159265358979323846 / (double)len;
        for (size_t i = 0; i < n; i += len)
            for (size_t k = 0; k < len / 2; k++) {
                const double c = cos(a * (double)k), s = sin(a * (double)k);
                const size_t p = i + k, q = p + len / 2;
                const double tr = re[q] * c - im[q] * s, ti = re[q] * s + im[q] * c;
                re[q] = re[p] - tr;
                im[q] = im[p] - ti;
                re[p] += tr;
                im[p] += ti;
            }
    }
}

/* Where bin k (k <= P) lies in the transform's spectrum. */
static size_t place(const gf_sliced_fft *f, size_t k)
{
    if (!f->rows || k == f->part)
        return k;
    return (k % f->rows) * f->cols + k / f->rows;
}

typedef struct bufs {
    float *window, *work, *scratch, *re, *im, *out;
} bufs;

static bufs make_bufs(const gf_sliced_fft *f)
{
    const size_t P = f->part;
    bufs b = {fftwf_malloc(2 * P * sizeof(float)),
              fftwf_malloc((gf_sliced_work_floats(f) + 1) * sizeof(float)),
              fftwf_malloc(gf_sliced_scratch_floats(f) * sizeof(float)),
              fftwf_malloc((P + 1) * sizeof(float)), fftwf_malloc((P + 1) * sizeof(float)),
              fftwf_malloc(2 * P * sizeof(float))};
    assert_true(b.window && b.work && b.scratch && b.re && b.im && b.out);
    return b;
}

static void free_bufs(bufs *b)
{
    fftwf_free(b->window);
    fftwf_free(b->work);
    fftwf_free(b->scratch);
    fftwf_free(b->re);
    fftwf_free(b->im);
    fftwf_free(b->out);
}

static void forward(const gf_sliced_fft *f, bufs *b)
{
    for (size_t s = 0; s < gf_sliced_count(f); s++)
        gf_sliced_forward(f, s, b->window, b->work, b->scratch, b->re, b->im);
}

static void inverse(const gf_sliced_fft *f, bufs *b)
{
    for (size_t s = 0; s < gf_sliced_count(f); s++)
        gf_sliced_inverse(f, s, b->re, b->im, b->scratch, b->out);
}

/* The spectrum of a random window, bin for bin in the transform's order. */
static void test_forward(void **state)
{
    (void)state;
    for (size_t p = 0; p < NPARTS; p++) {
        const size_t P = parts[p], n = 2 * P;
        uint64_t rng = P;
        gf_sliced_fft f;
        double *re = malloc(n * sizeof *re), *im = calloc(n, sizeof *im), num = 0.0, den = 0.0;
        bufs b;
        assert_true(re && im);
        assert_int_equal(gf_sliced_make(&f, P, 0), 1);
        b = make_bufs(&f);
        test_fill(b.window, n, &rng);
        for (size_t i = 0; i < n; i++)
            re[i] = b.window[i];
        ref_fft(re, im, n, -1);
        forward(&f, &b);
        for (size_t k = 0; k <= P; k++) {
            const size_t at = place(&f, k);
            const double dr = b.re[at] - re[k], di = b.im[at] - im[k];
            num += dr * dr + di * di;
            den += re[k] * re[k] + im[k] * im[k];
        }
        if (!(sqrt(num / den) < 1e-5))
            fail_msg("forward P=%zu (%zu slices): rel L2 %.3g", P, gf_sliced_count(&f),
                     sqrt(num / den));
        printf("  forward P=%zu slices=%zu: rel L2 %.2e\n", P, gf_sliced_count(&f),
               sqrt(num / den));
        free_bufs(&b);
        gf_sliced_destroy(&f);
        free(re);
        free(im);
    }
}

/* A random Hermitian spectrum back to 2P times its real signal. */
static void test_inverse(void **state)
{
    (void)state;
    for (size_t p = 0; p < NPARTS; p++) {
        const size_t P = parts[p], n = 2 * P;
        uint64_t rng = 3 * P + 1;
        gf_sliced_fft f;
        double *re = calloc(n, sizeof *re), *im = calloc(n, sizeof *im), num = 0.0, den = 0.0;
        bufs b;
        assert_true(re && im);
        assert_int_equal(gf_sliced_make(&f, P, 0), 1);
        b = make_bufs(&f);
        for (size_t k = 0; k <= P; k++) {
            float v[2];
            test_fill(v, 2, &rng);
            if (k == 0 || k == P)
                v[1] = 0.0f; /* a real signal's DC and Nyquist bins are real */
            b.re[place(&f, k)] = v[0];
            b.im[place(&f, k)] = v[1];
            re[k] = v[0];
            im[k] = v[1];
            if (k > 0 && k < P) {
                re[n - k] = v[0];
                im[n - k] = -v[1];
            }
        }
        ref_fft(re, im, n, 1);
        inverse(&f, &b);
        for (size_t i = 0; i < n; i++) {
            const double d = b.out[i] - re[i];
            num += d * d;
            den += re[i] * re[i];
        }
        if (!(sqrt(num / den) < 1e-5))
            fail_msg("inverse P=%zu: rel L2 %.3g", P, sqrt(num / den));
        free_bufs(&b);
        gf_sliced_destroy(&f);
        free(re);
        free(im);
    }
}

/* Two transforms in flight on one object, slices interleaved, one scratch:
 * each gives what it gives alone, and the round trip is 2P times the input. */
static void test_interleaved_round_trip(void **state)
{
    (void)state;
    for (size_t p = 0; p < NPARTS; p++) {
        const size_t P = parts[p], n = 2 * P;
        uint64_t rng = 7 * P;
        size_t count;
        gf_sliced_fft f;
        bufs a, b, solo;
        assert_int_equal(gf_sliced_make(&f, P, 0), 1);
        a = make_bufs(&f);
        b = make_bufs(&f);
        solo = make_bufs(&f);
        test_fill(a.window, n, &rng);
        test_fill(b.window, n, &rng);
        memcpy(solo.window, b.window, n * sizeof(float));
        forward(&f, &solo);
        count = gf_sliced_count(&f);
        for (size_t s = 0; s < count; s++) {
            gf_sliced_forward(&f, s, a.window, a.work, a.scratch, a.re, a.im);
            gf_sliced_forward(&f, s, b.window, b.work, a.scratch, b.re, b.im);
        }
        assert_memory_equal(b.re, solo.re, (P + 1) * sizeof(float));
        assert_memory_equal(b.im, solo.im, (P + 1) * sizeof(float));
        for (size_t s = 0; s < count; s++) {
            gf_sliced_inverse(&f, s, a.re, a.im, a.scratch, a.out);
            gf_sliced_inverse(&f, s, b.re, b.im, a.scratch, b.out);
        }
        for (int which = 0; which < 2; which++) {
            const bufs *t = which ? &b : &a;
            double num = 0.0, den = 0.0;
            for (size_t i = 0; i < n; i++) {
                const double want = (double)n * t->window[i], d = t->out[i] - want;
                num += d * d;
                den += want * want;
            }
            if (!(sqrt(num / den) < 1e-5))
                fail_msg("round trip P=%zu transform %d: rel L2 %.3g", P, which,
                         sqrt(num / den));
        }
        free_bufs(&a);
        free_bufs(&b);
        free_bufs(&solo);
        gf_sliced_destroy(&f);
    }
}

/* Small transforms are one slice; large ones are cut into many. */
static void test_slicing(void **state)
{
    (void)state;
    gf_sliced_fft f;
    assert_int_equal(gf_sliced_make(&f, GF_SLICED_MIN_PART / 2, 0), 1);
    assert_int_equal(gf_sliced_count(&f), 1);
    gf_sliced_destroy(&f);
    assert_int_equal(gf_sliced_make(&f, 65536, 0), 1);
    assert_true(gf_sliced_count(&f) >= 64);
    gf_sliced_destroy(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_forward),
        cmocka_unit_test(test_inverse),
        cmocka_unit_test(test_interleaved_round_trip),
        cmocka_unit_test(test_slicing),
    };
    setenv("GFIR_FFTW_PLANNER", "estimate", 1);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
