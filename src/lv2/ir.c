/*
 * ir.c - impulse responses for the convolver (ir.h). The trim's onset and
 * the normalisation's loudness are the library's (gfir_filter_onset,
 * gfir_filter_loudness), the ones the command line's --ir-trim and
 * --normalize use; reading and resampling are the plugin's own, since a
 * plugin may use only gfir.h, written to give the same filters.
 */
#include "ir.h"

#include <math.h>
#include <sndfile.h>
#include <soxr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void gl_ir_free(gl_ir *ir)
{
    free(ir->taps);
    memset(ir, 0, sizeof *ir);
}

/* The whole file, interleaved, grown as frames really come (a header may lie). */
static float *read_all(SNDFILE *sf, unsigned channels, size_t *frames)
{
    size_t cap = 0;
    float *buf = NULL;
    *frames = 0;
    for (;;) {
        if (*frames == cap) {
            float *more;
            cap = cap ? 2 * cap : 65536;
            if (cap > GFIR_MAX_TAPS * 2 || !(more = realloc(buf, cap * channels * sizeof *buf))) {
                free(buf);
                return NULL;
            }
            buf = more;
        }
        const sf_count_t got = sf_readf_float(sf, buf + *frames * channels,
                                              (sf_count_t)(cap - *frames));
        if (got <= 0)
            return buf;
        *frames += (size_t)got;
    }
}

/* One channel resampled by libsoxr's very high quality, scaled by in/out so
 * the filter keeps its gain (as the command line's --ir does). */
static float *resample(const float *in, size_t n, double from, double to, size_t *out_n)
{
    const soxr_io_spec_t io = soxr_io_spec(SOXR_FLOAT32_I, SOXR_FLOAT32_I);
    const soxr_quality_spec_t q = soxr_quality_spec(SOXR_VHQ, 0);
    const size_t cap = (size_t)ceil((double)n * to / from) + 1;
    float *out = cap <= GFIR_MAX_TAPS ? malloc(cap * sizeof *out) : NULL;
    if (!out || soxr_oneshot(from, to, 1, in, n, NULL, out, cap, out_n, &io, &q, NULL) ||
        *out_n == 0) {
        free(out);
        return NULL;
    }
    for (size_t i = 0; i < *out_n; i++)
        out[i] = (float)(out[i] * (from / to));
    return out;
}

int gl_ir_load(const char *path, double rate_hz, gl_ir *ir, char *why, size_t why_size)
{
    SF_INFO info;
    SNDFILE *sf;
    float *frames;
    size_t n, m = 0;
    unsigned ch;
    gl_ir got = {NULL, 0, 0};
    memset(&info, 0, sizeof info);
    if (!(sf = sf_open(path, SFM_READ, &info))) {
        snprintf(why, why_size, "cannot read IR '%s': %s", path, sf_strerror(NULL));
        return 1;
    }
    if (info.channels < 1 || info.channels > GL_MAX_CHANNELS || info.samplerate <= 0) {
        snprintf(why, why_size, "IR '%s' has %d channels; the convolver takes 1 to %d", path,
                 info.channels, GL_MAX_CHANNELS);
        sf_close(sf);
        return 1;
    }
    ch = (unsigned)info.channels;
    frames = read_all(sf, ch, &n);
    sf_close(sf);
    if (!frames || n == 0 || n > GFIR_MAX_TAPS) {
        snprintf(why, why_size, "IR '%s': %s", path,
                 !frames ? "out of memory or too long" : n ? "too long" : "no frames");
        free(frames);
        return 1;
    }
    got.channels = ch;
    got.ntaps = n;
    for (unsigned c = 0; c < ch; c++) {
        float *one = malloc(n * sizeof *one), *set = one;
        for (size_t i = 0; one && i < n; i++)
            one[i] = frames[i * ch + c];
        if (one && info.samplerate != rate_hz) {
            set = resample(one, n, info.samplerate, rate_hz, &m);
            free(one);
            got.ntaps = m;
        }
        float *grown = set ? realloc(got.taps, (size_t)(c + 1) * got.ntaps * sizeof *grown) : NULL;
        if (!grown) {
            free(set);
            free(got.taps);
            got.taps = NULL;
            break;
        }
        got.taps = grown;
        memcpy(got.taps + (size_t)c * got.ntaps, set, got.ntaps * sizeof *set);
        free(set);
    }
    free(frames);
    if (!got.taps) {
        snprintf(why, why_size, "IR '%s': out of memory, or cannot resample it from %d to %g Hz",
                 path, info.samplerate, rate_hz);
        return 1;
    }
    for (size_t i = 0; i < (size_t)ch * got.ntaps; i++)
        if (!isfinite(got.taps[i])) {
            snprintf(why, why_size, "IR '%s': sample %zu of channel %zu is not finite", path,
                     i % got.ntaps, i / got.ntaps);
            free(got.taps);
            return 1;
        }
    gl_ir_free(ir);
    *ir = got;
    return 0;
}

