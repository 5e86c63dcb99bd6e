/*
 * filter.h - the filter chain behind cli_filter, private to the command line:
 * stages as the user gave them (presets, --taps, --ir), and the same chain
 * designed at a sample rate and folded into one tap set.
 */
#ifndef GFIR_CLI_FILTER_H
#define GFIR_CLI_FILTER_H

#include "cli.h"
#include "filter/stage.h"

#include <stddef.h>

/* One --preset, --taps or --ir as given (a preset as STAGE_DESIGN). */
typedef struct cli_filter_spec {
    stage_kind kind;
    char *arg;
} cli_filter_spec;

struct cli_filter {
    stage_list chain;           /* in the order given */
    double gain_db;             /* --gain */
    int normalize_peak;         /* --normalize peak */
    cli_filter_spec *specs;     /* the options that made the chain, for cli_filter_renew */
    size_t nspecs;
};

/* A chain designed at one rate: each stage's taps, and the folded whole. */
typedef struct cli_design {
    double rate_hz;
    size_t nstages;
    float **stage_taps;         /* per stage: stage_channels sets of stage_ntaps */
    size_t *stage_ntaps;        /* per stage */
    unsigned *stage_channels;   /* per stage: 1, or the IR's channels */
    unsigned filter_channels;   /* of the folded filter: 1 or the signal's channels */
    size_t ntaps;               /* of the folded filter */
    float *taps;                /* filter_channels sets of ntaps; NULL unfolded */
    double scale;               /* gain and normalisation applied to the fold */
    size_t delay_frames;        /* frames of delay of the linear-phase stages (not an IR's) */
    int has_ir;
} cli_design;

cli_filter *cli_filter_new(void);
void cli_filter_free(cli_filter *f);
/* Each prints one line and returns 1 on failure, else 0. */
int cli_filter_add_preset(cli_filter *f, const char *spec);
int cli_filter_add_file(cli_filter *f, stage_kind kind, const char *path);
int cli_filter_has_ir(const cli_filter *f);
/* The same filter made again from its options, reading every preset and
 * file anew (a live reload); NULL after one line on failure. */
cli_filter *cli_filter_renew(const cli_filter *f);

/* Designs f at rate_hz for `channels` signal channels (0 = do not check IR
 * channels against the signal), folded into d->taps. quiet silences notes
 * (IR resampling). rate_hz must lie in CLI_MIN_RATE_HZ..CLI_MAX_RATE_HZ. */
int cli_design_build(const cli_filter *f, double rate_hz, unsigned channels, int quiet,
                     cli_design *d);
/* The same without folding (--no-fold): d->taps is NULL, d->ntaps the length
 * the stages have in series. --normalize peak still measures the chain as
 * one filter, so it folds a copy to measure. */
int cli_design_stages(const cli_filter *f, double rate_hz, unsigned channels, int quiet,
                      cli_design *d);
void cli_design_free(cli_design *d);

#endif
