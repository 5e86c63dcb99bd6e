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
    size_t ntaps;               /* of the whole chain, as if folded */
    size_t latency_frames;      /* the plans' latencies, summed */
} cli_chain;

int cli_chain_create(const cli_options *o, double rate_hz, unsigned channels, size_t block_frames,
                     cli_chain *chain);
gfir_status cli_chain_execute(cli_chain *chain, const float *in, float *out, size_t frames);
gfir_status cli_chain_flush(cli_chain *chain, float *out, size_t frames);
/* Why the last call failed: a plan's error detail, or its status's sentence. */
const char *cli_chain_error(const cli_chain *chain, gfir_status status);
void cli_chain_destroy(cli_chain *chain);

#endif
