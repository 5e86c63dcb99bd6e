/*
 * render.c - one input through a chain into OUTPUT (render.h).
 */
#include "file/render.h"
#include "file/condition.h"
#include "file/file.h"
#include "file/format.h"
#include "file/output.h"
#include "file/pipeline.h"
#include "file/resample.h"
#include "file/stream.h"
#include "message.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct render {
    const render_target *t;
    const char *input;
    SNDFILE *in, *out;
    cli_chain *chain;
    unsigned channels;          /* INPUT's */
    unsigned out_channels;      /* OUTPUT's: as the chain routes them */
    /* alignment: frames dropped from the front, frames written */
    size_t skip_left;
    uint64_t written;
    resampler *rs;              /* --rate: INPUT read at OUTPUT's rate, else NULL */
    conditioner cond;
    short *pcm;                 /* 16-bit output: a block of integer samples, else NULL */
    short *pcm_in;              /* 16-bit INPUT: a block of its integer samples, else NULL */
    uint64_t frames_in;
    uint64_t promised;          /* frames INPUT's header promised, 0 when unknown */
    /* the reader's: samples read, and those that were not finite (float input) */
    int scan_input;
    uint64_t samples_in, nonfinite_in, first_nonfinite_in;
} render;

/* ---- the pipeline's three steps -------------------------------------------- */

/* NaN or infinity in a float INPUT would spread through the filter, over an
 * FFT block or ntaps frames (3 gave 5843): each is filtered as silence, and
 * counted. */
static void silence_nonfinite(render *r, float *buf, size_t n)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; i++)
        bad += !(fabsf(buf[i]) <= FLT_MAX);
    for (size_t i = 0; bad && i < n; i++) {
        if (!(fabsf(buf[i]) <= FLT_MAX)) {
            if (!r->nonfinite_in)
                r->first_nonfinite_in = r->samples_in + i;
            r->nonfinite_in++;
            buf[i] = 0.0f;
        }
    }
}

/* 16-bit INPUT: its integers as libsndfile reads them, scaled by 2^-15 here
 * (the product libsndfile's float read makes, exact either way) in a loop
 * GCC vectorises; libsndfile's own ran scalar, half the reader's time on a
 * 16-bit WAV. At most a block at a time: what pcm_in holds. */
static sf_count_t read_pcm16(render *r, float *restrict buf, size_t max)
{
    const size_t n = max < r->t->block ? max : r->t->block;
    const short *restrict pcm = r->pcm_in;
    const sf_count_t got = sf_readf_short(r->in, r->pcm_in, (sf_count_t)n);
    const size_t samples = got > 0 ? (size_t)got * r->channels : 0;
    for (size_t i = 0; i < samples; i++)
        buf[i] = (float)pcm[i] * (1.0f / 32768.0f);
    return got;
}

static long read_input(void *ctx, float *buf, size_t max)
{
    render *r = ctx;
    sf_count_t got;
    if (r->t->seg_frames) { /* a segment: no frame past what it needs */
        const uint64_t left = r->t->seg_read - r->samples_in / r->channels;
        max = left < max ? (size_t)left : max;
        if (max == 0)
            return 0;
    }
    got = r->pcm_in ? read_pcm16(r, buf, max) : sf_readf_float(r->in, buf, (sf_count_t)max);
    if (got <= 0)
        return sf_error(r->in) != 0 ? -1 : 0;
    if (r->scan_input)
        silence_nonfinite(r, buf, (size_t)got * r->channels);
    r->samples_in += (uint64_t)got * r->channels;
    return (long)got;
}

/* The reader's frames: INPUT's, or with --rate INPUT's resampled, its
 * samples checked before the resampler spreads them. */
static long render_read(void *ctx, float *buf, size_t max)
{
    render *r = ctx;
    return r->rs ? resampler_read(r->rs, buf, max) : read_input(r, buf, max);
}

static int render_filter(void *ctx, const float *in, float *out, size_t frames)
{
    render *r = ctx;
    gfir_status st = in ? cli_chain_execute(r->chain, in, out, frames)
                        : cli_chain_flush(r->chain, out, frames);
    if (st != GFIR_OK)
        return cli_error("filtering failed: %s", cli_chain_error(r->chain, st));
    return 0;
}

/* Why a write to OUTPUT failed: the system's reason where the last write(2)
 * gave one, since libsndfile's words can mislead (a full device under FLAC
 * says "problem with initialization of the flac decoder"), else
 * libsndfile's. err: errno just after the failed call, cleared before it. */
static const char *write_failure(SNDFILE *sf, int err)
{
    switch (err) {
    case ENOSPC:
    case EDQUOT:
    case EFBIG:
    case EIO:
    case EPIPE:
    case EROFS:
    case ENXIO:
        return strerror(err);
    default:
        return sf_strerror(sf);
    }
}

