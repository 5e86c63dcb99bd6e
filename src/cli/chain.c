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

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every plan the command line makes: the library's policy chooses backend,
 * kernel and form from the options, the shape and the latency budget. */
static gfir_status make_plan(const cli_options *o, const cli_taps *t, size_t block_frames,
                             size_t budget, size_t expected_frames, gfir_plan **plan)
{
    gfir_config cfg;
    gfir_config_init(&cfg);
    cfg.channels = t->inputs;
    cfg.out_channels = t->outputs;
    cfg.filter_channels = t->nsets;
    cfg.paths = t->paths;
    cfg.npaths = t->npaths;
    cfg.max_block_frames = block_frames;
    cfg.backend = o->backend;
    cfg.kernel = o->kernel;
    cfg.device = o->gpu;
    cfg.max_latency_frames = budget;
    cfg.expected_frames = expected_frames;
    if (o->ngpus == 1) /* one GPU named: a plan there, nothing split */
        cfg.device = o->gpus[0];
    cfg.devices = o->ngpus > 1 ? o->gpus : NULL;
    cfg.ndevices = o->ngpus > 1 ? o->ngpus : 0;
    return gfir_plan_create(plan, t->taps, t->ntaps, &cfg);
}

/* Only where the device is named: under AUTO a short job stays on the CPU
 * and ends before a start-up would, and the library holds the exit back
 * until a start-up under way has finished (gfir.h), which would make every
 * short job pay the start-up it was spared. A job long enough for AUTO to
 * take the device outweighs the start-up anyway. */
void cli_backend_start(const cli_options *o)
{
    if (o->backend != GFIR_BACKEND_CUDA)
        return;
    if (!o->ngpus)
        (void)gfir_backend_prepare(o->backend, o->gpu);
    for (unsigned k = 0; k < o->ngpus; k++)
        (void)gfir_backend_prepare(o->backend, o->gpus[k]);
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
                     const cli_taps *t, double rate_hz, size_t block_frames)
{
    const unsigned ch = gfir_plan_channels(plan), out = gfir_plan_out_channels(plan);
    char summary[128 + 8 * GFIR_MAX_DEVICES], shape[96];
    if (!o->verbose)
        return;
    cli_plan_summary(plan, summary, sizeof summary);
    for (unsigned k = 0; o->ngpus > 1 && k < o->ngpus; k++) /* ", over GPUs 0,1" */
        snprintf(summary + strlen(summary), sizeof summary - strlen(summary), "%s%d",
                 k ? "," : ", over GPUs ", o->gpus[k]);
    if (t->paths)
        snprintf(shape, sizeof shape, "%zu path%s from %u channel%s to %u", t->npaths,
                 t->npaths == 1 ? "" : "s", ch, ch == 1 ? "" : "s", out);
    else
        snprintf(shape, sizeof shape, "%u channel%s", ch, ch == 1 ? "" : "s");
    /* which GPU: the one the options named, where the plan went to one */
    if (gfir_plan_backend(plan) == GFIR_BACKEND_CUDA && o->ngpus < 2)
        snprintf(summary + strlen(summary), sizeof summary - strlen(summary), " on GPU %d",
                 o->ngpus ? o->gpus[0] : o->gpu);
    cli_info("%s%s; %zu taps x %u filter channel%s, %s at %g Hz, blocks of %zu frames", what,
             summary, gfir_plan_ntaps(plan), t->nsets, t->nsets == 1 ? "" : "s", shape, rate_hz,
             block_frames);
}

/* -v: the gain the filter was given, and why: the default normalisation of
 * an impulse response is a choice the user should hear of. */
static void say_scale(const cli_options *o, const cli_design *d)
{
    static const char *const names[] = {"none", "peak", "energy"};
    const cli_filter *f = o->filter;
    cli_text t = {.len = 0};
    if (!o->verbose || (d->normalize == CLI_NORMALIZE_NONE && f->gain_db == 0 && !f->dry))
        return;
    cli_text_add(&t, "filter scaled by %+.2f dB", 20 * log10(d->scale));
    if (d->normalize != CLI_NORMALIZE_NONE)
        cli_text_add(&t, ": --normalize %s%s", names[d->normalize],
                     f->normalize == CLI_NORMALIZE_DEFAULT
                         ? ", the default with an impulse response (--normalize none for the "
                           "raw IR)"
                         : "");
    if (f->gain_db != 0)
        cli_text_add(&t, "%s--gain %g", d->normalize != CLI_NORMALIZE_NONE ? ", then " : ": ",
                     f->gain_db);
    if (f->dry)
        cli_text_add(&t, "; the dry signal at %+g dB beside the IR's output at %+g dB%s",
                     f->dry_db, f->wet_db, f->gain_db != 0 ? ", both then --gain" : "");
    cli_info("%s", t.text);
}

int cli_live_plan(const cli_options *o, const cli_design *d, size_t block_frames,
                  gfir_plan **plan)
{
    cli_taps t;
    cli_design_whole(d, &t);
    /* live audio hears every frame of latency: the budget is none */
    if (make_plan(o, &t, block_frames, 0, 0, plan) != GFIR_OK)
        return plan_failed(o);
    say_scale(o, d);
    say_plan(o, *plan, "", &t, d->rate_hz, block_frames ? block_frames : 4096);
    return 0;
}

