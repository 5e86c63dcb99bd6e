/*
 * lv2_bench.c - times an LV2 convolver's run() in the tests' liblilv host
 * (tests/lv2/host.h): the IR set by patch:Set of the plugin's path
 * property, loaded on the worker, then seconds of random audio in blocks of
 * a fixed size on every audio port (64 a side for gfir convolver-64);
 * prints the plugin's status note, if any, then the median, 99.9th
 * percentile and worst time of run() (with the work responses it takes in)
 * against the block's period, and the mean as a share of it (the CPU load
 * of one core).
 *   lv2_bench URI PROPERTY IR_FILE BLOCK SECONDS [SYMBOL=VALUE ...]
 * tools/bench/lv2.sh runs it for gfir convolver and its Debian peers.
 */
#include "host.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define RATE 48000.0

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double started, *times;
static size_t ntimes;

static void stamp(int on)
{
    if (on)
        started = now_s();
    else if (times)
        times[ntimes++] = now_s() - started;
}

static int by_value(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    host h;
    float *x[HOST_MAX_AUDIO], *y[HOST_MAX_AUDIO];
    if (argc < 6) {
        fprintf(stderr, "usage: lv2_bench URI PROPERTY IR_FILE BLOCK SECONDS [SYMBOL=VALUE ...]\n");
        return 2;
    }
    const size_t block = (size_t)atol(argv[4]);
    const size_t calls = (size_t)(atof(argv[5]) * RATE / (double)block);
    if (block == 0 || calls == 0 || host_open(&h, argv[1], RATE, (int32_t)block))
        return 1;
    for (int i = 6; i < argc; i++) {
        char *eq = strchr(argv[i], '=');
        int port;
        if (!eq)
            return 2;
        *eq = '\0';
        if ((port = host_port(&h, argv[i])) < 0) {
            fprintf(stderr, "lv2_bench: %s has no port %s\n", argv[1], argv[i]);
            return 1;
        }
        h.controls[port] = (float)atof(eq + 1);
    }
    /* every audio port of the plugin (64 a side for gfir convolver-64) */
    for (unsigned c = 0; c < HOST_MAX_AUDIO; c++) {
        x[c] = malloc(block * sizeof *x[c]);
        y[c] = malloc(block * sizeof *y[c]);
        if (!x[c] || !y[c])
            return 1;
        for (size_t i = 0; i < block; i++)
            x[c][i] = (float)(rand() / (double)RAND_MAX - 0.5);
    }
    times = malloc(calls * sizeof *times);
    /* the IR, then three seconds for the worker and any crossfade */
    host_set_path(&h, argv[2], argv[3]);
    for (size_t i = 0; i < (size_t)(3 * RATE) / block; i++)
        host_cycle(&h, x, y, (uint32_t)block);
    /* Loaded, the output is no scaled copy of the input (nor silence): what
     * remains of it beside its projection on the input is not small. */
    double xy = 0, xx = 0, yy = 0;
    for (size_t k = 0; k < block; k++) {
        xy += (double)x[0][k] * y[0][k];
        xx += (double)x[0][k] * x[0][k];
        yy += (double)y[0][k] * y[0][k];
    }
    if (!(yy - xy * xy / xx > 1e-6 * yy)) {
        fprintf(stderr, "lv2_bench: %s gives %s: its IR did not load (%s)\n", argv[1],
                yy > 0 ? "its input unfiltered" : "silence", h.notified_status);
        return 1;
    }
    /* how it runs (a CUDA backend that fell back to the CPU says so) */
    if (h.notified_status[0])
        printf("status: %s\n", h.notified_status);
    host_armed = stamp;
    for (size_t i = 0; i < calls; i++)
        host_cycle(&h, x, y, (uint32_t)block);
    host_armed = NULL;
    double sum = 0;
    for (size_t i = 0; i < ntimes; i++)
        sum += times[i];
    qsort(times, ntimes, sizeof *times, by_value);
    const double period = (double)block / RATE;
    printf("%s block %zu: median %.1f us, p99.9 %.1f us, worst %.1f us, period %.1f us; "
           "worst %.1f%% of the period, mean load %.2f%%\n", argv[1], block,
           times[ntimes / 2] * 1e6, times[(size_t)(ntimes * 0.999)] * 1e6,
           times[ntimes - 1] * 1e6, period * 1e6, 100 * times[ntimes - 1] / period,
           100 * sum / ntimes / period);
    host_close(&h);
    return 0;
}
