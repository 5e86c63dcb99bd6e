/*
 * job.c - the offline job: INPUT through the filter into OUTPUT with
 * libsndfile, block by block so memory stays bounded by the block size and the
 * filter, whatever the file's length.
 *
 * Nothing is lost: OUTPUT is written through output.h (a temporary file
 * renamed over it only when everything succeeded); INPUT is only ever opened
 * for reading. The filtering itself is render.h's, shared with `gfir batch`.
 */
#include "file/file.h"
#include "chain.h"
#include "file/format.h"
#include "file/metadata.h"
#include "file/output.h"
#include "file/render.h"
#include "filter/filter.h"
#include "message.h"
#include "progress.h"

#include <errno.h>
#include <math.h>
#include <sndfile.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

int cli_open_input(const char *path, SNDFILE **sf, SF_INFO *info)
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
    if (cli_open_input(path, &sf, &info))
        return 1;
    *rate_hz = info.samplerate;
    *channels = (unsigned)info.channels;
    *frames = info.frames > 0 ? (size_t)info.frames : 0;
    sf_close(sf);
    return 0;
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

static void report(const cli_options *o, const render_result *r, int rate_hz, double seconds)
{
    if (r->clipped) {
        double over_db = 20 * log10(r->clip_peak);
        /* the hint is the whole --gain to use, this run's gain included */
        fprintf(stderr, "gfir: %llu samples clipped (peak %.1f dB over full scale); try "
                "--gain %g\n", (unsigned long long)r->clipped, over_db,
                floor(o->filter->gain_db - over_db - 0.05));
    }
    if (o->verbose) {
        const double audio_s = (double)r->written / rate_hz;
        char length[96], speed[48] = "";
        describe_length(length, sizeof length, r->written, rate_hz);
        /* below half a second start-up dominates, and a speed would only
         * measure that */
        if (audio_s >= 0.5 && seconds > 0)
            snprintf(speed, sizeof speed, ": %sx realtime", progress_speed(audio_s / seconds));
        fprintf(stderr, "gfir: wrote %s in %.3f s%s\n", length, seconds, speed);
    }
}

/* -v: what OUTPUT is, and what of INPUT's besides samples goes into it. */
static void say_output(const cli_options *o, const SF_INFO *out_info, const file_metadata *meta)
{
    char fmt[96], tags[320];
    if (!o->verbose)
        return;
    format_describe(out_info, fmt, sizeof fmt);
    metadata_describe(meta, tags, sizeof tags);
    fprintf(stderr, "gfir: output %s, %d Hz, %d channel%s%s\n", fmt, out_info->samplerate,
            out_info->channels, out_info->channels == 1 ? "" : "s", tags);
}

/* --align, else the default: full for an impulse response, same otherwise. */
static cli_align align_for(const cli_options *o)
{
    if (o->align != CLI_ALIGN_DEFAULT)
        return o->align;
    return cli_filter_has_ir(o->filter) ? CLI_ALIGN_FULL : CLI_ALIGN_SAME;
}

int cli_run_file(const cli_options *o)
{
    SNDFILE *in = NULL;
    SF_INFO in_info, out_info;
    file_metadata meta = {0};
    cli_chain chain = {0};
    progress pg;
    render_result res;
    const size_t block = o->block_frames ? o->block_frames : CLI_FILE_BLOCK_FRAMES;
    const render_target t = {o->output, &out_info, &meta, align_for(o), o->no_dither, block};
    int rc = 1;
    double t0;

    if (output_check(o->input, o->output) || cli_open_input(o->input, &in, &in_info))
        goto done;
    if (metadata_read(in, in_info.channels, &meta) ||
        format_choose(o->format, o->output, o->quiet, &in_info, meta.layout != NULL, &out_info))
        goto done;
    if (cli_chain_create(o, in_info.samplerate, (unsigned)in_info.channels, block,
                         in_info.frames > 0 ? (size_t)in_info.frames : 0, &chain))
        goto done;
    output_catch_signals();
    say_output(o, &out_info, &meta);
    progress_start(&pg, !o->quiet, (double)in_info.frames, in_info.samplerate);
    t0 = progress_now();
    rc = render_file(in, o->input, (unsigned)in_info.channels, &chain, &t, &pg, &res);
    if (!rc && !o->verbose)
        progress_done(&pg);
    progress_end(&pg);
    if (!rc) {
        report(o, &res, out_info.samplerate, progress_now() - t0);
        metadata_check(o->output, &meta, o->quiet);
    }
done:
    if (in)
        sf_close(in);
    cli_chain_destroy(&chain);
    metadata_free(&meta);
    return rc;
}
