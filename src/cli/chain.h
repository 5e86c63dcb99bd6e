/*
 * chain.h - the plans that run a designed filter: one folded plan, or with
 * --no-fold one plan per stage in series; used as one filter.
 */
#ifndef GFIR_CLI_CHAIN_H
#define GFIR_CLI_CHAIN_H

#include "cli.h"

#include <stddef.h>

typedef struct cli_chain {
    gfir_plan **plans;
    size_t nplans;
    size_t ntaps;               /* of the whole chain, as if folded, with the trailing silence
                                   dropped from IRs (filter.h): what --align counts */
    size_t latency_frames;      /* the plans' latencies, summed */
    unsigned in_channels;       /* what the chain takes ... */
    unsigned out_channels;      /* ... and gives: as the routing says */
    unsigned max_channels;      /* the most any plan gives or takes: what the buffers of
                                   cli_chain_execute's output must hold a frame of */
    float *scratch;             /* --no-fold, where a stage changes the channels: its output */
    double gain;                /* what the plans' output is multiplied by: the scale of a
                                   normalisation measured while they were made, else 1 */
    size_t block_frames;
} cli_chain;

/* Starts the device o->backend names (--backend cuda), on the library's
 * thread, so it is ready or nearly when the first plan is made: called as
 * soon as the options say plans will be made, before inputs are opened and
 * filters designed. What goes wrong is said by that plan's create. */
void cli_backend_start(const cli_options *o);

/* The plans for a file of `channels` channels and expected_frames frames (0:
 * unknown) at rate_hz, in blocks of block_frames, designing o->filter (and
 * so reading its files) for them. With -v, says which.
 * cli_chain_execute and cli_chain_flush take at most block_frames frames a
 * call, and their out holds frames * max_channels. */
int cli_chain_create(const cli_options *o, double rate_hz, unsigned channels, size_t block_frames,
                     size_t expected_frames, cli_chain *chain);
struct cli_design;
/* The same for a chain designed already at the file's rate for its channels
 * (filter/filter.h): folded, or with --no-fold its stages. A normalisation
 * that cli_design_begin left measuring is settled once the plans are made
 * (the taps scaled, the plans' output by the gain they lack); otherwise d is
 * only read. d may be freed once the chain is made. */
int cli_chain_from_design(const cli_options *o, struct cli_design *d, size_t block_frames,
                          size_t expected_frames, cli_chain *chain);
/* The live plan for a chain designed already (filter/filter.h) for the
 * stream's channels: no latency budget, blocks of up to block_frames; it
 * gives as many channels as the filter routes to (gfir_plan_out_channels).
 * With -v, says which, and the filter's gain. */
int cli_live_plan(const cli_options *o, const struct cli_design *d, size_t block_frames,
                  gfir_plan **plan);
/* "backend cpu, kernel fft, latency 32768 frames" for a plan. */
void cli_plan_summary(const gfir_plan *plan, char *buf, size_t len);
gfir_status cli_chain_execute(cli_chain *chain, const float *in, float *out, size_t frames);
gfir_status cli_chain_flush(cli_chain *chain, float *out, size_t frames);
/* Why the last call failed: a plan's error detail, or its status's sentence. */
const char *cli_chain_error(const cli_chain *chain, gfir_status status);
void cli_chain_destroy(cli_chain *chain);

#endif
