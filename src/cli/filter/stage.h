/*
 * stage.h - one stage of a filter chain as the user gave it: a Kaiser design
 * from a preset section, coefficients from a text file, or an impulse
 * response from a sound file. Designed later, at the signal's rate.
 */
#ifndef GFIR_CLI_STAGE_H
#define GFIR_CLI_STAGE_H

#include "gfir.h"

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

#endif
