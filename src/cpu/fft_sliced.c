/*
 * fft_sliced.c - the real FFT cut into slices of fft_sliced.h.
 *
 * Notation: the window w of 2P reals is read as the complex sequence
 * z[n] = w[2n] + i w[2n+1], n < P, whose DFT Z gives the real spectrum
 *     X[k] = E[k] + W^k O[k],  E = (Z[k] + conj Z[P-k]) / 2,
 *                              O = -i (Z[k] - conj Z[P-k]) / 2,  W = e^(-i pi / P),
 * and X[P - k] = conj(E[k] - W^k O[k]). The four steps of Z, with
 * n = s + S r and k = q + R t:
 *     B[q][s] = W_P^(q s) sum_r z[s + S r] W_R^(r q)      column DFTs, twiddle
 *     Z[q + R t] = sum_s B[q][s] W_S^(s t)                 row DFTs, in place
 * so row q of the work buffer ends up holding bins q, q + R, q + 2R, ... and
 * bin k's partner P - k lies in row R - q, reversed. The inverse builds
 * Z'[k] = (X[k] + conj X[P-k]) + i W^-k (X[k] - conj X[P-k]), whose inverse
 * DFT is 2P (w[2n] + i w[2n+1]), and runs the steps backwards.
 */
#include "cpu/fft_sliced.h"
#include "cpu/tuning.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Columns per slice of the column step: 8 complex values are 64 bytes, so
 * every slice starts as aligned as the window. */
#define COL_CHUNK ((size_t)8)
/* Complex values a row or (un)packing slice handles, about a microsecond. */
#define SLICE_VALUES ((size_t)1024)
/* Rows of the four-step transform; 64 was fastest from P = 4096 to 65536
 * (R x S = 64 x 64 ... 64 x 1024) in trials on the development machine, where
 * the strided column step slows down as R grows. */
#define MAX_ROWS ((size_t)64)

/* ---- the loops, compiled per instruction set ------------------------------ */

#if defined(__GNUC__)
#define ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define ALWAYS_INLINE inline
#endif

/* For i < n, with j = n - 1 - i: a = za[i] (interleaved), b = conj of
 * (bre[j], bim[j]) (split, walked backwards); X[k] to xa[i], X[P-k] to xb[j]. */
static ALWAYS_INLINE void unpack_body(const float *restrict za, const float *restrict bre,
                                      const float *restrict bim, const float *restrict wr,
                                      const float *restrict wi, float *restrict xar,
                                      float *restrict xai, float *restrict xbr,
                                      float *restrict xbi, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const size_t j = n - 1 - i;
        const float ar = za[2 * i], ai = za[2 * i + 1], br = bre[j], bi = -bim[j];
        const float er = 0.5f * (ar + br), ei = 0.5f * (ai + bi);
        const float orr = 0.5f * (ai - bi), oi = -0.5f * (ar - br);
        const float tr = wr[i] * orr - wi[i] * oi, ti = wr[i] * oi + wi[i] * orr;
        xar[i] = er + tr;
        xai[i] = ei + ti;
        xbr[j] = er - tr;
        xbi[j] = ti - ei;
    }
}

/* The inverse's: ya[i] with yb[j] (both split, yb walked backwards) give
 * Z'[k] to za[i] (interleaved) and Z'[P-k] to (tbr[j], tbi[j]). */
static ALWAYS_INLINE void pack_body(const float *restrict yar, const float *restrict yai,
                                    const float *restrict ybr, const float *restrict ybi,
                                    const float *restrict wr, const float *restrict wi,
                                    float *restrict za, float *restrict tbr,
                                    float *restrict tbi, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const size_t j = n - 1 - i;
        const float ar = yar[i] + ybr[j], ai = yai[i] - ybi[j];
        const float dr = yar[i] - ybr[j], di = yai[i] + ybi[j];
        const float vr = wr[i] * dr + wi[i] * di, vi = wr[i] * di - wi[i] * dr;
        za[2 * i] = ar - vi;
        za[2 * i + 1] = ai + vr;
        tbr[j] = ar + vi;
        tbi[j] = vr - ai;
    }
}

/* z[i] *= wr[i] + i sign wi[i], z interleaved. */
static ALWAYS_INLINE void twiddle_body(float *restrict z, const float *restrict wr,
                                       const float *restrict wi, float sign, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const float zr = z[2 * i], zi = z[2 * i + 1], c = wr[i], s = sign * wi[i];
        z[2 * i] = zr * c - zi * s;
        z[2 * i + 1] = zr * s + zi * c;
    }
}

