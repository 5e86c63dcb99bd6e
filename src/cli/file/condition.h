/*
 * condition.h - the last step before samples leave for a file: count what
 * would clip, clip so integers never wrap, and for 8- and 16-bit output add
 * TPDF dither and round to the output's grid.
 */
#ifndef GFIR_CLI_CONDITION_H
#define GFIR_CLI_CONDITION_H

#include <stddef.h>
#include <stdint.h>

typedef struct conditioner {
    int dither;                 /* TPDF dither before rounding */
    int count_clips;            /* integer output: count and clip */
    float steps;                /* 8- and 16-bit output: quantisation steps per 1.0, else 0 */
    float hi, lo;               /* beyond these a sample is clipped: +-1, or on the 8- and
                                   16-bit grid where rounding would leave it (127.5/128
                                   and -128.5/128 at 8 bits) */
    uint64_t rng;
    uint64_t clipped;           /* samples clipped so far */
    float peak;                 /* largest magnitude among them */
    float level;                /* largest magnitude of them all, before clipping */
    uint64_t seen;              /* samples conditioned so far */
    uint64_t nonfinite;         /* NaN or infinite samples so far (not counted as clipped) */
    uint64_t first_nonfinite;   /* the first one's index among all samples */
} conditioner;

/* For libsndfile's sample subtype (SF_FORMAT_PCM_16, ...). */
void condition_init(conditioner *c, int subtype, int no_dither);

/* Conditions n samples of buf in place; with pcm (16-bit output) the result
 * goes there as integers and buf is left as scratch. */
void condition_block(conditioner *c, float *restrict buf, size_t n, short *restrict pcm);

#endif
