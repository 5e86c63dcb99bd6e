/*
 * measure.c - see measure.h.
 */
#include "filter/measure.h"

#include <pthread.h>
#include <stdlib.h>

struct cli_measure {
    pthread_t thread;
    const float *taps;
    size_t ntaps;
    unsigned nsets;
    const gfir_path *paths;
    size_t npaths;
    gfir_normalize how;
    double level;
};

static void *measure_main(void *arg)
{
    cli_measure *m = arg;
    m->level = gfir_filter_loudness(m->taps, m->ntaps, m->nsets, m->paths, m->npaths, m->how);
    return NULL;
}

cli_measure *cli_measure_start(const float *taps, size_t ntaps, unsigned nsets,
                               const gfir_path *paths, size_t npaths, gfir_normalize how)
{
    cli_measure *m = malloc(sizeof *m);
    if (!m)
        return NULL;
    *m = (cli_measure){.taps = taps, .ntaps = ntaps, .nsets = nsets, .paths = paths,
                       .npaths = npaths, .how = how};
    if (pthread_create(&m->thread, NULL, measure_main, m) != 0) {
        free(m);
        return NULL;
    }
    return m;
}

double cli_measure_end(cli_measure *m)
{
    double level;
    pthread_join(m->thread, NULL);
    level = m->level;
    free(m);
    return level;
}
