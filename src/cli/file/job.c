/*
 * job.c - the offline job: INPUT through the filter into OUTPUT with
 * libsndfile, block by block so memory stays bounded by the block size and the
 * filter, whatever the file's length.
 *
 * Nothing is lost: OUTPUT is written through output.h (a temporary file
 * renamed over it only when everything succeeded, or a pipe or a device
 * written straight through); INPUT is opened once, for reading (input.c).
 * What would pass silently is said in one line each: clipping, samples that
 * are not finite, an INPUT shorter than its header. The filtering itself is
 * render.h's, shared with `gfir batch`.
 */
#include "file/file.h"
#include "chain.h"
#include "file/format.h"
#include "file/metadata.h"
#include "file/output.h"
#include "file/render.h"
#include "file/resample.h"
#include "filter/filter.h"
#include "message.h"
#include "progress.h"

#include <math.h>
#include <sndfile.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

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

/* "frame F of channel C" for a sample's index in interleaved order */
static void say_where(char *buf, size_t len, uint64_t sample, unsigned channels)
{
    snprintf(buf, len, "frame %llu of channel %u", (unsigned long long)(sample / channels),
             (unsigned)(sample % channels));
}

/* Samples that were not finite, and an INPUT shorter than its header: one
 * line each, like clipping. */
static void report_damage(const render_result *r, const SF_INFO *in_info, unsigned out_channels)
{
    const unsigned channels = (unsigned)in_info->channels;
    char where[64];
    if (r->nonfinite_in) {
        say_where(where, sizeof where, r->first_nonfinite_in, channels);
        cli_note(0, "INPUT has %llu samples that are not finite (NaN or infinity), the first at "
                 "%s; they were filtered as silence", (unsigned long long)r->nonfinite_in, where);
    }
    if (r->nonfinite_out) {
        say_where(where, sizeof where, r->first_nonfinite_out, out_channels);
        cli_note(0, "%llu output samples are not finite (the filter overflowed), the first at %s; "
                 "written as %s", (unsigned long long)r->nonfinite_out, where,
                 r->clips ? "silence or full scale" : "NaN or infinity");
    }
    if (cli_input_frames(in_info) > r->frames_in)
        cli_note(0, "INPUT ended after %llu frames, %llu short of what its header promised; the "
                 "output is as long as what was there", (unsigned long long)r->frames_in,
                 (unsigned long long)(cli_input_frames(in_info) - r->frames_in));
}

