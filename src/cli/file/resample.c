/*
 * resample.c - INPUT at another rate through libsoxr (resample.h).
 */
#include "file/resample.h"
#include "message.h"

#include <soxr.h>
#include <stdlib.h>

struct resampler {
    soxr_t soxr;
    resampler_source src;
    void *ctx;
    float *buf;                 /* one block of input */
    size_t block;
    int failed;
};

/* libsoxr's input callback: one block from the source. A failure is told
 * as libsoxr asks, with no data and 0 frames. */
static size_t pull(void *state, soxr_in_t *data, size_t requested)
{
    resampler *rs = state;
    long got = rs->src(rs->ctx, rs->buf, requested < rs->block ? requested : rs->block);
    if (got < 0) {
        rs->failed = 1;
        *data = NULL;
        return 0;
    }
    *data = rs->buf;
    return (size_t)got;
}

resampler *resampler_create(int in_rate, int out_rate, unsigned channels, size_t block,
                            resampler_source src, void *ctx)
{
    /* the same quality as an IR's resampling (filter/ir.c says why libsoxr) */
    soxr_io_spec_t io = soxr_io_spec(SOXR_FLOAT32_I, SOXR_FLOAT32_I);
    soxr_quality_spec_t q = soxr_quality_spec(SOXR_VHQ, 0);
    soxr_error_t err = NULL;
    resampler *rs = calloc(1, sizeof *rs);
    if (!rs || !(rs->buf = malloc(block * channels * sizeof *rs->buf))) {
        free(rs);
        cli_error("out of memory for resampling blocks of %zu frames", block);
        return NULL;
    }
    rs->src = src;
    rs->ctx = ctx;
    rs->block = block;
    rs->soxr = soxr_create(in_rate, out_rate, channels, &err, &io, &q, NULL);
    if (!err)
        err = soxr_set_input_fn(rs->soxr, pull, rs, block);
    if (err) {
        cli_error("cannot resample from %d to %d Hz: %s", in_rate, out_rate, err);
        resampler_destroy(rs);
        return NULL;
    }
    return rs;
}

long resampler_read(resampler *rs, float *buf, size_t max)
{
    size_t got = soxr_output(rs->soxr, buf, max);
    if (rs->failed)
        return -1;
    if (soxr_error(rs->soxr)) {
        cli_error("resampling failed: %s", soxr_error(rs->soxr));
        return -1;
    }
    return (long)got;
}

void resampler_destroy(resampler *rs)
{
    if (!rs)
        return;
    soxr_delete(rs->soxr);
    free(rs->buf);
    free(rs);
}

uint64_t resampled_frames(uint64_t frames, int in_rate, int out_rate)
{
    /* exact in integers: frames below 2^63 / 768000 (a year at any rate) */
    return (frames * (uint64_t)out_rate + (uint64_t)in_rate / 2) / (uint64_t)in_rate;
}