#define GF_SLICED_VERSIONS(suffix, attr)                                                        \
    attr static void unpack_##suffix(const float *za, const float *bre, const float *bim,       \
                                     const float *wr, const float *wi, float *xar, float *xai,  \
                                     float *xbr, float *xbi, size_t n)                          \
    {                                                                                           \
        unpack_body(za, bre, bim, wr, wi, xar, xai, xbr, xbi, n);                               \
    }                                                                                           \
    attr static void pack_##suffix(const float *yar, const float *yai, const float *ybr,        \
                                   const float *ybi, const float *wr, const float *wi,          \
                                   float *za, float *tbr, float *tbi, size_t n)                 \
    {                                                                                           \
        pack_body(yar, yai, ybr, ybi, wr, wi, za, tbr, tbi, n);                                 \
    }                                                                                           \
    attr static void twiddle_##suffix(float *z, const float *wr, const float *wi, float sign,  \
                                      size_t n)                                                 \
    {                                                                                           \
        twiddle_body(z, wr, wi, sign, n);                                                       \
    }

GF_SLICED_VERSIONS(base, )
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#define HAVE_X86_TARGETS 1
GF_SLICED_VERSIONS(avx2, __attribute__((target("avx2,fma"))))
GF_SLICED_VERSIONS(avx512, __attribute__((target("avx512f,avx512vl,avx2,fma"))))
#endif

static void select_loops(gf_sliced_fft *f)
{
    f->unpack_run = unpack_base;
    f->pack_run = pack_base;
    f->twiddle_run = twiddle_base;
#ifdef HAVE_X86_TARGETS
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl")) {
        f->unpack_run = unpack_avx512;
        f->pack_run = pack_avx512;
        f->twiddle_run = twiddle_avx512;
    } else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
        f->unpack_run = unpack_avx2;
        f->pack_run = pack_avx2;
        f->twiddle_run = twiddle_avx2;
    }
#endif
}

static void deinterleave(const float *z, float *re, float *im, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        re[i] = z[2 * i];
        im[i] = z[2 * i + 1];
    }
}

static void interleave(const float *re, const float *im, float *z, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        z[2 * i] = re[i];
        z[2 * i + 1] = im[i];
    }
}

/* ---- planning -------------------------------------------------------------- */

void gf_sliced_destroy(gf_sliced_fft *f)
{
    gf_fftw_pair_destroy(&f->whole);
    gf_fftw_plan_destroy(f->col_fwd);
    gf_fftw_plan_destroy(f->row_fwd);
    gf_fftw_plan_destroy(f->col_inv);
    gf_fftw_plan_destroy(f->row_inv);
    fftwf_free(f->twiddle);
    fftwf_free(f->unpack);
    memset(f, 0, sizeof *f);
}

static int make_whole(gf_sliced_fft *f)
{
    const size_t P = f->part;
    float *in = fftwf_malloc(2 * P * sizeof *in), *out = fftwf_malloc(2 * P * sizeof *out);
    fftwf_complex *spec = fftwf_malloc((P + 1) * sizeof *spec);
    int ok = in && out && spec &&
             gf_fftw_pair_make(&f->whole, (int)(2 * P), in, spec, out,
                               gf_cpu_fftw_measure_pays(0, 2 * P, f->uses));
    fftwf_free(in);
    fftwf_free(out);
    fftwf_free(spec);
    return ok;
}

static void fill_tables(gf_sliced_fft *f)
{
    const size_t P = f->part, R = f->rows, S = f->cols;
    const double pi = 3.14159265358979323846;
    for (size_t q = 0; q < R; q++) {
        for (size_t s = 0; s < S; s++) {
            /* Reduced mod P first: q s reaches 2^30, past double's exact sin. */
            const double a = -2.0 * pi * (double)((q * s) % P) / (double)P;
            const double b = -pi * (double)(q + R * s) / (double)P;
            f->twiddle[q * S + s] = (float)cos(a);
            f->twiddle[P + q * S + s] = (float)sin(a);
            f->unpack[q * S + s] = (float)cos(b);
            f->unpack[P + q * S + s] = (float)sin(b);
        }
    }
}