static void report(const cli_options *o, const render_result *r, int rate_hz, double seconds)
{
    if (r->clipped) {
        double over_db = 20 * log10(r->clip_peak);
        /* the hint is the whole --gain to use, this run's gain included */
        cli_note(0, "%llu samples clipped (peak %.1f dB over full scale); try --gain %g",
                 (unsigned long long)r->clipped, over_db,
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
        cli_note(0, "wrote %s in %.3f s%s", length, seconds, speed);
    }
}

/* -v: what OUTPUT is, and what of INPUT's besides samples goes into it. */
static void say_output(const cli_options *o, const SF_INFO *out_info, const file_metadata *meta)
{
    char fmt[96], tags[320];
    if (!o->verbose)
        return;
    format_describe(out_info, o->format, fmt, sizeof fmt);
    metadata_describe(meta, tags, sizeof tags);
    cli_note(0, "output %s, %d Hz, %d channel%s%s", fmt, out_info->samplerate,
             out_info->channels, out_info->channels == 1 ? "" : "s", tags);
}

/* --align, else the default: full for an impulse response, same otherwise
 * but causal for a minimum-phase filter, which has no delay to remove. */
static cli_align align_for(const cli_options *o)
{
    if (o->align != CLI_ALIGN_DEFAULT)
        return o->align;
    if (cli_filter_has_ir(o->filter))
        return CLI_ALIGN_FULL;
    return o->filter->min_phase ? CLI_ALIGN_CAUSAL : CLI_ALIGN_SAME;
}

int cli_file_rate(const cli_options *o, const SF_INFO *in_info)
{
    return o->output && o->rate_hz > 0 ? (int)o->rate_hz : in_info->samplerate;
}

/* INPUT as the filter sees it: at --rate, with as many frames as
 * resampling makes of INPUT's. */
static SF_INFO as_filtered(const cli_options *o, const SF_INFO *in_info)
{
    SF_INFO rated = *in_info;
    rated.samplerate = cli_file_rate(o, in_info);
    rated.frames = (sf_count_t)resampled_frames(cli_input_frames(in_info), in_info->samplerate,
                                                rated.samplerate);
    return rated;
}

int cli_run_file_from(const cli_options *o, SNDFILE *in, const SF_INFO *in_info,
                      struct cli_design *d, cli_file_ready ready, void *ctx)
{
    const SF_INFO rated = as_filtered(o, in_info);
    SF_INFO out_info;
    file_metadata meta = {0};
    cli_chain chain = {0};
    progress pg;
    render_result res;
    const size_t block = o->block_frames ? o->block_frames : CLI_FILE_BLOCK_FRAMES;
    const size_t frames = cli_input_frames(&rated);
    const render_target t = {.output = o->output, .info = &out_info, .meta = &meta,
                             .align = align_for(o), .no_dither = o->no_dither, .block = block,
                             .rate_hz = rated.samplerate, .format = o->format};
    char tags[320];
    int rc = 1;
    double t0;

    if (output_check(o->input, o->output))
        goto done;
    if (metadata_read(cli_input_tags(in), in_info->channels, &meta))
        goto done;
    /* a quality the codec cannot take is wrong usage: format_choose says 2 */
    if ((rc = format_choose(o->format, o->output, o->quiet, &rated, meta.layout != NULL,
                            &out_info)) != 0)
        goto done;
    rc = 1;
    if (d ? cli_chain_from_design(o, d, block, frames, &chain)
          : cli_chain_create(o, rated.samplerate, (unsigned)in_info->channels, block, frames,
                             &chain))
        goto done;
    if ((rc = render_route_format(o->format, o->output, &rated, &chain, &meta, &out_info)) != 0)
        goto done;
    rc = 1;
    if (ready && (rc = ready(ctx, &chain)) != 0)
        goto done;
    output_catch_signals();
    if (rated.samplerate != in_info->samplerate && o->verbose)
        cli_note(0, "resampling INPUT from %d to %d Hz (libsoxr, before the filter)",
                 in_info->samplerate, rated.samplerate);
    say_output(o, &out_info, &meta);
    progress_start(&pg, !o->quiet, (double)frames, rated.samplerate);
    t0 = progress_now();
    rc = render_file(in, o->input, (unsigned)in_info->channels, &chain, &t, &pg, &res);
    if (!rc && !o->verbose)
        progress_done(&pg);
    progress_end(&pg);
    if (!rc) {
        report(o, &res, out_info.samplerate, progress_now() - t0);
        report_damage(&res, in_info, chain.out_channels);
        /* a stream cannot be read back, and its header took no tags */
        metadata_describe(&meta, tags, sizeof tags);
        if (!res.streamed)
            metadata_check(o->output, &meta, o->quiet);
        else if (tags[0])
            cli_note(o->quiet, "note: OUTPUT '%s' is written straight through, without "
                     "INPUT's tags and layout (%s)", o->output, tags + 2);
    }
done:
    cli_chain_destroy(&chain);
    metadata_free(&meta);
    return rc;
}

int cli_run_file(const cli_options *o)
{
    SNDFILE *in;
    SF_INFO in_info;
    int rc;
    if (output_check(o->input, o->output) || cli_open_input(o->input, o->verbose, &in, &in_info))
        return 1;
    rc = cli_run_file_from(o, in, &in_info, NULL, NULL, NULL);
    cli_close_input(in);
    return rc;
}
