/*
 * chain.c - from options to plans: one plan for the folded chain (the
 * default, and always for live audio through cli_live_plan), or with --no-fold
 * one plan per stage run in series, which gives the same output. The library
 * chooses each plan's backend and kernel; the command line only says how much
 * latency its use can take (files any, live audio none) and how long a file
 * is, and reports the plan it got.
 */
#include "chain.h"
#include "filter/filter.h"
#include "message.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every plan the command line makes: the library's policy chooses backend,
 * kernel and form from the options, the shape and the latency budget. */
static gfir_status make_plan(const cli_options *o, unsigned channels, unsigned filter_channels,
                             size_t block_frames, size_t budget, size_t expected_frames,
                             const float *taps, size_t ntaps, gfir_plan **plan)
{
    gfir_config cfg;
    gfir_config_init(&cfg);
    cfg.channels = channels;
    cfg.filter_channels = filter_channels;
    cfg.max_block_frames = block_frames;
    cfg.backend = o->backend;
    cfg.kernel = o->kernel;
    cfg.max_latency_frames = budget;
    cfg.expected_frames = expected_frames;
    return gfir_plan_create(plan, taps, ntaps, &cfg);
}

static int plan_failed(const cli_options *o)
{
    return cli_error("cannot filter with --backend %s --kernel %s: %s",
                     gfir_backend_name(o->backend), gfir_kernel_name(o->kernel),
                     gfir_plan_error_detail(NULL));
}

void cli_plan_summary(const gfir_plan *plan, char *buf, size_t len)
{
    snprintf(buf, len, "backend %s, kernel %s, latency %zu frames",
             gfir_backend_name(gfir_plan_backend(plan)), gfir_kernel_name(gfir_plan_kernel(plan)),
             gfir_plan_latency(plan));
}

static void say_plan(const cli_options *o, const gfir_plan *plan, const char *what,
                     unsigned filter_channels, double rate_hz, size_t block_frames)
{
    const unsigned ch = gfir_plan_channels(plan);
    char summary[128];
    if (!o->verbose)
        return;
    cli_plan_summary(plan, summary, sizeof summary);
    fprintf(stderr, "gfir: %s%s; %zu taps x %u filter channel%s, %u channel%s at %g Hz, "
            "blocks of %zu frames\n", what, summary, gfir_plan_ntaps(plan), filter_channels,
            filter_channels == 1 ? "" : "s", ch, ch == 1 ? "" : "s", rate_hz, block_frames);
}

int cli_live_plan(const cli_options *o, const cli_design *d, unsigned channels,
                  size_t block_frames, gfir_plan **plan)
{
    /* live audio hears every frame of latency: the budget is none */
    if (make_plan(o, channels, d->filter_channels, block_frames, 0, 0, d->taps, d->ntaps, plan) !=
        GFIR_OK)
        return plan_failed(o);
    say_plan(o, *plan, "", d->filter_channels, d->rate_hz, block_frames ? block_frames : 4096);
    return 0;
}

int cli_chain_create(const cli_options *o, double rate_hz, unsigned channels, size_t block_frames,
                     size_t expected_frames, cli_chain *chain)
{
    cli_design d;
    char what[64];
    int rc = 1;

    memset(chain, 0, sizeof *chain);
    if ((o->no_fold ? cli_design_stages : cli_design_build)(o->filter, rate_hz, channels,
                                                           o->quiet, &d))
        return 1;
    chain->nplans = o->no_fold ? d.nstages : 1;
    chain->ntaps = d.ntaps;
    chain->plans = calloc(chain->nplans, sizeof *chain->plans);
    if (!chain->plans) {
        cli_error("out of memory");
        goto done;
    }
    for (size_t i = 0; i < chain->nplans; i++) {
        const unsigned fc = o->no_fold ? d.stage_channels[i] : d.filter_channels;
        /* the writer drops the engine's latency: files grant any */
        gfir_status st =
            o->no_fold ? make_plan(o, channels, fc, block_frames, GFIR_LATENCY_ANY,
                                   expected_frames, d.stage_taps[i], d.stage_ntaps[i],
                                   &chain->plans[i])
                       : make_plan(o, channels, fc, block_frames, GFIR_LATENCY_ANY,
                                   expected_frames, d.taps, d.ntaps, &chain->plans[i]);
        if (st != GFIR_OK) {
            plan_failed(o);
            goto done;
        }
        chain->latency_frames += gfir_plan_latency(chain->plans[i]);
        what[0] = '\0';
        if (o->no_fold)
            snprintf(what, sizeof what, "stage %zu: ", i + 1);
        say_plan(o, chain->plans[i], what, fc, rate_hz, block_frames);
    }
    rc = 0;
done:
    cli_design_free(&d);
    if (rc)
        cli_chain_destroy(chain);
    return rc;
}

/* Every stage after the first filters the previous one's output in place. */
static gfir_status run_rest(cli_chain *chain, float *out, size_t frames)
{
    for (size_t i = 1; i < chain->nplans; i++) {
        gfir_status st = gfir_plan_execute(chain->plans[i], out, out, frames);
        if (st != GFIR_OK)
            return st;
    }
    return GFIR_OK;
}

gfir_status cli_chain_execute(cli_chain *chain, const float *in, float *out, size_t frames)
{
    gfir_status st = gfir_plan_execute(chain->plans[0], in, out, frames);
    return st != GFIR_OK ? st : run_rest(chain, out, frames);
}

gfir_status cli_chain_flush(cli_chain *chain, float *out, size_t frames)
{
    gfir_status st = gfir_plan_flush(chain->plans[0], out, frames);
    return st != GFIR_OK ? st : run_rest(chain, out, frames);
}

const char *cli_chain_error(const cli_chain *chain, gfir_status status)
{
    for (size_t i = 0; i < chain->nplans; i++) {
        const char *detail = gfir_plan_error_detail(chain->plans[i]);
        if (detail[0])
            return detail;
    }
    return gfir_strerror(status);
}

void cli_chain_destroy(cli_chain *chain)
{
    for (size_t i = 0; chain->plans && i < chain->nplans; i++)
        gfir_plan_destroy(chain->plans[i]);
    free(chain->plans);
    memset(chain, 0, sizeof *chain);
}
