/*
 * live_bench.c - a live audio worker's load through the public API alone: a
 * plan made as a live caller makes it (latency budget 0, calls of one period)
 * is fed one period of random input every period, on the period's clock, for
 * a number of seconds, and the time each call takes is kept. Prints one row:
 * the block time's median, p99, p99.9 and maximum against the period, and
 * the calls that took longer than a period (a live worker's deadline).
 *
 *   live_bench [--backend cpu|cuda|auto] [--layout diag|fan|matrix]
 *              [--inputs N] [--outputs M] [--taps N] [--period FRAMES]
 *              [--rate HZ] [--seconds S] [--gpus LIST] [--header]
 *
 * --gpus 0,1 splits the plan's outputs over those CUDA devices
 * (gfir_config.devices; implies --backend cuda): one call's time is then
 * every device's share run at once. The first column names the GPUs.
 *
 * Layouts: diag, input c through its own filter into output c (N = M);
 * fan, one input through M filters into M outputs; matrix, every input into
 * every output through a filter per path (N x M paths). The filters are
 * random; their values do not change the cost. It times the library alone,
 * with no audio server between the clock and the plan, so the engine's block
 * times are seen apart from the host's scheduling; tools/bench/live.sh
 * measures the same engine through a real audio server.
 */
#include "gfir.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "live/timing.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void sleep_until(double t)
{
    struct timespec ts;
    ts.tv_sec = (time_t)t;
    ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
        ;
}

static void fill(float *v, size_t n, uint64_t *s, float scale)
{
    for (size_t i = 0; i < n; i++) {
        *s ^= *s << 13;
        *s ^= *s >> 7;
        *s ^= *s << 17;
        v[i] = scale * (float)((double)(*s >> 11) / 9007199254740992.0 * 2.0 - 1.0);
    }
}

