/*
 * job.c - the offline job: INPUT through the filter into OUTPUT with
 * libsndfile, block by block so memory stays bounded by the block size and the
 * filter, whatever the file's length.
 *
 * Nothing is lost: OUTPUT is written through output.h (a temporary file
 * renamed over it only when everything succeeded, or a pipe or device
 * written straight through, stream.h); INPUT is opened once, for reading
 * (input.c). What would pass silently is said in one line each: samples that
 * are not finite, clipping, an INPUT shorter than its header. Reading,
 * filtering and writing overlap (pipeline.h).
 */
#include "file/file.h"
#include "chain.h"
#include "file/condition.h"
#include "file/format.h"
#include "file/output.h"
#include "file/pipeline.h"
#include "file/stream.h"
#include "filter/filter.h"
#include "message.h"
#include "progress.h"

#include <float.h>
#include <math.h>
#include <sndfile.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct job {
    const cli_options *o;
    cli_input *in;
    SNDFILE *out;
    SF_INFO out_info;
    cli_chain chain;
    cli_align align;
    size_t block;
    unsigned channels;
    /* alignment: frames dropped from the front, frames written */
    size_t skip_left;
    uint64_t written;
    conditioner cond;
    short *pcm;                 /* 16-bit output: a block of integer samples, else NULL */
    uint64_t frames_in;
    /* the reader's: samples read, and those that were not finite (float input) */
    int scan_input;
    uint64_t samples_in, nonfinite_in, first_nonfinite_in;
} job;

/* ---- the pipeline's three steps -------------------------------------------- */

/* NaN or infinity in a float INPUT would spread through the filter, over an
 * FFT block or ntaps frames (3 gave 5843): each is filtered as silence, and
 * counted for report(). */
static void silence_nonfinite(job *j, float *buf, size_t n)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; i++)
        bad += !(fabsf(buf[i]) <= FLT_MAX);
    for (size_t i = 0; bad && i < n; i++) {
        if (!(fabsf(buf[i]) <= FLT_MAX)) {
            if (!j->nonfinite_in)
                j->first_nonfinite_in = j->samples_in + i;
            j->nonfinite_in++;
            buf[i] = 0.0f;
        }
    }
}

static long job_read(void *ctx, float *buf, size_t max)
{
    job *j = ctx;
    sf_count_t got = sf_readf_float(j->in->sf, buf, (sf_count_t)max);
    if (got <= 0)
        return sf_error(j->in->sf) != 0 ? -1 : 0;
    if (j->scan_input)
        silence_nonfinite(j, buf, (size_t)got * j->channels);
    j->samples_in += (uint64_t)got * j->channels;
    return (long)got;
}

static int job_filter(void *ctx, const float *in, float *out, size_t frames)
{
    job *j = ctx;
    gfir_status st = in ? cli_chain_execute(&j->chain, in, out, frames)
                        : cli_chain_flush(&j->chain, out, frames);
    if (st != GFIR_OK)
        return cli_error("filtering failed: %s", cli_chain_error(&j->chain, st));
    return 0;
}

/* Writes frames of filtered output, dropping the alignment's first frames and
 * anything past `limit` frames. */
static int job_write(void *ctx, float *buf, size_t frames, uint64_t limit)
{
    job *j = ctx;
    size_t drop = frames < j->skip_left ? frames : j->skip_left;
    sf_count_t done;
    j->skip_left -= drop;
    buf += drop * j->channels;
    frames -= drop;
    if (frames > limit - j->written)
        frames = (size_t)(limit - j->written);
    if (frames == 0)
        return 0;
    condition_block(&j->cond, buf, frames * j->channels, j->pcm);
    done = j->pcm ? sf_writef_short(j->out, j->pcm, (sf_count_t)frames)
                  : sf_writef_float(j->out, buf, (sf_count_t)frames);
    if (done != (sf_count_t)frames)
        return cli_error("cannot write OUTPUT '%s': %s", j->o->output, sf_strerror(j->out));
    j->written += frames;
    return 0;
}

