/*
 * early.c - the early-reverberation twin of an output (early.h).
 */
#include "batch/early.h"
#include "batch/runner.h"
#include "batch/segment.h"
#include "chain.h"
#include "file/file.h"
#include "file/render.h"
#include "filter/filter.h"
#include "message.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

int early_path(const char *output, char *buf, size_t n)
{
    const char *slash = strrchr(output, '/'), *dot = strrchr(output, '.');
    size_t stem;
    if (!dot || (slash && dot < slash) || dot == output || (slash && dot == slash + 1))
        dot = output + strlen(output);
    stem = (size_t)(dot - output);
    return snprintf(buf, n, "%.*s.early%s", (int)stem, output, dot) >= (int)n;
}

/* Zeros every set's taps from `ms` after the direct path on. */
static void cut_after_direct_path(cli_design *d, double ms)
{
    const size_t n = d->ntaps;
    const size_t onset = gfir_filter_onset(d->taps, n, d->filter_channels, EARLY_ONSET_DB);
    const double keep = (double)onset + floor(ms * d->rate_hz / 1000.0 + 0.5) + 1;
    if (onset == n || keep >= (double)n)
        return;
    for (unsigned c = 0; c < d->filter_channels; c++)
        memset(d->taps + (size_t)c * n + (size_t)keep, 0, (n - (size_t)keep) * sizeof *d->taps);
}

int early_render(const batch_options *bo, const manifest_job *j, const char *output,
                 int scratch, size_t block, int gpu, const SF_INFO *out_info,
                 const file_metadata *meta)
{
    char path[4096];
    SNDFILE *in = NULL;
    SF_INFO info;
    cli_options o = bo->engine;
    cli_design d;
    cli_chain chain;
    render_result res;
    render_target t = {.output = path, .info = out_info, .meta = meta, .align = j->align,
                       .no_dither = bo->engine.no_dither, .block = block, .whole_input = 1,
                       .scratch = scratch, .format = j->format};
    int rc = 1, designed = 0, chained = 0;

    if (early_path(output, path, sizeof path))
        return cli_error("OUTPUT '%s': its early twin's name is too long", output);
    o.filter = batch_filter_for(bo, j);
    o.quiet = 1;
    o.no_fold = 0; /* the cut is made on the folded filter */
    o.gpu = gpu;
    if (!o.filter || cli_open_input(j->input, 0, &in, &info))
        goto done;
    if (cli_design_build(o.filter, info.samplerate, (unsigned)info.channels, 1, &d))
        goto done;
    designed = 1;
    cut_after_direct_path(&d, bo->early_ms);
    if (cli_chain_from_design(&o, &d, block, cli_input_frames(&info), &chain))
        goto done;
    chained = 1;
    if (segment_seek(&j->seg, j->input, j->align, in, &info, chain.ntaps, &t) ||
        render_file(in, j->input, (unsigned)info.channels, &chain, &t, NULL, &res))
        goto done;
    rc = 0;
done:
    if (chained)
        cli_chain_destroy(&chain);
    if (designed)
        cli_design_free(&d);
    if (in)
        cli_close_input(in);
    cli_filter_free(o.filter);
    return rc;
}
