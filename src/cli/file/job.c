/*
 * job.c - the offline job: INPUT through the filter into OUTPUT with
 * libsndfile, block by block so memory stays bounded by the block size and the
 * filter, whatever the file's length.
 *
 * Nothing is lost: OUTPUT is written through output.h (a temporary file
 * renamed over it only when everything succeeded); INPUT is only ever opened
 * for reading. Reading, filtering and writing overlap (pipeline.h).
 */
#include "file/file.h"
#include "chain.h"
#include "file/condition.h"
#include "file/format.h"
#include "file/metadata.h"
#include "file/output.h"
#include "file/pipeline.h"
#include "filter/filter.h"
#include "message.h"
#include "progress.h"

#include <errno.h>
#include <math.h>
#include <sndfile.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct job {
    const cli_options *o;
    SNDFILE *in, *out;
    SF_INFO in_info, out_info;
    file_metadata meta;         /* INPUT's tags and channel layout */
    cli_chain chain;
    size_t block;
    unsigned channels;
    /* alignment: frames dropped from the front, frames written */
    size_t skip_left;
    uint64_t written;
    conditioner cond;
    short *pcm;                 /* 16-bit output: a block of integer samples, else NULL */
} job;

static int open_input(const char *path, SNDFILE **sf, SF_INFO *info)
{
    struct stat sb;
    if (stat(path, &sb) != 0)
        return cli_error("cannot open INPUT '%s': %s", path, strerror(errno));
    if (S_ISDIR(sb.st_mode))
        return cli_error("INPUT '%s' is a directory", path);
    if (S_ISREG(sb.st_mode) && sb.st_size == 0)
        return cli_error("INPUT '%s' is empty (0 bytes)", path);
    memset(info, 0, sizeof *info);
    *sf = sf_open(path, SFM_READ, info);
    if (!*sf)
        return cli_error("cannot read INPUT '%s' as sound: %s", path, sf_strerror(NULL));
    if (info->frames == 0) {
        sf_close(*sf);
        *sf = NULL;
        return cli_error("INPUT '%s' has no audio frames", path);
    }
    return 0;
}

int cli_input_shape(const char *path, double *rate_hz, unsigned *channels, size_t *frames)
{
    SNDFILE *sf;
    SF_INFO info;
    if (open_input(path, &sf, &info))
        return 1;
    *rate_hz = info.samplerate;
    *channels = (unsigned)info.channels;
    *frames = info.frames > 0 ? (size_t)info.frames : 0;
    sf_close(sf);
    return 0;
}

/* ---- the pipeline's three steps -------------------------------------------- */

static long job_read(void *ctx, float *buf, size_t max)
{
    job *j = ctx;
    sf_count_t got = sf_readf_float(j->in, buf, (sf_count_t)max);
    if (got <= 0)
        return sf_error(j->in) != 0 ? -1 : 0;
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
    const cli_align align = j->o->align != CLI_ALIGN_DEFAULT ? j->o->align
                            : cli_filter_has_ir(j->o->filter) ? CLI_ALIGN_FULL
                                                              : CLI_ALIGN_SAME;
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
    if (pipeline_read_failed(p))
        return cli_error("cannot read INPUT '%s': %s", j->o->input, sf_strerror(j->in));
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

/* "1 frame (0.0208 ms of audio)", "480000 frames (10.00 s of audio)" */
static void describe_length(char *buf, size_t size, uint64_t frames, double rate_hz)
{
    const double s = (double)frames / rate_hz;
    const char *plural = frames == 1 ? "" : "s";
    if (s < 0.01)
        snprintf(buf, size, "%llu frame%s (%.3g ms of audio)", (unsigned long long)frames,
                 plural, s * 1000);
    else
        snprintf(buf, size, "%llu frame%s (%.2f s of audio)", (unsigned long long)frames, plural,
                 s);
}

static void report(const job *j, double seconds)
{
    if (j->cond.clipped) {
        double over_db = 20 * log10(j->cond.peak);
        /* the hint is the whole --gain to use, this run's gain included */
        fprintf(stderr, "gfir: %llu samples clipped (peak %.1f dB over full scale); try "
                "--gain %g\n", (unsigned long long)j->cond.clipped, over_db,
                floor(j->o->filter->gain_db - over_db - 0.05));
    }
    if (j->o->verbose) {
        const double audio_s = (double)j->written / j->out_info.samplerate;
        char length[96], speed[48] = "";
        describe_length(length, sizeof length, j->written, j->out_info.samplerate);
        /* below half a second start-up dominates, and a speed would only
         * measure that */
        if (audio_s >= 0.5 && seconds > 0)
            snprintf(speed, sizeof speed, ": %sx realtime", progress_speed(audio_s / seconds));
        fprintf(stderr, "gfir: wrote %s in %.3f s%s\n", length, seconds, speed);
    }
}

/* -v: what OUTPUT is, and what of INPUT's besides samples goes into it. */
static void say_output(const job *j)
{
    char fmt[96], meta[320];
    if (!j->o->verbose)
        return;
    format_describe(&j->out_info, fmt, sizeof fmt);
    metadata_describe(&j->meta, meta, sizeof meta);
    fprintf(stderr, "gfir: output %s, %d Hz, %d channel%s%s\n", fmt, j->out_info.samplerate,
            j->out_info.channels, j->out_info.channels == 1 ? "" : "s", meta);
}

int cli_run_file(const cli_options *o)
{
    job j;
    progress pg;
    output_file of = {.fd = -1, .slot = -1};
    int rc = 1, subtype;
    double t0;

    memset(&j, 0, sizeof j);
    j.o = o;
    j.block = o->block_frames ? o->block_frames : CLI_FILE_BLOCK_FRAMES;
    if (output_check(o->input, o->output) || open_input(o->input, &j.in, &j.in_info))
        goto done;
    j.channels = (unsigned)j.in_info.channels;
    if (metadata_read(j.in, j.in_info.channels, &j.meta) ||
        format_choose(o->format, o->output, o->quiet, &j.in_info, j.meta.layout != NULL,
                      &j.out_info))
        goto done;
    if (cli_chain_create(o, j.in_info.samplerate, j.channels, j.block,
                         j.in_info.frames > 0 ? (size_t)j.in_info.frames : 0, &j.chain))
        goto done;
    output_catch_signals();
    if (output_begin(&of, o->output))
        goto done;
    j.out = sf_open_fd(of.fd, SFM_WRITE, &j.out_info, SF_FALSE);
    if (!j.out) {
        cli_error("cannot write OUTPUT '%s': %s", o->output, sf_strerror(NULL));
        goto done;
    }
    if (format_configure(j.out, &j.out_info, o->output))
        goto done;
    metadata_write(j.out, &j.meta);
    say_output(&j);
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
    progress_start(&pg, !o->quiet, (double)j.in_info.frames, j.in_info.samplerate);
    t0 = progress_now();
    rc = filter_all(&j, &pg);
    if (sf_close(j.out) != 0 && !rc)
        rc = cli_error("cannot finish OUTPUT '%s': %s", o->output, sf_strerror(NULL));
    j.out = NULL;
    if (!rc)
        rc = output_commit(&of);
    if (!rc && !o->verbose)
        progress_done(&pg);
    progress_end(&pg);
    if (!rc) {
        report(&j, progress_now() - t0);
        metadata_check(o->output, &j.meta, o->quiet);
    }
done:
    if (j.out)
        sf_close(j.out);
    output_end(&of);
    if (j.in)
        sf_close(j.in);
    cli_chain_destroy(&j.chain);
    metadata_free(&j.meta);
    free(j.pcm);
    return rc;
}