static int make_steps(gf_sliced_fft *f)
{
    const size_t P = f->part;
    const int R = (int)f->rows, S = (int)f->cols, cc = (int)f->col_chunk, rc = (int)f->row_chunk;
    fftwf_complex *a = fftwf_malloc(P * sizeof *a), *b = fftwf_malloc(P * sizeof *b);
    const int measure = gf_cpu_fftw_measure_pays(1, 2 * P, f->uses);
    int ok = 0;
    f->twiddle = fftwf_malloc(2 * P * sizeof *f->twiddle);
    f->unpack = fftwf_malloc(2 * P * sizeof *f->unpack);
    if (a && b && f->twiddle && f->unpack) {
        f->col_fwd = gf_fftw_many_make(R, cc, a, S, 1, b, S, 1, FFTW_FORWARD, measure);
        f->row_fwd = gf_fftw_many_make(S, rc, b, 1, S, b, 1, S, FFTW_FORWARD, measure);
        f->row_inv = gf_fftw_many_make(S, rc, b, 1, S, b, 1, S, FFTW_BACKWARD, measure);
        f->col_inv = gf_fftw_many_make(R, cc, b, S, 1, b, S, 1, FFTW_BACKWARD, measure);
        ok = f->col_fwd && f->row_fwd && f->row_inv && f->col_inv;
        fill_tables(f);
    }
    fftwf_free(a);
    fftwf_free(b);
    return ok;
}

static int make(gf_sliced_fft *f, size_t part, double uses, int whole)
{
    memset(f, 0, sizeof *f);
    f->part = part;
    f->uses = uses;
    select_loops(f);
    if (whole || part < GF_SLICED_MIN_PART) {
        if (make_whole(f))
            return 1;
        gf_sliced_destroy(f);
        return 0;
    }
    f->rows = part / 64 < MAX_ROWS ? part / 64 : MAX_ROWS;
    f->cols = part / f->rows;
    f->col_chunk = COL_CHUNK;
    f->row_chunk = SLICE_VALUES / f->cols > 1 ? SLICE_VALUES / f->cols : 1;
    f->pair_chunk = SLICE_VALUES / (2 * f->cols) > 1 ? SLICE_VALUES / (2 * f->cols) : 1;
    f->ncol = f->cols / f->col_chunk;
    f->nrow = f->rows / f->row_chunk;
    f->npair = (f->rows / 2 + 1 + f->pair_chunk - 1) / f->pair_chunk;
    if (make_steps(f))
        return 1;
    gf_sliced_destroy(f);
    return 0;
}

int gf_sliced_make(gf_sliced_fft *f, size_t part, double uses)
{
    return make(f, part, uses, 0);
}

int gf_sliced_make_whole(gf_sliced_fft *f, size_t part, double uses)
{
    return make(f, part, uses, 1);
}

size_t gf_sliced_count(const gf_sliced_fft *f)
{
    return f->rows ? f->ncol + f->nrow + f->npair : 1;
}

size_t gf_sliced_work_floats(const gf_sliced_fft *f)
{
    return f->rows ? 2 * f->part : 0;
}

size_t gf_sliced_scratch_floats(const gf_sliced_fft *f)
{
    return f->rows ? 2 * f->cols : 2 * (f->part + 1);
}

/* ---- forward ----------------------------------------------------------------- */

/* The real spectrum from rows q and R - q of the row step's output (one
 * self-paired row when q is 0 or R / 2). */
static void unpack_pair(const gf_sliced_fft *f, size_t q, const float *z, float *scratch,
                        float *re, float *im)
{
    const size_t P = f->part, R = f->rows, S = f->cols, h = S / 2;
    const float *ur = f->unpack, *ui = f->unpack + P;
    float *tr = scratch, *ti = scratch + S;
    if (q == 0) {
        /* Bins 0 and P from Z[0]; R t with R (S - t); P / 2 alone. */
        re[0] = z[0] + z[1];
        im[0] = 0.0f;
        re[P] = z[0] - z[1];
        im[P] = 0.0f;
        deinterleave(z + 2 * (h + 1), tr, ti, h - 1);
        f->unpack_run(z + 2, tr, ti, ur + 1, ui + 1, re + 1, im + 1, re + h + 1, im + h + 1,
                      h - 1);
        re[h] = z[2 * h];
        im[h] = -z[2 * h + 1];
    } else if (2 * q == R) {
        const size_t o = q * S;
        deinterleave(z + 2 * (o + h), tr, ti, h);
        f->unpack_run(z + 2 * o, tr, ti, ur + o, ui + o, re + o, im + o, re + o + h, im + o + h,
                      h);
    } else {
        const size_t o = q * S, m = (R - q) * S;
        deinterleave(z + 2 * m, tr, ti, S);
        f->unpack_run(z + 2 * o, tr, ti, ur + o, ui + o, re + o, im + o, re + m, im + m, S);
    }
}

