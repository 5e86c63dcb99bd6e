/*
 * ir.c - impulse responses in any format libsndfile reads (--ir), resampled
 * with libsoxr to the signal's rate when theirs differs.
 */
#include "filter/ir.h"
#include "cli.h"
#include "file/source.h"
#include "message.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sndfile.h>
#include <soxr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Resamples one channel of an IR with libsoxr. Why libsoxr rather than
 * libsamplerate: its "very high quality" setting is a linear-phase, band-limited
 * resampler with under 0.01 dB passband ripple and over 170 dB image rejection,
 * it is several times faster than libsamplerate's best sinc converter, and its
 * one-shot call does a whole finite signal (a filter) with the tail flushed.
 * The result is scaled by in/out rate so the filter keeps its gain: an IR
 * sampled twice as densely has twice as many taps summing to the same response.
 */
static int resample_channel(const char *path, const float *in, size_t n, double in_rate,
                            double out_rate, float **out, size_t *nout)
{
    soxr_io_spec_t io = soxr_io_spec(SOXR_FLOAT32_I, SOXR_FLOAT32_I);
    soxr_quality_spec_t q = soxr_quality_spec(SOXR_VHQ, 0);
    const double want = ceil((double)n * out_rate / in_rate) + 1;
    size_t done = 0, cap;
    soxr_error_t err;

    /* sized before anything is allocated: rates are bounded, lengths too */
    if (!(want <= (double)GFIR_MAX_TAPS))
        return cli_error("IR '%s': %zu frames at %g Hz would be %.0f taps at %g Hz, more than "
                         "the %zu a filter may have", path, n, in_rate, want, out_rate,
                         (size_t)GFIR_MAX_TAPS);
    cap = (size_t)want;
    *out = malloc(cap * sizeof **out);
    if (!*out)
        return cli_error("IR '%s': out of memory resampling", path);
    err = soxr_oneshot(in_rate, out_rate, 1, in, n, NULL, *out, cap, &done, &io, &q, NULL);
    if (err) {
        free(*out);
        *out = NULL;
        return cli_error("IR '%s': resampling from %g to %g Hz failed: %s", path, in_rate,
                         out_rate, err);
    }
    if (done == 0) {
        free(*out);
        *out = NULL;
        return cli_error("IR '%s': %zu frames at %g Hz are too short to resample to %g Hz", path,
                         n, in_rate, out_rate);
    }
    for (size_t i = 0; i < done; i++)
        (*out)[i] = (float)((*out)[i] * (in_rate / out_rate));
    *nout = done;
    return 0;
}

/* Channel c of interleaved frames into planar sets. */
static void deinterleave(const float *in, size_t frames, unsigned channels, float *out)
{
    for (unsigned c = 0; c < channels; c++)
        for (size_t i = 0; i < frames; i++)
            out[c * frames + i] = in[i * channels + c];
}

static int resample_all(const char *path, float **taps, size_t *ntaps, unsigned channels,
                        double in_rate, double out_rate)
{
    float **sets = calloc(channels, sizeof *sets);
    float *all = NULL;
    size_t n = 0;
    int rc = 1;
    if (!sets)
        return cli_error("IR '%s': out of memory", path);
    for (unsigned c = 0; c < channels; c++)
        if (resample_channel(path, *taps + c * *ntaps, *ntaps, in_rate, out_rate, &sets[c], &n))
            goto done;
    all = malloc((size_t)channels * n * sizeof *all);
    if (!all) {
        cli_error("IR '%s': out of memory", path);
        goto done;
    }
    for (unsigned c = 0; c < channels; c++)
        memcpy(all + c * n, sets[c], n * sizeof *all);
    free(*taps);
    *taps = all;
    *ntaps = n;
    rc = 0;
done:
    for (unsigned c = 0; c < channels; c++)
        free(sets[c]);
    free(sets);
    return rc;
}

/* Reads the whole IR, interleaved, in blocks: memory follows the frames the
 * file really holds, whatever its header claims. */
static int read_frames(const char *path, SNDFILE *sf, unsigned channels, float **frames,
                       size_t *nframes)
{
    const size_t block = 65536;
    size_t cap = 0;
    *frames = NULL;
    *nframes = 0;
    for (;;) {
        if (*nframes + block > cap) {
            size_t grow = cap ? cap * 2 : block;
            float *f = realloc(*frames, grow * channels * sizeof *f);
            if (!f)
                return cli_error("IR '%s': out of memory for %zu frames", path, grow);
            *frames = f;
            cap = grow;
        }
        sf_count_t got = sf_readf_float(sf, *frames + *nframes * channels, (sf_count_t)block);
        if (got < 0 || (got == 0 && sf_error(sf)))
            return cli_error("cannot read IR '%s': %s", path, sf_strerror(sf));
        if (got == 0)
            break;
        *nframes += (size_t)got;
        if (*nframes > GFIR_MAX_TAPS)
            return cli_error("IR '%s' is longer than %zu frames", path, (size_t)GFIR_MAX_TAPS);
    }
    if (*nframes == 0)
        return cli_error("IR '%s' has no frames", path);
    return 0;
}

int taps_load_ir(const char *path, double rate_hz, int quiet, float **taps, size_t *ntaps,
                 unsigned *channels)
{
    SF_INFO info;
    SNDFILE *sf;
    source_how how;
    char why[512];
    float *frames = NULL;
    int rc = 1, fd;

    *taps = NULL;
    fd = open(path, O_RDONLY | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return cli_error("cannot read IR '%s': %s", path, strerror(errno));
    /* read to the decoder's end, as INPUT is (file/source.h) */
    sf = source_open(fd, 1, &info, &how, why, sizeof why);
    if (!sf)
        return cli_error("cannot read IR '%s': %s", path, why);
    if (info.channels > GFIR_MAX_CHANNELS) {
        cli_error("IR '%s' has %d channels; at most %d are allowed", path, info.channels,
                  GFIR_MAX_CHANNELS);
        goto done;
    }
    if (info.samplerate < CLI_MIN_RATE_HZ || info.samplerate > CLI_MAX_RATE_HZ) {
        cli_error("IR '%s' is at %d Hz; gfir takes IRs at %g to %g Hz", path, info.samplerate,
                  CLI_MIN_RATE_HZ, CLI_MAX_RATE_HZ);
        goto done;
    }
    *channels = (unsigned)info.channels;
    if (read_frames(path, sf, *channels, &frames, ntaps))
        goto done;
    *taps = malloc(*ntaps * *channels * sizeof **taps);
    if (!*taps) {
        cli_error("IR '%s': out of memory for %zu frames", path, *ntaps);
        goto done;
    }
    deinterleave(frames, *ntaps, *channels, *taps);
    for (size_t i = 0; i < *ntaps * *channels; i++) {
        if (!isfinite((*taps)[i])) {
            cli_error("IR '%s': sample %zu of channel %zu is not finite", path, i % *ntaps,
                      i / *ntaps);
            goto done;
        }
    }
    if (info.samplerate != rate_hz) {
        cli_note(quiet, "note: resampling IR '%s' from %d Hz to %g Hz (libsoxr)", path,
                 info.samplerate, rate_hz);
        if (resample_all(path, taps, ntaps, *channels, info.samplerate, rate_hz))
            goto done;
    }
    rc = 0;
done:
    free(frames);
    source_close(sf);
    if (rc) {
        free(*taps);
        *taps = NULL;
    }
    return rc;
}