/* Writes frames of filtered output, dropping the alignment's first frames and
 * anything past `limit` frames. */
static int render_write(void *ctx, float *buf, size_t frames, uint64_t limit)
{
    render *r = ctx;
    size_t drop = frames < r->skip_left ? frames : r->skip_left;
    sf_count_t done;
    r->skip_left -= drop;
    buf += drop * r->out_channels;
    frames -= drop;
    if (frames > limit - r->written)
        frames = (size_t)(limit - r->written);
    if (frames == 0)
        return 0;
    condition_block(&r->cond, buf, frames * r->out_channels, r->pcm);
    errno = 0;
    done = r->pcm ? sf_writef_short(r->out, r->pcm, (sf_count_t)frames)
                  : sf_writef_float(r->out, buf, (sf_count_t)frames);
    /* an encoder that drops a failed write (LAME's) still leaves the error */
    if (done != (sf_count_t)frames || sf_error(r->out) != SF_ERR_NO_ERROR)
        return cli_error("cannot write OUTPUT '%s': %s", r->t->output,
                         write_failure(r->out, errno));
    r->written += frames;
    return 0;
}

/* The whole input, then the tail that alignment owes. */
static int run_pipeline(render *r, pipeline *p, progress *pg)
{
    const cli_align align = r->t->align;
    const size_t ntaps = r->chain->ntaps, block = r->t->block;
    /* the writer drops these first: the engine's latency, and for `same` the
     * filter's delay; the tail below owes them back */
    const uint64_t skip =
        r->t->seg_frames ? r->chain->latency_frames + r->t->seg_drop
                         : r->chain->latency_frames + (align == CLI_ALIGN_SAME ? (ntaps - 1) / 2 : 0);
    uint64_t frames_in = 0, total, owed;
    pipe_slot in;
    int rc = 0;

    r->skip_left = (size_t)skip;
    while (!rc && pipeline_next_input(p, &in)) {
        rc = pipeline_emit(p, in.buf, in.frames, UINT64_MAX);
        frames_in += in.frames;
        pipeline_release_input(p, in);
        if (pg)
            progress_update(pg, (double)frames_in);
    }
    /* a failed write ends the input early: not INPUT's fault */
    if (rc || pipeline_write_failed(p))
        return 1;
    /* INPUT's own frames, whatever rate they were resampled to: the reader
     * has stopped, its queue closed after its last count */
    r->frames_in = r->samples_in / r->channels;
    if (pipeline_read_failed(p))
        return cli_error("cannot read INPUT '%s': %s", r->input, sf_strerror(r->in));
    if (frames_in == 0)
        return cli_error("INPUT '%s' has no audio frames", r->input);
    if (r->t->whole_input && r->promised > r->frames_in)
        return cli_error("INPUT '%s' ended after %llu frames, %llu short of what its header "
                         "promised", r->input, (unsigned long long)r->frames_in,
                         (unsigned long long)(r->promised - r->frames_in));
    /* The tail: what the skipped frames and --align full still owe. */
    total = r->t->seg_frames ? r->t->seg_frames
                             : frames_in + (align == CLI_ALIGN_FULL ? ntaps - 1 : 0);
    for (owed = total + skip - frames_in; !rc && owed > 0;) {
        size_t n = owed < block ? (size_t)owed : block;
        rc = pipeline_emit(p, NULL, n, total);
        owed -= n;
    }
    return rc;
}

static int filter_all(render *r, progress *pg)
{
    const pipeline_io io = {r, render_read, render_filter, render_write};
    pipeline p;
    int rc, write_failed;
    /* a block holds a frame of the widest of INPUT, OUTPUT and the chain between */
    if (pipeline_start(&p, &io, r->t->block, r->chain->max_channels > r->channels
                                                 ? r->chain->max_channels : r->channels))
        return 1;
    rc = run_pipeline(r, &p, pg);
    write_failed = pipeline_finish(&p);
    return rc || write_failed; /* render_write said why */
}

/* The output's writer: libsndfile's own where it can seek back, else one
 * that streams (a pipe), told the length to come where INPUT knows it. */
