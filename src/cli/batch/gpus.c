/*
 * gpus.c - workers and the GPUs they work on (gpus.h).
 */
#define _GNU_SOURCE /* sched_getaffinity */
#include "batch/gpus.h"
#include "gpu.h"

#include <sched.h>
#include <string.h>
#include <unistd.h>

/* Two files in flight per CPU this process may use: a job waits for the disk
 * as its output is synced and renamed, and another job uses the CPU
 * meanwhile. On the 2-core development machine, 1000 files of 10 s through
 * 0.5 s rooms took 3.0-3.3 s with 4 workers against 3.6-4.2 s with 2
 * (tools/bench/batch.sh's corpus, a shared machine). */
static unsigned default_workers(void)
{
    cpu_set_t set;
    long n = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set)
                                                         : sysconf(_SC_NPROCESSORS_ONLN);
    /* at most 16 however many GPUs: on two H100s (2026-11-26, batch.sh
     * --gpus 600 1 with 20-s rooms) 32 workers over both took 3.17 s where
     * 16 over both took 2.42 s and 16 on one 2.36-2.54 s (docs/BENCHMARKS.md,
     * batch-gpus) */
    n *= 2;
    return n < 1 ? 1 : n > 16 ? 16 : (unsigned)n;
}

void batch_groups_choose(const batch_options *bo, size_t ntodo, batch_groups *g)
{
    memset(g, 0, sizeof *g);
    if (bo->ngpus) {
        /* named: the parser held -j to at least one worker each */
        g->n = (unsigned)bo->ngpus;
        memcpy(g->gpu, bo->gpus, g->n * sizeof *g->gpu);
    } else if (bo->engine.backend != GFIR_BACKEND_CPU) {
        const int visible = cli_gpus_visible();
        for (int i = 0; i < visible && g->n < BATCH_MAX_JOBS && (!bo->jobs || g->n < bo->jobs);
             i++)
            g->gpu[g->n++] = i;
    }
    g->workers = bo->jobs ? bo->jobs : default_workers();
    if (g->workers < g->n)
        g->workers = g->n;
    if (g->workers > ntodo)
        g->workers = ntodo ? (unsigned)ntodo : 1;
}

void batch_groups_say(const batch_groups *g, const size_t *on_gpu, size_t on_cpu,
                      cli_text *line)
{
    size_t total = 0;
    for (unsigned i = 0; i < g->n; i++)
        total += on_gpu[i];
    if (!total)
        return;
    cli_text_add(line, "; per GPU: ");
    for (unsigned i = 0; i < g->n; i++)
        cli_text_add(line, "%s%d: %zu%s", i ? ", " : "", g->gpu[i], on_gpu[i],
                     i ? "" : on_gpu[i] == 1 ? " file" : " files");
    if (on_cpu)
        cli_text_add(line, ", CPU: %zu", on_cpu);
}

void batch_groups_tell(const batch_groups *g)
{
    cli_text line = {.len = 0};
    if (!g->n)
        return;
    cli_text_add(&line, "%u file%s in flight on %u GPU%s:", g->workers,
                 g->workers == 1 ? "" : "s", g->n, g->n == 1 ? "" : "s");
    for (unsigned i = 0; i < g->n; i++)
        cli_text_add(&line, "%s %d", i ? "," : "", g->gpu[i]);
    cli_info("%s", line.text);
}
