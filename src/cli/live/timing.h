/*
 * timing.h - how long each block's filtering took, kept as a histogram so
 * the live summary can give percentiles against the period (a median hides
 * the one slow block in a thousand that a listener hears as a click).
 */
#ifndef GFIR_LIVE_TIMING_H
#define GFIR_LIVE_TIMING_H

#include <stddef.h>
#include <stdint.h>

typedef struct block_times {
    uint32_t *bins;             /* TIMING_BINS bins of TIMING_STEP_S; the last holds the rest */
    size_t count;
    double max_s;
} block_times;

/* 1 when the histogram could not be allocated (timing then records nothing). */
int block_times_init(block_times *t);
void block_times_add(block_times *t, double seconds);
/* The q-quantile (0 < q <= 1) in seconds, to the histogram's resolution of
 * one microsecond up to 100 ms (the exact maximum beyond); 0 when empty. */
double block_times_quantile(const block_times *t, double q);
void block_times_free(block_times *t);

#endif
