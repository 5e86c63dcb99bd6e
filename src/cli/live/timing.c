/*
 * timing.c - the block-time histogram (timing.h).
 */
#include "live/timing.h"

#include <stdlib.h>

#define TIMING_STEP_S 1e-6
#define TIMING_BINS 100000

int block_times_init(block_times *t)
{
    t->count = 0;
    t->max_s = 0.0;
    t->bins = calloc(TIMING_BINS, sizeof *t->bins);
    return t->bins == NULL;
}

void block_times_add(block_times *t, double seconds)
{
    size_t bin;
    if (!t->bins)
        return;
    bin = seconds <= 0 ? 0 : (size_t)(seconds / TIMING_STEP_S);
    t->bins[bin < TIMING_BINS ? bin : TIMING_BINS - 1]++;
    t->count++;
    if (seconds > t->max_s)
        t->max_s = seconds;
}

double block_times_quantile(const block_times *t, double q)
{
    size_t need, seen = 0;
    if (!t->bins || t->count == 0)
        return 0.0;
    need = (size_t)(q * (double)t->count + 0.5);
    need = need < 1 ? 1 : need > t->count ? t->count : need;
    for (size_t b = 0; b < TIMING_BINS; b++) {
        seen += t->bins[b];
        if (seen >= need) {
            const double upper = (double)(b + 1) * TIMING_STEP_S;
            return b == TIMING_BINS - 1 || upper > t->max_s ? t->max_s : upper;
        }
    }
    return t->max_s;
}

void block_times_free(block_times *t)
{
    free(t->bins);
    t->bins = NULL;
}
