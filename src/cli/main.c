/*
 * main.c - the gfir command line: parse, then run one mode (list presets,
 * describe or plot a chain, filter a file, or live audio); `gfir batch ...`
 * has its own options and goes to batch/.
 */
#include "batch/batch.h"
#include "chain.h"
#include "file/file.h"
#include "filter/filter.h"
#include "filter/preset.h"
#include "inspect/inspect.h"
#include "message.h"
#ifdef GFIR_HAVE_LIVE
#include "live/live.h"
#endif

#include <stdio.h>
#include <string.h>

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
    /* --backend cuda's device starts while the input is opened and the
     * filter designed (live audio starts it once PortAudio is up:
     * live/session.c) */
    if (rc == 0 && !o.answered && !o.list_presets && !o.list_devices && !o.play &&
        !o.monitor && (o.describe || !o.response_svg))
        cli_backend_start(&o);
    if (rc == 0 && !o.answered) {
        if (o.list_presets)
            rc = preset_list();
        else if (o.list_devices || o.play || o.monitor)
            rc = run_live(&o);
        else if (o.describe || o.response_svg)
            rc = cli_inspect(&o);
        else
            rc = cli_run_file(&o);
    }
    cli_filter_free(o.filter);
    fflush(stdout);
    return rc;
}
