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
 *              [--rate HZ] [--seconds S] [--gpus LIST] [--header] [--trace]
 *
 * --trace (the CUDA delay-line engine) also says where each call's time
 * went, in a second table: how late the worker woke on the period's clock,
 * and the call's staging, enqueueing and waiting on the host beside the
 * device's own time for its work (core/trace.h), each as quantiles and as
 * the mean over the slowest 0.1% of calls, so a tail is seen to come from
 * the host's thread, the hand-over or the device. Tracing makes the
 * engine's output event keep time; the first table's row, traced, is that
 * much slower than an untraced run's.
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

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/trace.h"
#include "live/timing.h"

#include "period_clock.h"

static void fill(float *v, size_t n, uint64_t *s, float scale)
{
    for (size_t i = 0; i < n; i++) {
        *s ^= *s << 13;
        *s ^= *s >> 7;
        *s ^= *s << 17;
        v[i] = scale * (float)((double)(*s >> 11) / 9007199254740992.0 * 2.0 - 1.0);
    }
}

/* --trace: a call's parts, in the table's order. */
enum { T_LATE, T_STAGED, T_ENQUEUED, T_WAITED, T_DEVICE, T_HANDOVER, T_CALL, TRACE_PARTS };
static const char *const trace_names[TRACE_PARTS] = {
    "woke late (before the call)", "staged (input to pinned memory)",
    "enqueued (graph launch)", "waited (launch to output seen)", "device (first work to output)",
    "waited - device (hand-over both ways)", "the call"};

static void trace_keep(const gfir_plan *plan, double *p, double late, double took)
{
    gf_call_trace t;
    for (int i = 0; i < TRACE_PARTS; i++)
        p[i] = -1.0;
    p[T_LATE] = late;
    p[T_CALL] = took;
    if (gf_trace_last(plan, &t) != GFIR_OK)
        return; /* not a replayed block: its parts unknown */
    p[T_STAGED] = t.staged_s;
    p[T_ENQUEUED] = t.enqueued_s;
    p[T_WAITED] = t.waited_s;
    p[T_DEVICE] = t.device_s;
    if (t.device_s >= 0)
        p[T_HANDOVER] = t.waited_s - t.device_s;
}

static int by_value(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int slower_first(const void *a, const void *b)
{
    const double x = ((const double *)a)[T_CALL], y = ((const double *)b)[T_CALL];
    return x > y ? -1 : x < y;
}

/* Each part's quantiles, and its mean over the slowest 0.1% of calls. */
static void trace_print(double *parts, size_t calls, double period_s)
{
    double *v = malloc((calls ? calls : 1) * sizeof *v);
    const size_t slow = calls / 1000 ? calls / 1000 : 1;
    if (!v || !calls) {
        free(v);
        return;
    }
    printf("\n| part of a call | median ms | p99 ms | p99.9 ms | max ms | mean over the slowest "
           "0.1%% of calls, ms (%zu calls) |\n|---|---|---|---|---|---|\n", slow);
    qsort(parts, calls, TRACE_PARTS * sizeof *parts, slower_first);
    for (int i = 0; i < TRACE_PARTS; i++) {
        size_t n = 0, ns = 0;
        double sum = 0;
        for (size_t k = 0; k < calls; k++) {
            const double x = parts[k * TRACE_PARTS + i];
            if (x < -0.5 && i != T_LATE && i != T_HANDOVER)
                continue; /* unknown */
            if (i == T_HANDOVER && parts[k * TRACE_PARTS + T_DEVICE] < 0)
                continue;
            v[n++] = x;
            if (k < slow) {
                sum += x;
                ns++;
            }
        }
        if (!n) {
            printf("| %s | n/a | n/a | n/a | n/a | n/a |\n", trace_names[i]);
            continue;
        }
        qsort(v, n, sizeof *v, by_value);
        printf("| %s | %.3f | %.3f | %.3f | %.3f | ", trace_names[i], 1e3 * v[(n - 1) / 2],
               1e3 * v[(size_t)(0.99 * (double)(n - 1))], 1e3 * v[(size_t)(0.999 * (double)(n - 1))],
               1e3 * v[n - 1]);
        if (ns)
            printf("%.3f |\n", 1e3 * sum / (double)ns);
        else
            printf("n/a |\n");
    }
    printf("\nperiod %.3f ms; parts of calls that did not replay the block graph are left out.\n",
           1e3 * period_s);
    free(v);
}

int main(int argc, char **argv)
{
    const char *backend = "auto", *layout = "diag";
    unsigned inputs = 2, outputs = 0;
    size_t ntaps = 48000, period = 128;
    double rate = 48000, seconds = 10;
    int header = 0, trace = 0;
    int gpus[GFIR_MAX_DEVICES];
    unsigned ngpus = 0;
    const char *gpu_list = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--header")) {
            header = 1;
            continue;
        }
        if (!strcmp(a, "--trace")) {
            trace = 1;
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
    double *parts = NULL; /* with --trace: TRACE_PARTS a call */
    if (trace) {
        if (gf_trace_start(plan) != GFIR_OK) {
            fprintf(stderr, "live_bench: --trace: this plan's engine (%s, %s) keeps no trace\n",
                    gfir_backend_name(gfir_plan_backend(plan)),
                    gfir_kernel_name(gfir_plan_kernel(plan)));
            return 2;
        }
        parts = calloc(calls ? calls * TRACE_PARTS : 1, sizeof *parts);
        if (!parts) {
            fprintf(stderr, "live_bench: out of memory for the trace\n");
            return 1;
        }
        for (size_t k = 0; k < 16; k++) /* the graph captured again, with its stamp */
            gfir_plan_execute(plan, in, out, period);
    }
    const double start = now_s();
    for (size_t k = 0; k < calls; k++) {
        fill(in, period * inputs, &rng, 0.5f);
        const double due = start + (double)k * period_s;
        sleep_until(due);
        const double t0 = now_s();
        if (gfir_plan_execute(plan, in, out, period) != GFIR_OK) {
            fprintf(stderr, "live_bench: %s\n", gfir_plan_error_detail(plan));
            return 1;
        }
        const double took = now_s() - t0;
        block_times_add(&times, took);
        misses += took > period_s;
        if (parts)
            trace_keep(plan, parts + k * TRACE_PARTS, t0 - due, took);
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
    if (parts)
        trace_print(parts, calls, period_s);
    free(parts);
    block_times_free(&times);
    gfir_plan_destroy(plan);
    free(paths);
    free(in);
    free(out);
    return 0;
}
