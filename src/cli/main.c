/*
 * main.c - the gfir command line: parse, then run one mode (list presets,
 * describe or plot a chain, filter a file, or live audio).
 */
#include "file/file.h"
#include "filter/filter.h"
#include "filter/preset.h"
#include "inspect/inspect.h"
#include "message.h"
#ifdef GFIR_HAVE_LIVE
#include "live/live.h"
#endif

#include <stdio.h>

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

/* --describe and --response: at INPUT's rate, else at --rate. */
static int inspect(const cli_options *o)
{
    double rate_hz = o->rate_hz > 0 ? o->rate_hz : DEFAULT_RATE_HZ;
    unsigned channels = 0;
    size_t frames = 0;
    cli_design d;
    int rc = 0;

    if (o->input && !(o->rate_hz > 0) &&
        cli_input_shape(o->input, &rate_hz, &channels, &frames))
        return 1;
    if (cli_design_build(o->filter, rate_hz, channels, o->quiet, &d))
        return 1;
    if (o->describe)
        rc = cli_describe(o, &d, channels, frames);
    if (!rc && o->response_svg)
        rc = cli_write_response_svg(o->response_svg, o->filter, &d);
    cli_design_free(&d);
    return rc;
}

int main(int argc, char **argv)
{
    cli_options o;
    int rc = cli_parse_options(argc, argv, &o);

    if (rc < 0) {
        if (o.list_presets)
            rc = preset_list();
        else if (o.list_devices || o.play || o.monitor)
            rc = run_live(&o);
        else if (o.describe || o.response_svg) {
            rc = inspect(&o);
            if (!rc && o.output)
                rc = cli_run_file(&o);
        } else
            rc = cli_run_file(&o);
    }
    cli_filter_free(o.filter);
    fflush(stdout);
    return rc;
}