/* The layouts of the command line's --ir that fit the plugin's ports. */
static int layout(unsigned channels, unsigned inputs, unsigned outputs, gl_shape *s)
{
    memset(s, 0, sizeof *s);
    s->inputs = inputs;
    s->outputs = outputs;
    s->nsets = channels;
    if (inputs == outputs && (channels == 1 || channels == outputs))
        return 0;               /* every channel, or one to one: no paths */
    if (inputs == 1 && (channels == 1 || channels == outputs)) {
        for (unsigned o = 0; o < outputs; o++)
            s->paths[o] = (gfir_path){0, o, channels == 1 ? 0 : o, 1.0f};
        s->npaths = outputs;
        return 0;
    }
    if (inputs == 2 && outputs == 2 && channels == 4) {
        /* true stereo, LL, LR, RL, RR: input X into output Y */
        for (unsigned p = 0; p < 4; p++)
            s->paths[p] = (gfir_path){p / 2, p % 2, p, 1.0f};
        s->npaths = 4;
        return 0;
    }
    return 1;
}

/* Cuts the frames before the first within trim_db of the largest tap, one
 * cut for every set (gfir_filter_onset), as --ir-trim does. */
static void trim(float *taps, unsigned sets, size_t *ntaps, double trim_db)
{
    const size_t n = *ntaps, cut = gfir_filter_onset(taps, n, sets, trim_db);
    if (cut == n)
        return;
    for (unsigned c = 0; cut && c < sets; c++)
        memmove(taps + (size_t)c * (n - cut), taps + (size_t)c * n + cut,
                (n - cut) * sizeof *taps);
    *ntaps = n - cut;
}

static int silent(const float *h, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (h[i] != 0)
            return 0;
    return 1;
}

int gl_ir_condition(const gl_ir *ir, unsigned inputs, unsigned outputs, double trim_db,
                    gfir_normalize normalize, float **taps, size_t *ntaps, gl_shape *shape,
                    char *why, size_t why_size)
{
    static const char *const names[] = {"none", "peak", "energy"};
    const size_t total = (size_t)ir->channels * ir->ntaps;
    *taps = NULL;
    if (layout(ir->channels, inputs, outputs, shape)) {
        snprintf(why, why_size, "an IR of %u channels does not fit %u input%s and %u output%s "
                 "(1 channel filters every one, %u one to one%s)", ir->channels, inputs,
                 inputs == 1 ? "" : "s", outputs, outputs == 1 ? "" : "s", outputs,
                 inputs == 2 && outputs == 2 ? ", 4 true stereo LL, LR, RL, RR" : "");
        return 1;
    }
    if (silent(ir->taps, total)) {
        snprintf(why, why_size, "the IR is silent");
        return 1;
    }
    if (!(*taps = malloc(total * sizeof **taps))) {
        snprintf(why, why_size, "out of memory for %zu taps", total);
        return 1;
    }
    memcpy(*taps, ir->taps, total * sizeof **taps);
    *ntaps = ir->ntaps;
    if (trim_db > GL_TRIM_OFF_DB)
        trim(*taps, ir->channels, ntaps, trim_db);
    if (normalize != GFIR_NORMALIZE_NONE) {
        const double level = gfir_filter_loudness(*taps, *ntaps, ir->channels,
                                                  shape->npaths ? shape->paths : NULL,
                                                  shape->npaths, normalize);
        if (!(level > 0)) {
            snprintf(why, why_size, "normalize %s: %s", names[normalize],
                     level < 0 ? gfir_strerror((gfir_status)level)
                               : "the filter is silent at every output");
            free(*taps);
            *taps = NULL;
            return 1;
        }
        for (size_t i = 0; i < (size_t)ir->channels * *ntaps; i++)
            (*taps)[i] = (float)((*taps)[i] / level);
    }
    return 0;
}