void gf_sliced_forward(const gf_sliced_fft *f, size_t slice, const float *window, float *work,
                       float *scratch, float *re, float *im)
{
    const size_t P = f->part, S = f->cols;
    if (!f->rows) {
        fftwf_execute_dft_r2c(f->whole.fwd, (float *)window, (fftwf_complex *)scratch);
        deinterleave(scratch, re, im, P + 1);
        return;
    }
    if (slice < f->ncol) {
        const size_t s0 = slice * f->col_chunk;
        fftwf_execute_dft(f->col_fwd, (fftwf_complex *)window + s0, (fftwf_complex *)work + s0);
        return;
    }
    slice -= f->ncol;
    if (slice < f->nrow) {
        const size_t q0 = slice * f->row_chunk;
        for (size_t q = q0; q < q0 + f->row_chunk; q++)
            f->twiddle_run(work + 2 * q * S, f->twiddle + q * S, f->twiddle + P + q * S, 1.0f,
                           S);
        fftwf_execute_dft(f->row_fwd, (fftwf_complex *)work + q0 * S,
                          (fftwf_complex *)work + q0 * S);
        return;
    }
    slice -= f->nrow;
    for (size_t p = slice * f->pair_chunk;
         p < (slice + 1) * f->pair_chunk && p <= f->rows / 2; p++)
        unpack_pair(f, p, work, scratch, re, im);
}

/* ---- inverse ----------------------------------------------------------------- */

/* Z' of rows q and R - q into z, from the spectrum's bins there. */
static void pack_pair(const gf_sliced_fft *f, size_t q, const float *re, const float *im,
                      float *scratch, float *z)
{
    const size_t P = f->part, R = f->rows, S = f->cols, h = S / 2;
    const float *ur = f->unpack, *ui = f->unpack + P;
    float *tr = scratch, *ti = scratch + S;
    if (q == 0) {
        const float ar = re[0] + re[P], ai = im[0] - im[P];
        const float dr = re[0] - re[P], di = im[0] + im[P];
        z[0] = ar - di;
        z[1] = ai + dr;
        f->pack_run(re + 1, im + 1, re + h + 1, im + h + 1, ur + 1, ui + 1, z + 2, tr, ti, h - 1);
        interleave(tr, ti, z + 2 * (h + 1), h - 1);
        z[2 * h] = 2.0f * re[h];
        z[2 * h + 1] = -2.0f * im[h];
    } else if (2 * q == R) {
        const size_t o = q * S;
        f->pack_run(re + o, im + o, re + o + h, im + o + h, ur + o, ui + o, z + 2 * o, tr, ti, h);
        interleave(tr, ti, z + 2 * (o + h), h);
    } else {
        const size_t o = q * S, m = (R - q) * S;
        f->pack_run(re + o, im + o, re + m, im + m, ur + o, ui + o, z + 2 * o, tr, ti, S);
        interleave(tr, ti, z + 2 * m, S);
    }
}

void gf_sliced_inverse(const gf_sliced_fft *f, size_t slice, const float *re, const float *im,
                       float *scratch, float *out)
{
    const size_t P = f->part, S = f->cols;
    if (!f->rows) {
        interleave(re, im, scratch, P + 1);
        fftwf_execute_dft_c2r(f->whole.inv, (fftwf_complex *)scratch, out);
        return;
    }
    if (slice < f->npair) {
        for (size_t p = slice * f->pair_chunk;
             p < (slice + 1) * f->pair_chunk && p <= f->rows / 2; p++)
            pack_pair(f, p, re, im, scratch, out);
        return;
    }
    slice -= f->npair;
    if (slice < f->nrow) {
        const size_t q0 = slice * f->row_chunk;
        fftwf_execute_dft(f->row_inv, (fftwf_complex *)out + q0 * S,
                          (fftwf_complex *)out + q0 * S);
        for (size_t q = q0; q < q0 + f->row_chunk; q++)
            f->twiddle_run(out + 2 * q * S, f->twiddle + q * S, f->twiddle + P + q * S, -1.0f,
                           S);
        return;
    }
    slice -= f->nrow;
    fftwf_execute_dft(f->col_inv, (fftwf_complex *)out + slice * f->col_chunk,
                      (fftwf_complex *)out + slice * f->col_chunk);
}
