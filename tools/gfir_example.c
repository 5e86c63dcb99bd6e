/*
 * gfir_example.c - filters a sound file through libgfir as another DSP tool
 * would: read a block with libsndfile, gfir_plan_execute() it, write it.
 *
 *     gfir_example IN.wav OUT.wav [CUTOFF_HZ [NTAPS]]
 *
 * The filter is a Blackman-windowed sinc lowpass computed here (default 1000 Hz,
 * 101 taps) with unit gain at 0 Hz. OUT has IN's length, channels and format,
 * and is not delayed: the filter's (NTAPS - 1) / 2 frames of delay are dropped
 * at the start and pulled out with gfir_plan_flush() at the end, so each channel
 * of OUT is numpy.convolve(x, h, 'same').
 *
 * Built against an installed libgfir:
 *     cc -std=c99 $(pkg-config --cflags gfir sndfile) gfir_example.c \
 *        $(pkg-config --libs gfir sndfile) -lm
 */
#include <gfir.h>
#include <sndfile.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define BLOCK_FRAMES 4096
#define PI 3.14159265358979323846

/* h[k] = sinc(2 fc (k - M)) * blackman(k), M = (ntaps - 1) / 2, fc = cutoff / rate,
 * then scaled so the taps sum to 1. Returns 0 when out of memory. */
static int design_lowpass(float *taps, size_t ntaps, double cutoff_hz, double rate_hz)
{
    const double fc = cutoff_hz / rate_hz, mid = (double)(ntaps - 1) / 2.0;
    double sum = 0.0;
    double *h = malloc(ntaps * sizeof *h);
    if (!h)
        return 0;
    for (size_t k = 0; k < ntaps; k++) {
        double t = (double)k - mid;
        double sinc = t == 0.0 ? 2.0 * fc : sin(2.0 * PI * fc * t) / (PI * t);
        double w = ntaps == 1 ? 1.0
                              : 0.42 - 0.5 * cos(2.0 * PI * (double)k / (double)(ntaps - 1)) +
                                    0.08 * cos(4.0 * PI * (double)k / (double)(ntaps - 1));
        h[k] = sinc * w;
        sum += h[k];
    }
    for (size_t k = 0; k < ntaps; k++)
        taps[k] = (float)(h[k] / sum);
    free(h);
    return 1;
}

/* Writes frames [skip, n) of buf; returns how many of the skip frames remain. */
static sf_count_t write_after(SNDFILE *out, const float *buf, sf_count_t n, sf_count_t skip,
                              int channels, int *ok)
{
    sf_count_t drop = skip < n ? skip : n;
    if (n > drop && sf_writef_float(out, buf + drop * channels, n - drop) != n - drop)
        *ok = 0;
    return skip - drop;
}

int main(int argc, char **argv)
{
    SF_INFO info = {0};
    SNDFILE *in = NULL, *out = NULL;
    gfir_plan *plan = NULL;
    gfir_config cfg;
    gfir_status st;
    float *taps = NULL, *buf = NULL;
    int ok = 1;

    if (argc < 3 || argc > 5) {
        fprintf(stderr, "usage: %s IN.wav OUT.wav [CUTOFF_HZ [NTAPS]]\n", argv[0]);
        return 2;
    }
    double cutoff_hz = argc > 3 ? strtod(argv[3], NULL) : 1000.0;
    long ntaps = argc > 4 ? strtol(argv[4], NULL, 10) : 101;
    if (ntaps < 1 || ntaps % 2 == 0) {
        fprintf(stderr, "gfir_example: NTAPS must be odd and positive, not %s\n", argv[4]);
        return 2;
    }

    in = sf_open(argv[1], SFM_READ, &info);
    if (!in) {
        fprintf(stderr, "gfir_example: %s: %s\n", argv[1], sf_strerror(NULL));
        return 1;
    }
    if (!(cutoff_hz > 0.0 && cutoff_hz < info.samplerate / 2.0)) {
        fprintf(stderr, "gfir_example: cutoff %g Hz is not inside (0, %g) Hz\n", cutoff_hz,
                info.samplerate / 2.0);
        goto fail;
    }

    taps = malloc((size_t)ntaps * sizeof *taps);
    buf = malloc((size_t)BLOCK_FRAMES * (size_t)info.channels * sizeof *buf);
    if (!taps || !buf || !design_lowpass(taps, (size_t)ntaps, cutoff_hz, info.samplerate)) {
        fprintf(stderr, "gfir_example: out of memory\n");
        goto fail;
    }

    gfir_config_init(&cfg);
    cfg.channels = (unsigned)info.channels;
    cfg.max_block_frames = BLOCK_FRAMES; /* every call below fits: no splitting */
    st = gfir_plan_create(&plan, taps, (size_t)ntaps, &cfg);
    if (st != GFIR_OK) {
        fprintf(stderr, "gfir_example: %s (%s)\n", gfir_strerror(st),
                gfir_plan_error_detail(NULL));
        goto fail;
    }

    out = sf_open(argv[2], SFM_WRITE, &info); /* IN's rate, channels and format */
    if (!out) {
        fprintf(stderr, "gfir_example: %s: %s\n", argv[2], sf_strerror(NULL));
        goto fail;
    }
    /* A lowpass can overshoot full scale; clip rather than wrap in integer formats. */
    sf_command(out, SFC_SET_CLIPPING, NULL, SF_TRUE);

    /* The filter's own delay plus any latency of the kernel the plan picked. */
    const sf_count_t delay = (ntaps - 1) / 2 + (sf_count_t)gfir_plan_latency(plan);
    sf_count_t skip = delay, n;
    while ((n = sf_readf_float(in, buf, BLOCK_FRAMES)) > 0) {
        st = gfir_plan_execute(plan, buf, buf, (size_t)n); /* in place is allowed */
        if (st != GFIR_OK)
            break;
        skip = write_after(out, buf, n, skip, info.channels, &ok);
    }
    /* The last delay frames of output are still inside the filter: feed as much
     * silence (of which a signal shorter than the delay still drops the start). */
    for (sf_count_t left = delay; st == GFIR_OK && left > 0; left -= n) {
        n = left < BLOCK_FRAMES ? left : BLOCK_FRAMES;
        st = gfir_plan_flush(plan, buf, (size_t)n);
        if (st == GFIR_OK)
            skip = write_after(out, buf, n, skip, info.channels, &ok);
    }
    if (st != GFIR_OK) {
        fprintf(stderr, "gfir_example: filtering failed: %s (%s)\n", gfir_strerror(st),
                gfir_plan_error_detail(plan));
        goto fail;
    }
    if (!ok || sf_error(in) != SF_ERR_NO_ERROR) {
        fprintf(stderr, "gfir_example: %s\n", sf_strerror(ok ? in : out));
        goto fail;
    }
    if (sf_close(out) != 0) {
        out = NULL;
        fprintf(stderr, "gfir_example: %s: could not finish writing\n", argv[2]);
        goto fail;
    }
    sf_close(in);
    gfir_plan_destroy(plan);
    free(taps);
    free(buf);
    return 0;

fail:
    if (out)
        sf_close(out);
    if (in)
        sf_close(in);
    gfir_plan_destroy(plan);
    free(taps);
    free(buf);
    return 1;
}