int main(int argc, char **argv)
{
    const char *backend = "auto", *layout = "diag";
    unsigned inputs = 2, outputs = 0;
    size_t ntaps = 48000, period = 128;
    double rate = 48000, seconds = 10;
    int header = 0;
    int gpus[GFIR_MAX_DEVICES];
    unsigned ngpus = 0;
    const char *gpu_list = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--header")) {
            header = 1;
            continue;
        }
        if (!v) {
            fprintf(stderr, "live_bench: %s needs a value\n", a);
            return 2;
        }
        i++;
        if (!strcmp(a, "--backend"))
            backend = v;
        else if (!strcmp(a, "--layout"))
            layout = v;
        else if (!strcmp(a, "--inputs"))
            inputs = (unsigned)atoi(v);
        else if (!strcmp(a, "--outputs"))
            outputs = (unsigned)atoi(v);
        else if (!strcmp(a, "--taps"))
            ntaps = (size_t)atol(v);
        else if (!strcmp(a, "--period"))
            period = (size_t)atol(v);
        else if (!strcmp(a, "--rate"))
            rate = atof(v);
        else if (!strcmp(a, "--seconds"))
            seconds = atof(v);
        else if (!strcmp(a, "--gpus")) {
            gpu_list = v;
            for (const char *p = v; *p; p++) {
                char *end;
                long d = strtol(p, &end, 10);
                if (end == p || d < 0 || ngpus == GFIR_MAX_DEVICES || (*end && *end != ',')) {
                    fprintf(stderr, "live_bench: --gpus %s: want GPU numbers such as 0,1\n", v);
                    return 2;
                }
                gpus[ngpus++] = (int)d;
                p = *end ? end : end - 1;
            }
            backend = "cuda";
        } else {
            fprintf(stderr, "live_bench: unknown option %s\n", a);
            return 2;
        }
    }
    if (!strcmp(layout, "fan"))
        inputs = 1;
    if (!outputs)
        outputs = inputs;
    size_t npaths = !strcmp(layout, "matrix") ? (size_t)inputs * outputs
                    : !strcmp(layout, "fan")  ? outputs
                                              : inputs;
    if (strcmp(layout, "diag") && strcmp(layout, "fan") && strcmp(layout, "matrix")) {
        fprintf(stderr, "live_bench: --layout is diag, fan or matrix\n");
        return 2;
    }
    if (!strcmp(layout, "diag") && inputs != outputs) {
        fprintf(stderr, "live_bench: diag needs as many outputs as inputs\n");
        return 2;
    }

    gfir_path *paths = malloc(npaths * sizeof *paths);
    float *taps = malloc(npaths * ntaps * sizeof *taps);
    float *in = malloc(period * inputs * sizeof *in), *out = malloc(period * outputs * sizeof *out);
    uint64_t rng = 0x9E3779B97F4A7C15ULL;
    if (!paths || !taps || !in || !out) {
        fprintf(stderr, "live_bench: out of memory for %zu filters of %zu taps\n", npaths, ntaps);
        return 1;
    }
    for (size_t p = 0; p < npaths; p++) {
        unsigned i = !strcmp(layout, "matrix") ? (unsigned)(p / outputs)
                     : !strcmp(layout, "fan")  ? 0
                                               : (unsigned)p;
        unsigned o = !strcmp(layout, "matrix") ? (unsigned)(p % outputs) : (unsigned)p;
        paths[p] = (gfir_path){i, o, (unsigned)p, 1.0f};
    }
    fill(taps, npaths * ntaps, &rng, 1e-3f);

    gfir_config cfg;
    gfir_plan *plan;
    gfir_config_init(&cfg);
    cfg.channels = inputs;
    cfg.out_channels = outputs;
    cfg.filter_channels = (unsigned)npaths;
    cfg.paths = paths;
    cfg.npaths = npaths;
    cfg.max_block_frames = period;
    cfg.devices = ngpus ? gpus : NULL;
    cfg.ndevices = ngpus;
    if (gfir_backend_from_name(backend, &cfg.backend) != GFIR_OK) {
        fprintf(stderr, "live_bench: unknown backend %s\n", backend);
        return 2;
    }
    if (gfir_plan_create(&plan, taps, ntaps, &cfg) != GFIR_OK) {
        fprintf(stderr, "live_bench: no plan: %s\n", gfir_plan_error_detail(NULL));
        return 1;
    }
    free(taps);

    block_times times;
    if (block_times_init(&times)) {
        fprintf(stderr, "live_bench: out of memory\n");
        return 1;
    }
    const double period_s = (double)period / rate;
    const size_t calls = (size_t)(seconds / period_s);
    unsigned long misses = 0;
    /* a second of warm-up: the first calls make their kernels resident */
    for (size_t k = 0; k < (size_t)(1.0 / period_s) + 1; k++) {
        fill(in, period * inputs, &rng, 0.5f);
        gfir_plan_execute(plan, in, out, period);
    }
    const double start = now_s();
    for (size_t k = 0; k < calls; k++) {
        fill(in, period * inputs, &rng, 0.5f);
        sleep_until(start + (double)k * period_s);
        const double t0 = now_s();
        if (gfir_plan_execute(plan, in, out, period) != GFIR_OK) {
            fprintf(stderr, "live_bench: %s\n", gfir_plan_error_detail(plan));
            return 1;
        }
        const double took = now_s() - t0;
        block_times_add(&times, took);
        misses += took > period_s;
    }
    if (header)
        printf("| backend, kernel | layout | in x out | paths | taps | period | median ms | "
               "p99 ms | p99.9 ms | max ms | p99.9 / period | over a period |\n"
               "|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    printf("| %s, %s%s%s | %s | %u x %u | %zu | %zu | %zu (%.3f ms) | %.3f | %.3f | %.3f | %.3f | "
           "%.0f%% | %lu of %zu |\n",
           gfir_backend_name(gfir_plan_backend(plan)), gfir_kernel_name(gfir_plan_kernel(plan)),
           gpu_list ? ", GPUs " : "", gpu_list ? gpu_list : "", layout, inputs, outputs, npaths, ntaps, period, 1e3 * period_s,
           1e3 * block_times_quantile(&times, 0.5), 1e3 * block_times_quantile(&times, 0.99),
           1e3 * block_times_quantile(&times, 0.999), 1e3 * times.max_s,
           100.0 * block_times_quantile(&times, 0.999) / period_s, misses, calls);
    block_times_free(&times);
    gfir_plan_destroy(plan);
    free(paths);
    free(in);
    free(out);
    return 0;
}
