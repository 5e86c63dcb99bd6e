/*
 * smfft_test.c - smfft's transforms (kernels/fft/smfft*.cu) called directly,
 * against a float64 reference, at every power of two from 2 points up:
 * sizes the FFT engine's rule never picks as well as those it does (below
 * 32 points a transform is a single pass, from input to output in
 * registers; 4096 points the rule now skips; four-step from 2^15). Each
 * size takes 1, N/4 + 1 and N/2 taps, with:
 *   - planar output, a tap set per channel, the signal's end inside a
 *     segment;
 *   - interleaved output with gaps between frames, one tap set for all
 *     channels, lead zeros and a signal shorter than the output;
 *   - an odd number of segments (the last pair's second one absent);
 *   - one segment only.
 * The input rows are NaN past their samples, the output NaN wherever
 * nothing may be written: every output must be finite and every other
 * element still NaN. Relative L2 below 1e-5 (1e-4 past 65536 taps, the
 * project's rule), at every output up to 2048 points and at the segments'
 * edges, the ends and about 512 others above. Exits 77 (skipped) without a
 * usable CUDA device. `smfft_test --quick` stops at 2^15 points.
 */
#define _POSIX_C_SOURCE 200809L
#include "fft/smfft.h"
#include "gfir.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_util.h"

static int quick;

#define CHECK_CUDA(call) assert_int_equal((call), cudaSuccess)

typedef struct smfft_case {
    size_t n_fft, ntaps;
    unsigned channels;
    int shared;        /* one tap set for every channel */
    size_t frames;     /* outputs per channel */
    size_t lead, avail; /* the input: lead zeros, then avail samples */
    size_t frame_gap;  /* frame_stride = (interleaved ? channels : 1) + frame_gap */
    int interleaved;
} smfft_case;

static unsigned log2_of(size_t n)
{
    unsigned l = 0;
    while (((size_t)1 << l) < n)
        l++;
    return l;
}

/* Output i is checked: all of them for small transforms; else the ends,
 * both sides of every segment edge, and every step-th. */
static int checked(size_t i, size_t n, size_t hop, size_t n_fft)
{
    const size_t step = n / 512 ? n / 512 : 1;
    return n_fft <= 2048 || i < 3 || i + 3 >= n || i % hop < 2 || i % hop + 2 >= hop ||
           i % step == 0;
}

