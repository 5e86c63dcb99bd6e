/*
 * ir.c - impulse responses in any format libsndfile reads (--ir), resampled
 * with libsoxr to the signal's rate when theirs differs.
 */
#include "filter/ir.h"
#include "cli.h"
#include "file/source.h"
#include "filter/ceiling.h"
#include "message.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sndfile.h>
#include <soxr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What n frames become at out_rate, with room for the resampler's rounding. */
static size_t resampled_length(size_t n, double in_rate, double out_rate)
{
    return (size_t)(ceil((double)n * out_rate / in_rate) + 1);
}

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
    const size_t cap = resampled_length(n, in_rate, out_rate);
    size_t done = 0;
    soxr_error_t err;


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
                        double in_rate, double out_rate, size_t max_taps)
{
    float **sets = NULL;
    float *all = NULL;
    size_t n = 0;
    int rc = 1;
    char what[512];

    /* sized before anything is allocated: rates are bounded, lengths too */
    snprintf(what, sizeof what, "IR '%s' resampled from %g to %g Hz", path, in_rate, out_rate);
    if (ceiling_check(max_taps, what, (double)resampled_length(*ntaps, in_rate, out_rate),
                      channels, "channel"))
        return 1;
    if (resampled_length(*ntaps, in_rate, out_rate) > GFIR_MAX_TAPS)
        return cli_error("%s: %zu taps, more than the %zu of a gfir filter", what,
                         resampled_length(*ntaps, in_rate, out_rate), (size_t)GFIR_MAX_TAPS);
    sets = calloc(channels, sizeof *sets);
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

#define READ_BLOCK_FRAMES 65536

static int frame_is_silent(const float *frame, unsigned channels)
{
    for (unsigned c = 0; c < channels; c++)
        if (frame[c] != 0.0f)
            return 0;
    return 1;
}

/* Room for need frames in *frames, growing by doubling but never past the
 * ceiling (checked first). */
static int make_room(const char *path, unsigned channels, size_t max_taps, size_t need,
                     float **frames, size_t *cap)
{
    char what[512];
    if (need <= *cap)
        return 0;
    snprintf(what, sizeof what, "IR '%s' (the frames read so far)", path);
    if (ceiling_check(max_taps, what, (double)need, channels, "channel"))
        return 1;
    if (need > GFIR_MAX_TAPS)
        return cli_error("IR '%s' is longer than the %zu taps of a gfir filter", path,
                         (size_t)GFIR_MAX_TAPS);
    size_t grow = *cap * 2 > need ? *cap * 2 : need;
    if (grow > max_taps / channels)
        grow = max_taps / channels;
    if (grow > GFIR_MAX_TAPS)
        grow = GFIR_MAX_TAPS;
    float *f = realloc(*frames, grow * channels * sizeof *f);
    if (!f)
        return cli_error("IR '%s': out of memory for %zu frames", path, grow);
    *frames = f;
    *cap = grow;
    return 0;
}

/* Reads the whole IR, interleaved, in blocks: memory follows the frames the
 * file really holds, whatever its header claims. Trailing digital silence
 * (frames of zeros in every channel) is counted, not kept: it adds nothing
 * to any output, and a short IR followed by minutes of zeros costs only the
 * IR. *silent: the frames dropped. A file of nothing but zeros keeps one. */
static int read_frames(const char *path, SNDFILE *sf, unsigned channels, size_t max_taps,
                       float **frames, size_t *nframes, size_t *silent)
{
    float *block = malloc((size_t)READ_BLOCK_FRAMES * channels * sizeof *block);
    size_t cap = 0, zeros = 0;  /* zeros: silent frames since the last sound */
    int rc = 1;
    *frames = NULL;
    *nframes = 0;
    if (!block)
        return cli_error("IR '%s': out of memory", path);
    for (;;) {
        sf_count_t got = sf_readf_float(sf, block, READ_BLOCK_FRAMES);
        if (got < 0 || (got == 0 && sf_error(sf))) {
            cli_error("cannot read IR '%s': %s", path, sf_strerror(sf));
            goto done;
        }
        if (got == 0)
            break;
        size_t end = (size_t)got;
        while (end > 0 && frame_is_silent(block + (end - 1) * channels, channels))
            end--;
        if (end > 0) {
            const size_t at = *nframes + zeros;
            if (make_room(path, channels, max_taps, at + end, frames, &cap))
                goto done;
            memset(*frames + *nframes * channels, 0, zeros * channels * sizeof **frames);
            memcpy(*frames + at * channels, block, end * channels * sizeof **frames);
            *nframes = at + end;
            zeros = 0;
        }
        zeros += (size_t)got - end;
    }
    if (*nframes == 0 && zeros == 0) {
        cli_error("IR '%s' has no frames", path);
        goto done;
    }
    if (*nframes == 0) {
        if (!(*frames = calloc(channels, sizeof **frames))) {
            cli_error("IR '%s': out of memory", path);
            goto done;
        }
        *nframes = 1;
        zeros--;
    }
    *silent = zeros;
    rc = 0;
done:
    free(block);
    return rc;
}

int taps_load_ir(const char *path, double rate_hz, int quiet, int verbose, size_t max_taps,
                 float **taps, size_t *ntaps, unsigned *channels, size_t *silent)
{
    SF_INFO info;
    SNDFILE *sf;
    source_how how;
    char why[512];
    float *frames = NULL;
    int rc = 1, fd;

    *taps = NULL;
    *silent = 0;
    memset(&info, 0, sizeof info);
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
    if (read_frames(path, sf, *channels, max_taps, &frames, ntaps, silent))
        goto done;
    if (*silent)
        cli_note(quiet || !verbose, "note: IR '%s': dropped %zu frames of trailing digital "
                 "silence, kept %zu", path, *silent, *ntaps);
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
        if (resample_all(path, taps, ntaps, *channels, info.samplerate, rate_hz, max_taps))
            goto done;
        *silent = (size_t)llround((double)*silent * rate_hz / info.samplerate);
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
