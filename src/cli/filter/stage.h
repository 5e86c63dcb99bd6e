/*
 * stage.h - one stage of a filter chain as the user gave it: a Kaiser design
 * from a preset section, coefficients from a text file, an impulse response
 * from a sound file (or a list of them, one per output), or a preset's
 * [route]: paths from input channels through IR files to output channels.
 * Designed later, at the signal's rate.
 */
#ifndef GFIR_CLI_STAGE_H
#define GFIR_CLI_STAGE_H

#include "gfir.h"

#include <stddef.h>

typedef enum stage_kind {
    STAGE_DESIGN = 0,           /* a Kaiser design from a preset section */
    STAGE_TAPS = 1,             /* coefficients from a text file */
    STAGE_IR = 2,               /* an impulse response from a sound file, or a list */
    STAGE_ROUTE = 3             /* a preset's [route] section */
} stage_kind;

/* A term of a route's output line: in<input> [* FILE[CH]] [+-G dB]. */
#define ROUTE_WHOLE_FILE ((unsigned)-1)
typedef struct route_term {
    unsigned input, output;     /* channels, from 0 */
    char *file;                 /* an IR file (the path as found), or NULL: a plain wire */
    unsigned channel;           /* the file's channel from 0, or ROUTE_WHOLE_FILE */
    double gain;                /* linear, sign included */
} route_term;

typedef struct cli_stage {
    char *name;                 /* "lowpass", "telephone.lowpass", "taps", "ir" */
    char *description;          /* a preset's description, or NULL */
    char *path;                 /* taps/IR file (an IR list as given), or NULL */
    char **files;               /* IR: the files, one per output when nfiles > 1 */
    size_t nfiles;
    route_term *terms;          /* STAGE_ROUTE: every term of every output */
    size_t nterms;
    unsigned route_inputs;      /* STAGE_ROUTE: input channels it reads */
    unsigned route_outputs;     /* STAGE_ROUTE: output channels it writes */
    char *preset_path;          /* the .ini file a preset's stage came from, or NULL */
    stage_kind kind;
    gfir_filter_type type;
    double cutoff1_hz;          /* lowpass/highpass cutoff, band low edge */
    double cutoff2_hz;          /* band high edge */
    double transition_hz;
    double attenuation_db;
} cli_stage;

/* A growable list of stages. */
typedef struct stage_list {
    cli_stage *stages;
    size_t nstages;
} stage_list;

/* Appends a zeroed stage and returns it, or NULL without memory. */
cli_stage *stage_append(stage_list *list);
/* Frees the last stage's strings and drops it (a failed append). */
void stage_drop_last(stage_list *list);
/* An IR stage's files from spec: one file, or a comma-separated list of
 * them when spec as a whole names no file (resolve(spec) is tried first).
 * resolve turns each name into the path to open (malloc'd; NULL without
 * memory). One line and 1 on failure. */
int stage_set_files(cli_stage *s, const char *spec, char *(*resolve)(const char *name, void *ctx),
                    void *ctx);

#endif