static void check_case(const smfft_case *sc)
{
    const size_t n = sc->frames, col = sc->ntaps - 1, hop = sc->n_fft - col;
    const size_t rows = (n + hop - 1) / hop, x_stride = sc->avail + 5;
    const unsigned C = sc->channels, filters = sc->shared ? 1 : C;
    const size_t frame_stride = (sc->interleaved ? C : 1) + sc->frame_gap;
    const size_t channel_stride = sc->interleaved ? 1 : n * frame_stride + 3;
    const size_t y_len = sc->interleaved ? n * frame_stride : C * channel_stride;
    uint64_t rng = 0x5EEDULL + sc->n_fft * 977 + sc->ntaps * 13 + sc->frames;
    float *h_taps = malloc(filters * sc->ntaps * sizeof(float));
    float *h_x = malloc(C * x_stride * sizeof(float));
    float *h_y = malloc(y_len * sizeof(float));
    unsigned char *is_out = calloc(y_len, 1);
    assert_non_null(h_taps);
    assert_non_null(h_x);
    assert_non_null(h_y);
    assert_non_null(is_out);
    test_fill(h_taps, filters * sc->ntaps, &rng);
    for (unsigned c = 0; c < C; c++)
        for (size_t k = 0; k < x_stride; k++)
            h_x[c * x_stride + k] = k < sc->avail ? (float)(2.0 * test_uniform(&rng) - 1.0) : NAN;

    float *d_taps, *d_x, *d_y;
    float2 *d_tw, *d_spec, *d_work = NULL;
    cudaStream_t stream;
    CHECK_CUDA(cudaStreamCreate(&stream));
    CHECK_CUDA(cudaMalloc((void **)&d_taps, filters * sc->ntaps * sizeof(float)));
    CHECK_CUDA(cudaMalloc((void **)&d_x, C * x_stride * sizeof(float)));
    CHECK_CUDA(cudaMalloc((void **)&d_y, y_len * sizeof(float)));
    CHECK_CUDA(cudaMemcpy(d_taps, h_taps, filters * sc->ntaps * sizeof(float),
                          cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(d_x, h_x, C * x_stride * sizeof(float), cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemset(d_y, 0xff, y_len * sizeof(float))); /* NaN */
    CHECK_CUDA(gf_smfft_spectrum(d_taps, sc->ntaps, filters, sc->n_fft, stream, &d_tw, &d_spec));
    const size_t work = gf_smfft_work(sc->n_fft, rows, C);
    if (work)
        CHECK_CUDA(cudaMalloc((void **)&d_work, work));
    const gf_smfft_args a = {.d_x = d_x,
                             .x_stride = x_stride,
                             .avail = sc->avail,
                             .lead = sc->lead,
                             .d_spec = d_spec,
                             .d_tw = d_tw,
                             .shared = sc->shared,
                             .log_n = log2_of(sc->n_fft),
                             .hop = hop,
                             .col = col,
                             .rows = rows,
                             .n = n,
                             .d_out = d_y,
                             .frame_stride = frame_stride,
                             .channel_stride = channel_stride,
                             .channels = C,
                             .d_work = d_work};
    CHECK_CUDA(gf_smfft_run(&a, stream));
    CHECK_CUDA(cudaStreamSynchronize(stream));
    CHECK_CUDA(cudaMemcpy(h_y, d_y, y_len * sizeof(float), cudaMemcpyDeviceToHost));

    double num = 0.0, den = 0.0;
    for (unsigned c = 0; c < C; c++) {
        const float *taps = h_taps + (sc->shared ? 0 : c) * sc->ntaps;
        for (size_t i = 0; i < n; i++) {
            const size_t at = c * channel_stride + i * frame_stride;
            is_out[at] = 1;
            if (!isfinite(h_y[at]))
                fail_msg("smfft N=%zu ntaps=%zu n=%zu: output %zu of channel %u not written",
                         sc->n_fft, sc->ntaps, n, i, c);
            if (!checked(i, n, hop, sc->n_fft))
                continue;
            /* input j of the row is sample j - lead, zero outside the samples */
            double ref = 0.0;
            for (size_t m = 0; m < sc->ntaps; m++) {
                const size_t j = i + col - m;
                if (j >= sc->lead && j - sc->lead < sc->avail)
                    ref += (double)taps[m] * (double)h_x[c * x_stride + j - sc->lead];
            }
            const double d = (double)h_y[at] - ref;
            num += d * d;
            den += ref * ref;
        }
    }
    for (size_t k = 0; k < y_len; k++)
        if (!is_out[k] && !isnan(h_y[k]))
            fail_msg("smfft N=%zu ntaps=%zu n=%zu: element %zu written, not an output",
                     sc->n_fft, sc->ntaps, n, k);
    const double err = den > 0.0 ? sqrt(num / den) : sqrt(num);
    const double tolerance = sc->ntaps <= 65536 ? 1e-5 : 1e-4;
    if (getenv("GFIR_TEST_VERBOSE"))
        fprintf(stderr, "smfft N=%zu ntaps=%zu C=%u n=%zu lead=%zu avail=%zu %s: rel L2 %.3g\n",
                sc->n_fft, sc->ntaps, C, n, sc->lead, sc->avail,
                sc->interleaved ? "interleaved" : "planar", err);
    if (!(err < tolerance))
        fail_msg("smfft N=%zu ntaps=%zu C=%u n=%zu lead=%zu avail=%zu %s: rel L2 %.3g",
                 sc->n_fft, sc->ntaps, C, n, sc->lead, sc->avail,
                 sc->interleaved ? "interleaved" : "planar", err);

    cudaFree(d_work);
    cudaFree(d_tw);
    cudaFree(d_spec);
    cudaFree(d_y);
    cudaFree(d_x);
    cudaFree(d_taps);
    cudaStreamDestroy(stream);
    free(is_out);
    free(h_y);
    free(h_x);
    free(h_taps);
}

static void test_every_size(void **state)
{
    (void)state;
    const size_t largest = quick ? (size_t)1 << 15 : (size_t)1 << 17;
    for (size_t n_fft = 2; n_fft <= largest; n_fft *= 2) {
        const size_t tap_counts[] = {1, n_fft / 4 + 1, n_fft / 2};
        for (size_t t = 0; t < 3; t++) {
            const size_t ntaps = tap_counts[t];
            if (ntaps == 0 || ntaps > n_fft || (t && ntaps == tap_counts[t - 1]))
                continue;
            const size_t hop = n_fft - (ntaps - 1);
            const smfft_case cases[] = {
                {n_fft, ntaps, 3, 0, 5 * hop + 7, 0, 5 * hop + 7, 0, 0},
                {n_fft, ntaps, 2, 1, 3 * hop + 1, ntaps + 5, 2 * hop, 1, 1},
                {n_fft, ntaps, 3, 0, 2 * hop + 1, hop / 2, 2 * hop + ntaps, 0, 1},
                {n_fft, ntaps, 1, 1, hop, 0, hop + ntaps - 1, 2, 0},
            };
            for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
                check_case(&cases[k]);
        }
    }
}

int main(int argc, char **argv)
{
    quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    if (!gfir_backend_available(GFIR_BACKEND_CUDA)) {
        printf("smfft_test: no usable CUDA device here: skipped\n");
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_size),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