/* Stage i's taps, or the folded filter's. */
static void plan_taps(const cli_options *o, const cli_design *d, size_t i, cli_taps *t)
{
    if (o->no_fold)
        cli_design_stage(d, i, t);
    else
        cli_design_whole(d, t);
}

int cli_chain_from_design(const cli_options *o, cli_design *d, size_t block_frames,
                          size_t expected_frames, cli_chain *chain)
{
    char what[64];
    double gain;

    memset(chain, 0, sizeof *chain);
    chain->gain = 1;
    chain->nplans = o->no_fold ? d->nstages : 1;
    /* the alignment counts an IR's trailing silence, dropped from the taps:
     * the tail of --align full, and the delay of `same`, are the files' */
    chain->ntaps = d->ntaps + d->dropped;
    chain->in_channels = d->inputs;
    chain->out_channels = d->outputs;
    chain->block_frames = block_frames;
    chain->plans = calloc(chain->nplans, sizeof *chain->plans);
    if (!chain->plans) {
        cli_error("out of memory");
        goto fail;
    }
    /* a normalisation still measured (cli_design_begin) goes on meanwhile:
     * these taps are unscaled, and the scale joins the output */
    for (size_t i = 0; i < chain->nplans; i++) {
        cli_taps t;
        plan_taps(o, d, i, &t);
        /* the writer drops the engine's latency: files grant any */
        if (make_plan(o, &t, block_frames, GFIR_LATENCY_ANY, expected_frames,
                      &chain->plans[i]) != GFIR_OK) {
            plan_failed(o);
            goto fail;
        }
        chain->latency_frames += gfir_plan_latency(chain->plans[i]);
        chain->max_channels = t.inputs > chain->max_channels ? t.inputs : chain->max_channels;
        chain->max_channels = t.outputs > chain->max_channels ? t.outputs : chain->max_channels;
    }
    if (cli_design_settle(o->filter, d, &gain))
        goto fail;
    chain->gain = gain;
    say_scale(o, d);
    for (size_t i = 0; i < chain->nplans; i++) {
        cli_taps t;
        plan_taps(o, d, i, &t);
        what[0] = '\0';
        if (o->no_fold)
            snprintf(what, sizeof what, "stage %zu: ", i + 1);
        say_plan(o, chain->plans[i], what, &t, d->rate_hz, block_frames);
    }
    for (size_t i = 1; i < chain->nplans; i++)
        if (gfir_plan_channels(chain->plans[i]) != gfir_plan_out_channels(chain->plans[i]) &&
            !chain->scratch &&
            !(chain->scratch = malloc(block_frames * chain->max_channels *
                                      sizeof *chain->scratch))) {
            cli_error("out of memory for blocks of %zu frames", block_frames);
            goto fail;
        }
    return 0;
fail:
    cli_chain_destroy(chain);
    return 1;
}

int cli_chain_create(const cli_options *o, double rate_hz, unsigned channels, size_t block_frames,
                     size_t expected_frames, cli_chain *chain)
{
    cli_design d;
    int rc;

    memset(chain, 0, sizeof *chain);
    if ((o->no_fold ? cli_design_stages : cli_design_begin)(o->filter, rate_hz, channels,
                                                           o->quiet, &d))
        return 1;
    rc = cli_chain_from_design(o, &d, block_frames, expected_frames, chain);
    cli_design_free(&d);
    return rc;
}

/* Every stage after the first filters the previous one's output: in place,
 * or where it changes the channels through the scratch block. */
static gfir_status run_rest(cli_chain *chain, float *out, size_t frames)
{
    for (size_t i = 1; i < chain->nplans; i++) {
        gfir_plan *p = chain->plans[i];
        const unsigned ch = gfir_plan_out_channels(p);
        gfir_status st;
        if (ch == gfir_plan_channels(p))
            st = gfir_plan_execute(p, out, out, frames);
        else if ((st = gfir_plan_execute(p, out, chain->scratch, frames)) == GFIR_OK)
            memcpy(out, chain->scratch, frames * ch * sizeof *out);
        if (st != GFIR_OK)
            return st;
    }
    return GFIR_OK;
}

/* The rest of the stages, then the gain the plans lack. */
static gfir_status finish(cli_chain *chain, float *out, size_t frames)
{
    const gfir_status st = run_rest(chain, out, frames);
    const double gain = chain->gain; /* in double: what a float holds the taps' product may not */
    const size_t n = frames * gfir_plan_out_channels(chain->plans[chain->nplans - 1]);
    if (st != GFIR_OK || gain == 1)
        return st;
    for (size_t k = 0; k < n; k++)
        out[k] = (float)(out[k] * gain);
    return GFIR_OK;
}

gfir_status cli_chain_execute(cli_chain *chain, const float *in, float *out, size_t frames)
{
    gfir_status st = gfir_plan_execute(chain->plans[0], in, out, frames);
    return st != GFIR_OK ? st : finish(chain, out, frames);
}

gfir_status cli_chain_flush(cli_chain *chain, float *out, size_t frames)
{
    gfir_status st = gfir_plan_flush(chain->plans[0], out, frames);
    return st != GFIR_OK ? st : finish(chain, out, frames);
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
    free(chain->scratch);
    memset(chain, 0, sizeof *chain);
}
