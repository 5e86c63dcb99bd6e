/*
 * inspect.c - the run behind --describe and --response: one design of the
 * filter for the description, the plot and the file's plans, every check
 * before any output, and the plot made final last.
 */
#include "inspect/inspect.h"
#include "file/file.h"
#include "file/resample.h"
#include "message.h"

#define DEFAULT_RATE_HZ 48000.0

typedef struct inspection {
    const cli_options *o;
    cli_design *d;
    cli_plot plot;
} inspection;

/* Once the plans are made: the description, then the plot's temporary file.
 * With OUTPUT the job calls this after its own checks, before it writes. */
static int show(void *ctx, const cli_chain *chain)
{
    inspection *s = ctx;
    if (s->o->describe && cli_describe(s->o, s->d, chain))
        return 1;
    return s->o->response_svg && cli_plot_write(&s->plot, s->o->response_svg, s->o->filter, s->d);
}

/* Without OUTPUT: the plans a file run would make, for the description. */
static int show_alone(inspection *s, size_t frames)
{
    const size_t block = s->o->block_frames ? s->o->block_frames : CLI_FILE_BLOCK_FRAMES;
    cli_options quiet = *s->o;
    cli_chain chain = {0};
    int rc;

    if (!s->o->describe)
        return show(s, NULL);
    /* -v would say the plans over again; describe says them */
    quiet.verbose = 0;
    if (cli_chain_from_design(&quiet, s->d, block, frames, &chain))
        return 1;
    rc = show(s, &chain);
    cli_chain_destroy(&chain);
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

int cli_inspect(const cli_options *o)
{
    /* without OUTPUT, --rate stands for INPUT's rate, and INPUT is not read */
    const int need_input = o->input && (o->output || !(o->rate_hz > 0));
    double rate_hz = o->rate_hz > 0 ? o->rate_hz : DEFAULT_RATE_HZ;
    unsigned channels = o->channels;
    size_t frames = 0;
    SNDFILE *in = NULL;
    SF_INFO in_info;
    cli_design d;
    inspection s = {o, &d, CLI_PLOT_INIT};
    int rc;

    if (check_response(o) || (o->output && output_check(o->input, o->output)))
        return 1;
    /* INPUT is opened once: a FIFO or a pipe can be read only once */
    if (need_input && cli_open_input(o->input, o->verbose, &in, &in_info))
        return 1;
    /* the file's plans run at INPUT's rate: the design must too */
    if (in && (o->output || !(o->rate_hz > 0))) {
        rate_hz = cli_file_rate(o, &in_info);
        channels = (unsigned)in_info.channels;
        frames = cli_input_frames(&in_info);
        if (o->output)
            frames = (size_t)resampled_frames(frames, in_info.samplerate, (int)rate_hz);
    }
    /* --describe makes the plans, while a long filter's --normalize is
     * measured (cli_design_begin); they settle it before it is shown */
    rc = (o->describe ? cli_design_begin : cli_design_build)(o->filter, rate_hz, channels,
                                                             o->quiet, &d);
    if (!rc)
        rc = o->output ? cli_run_file_from(o, in, &in_info, &d, show, &s)
                       : show_alone(&s, frames);
    if (!rc && o->response_svg)
        rc = cli_plot_commit(&s.plot);
    cli_plot_end(&s.plot);
    cli_design_free(&d);
    if (in)
        cli_close_input(in);
    return rc;
}