static int open_output(render *r, const output_file *of, SF_INFO *info, const SF_INFO *in_info)
{
    uint64_t frames = cli_input_frames(in_info);
    if (r->rs)
        frames = resampled_frames(frames, in_info->samplerate, r->t->rate_hz);
    if (of->seekable) {
        r->out = sf_open_fd(of->fd, SFM_WRITE, info, SF_FALSE);
        if (!r->out)
            return cli_error("cannot write OUTPUT '%s': %s", r->t->output, sf_strerror(NULL));
        /* no PEAK chunk: its time stamp made two runs' outputs differ byte
         * for byte, and corpora are checked by hash */
        sf_command(r->out, SFC_SET_ADD_PEAK_CHUNK, NULL, SF_FALSE);
        return 0;
    }
    if (frames && r->t->align == CLI_ALIGN_FULL)
        frames += r->chain->ntaps - 1;
    return stream_open(of->fd, r->t->output, info, frames ? frames : STREAM_FRAMES_UNKNOWN,
                       &r->out);
}

int render_route_format(const char *format, const char *output, const SF_INFO *in_info,
                        const cli_chain *chain, file_metadata *meta, SF_INFO *out_info)
{
    SF_INFO routed = *in_info;
    routed.channels = (int)chain->out_channels;
    if (routed.channels == in_info->channels)
        return 0;
    free(meta->layout);
    meta->layout = NULL;
    return format_choose(format, output, 1, &routed, 0, out_info);
}

int render_file(SNDFILE *in, const char *input, unsigned channels, cli_chain *chain,
                const render_target *t, progress *pg, render_result *res)
{
    render r = {.t = t, .input = input, .in = in, .chain = chain, .channels = channels,
                .out_channels = chain->out_channels};
    output_file of = OUTPUT_FILE_INIT;
    SF_INFO info = *t->info, in_info;
    int rc = 1, subtype = info.format & SF_FORMAT_SUBMASK, in_subtype;

    memset(res, 0, sizeof *res);
    memset(&in_info, 0, sizeof in_info);
    sf_command(in, SFC_GET_CURRENT_SF_INFO, &in_info, sizeof in_info);
    in_subtype = in_info.format & SF_FORMAT_SUBMASK;
    r.scan_input = in_subtype == SF_FORMAT_FLOAT || in_subtype == SF_FORMAT_DOUBLE;
    r.promised = t->seg_frames ? t->seg_read : cli_input_frames(&in_info);
    if (t->seg_frames && t->rate_hz && t->rate_hz != in_info.samplerate) {
        /* a segment counts INPUT's frames: nothing asks for both yet */
        cli_error("INPUT '%s': a segment cannot be resampled", r.input);
        goto done;
    }
    if (t->rate_hz && t->rate_hz != in_info.samplerate &&
        !(r.rs = resampler_create(in_info.samplerate, t->rate_hz, channels, t->block, read_input,
                                  &r)))
        goto done;
    if (output_begin(&of, t->output))
        goto done;
    of.scratch = t->scratch;
    if (open_output(&r, &of, &info, &in_info))
        goto done;
    if (format_configure(r.out, &info, t->format, t->output))
        goto done;
    /* a stream's WAV header is written already: tags have no place left */
    if (t->meta && !of.stream)
        metadata_write(r.out, t->meta);
    condition_init(&r.cond, subtype, t->no_dither);
    /* libsndfile clips instead of wrapping integers that overflow. */
    sf_command(r.out, SFC_SET_CLIPPING, NULL, SF_TRUE);
    if (in_subtype == SF_FORMAT_PCM_16)
        r.pcm_in = malloc(t->block * channels * sizeof *r.pcm_in);
    if (subtype == SF_FORMAT_PCM_16)
        r.pcm = malloc(t->block * r.out_channels * sizeof *r.pcm);
    if ((in_subtype == SF_FORMAT_PCM_16 && !r.pcm_in) || (subtype == SF_FORMAT_PCM_16 && !r.pcm)) {
        cli_error("out of memory for blocks of %zu frames", t->block);
        goto done;
    }
    rc = filter_all(&r, pg);
    errno = 0;
    if (sf_close(r.out) != 0 && !rc)
        rc = cli_error("cannot finish OUTPUT '%s': %s", t->output, write_failure(NULL, errno));
    r.out = NULL;
    if (!rc)
        rc = output_commit(&of);
    res->written = r.written;
    res->clipped = r.cond.clipped;
    res->clip_peak = r.cond.peak;
    res->peak = r.cond.level;
    res->frames_in = r.frames_in;
    res->nonfinite_in = r.nonfinite_in;
    res->first_nonfinite_in = r.first_nonfinite_in;
    res->nonfinite_out = r.cond.nonfinite;
    res->first_nonfinite_out = r.cond.first_nonfinite;
    res->streamed = of.stream;
    res->bytes = of.bytes;
    res->mtime_ns = of.mtime_ns;
    res->clips = r.cond.count_clips;
done:
    if (r.out)
        sf_close(r.out);
    output_end(&of);
    resampler_destroy(r.rs);
    free(r.pcm);
    free(r.pcm_in);
    return rc;
}