/* The whole input, then the tail that alignment owes. */
static int run_pipeline(job *j, pipeline *p, progress *pg)
{
    const cli_align align = j->align;
    const size_t ntaps = j->chain.ntaps;
    /* the writer drops these first: the engine's latency, and for `same` the
     * filter's delay; the tail below owes them back */
    const uint64_t skip = j->chain.latency_frames + (align == CLI_ALIGN_SAME ? (ntaps - 1) / 2 : 0);
    uint64_t frames_in = 0, total, owed;
    pipe_slot in;
    int rc = 0;

    j->skip_left = (size_t)skip;
    while (!rc && pipeline_next_input(p, &in)) {
        rc = pipeline_emit(p, in.buf, in.frames, UINT64_MAX);
        frames_in += in.frames;
        pipeline_release_input(p, in);
        progress_update(pg, (double)frames_in);
    }
    if (rc)
        return rc;
    j->frames_in = frames_in;
    if (pipeline_read_failed(p))
        return cli_error("cannot read INPUT '%s': %s", j->o->input, sf_strerror(j->in->sf));
    if (frames_in == 0)
        return cli_error("INPUT '%s' has no audio frames", j->o->input);
    /* The tail: what the skipped frames and --align full still owe. */
    total = frames_in + (align == CLI_ALIGN_FULL ? ntaps - 1 : 0);
    for (owed = total + skip - frames_in; !rc && owed > 0;) {
        size_t n = owed < j->block ? (size_t)owed : j->block;
        rc = pipeline_emit(p, NULL, n, total);
        owed -= n;
    }
    return rc;
}

static int filter_all(job *j, progress *pg)
{
    const pipeline_io io = {j, job_read, job_filter, job_write};
    pipeline p;
    int rc, write_failed;
    if (pipeline_start(&p, &io, j->block, j->channels))
        return 1;
    rc = run_pipeline(j, &p, pg);
    write_failed = pipeline_finish(&p);
    return rc || write_failed; /* job_write said why */
}

/* "frame F of channel C" for a sample's index in interleaved order */
static void say_where(char *buf, size_t len, uint64_t sample, unsigned channels)
{
    snprintf(buf, len, "frame %llu of channel %u", (unsigned long long)(sample / channels),
             (unsigned)(sample % channels));
}

static void report(const job *j, double seconds)
{
    char where[64];
    if (j->nonfinite_in) {
        say_where(where, sizeof where, j->first_nonfinite_in, j->channels);
        fprintf(stderr, "gfir: INPUT has %llu samples that are not finite (NaN or infinity), "
                "the first at %s; they were filtered as silence\n",
                (unsigned long long)j->nonfinite_in, where);
    }
    if (j->cond.nonfinite) {
        say_where(where, sizeof where, j->cond.first_nonfinite, j->channels);
        fprintf(stderr, "gfir: %llu output samples are not finite (the filter overflowed), the "
                "first at %s; written as %s\n", (unsigned long long)j->cond.nonfinite, where,
                j->cond.steps > 0 || j->cond.count_clips ? "silence or full scale"
                                                         : "NaN or infinity");
    }
    if (!j->in->pipe && j->frames_in < (uint64_t)j->in->info.frames)
        fprintf(stderr, "gfir: INPUT ended after %llu frames, %llu short of what its header "
                "promised; the output is as long as what was there\n",
                (unsigned long long)j->frames_in,
                (unsigned long long)j->in->info.frames - j->frames_in);
    if (j->cond.clipped) {
        double over_db = 20 * log10(j->cond.peak);
        /* the hint is the whole --gain to use, this run's gain included */
        fprintf(stderr, "gfir: %llu samples clipped (peak %.1f dB over full scale); try "
                "--gain %g\n", (unsigned long long)j->cond.clipped, over_db,
                floor(j->o->filter->gain_db - over_db - 0.05));
    }
    if (j->o->verbose) {
        double audio_s = (double)j->written / j->out_info.samplerate;
        fprintf(stderr, "gfir: wrote %llu frames (%.2f s of audio) in %.3f s: %.1fx realtime\n",
                (unsigned long long)j->written, audio_s, seconds,
                seconds > 0 ? audio_s / seconds : 0.0);
    }
}

