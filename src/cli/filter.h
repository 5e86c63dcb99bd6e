/*
 * filter.h - the filter chain behind cli_filter, private to the command line:
 * stages as the user gave them (presets, --taps, --ir), and the same chain
 * designed at a sample rate and folded into one tap set.
 */
#ifndef GFIR_CLI_FILTER_H
#define GFIR_CLI_FILTER_H

#include "cli.h"

#include <stdarg.h>

#include <stddef.h>

typedef enum stage_kind {
    STAGE_DESIGN = 0,           /* a Kaiser design from a preset section */
    STAGE_TAPS = 1,             /* coefficients from a text file */
    STAGE_IR = 2                /* an impulse response from a sound file */
} stage_kind;

typedef struct cli_stage {
    char *name;                 /* "lowpass", "telephone.lowpass", "taps", "ir" */
    char *description;          /* a preset's description, or NULL */
    char *path;                 /* taps/IR file, or NULL */
    stage_kind kind;
    gfir_filter_type type;
    double cutoff1_hz;          /* lowpass/highpass cutoff, band low edge */
    double cutoff2_hz;          /* band high edge */
    double transition_hz;
    double attenuation_db;
} cli_stage;

struct cli_filter {
    cli_stage *stages;
    size_t nstages;
    double gain_db;             /* --gain */
    int normalize_peak;         /* --normalize peak */
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
    float *taps;                /* filter_channels sets of ntaps */
    double scale;               /* gain and normalisation applied to the fold */
    size_t delay_frames;        /* the linear-phase stages' delay; see cli_plan_for */
    int has_ir;
} cli_design;

cli_filter *cli_filter_new(void);
void cli_filter_free(cli_filter *f);
/* Each prints one line and returns 1 on failure, else 0. */
int cli_filter_add_preset(cli_filter *f, const char *spec);
int cli_filter_add_file(cli_filter *f, stage_kind kind, const char *path);
int cli_filter_has_ir(const cli_filter *f);

/* Designs f at rate_hz for `channels` signal channels (0 = do not check IR
 * channels against the signal). quiet silences notes (IR resampling). */
int cli_design_build(const cli_filter *f, double rate_hz, unsigned channels, int quiet,
                     cli_design *d);
void cli_design_free(cli_design *d);

/* chain.c: the plans that run a design, one folded plan or (--no-fold) one
 * per stage in series; used as one filter. */
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

/* preset.c */
typedef struct preset_override {
    const char *section;        /* NULL: every section that has key */
    const char *key;
    const char *value;
} preset_override;
/* Appends the stages of preset `name` (a name on the search path, or a path
 * to an .ini file) with overrides applied. */
int preset_load(cli_filter *f, const char *name, const preset_override *ov, size_t nov);
int preset_list(void);

/* taps.c: the loaders print their own one-line errors. */
int taps_load_text(const char *path, float **taps, size_t *ntaps);
int taps_load_ir(const char *path, double rate_hz, int quiet, float **taps, size_t *ntaps,
                 unsigned *channels);

/* response.c */
int cli_describe(const cli_options *o, const cli_design *d);
int cli_write_response_svg(const char *path, const cli_filter *f, const cli_design *d);
/* Largest magnitude of the filter's response over frequency (dense FFT grid). */
double cli_peak_magnitude(const float *taps, size_t ntaps);

/* options.c: returns -1 to go on, else the exit code (0 after --help or
 * --version, 2 for a usage error, 1 for a bad preset or filter file). */
int cli_parse_options(int argc, char **argv, cli_options *o);
void cli_usage_hint(void);

/* file.c */
int cli_run_file(const cli_options *o);
/* A sound file's sample rate and channels, without reading it. */
int cli_input_shape(const char *path, double *rate_hz, unsigned *channels);

/* progress.c: a bar on stderr when it is a terminal and the job takes more
 * than a second; nothing otherwise. */
typedef struct progress {
    int enabled;
    int shown;
    double start_s, last_s;
    double total_frames;        /* 0 when the length is unknown */
    double rate_hz;
} progress;
double progress_now(void);
void progress_start(progress *p, int enabled, double total_frames, double rate_hz);
void progress_update(progress *p, double done_frames);
void progress_end(progress *p);

/* One line on stderr: "gfir: " then the message. */
void cli_vmessage(const char *fmt, va_list ap);
/* Formats "gfir: ..." on stderr and returns 1. */
int cli_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
void cli_note(int quiet, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

#endif
