/*
 * ir.h - the convolver's impulse responses: read with libsndfile, resampled
 * to the host's rate with libsoxr, then trimmed, laid out on the plugin's
 * channels and normalised as the command line's --ir-trim, layouts and
 * --normalize do. Worker-side: these allocate and read files.
 */
#ifndef GFIR_LV2_IR_H
#define GFIR_LV2_IR_H

#include "runner.h"

#include <stddef.h>

/* the most audio ports a side of a convolver (convolver-64), and so the
 * most channels of an IR file (one to one) */
#define GL_MAX_CHANNELS 64

/* ir_trim_db at or below this: no trim */
#define GL_TRIM_OFF_DB (-144.0)

typedef struct gl_ir {
    float *taps;                /* channels sets of ntaps, one after another */
    size_t ntaps;
    unsigned channels;
} gl_ir;

/* Reads path at rate_hz (resampled when the file's rate differs). 0 on
 * success; 1 with the reason in why, ir untouched. */
int gl_ir_load(const char *path, double rate_hz, gl_ir *ir, char *why, size_t why_size);

void gl_ir_free(gl_ir *ir);

/*
 * The filter the plugin runs from ir, on inputs -> outputs audio ports: its
 * leading frames below the peak by more than -trim_db cut (unless off), the
 * layout (1 channel: every channel; as many as the outputs: one to one, or
 * mono to each output; 4 on stereo: true stereo LL, LR, RL, RR) in
 * shape, and scaled as normalize says (gfir_filter_loudness): the loudest
 * output's peak over frequency (of the sum of its paths' magnitudes) or its
 * gain for white noise to 1. *taps is allocated. 0 on success; 1 with the reason in why.
 */
int gl_ir_condition(const gl_ir *ir, unsigned inputs, unsigned outputs, double trim_db,
                    gfir_normalize normalize, float **taps, size_t *ntaps, gl_shape *shape,
                    char *why, size_t why_size);

#endif