/* The output's writer: libsndfile's own where it can seek back, else one
 * that streams (a pipe), told the length to come where INPUT knows it. */
static int open_output(job *j, const output_file *of)
{
    uint64_t frames = cli_input_frames(j->in);
    if (of->seekable) {
        j->out = sf_open_fd(of->fd, SFM_WRITE, &j->out_info, SF_FALSE);
        return j->out ? 0
                      : cli_error("cannot write OUTPUT '%s': %s", j->o->output, sf_strerror(NULL));
    }
    if (frames && j->align == CLI_ALIGN_FULL)
        frames += j->chain.ntaps - 1;
    return stream_open(of->fd, j->o->output, &j->out_info, frames ? frames : STREAM_FRAMES_UNKNOWN,
                       &j->out);
}

int cli_run_file_from(const cli_options *o, cli_input *in)
{
    job j;
    progress pg;
    output_file of = OUTPUT_FILE_INIT;
    int rc = 1, subtype;
    double t0;

    memset(&j, 0, sizeof j);
    j.o = o;
    j.in = in;
    j.block = o->block_frames ? o->block_frames : CLI_FILE_BLOCK_FRAMES;
    j.channels = (unsigned)in->info.channels;
    j.align = o->align != CLI_ALIGN_DEFAULT      ? o->align
              : cli_filter_has_ir(o->filter) ? CLI_ALIGN_FULL
                                             : CLI_ALIGN_SAME;
    subtype = in->info.format & SF_FORMAT_SUBMASK;
    j.scan_input = subtype == SF_FORMAT_FLOAT || subtype == SF_FORMAT_DOUBLE;
    if (output_check(o->input, o->output))
        goto done;
    if (format_choose(o->format, o->output, o->quiet, &in->info, &j.out_info))
        goto done;
    if (cli_chain_create(o, in->info.samplerate, j.channels, j.block, &j.chain))
        goto done;
    output_catch_signals();
    if (output_begin(&of, o->output) || open_output(&j, &of))
        goto done;
    subtype = j.out_info.format & SF_FORMAT_SUBMASK;
    condition_init(&j.cond, subtype, o->no_dither);
    /* libsndfile clips instead of wrapping integers that overflow. */
    sf_command(j.out, SFC_SET_CLIPPING, NULL, SF_TRUE);
    if (subtype == SF_FORMAT_PCM_16) {
        j.pcm = malloc(j.block * j.channels * sizeof *j.pcm);
        if (!j.pcm) {
            cli_error("out of memory for blocks of %zu frames", j.block);
            goto done;
        }
    }
    progress_start(&pg, !o->quiet, (double)cli_input_frames(in), in->info.samplerate);
    t0 = progress_now();
    rc = filter_all(&j, &pg);
    progress_end(&pg);
    if (sf_close(j.out) != 0 && !rc)
        rc = cli_error("cannot finish OUTPUT '%s': %s", o->output, sf_strerror(NULL));
    j.out = NULL;
    if (!rc)
        rc = output_commit(&of);
    if (!rc)
        report(&j, progress_now() - t0);
done:
    if (j.out)
        sf_close(j.out);
    output_end(&of);
    cli_chain_destroy(&j.chain);
    free(j.pcm);
    return rc;
}

int cli_run_file(const cli_options *o)
{
    cli_input in;
    int rc;
    if (output_check(o->input, o->output) || cli_input_open(o->input, &in))
        return 1;
    rc = cli_run_file_from(o, &in);
    cli_input_close(&in);
    return rc;
}
