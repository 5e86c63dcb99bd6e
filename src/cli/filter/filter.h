/*
 * filter.h - the filter chain behind cli_filter, private to the command line:
 * stages as the user gave them (presets, --taps, --ir), and the same chain
 * designed at a sample rate for a signal of some channels: each stage's tap
 * sets and the paths they take from channel to channel (layout.h), and the
 * whole folded into one filter.
 */
#ifndef GFIR_CLI_FILTER_H
#define GFIR_CLI_FILTER_H

#include "cli.h"
#include "filter/stage.h"

#include <stddef.h>

/* --normalize: how the filter's gain is set before --gain. */
typedef enum cli_normalize {
    CLI_NORMALIZE_DEFAULT = -1, /* peak for a chain with an impulse response, else none */
    CLI_NORMALIZE_NONE = 0,
    CLI_NORMALIZE_PEAK = 1,     /* the loudest frequency of the loudest output at 0 dB */
    CLI_NORMALIZE_ENERGY = 2    /* the loudest output's gain for white noise 0 dB */
} cli_normalize;

/* --true-stereo: the order of a 4-channel IR's paths on a stereo signal. */
typedef enum cli_true_stereo {
    CLI_TRUE_STEREO_DEFAULT = -1, /* not given: LL, LR, RL, RR */
    CLI_TRUE_STEREO_IN_MAJOR = 0, /* LL, LR, RL, RR: left input to left, to right, ... */
    CLI_TRUE_STEREO_OUT_MAJOR = 1 /* LL, RL, LR, RR: into the left output, then the right */
} cli_true_stereo;

/* One --preset, --taps or --ir as given (a preset as STAGE_DESIGN). */
typedef struct cli_filter_spec {
    stage_kind kind;
    char *arg;
} cli_filter_spec;

struct cli_filter {
    stage_list chain;           /* in the order given */
    double gain_db;             /* --gain */
    cli_normalize normalize;    /* --normalize */
    cli_true_stereo true_stereo; /* --true-stereo */
    int trim;                   /* --ir-trim given */
    double trim_db;             /* --ir-trim: the level below the peak, negative */
    int min_phase;              /* --min-phase */
    int mix;                    /* --wet or --dry given (mix.h) */
    double wet_db, dry_db;      /* --wet (default 0), --dry (default: no dry signal) */
    int dry;                    /* --dry given */
    size_t max_taps;            /* --max-taps: taps x paths at most (filter/ceiling.h) */
    int verbose;                /* -v: notes that only -v prints (silence dropped from an IR) */
    cli_filter_spec *specs;     /* the options that made the chain, for cli_filter_renew */
    size_t nspecs;
};

/* One stage at a rate: its tap sets, and how they meet the channels. */
typedef struct stage_design {
    float *taps;                /* nsets sets of ntaps, one after another */
    size_t ntaps;
    unsigned nsets;
    unsigned inputs, outputs;   /* channels into and out of the stage */
    gfir_path *paths;           /* NULL: set 0 for every channel (nsets 1), or set c for
                                   channel c (nsets = inputs = outputs) */
    size_t npaths;
    char **set_names;           /* per set: where it came from ("hall.wav channel 2"), or
                                   NULL for designs and taps */
    const char *layout;         /* how an IR met the signal, for --describe, or NULL */
    size_t trimmed;             /* frames of leading silence --ir-trim removed */
    size_t dropped;             /* frames of an IR's trailing digital silence not kept:
                                   taps of zeros after ntaps, which --align still counts */
    double minphase_db;         /* --min-phase: how far any set's magnitude moved, at most */
} stage_design;

/* A chain designed at one rate: each stage, and the folded whole. */
typedef struct cli_design {
    double rate_hz;
    size_t nstages;
    stage_design *stages;
    unsigned inputs, outputs;   /* the signal's channels into and out of the chain */
    unsigned filter_channels;   /* tap sets of the fold */
    size_t ntaps;               /* of the folded filter (unfolded: of the stages in series) */
    size_t dropped;             /* the stages' dropped silence: the chain as the files give
                                   it is ntaps + dropped long, its last taps zeros */
    float *taps;                /* filter_channels sets of ntaps; NULL unfolded */
    gfir_path *paths;           /* the fold's, as in stage_design */
    size_t npaths;
    char **path_names;          /* per path of the fold: the sets it came through, or NULL */
    double scale;               /* gain and normalisation applied to the fold */
    double wet_loudness;        /* with --dry: the loudness --normalize measured before the
                                   dry signal joined the IR, else 0 */
    cli_normalize normalize;    /* the normalisation applied: never DEFAULT */
    struct cli_measure *measure; /* cli_design_begin: the loudness being measured on its own
                                   thread, the taps and scale not yet scaled by it or
                                   --gain (cli_design_settle); else NULL */
    size_t delay_frames;        /* frames of delay of the linear-phase stages (not an IR's,
                                   none made minimum phase) */
    int has_ir;
} cli_design;

/* What a plan is made of: tap sets and the paths they take. */
typedef struct cli_taps {
    const float *taps;
    size_t ntaps;
    unsigned nsets;
    unsigned inputs, outputs;
    const gfir_path *paths;     /* NULL: as stage_design says */
    size_t npaths;
} cli_taps;

cli_filter *cli_filter_new(void);
void cli_filter_free(cli_filter *f);
/* Each prints one line and returns 1 on failure, else 0. */
int cli_filter_add_preset(cli_filter *f, const char *spec);
/* path: a taps file, or an IR file or a comma-separated list of them (one
 * per output); a name without '/' that is not here is looked up beside the
 * presets. */
int cli_filter_add_file(cli_filter *f, stage_kind kind, const char *path);
int cli_filter_has_ir(const cli_filter *f);
/* The normalisation f gets: its --normalize, or the default for its stages. */
cli_normalize cli_filter_normalize(const cli_filter *f);
/* The same filter made again from its options, reading every preset and
 * file anew (a live reload); NULL after one line on failure. */
cli_filter *cli_filter_renew(const cli_filter *f);

/* Designs f at rate_hz for a signal of `channels` channels (0: as many as the
 * first stage that cares takes: a route's inputs, a multichannel IR's
 * channels, else 1), folded into d->taps. quiet silences notes (IR
 * resampling, trimming). rate_hz must lie in CLI_MIN_RATE_HZ..CLI_MAX_RATE_HZ. */
int cli_design_build(const cli_filter *f, double rate_hz, unsigned channels, int quiet,
                     cli_design *d);
/* The same, but a long filter's --normalize is measured on a thread of its
 * own while the caller makes its plans from the unscaled taps (measure.h);
 * cli_design_settle then waits for it and scales the taps. */
int cli_design_begin(const cli_filter *f, double rate_hz, unsigned channels, int quiet,
                     cli_design *d);
/* Finishes what cli_design_begin left measuring, with the checks and the
 * line cli_design_build would have given (1 after it); *plans_gain: the
 * scale that plans made before the call lack (1 when nothing was left). */
int cli_design_settle(const cli_filter *f, cli_design *d, double *plans_gain);
/* The same without folding (--no-fold): d->taps is NULL, d->ntaps the length
 * the stages have in series. --normalize still measures the chain as one
 * filter, so it folds a copy to measure. */
int cli_design_stages(const cli_filter *f, double rate_hz, unsigned channels, int quiet,
                      cli_design *d);
void cli_design_free(cli_design *d);

/* The folded filter, or stage i, as a plan takes it. */
void cli_design_whole(const cli_design *d, cli_taps *t);
void cli_design_stage(const cli_design *d, size_t i, cli_taps *t);

#endif
