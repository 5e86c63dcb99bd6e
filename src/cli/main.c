/*
 * main.c - the gfir command line: parse, then run one mode (list presets,
 * describe or plot a chain, filter a file, or live audio); `gfir batch ...`
 * has its own options and goes to batch/.
 */
#include "batch/batch.h"
#include "file/file.h"
#include "file/output.h"
#include "filter/filter.h"
#include "filter/preset.h"
#include "inspect/inspect.h"
#include "message.h"
#ifdef GFIR_HAVE_LIVE
#include "live/live.h"
#endif

#include <stdio.h>
#include <string.h>

#define DEFAULT_RATE_HZ 48000.0

static int run_live(const cli_options *o)
{
#ifdef GFIR_HAVE_LIVE
    if (o->list_devices)
        return live_list_devices(o);
    if (o->monitor)
        return live_monitor(o);
    return live_play(o);
#else
    (void)o;
    return cli_error("this gfir was built without PortAudio: --play, --monitor and "
                     "--list-devices are not available");
#endif
}

/* --describe and --response: at INPUT's rate (in_info, or NULL), else at --rate. */
static int inspect(const cli_options *o, const SF_INFO *in_info)
{
    double rate_hz = o->rate_hz > 0 ? o->rate_hz : DEFAULT_RATE_HZ;
    unsigned channels = o->channels;
    size_t frames = 0;
    cli_design d;
    int rc = 0;

    if (in_info && !(o->rate_hz > 0)) {
        rate_hz = in_info->samplerate;
        channels = (unsigned)in_info->channels;
        frames = cli_input_frames(in_info);
    }
    if (cli_design_build(o->filter, rate_hz, channels, o->quiet, &d))
        return 1;
    if (o->describe)
        rc = cli_describe(o, &d, channels, frames);
    if (!rc && o->response_svg)
        rc = cli_write_response_svg(o->response_svg, o->filter, &d);
    cli_design_free(&d);
    return rc;
}

/* --response's plot follows OUTPUT's rules, and may be neither INPUT nor OUTPUT. */
static int check_response(const cli_options *o)
{
    if (!o->response_svg)
        return 0;
    if (o->output && output_same(o->response_svg, o->output))
        return cli_error("--response '%s' and OUTPUT '%s' are the same file", o->response_svg,
                         o->output);
    return output_check_named("--response", o->input, o->response_svg);
}

/* Inspecting, then filtering if OUTPUT was given, with INPUT opened once:
 * a FIFO or a pipe can be read only once. */
static int inspect_and_run(const cli_options *o)
{
    const int need_input = o->input && (o->output || !(o->rate_hz > 0));
    SNDFILE *in = NULL;
    SF_INFO in_info;
    int rc;

    if (check_response(o) || (o->output && output_check(o->input, o->output)))
        return 1;
    if (need_input && cli_open_input(o->input, &in, &in_info))
        return 1;
    rc = inspect(o, in ? &in_info : NULL);
    if (!rc && o->output)
        rc = cli_run_file_from(o, in, &in_info);
    if (in)
        sf_close(in);
    return rc;
}

int main(int argc, char **argv)
{
    cli_options o;
    int rc;

    if (argc > 1 && !strcmp(argv[1], "batch")) {
        rc = cli_run_batch(argc - 1, argv + 1);
        fflush(stdout);
        return rc;
    }
    rc = cli_parse_options(argc, argv, &o);
    if (rc < 0) {
        if (o.list_presets)
            rc = preset_list();
        else if (o.list_devices || o.play || o.monitor)
            rc = run_live(&o);
        else if (o.describe || o.response_svg)
            rc = inspect_and_run(&o);
        else
            rc = cli_run_file(&o);
    }
    cli_filter_free(o.filter);
    fflush(stdout);
    return rc;
}
