/*
 * policy_golden_test.c - the policy's choices (src/core/policy.c) over a grid
 * of CPU shapes, against a checked-in table (data/policy_golden.txt): the
 * engine, kernel, partition and latency for each requested kernel, filter
 * length, call size, latency budget, channel count and thread count. The
 * table was written by this program's --write mode from the policy as it
 * stood before the engines became objects (the commit that added it), so a
 * rewrite of the policy must make the very same choices, not choices that a
 * recomputation with its own functions agrees with.
 *
 *     policy_golden_test --write tests/core/data/policy_golden.txt
 *
 * writes the table from the current policy (creating every plan, so the
 * latency column is what the plans report); without arguments the program
 * checks the policy against the table (the policy alone, which is fast) and,
 * on every row, its invariants: the latency is within the budget, and for
 * AUTO no engine of the backend that applies costs less than the chosen one.
 *
 * In a build with CUDA it also holds the CUDA backend's choices, made by
 * the policy within that backend whether or not a device is here, to
 * data/policy_golden_cuda.txt: every kernel by name and AUTO over filter
 * lengths, call sizes and channels, at the default FFT crossover (no
 * calibration in the cache). That table was written by the policy before
 * the engines became objects (its choose_on called directly, at 8beed11).
 */
#include "gfir.h"

#include "core/plan.h"
#include "core/policy.h"
#include "core/registry.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef GF_POLICY_GOLDEN
#error "GF_POLICY_GOLDEN names the checked-in table"
#endif
#ifndef GF_POLICY_GOLDEN_CUDA
#error "GF_POLICY_GOLDEN_CUDA names the CUDA backend's checked-in table"
#endif

static const gfir_kernel kernels[] = {GFIR_KERNEL_AUTO, GFIR_KERNEL_DIRECT, GFIR_KERNEL_GOLD,
                                      GFIR_KERNEL_FFT};
static const size_t ntaps[] = {1,    15,   63,    64,    127,   191,    192,
                               255,  1023, 4095,  8192,  65535, 262144, (size_t)1 << 20};
static const size_t blocks[] = {1, 16, 64, 100, 256, 2048, 4096, 65536};
static const size_t budgets[] = {0, 63, 64, 100, 256, 4096, GFIR_LATENCY_ANY};
static const unsigned channels[] = {1, 2};
static const unsigned threads[] = {1, 8};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

typedef struct shape {
    gfir_kernel kernel;
    size_t ntaps, block, budget;
    unsigned channels, threads;
} shape;

typedef struct choice {
    char engine[32];
    gfir_kernel kernel;
    size_t partition, latency;
} choice;

static void config_of(const shape *s, gfir_config *cfg)
{
    gfir_config_init(cfg);
    cfg->backend = GFIR_BACKEND_CPU;
    cfg->kernel = s->kernel;
    cfg->channels = s->channels;
    cfg->filter_channels = 1;
    cfg->max_block_frames = s->block;
    cfg->max_latency_frames = s->budget;
    cfg->threads = s->threads;
}

/* Invariant: no other engine of the plan's backend that applies to the
 * request costs less, by the backend's model, than the one chosen for AUTO
 * (the fallback engine aside, which only counts where none other applies). */
static int cheapest(const gfir_plan *chosen, gfir_kernel requested)
{
    const double cost = chosen->engine->cost_s(chosen, 1.0);
    for (size_t i = 0; gf_engines[i]; i++) {
        gfir_plan other = *chosen;
        const gf_engine *e = gf_engines[i];
        if (e->backend != chosen->engine->backend || e == chosen->engine || e->fallback)
            continue;
        other.engine = e;
        other.kernel = requested;
        other.partition = 0;
        if (e->applies(&other, requested) == 1 && e->cost_s(&other, 1.0) < cost) {
            fprintf(stderr, "%s costs less than %s\n", e->name, chosen->engine->name);
            return 0;
        }
    }
    return 1;
}

/* The policy alone, on a plan set up as gfir_plan_create sets it up. */
static int choose(const shape *s, choice *c)
{
    gfir_config cfg;
    gfir_plan plan;
    config_of(s, &cfg);
    memset(&plan, 0, sizeof plan);
    plan.inputs = plan.outputs = plan.channels = s->channels;
    plan.filter_channels = 1;
    plan.ntaps = s->ntaps;
    plan.block_frames = s->block;
    plan.threads = s->threads;
    plan.max_latency_frames = s->budget;
    if (gf_policy_choose(&plan, &cfg) != GFIR_OK)
        return -1;
    snprintf(c->engine, sizeof c->engine, "%s", plan.engine->name);
    c->kernel = plan.kernel;
    c->partition = plan.partition;
    c->latency = plan.engine->latency(&plan);
    if (s->kernel == GFIR_KERNEL_AUTO && !cheapest(&plan, s->kernel))
        return -1;
    return 0;
}

static void budget_text(size_t budget, char *text, size_t len)
{
    if (budget == GFIR_LATENCY_ANY)
        snprintf(text, len, "any");
    else
        snprintf(text, len, "%zu", budget);
}

/* Calls f on every shape of the grid, in the table's order. */
static int each_shape(int (*f)(const shape *, void *), void *arg)
{
    for (size_t k = 0; k < COUNT(kernels); k++)
        for (size_t t = 0; t < COUNT(ntaps); t++)
            for (size_t b = 0; b < COUNT(blocks); b++)
                for (size_t l = 0; l < COUNT(budgets); l++)
                    for (size_t c = 0; c < COUNT(channels); c++)
                        for (size_t h = 0; h < COUNT(threads); h++) {
                            const shape s = {kernels[k], ntaps[t], blocks[b],
                                             budgets[l], channels[c], threads[h]};
                            /* the named direct kernels and the gold one do not
                             * depend on budgets or threads: one row each */
                            if (s.kernel != GFIR_KERNEL_AUTO && s.kernel != GFIR_KERNEL_FFT &&
                                (l || h))
                                continue;
                            if (f(&s, arg))
                                return 1;
                        }
    return 0;
}

static void row_text(const shape *s, const choice *c, char *line, size_t len)
{
    char budget[24];
    budget_text(s->budget, budget, sizeof budget);
    snprintf(line, len, "%s %zu %zu %s %u %u -> %s %s %zu %zu", gfir_kernel_name(s->kernel),
             s->ntaps, s->block, budget, s->channels, s->threads, c->engine,
             gfir_kernel_name(c->kernel), c->partition, c->latency);
}

/* --write: every plan made for real, its latency as it reports it. */
static int write_row(const shape *s, void *arg)
{
    FILE *out = arg;
    gfir_config cfg;
    gfir_plan *plan = NULL;
    choice c;
    char line[160];
    float *taps = calloc(s->ntaps, sizeof *taps);
    if (!taps)
        return 1;
    taps[0] = 1.0f;
    config_of(s, &cfg);
    if (choose(s, &c) || gfir_plan_create(&plan, taps, s->ntaps, &cfg) != GFIR_OK) {
        fprintf(stderr, "no plan: %s\n", gfir_plan_error_detail(NULL));
        free(taps);
        return 1;
    }
    c.latency = gfir_plan_latency(plan);
    gfir_plan_destroy(plan);
    free(taps);
    row_text(s, &c, line, sizeof line);
    fprintf(out, "%s\n", line);
    return 0;
}

typedef struct checking {
    FILE *table;
    size_t rows, failures;
} checking;

static int check_row(const shape *s, void *arg)
{
    checking *ck = arg;
    char want[160], got[160];
    choice c;
    ck->rows++;
    if (!fgets(want, sizeof want, ck->table)) {
        fprintf(stderr, "the table ends at row %zu; regenerate it with --write\n", ck->rows);
        return 1;
    }
    want[strcspn(want, "\n")] = '\0';
    if (choose(s, &c)) {
        fprintf(stderr, "row %zu: the policy failed or broke an invariant: want %s\n",
                ck->rows, want);
        ck->failures++;
        return 0;
    }
    row_text(s, &c, got, sizeof got);
    if (strcmp(want, got)) {
        fprintf(stderr, "row %zu:\n  want %s\n  got  %s\n", ck->rows, want, got);
        ck->failures++;
    }
    if (s->budget != GFIR_LATENCY_ANY && c.latency > s->budget) {
        fprintf(stderr, "row %zu: latency %zu over the budget %zu\n", ck->rows, c.latency,
                s->budget);
        ck->failures++;
    }
    return 0;
}

/* ---- the CUDA backend -------------------------------------------------------- */

static const gfir_kernel cuda_kernels[] = {
    GFIR_KERNEL_AUTO,     GFIR_KERNEL_GOLD,  GFIR_KERNEL_DIRECT, GFIR_KERNEL_BASIC,
    GFIR_KERNEL_CONSTANT, GFIR_KERNEL_TILED, GFIR_KERNEL_CACHED, GFIR_KERNEL_FFT};
static const size_t cuda_ntaps[] = {1, 127, 190, 191, 192, 4096, 8192, 8193, 65536};
static const size_t cuda_blocks[] = {1, 64, 100, 2048, 2049, 4096};

/* Each CUDA row's text, in the table's order, to f; 1 when f says stop. */
static int each_cuda_row(const gf_backend *cuda, int (*f)(const char *row, void *), void *arg)
{
    for (size_t k = 0; k < COUNT(cuda_kernels); k++)
        for (size_t t = 0; t < COUNT(cuda_ntaps); t++)
            for (size_t b = 0; b < COUNT(cuda_blocks); b++)
                for (size_t c = 0; c < COUNT(channels); c++)
                    for (unsigned shared = 0; shared < 2; shared++) {
                        gfir_plan plan;
                        char row[160];
                        int at;
                        if (!shared && channels[c] == 1)
                            continue;
                        memset(&plan, 0, sizeof plan);
                        plan.inputs = plan.outputs = plan.channels = channels[c];
                        plan.filter_channels = shared ? 1 : channels[c];
                        plan.ntaps = cuda_ntaps[t];
                        plan.block_frames = cuda_blocks[b];
                        const gfir_status st = gf_policy_choose_on(&plan, cuda, cuda_kernels[k]);
                        at = snprintf(row, sizeof row, "cuda %s %zu %zu %u %u -> ",
                                      gfir_kernel_name(cuda_kernels[k]), plan.ntaps,
                                      plan.block_frames, plan.channels, plan.filter_channels);
                        if (st != GFIR_OK)
                            snprintf(row + at, sizeof row - (size_t)at, "refused %d", (int)st);
                        else
                            snprintf(row + at, sizeof row - (size_t)at, "%s %s %zu %zu",
                                     plan.engine->name, gfir_kernel_name(plan.kernel),
                                     plan.partition, plan.engine->latency(&plan));
                        if (f(row, arg))
                            return 1;
                    }
    return 0;
}

static int write_cuda_row(const char *row, void *arg)
{
    fprintf(arg, "%s\n", row);
    return 0;
}

static int check_cuda_row(const char *got, void *arg)
{
    checking *ck = arg;
    char want[160];
    ck->rows++;
    if (!fgets(want, sizeof want, ck->table)) {
        fprintf(stderr, "the CUDA table ends at row %zu\n", ck->rows);
        return 1;
    }
    want[strcspn(want, "\n")] = '\0';
    if (strcmp(want, got)) {
        fprintf(stderr, "CUDA row %zu:\n  want %s\n  got  %s\n", ck->rows, want, got);
        ck->failures++;
    }
    return 0;
}

/* The CUDA table against the policy; 0 failures in a build without CUDA. */
static size_t check_cuda(void)
{
    const gf_backend *cuda = gf_find_backend(GFIR_BACKEND_CUDA);
    checking ck = {NULL, 0, 0};
    if (!cuda)
        return 0;
    ck.table = fopen(GF_POLICY_GOLDEN_CUDA, "r");
    if (!ck.table) {
        fprintf(stderr, "cannot read %s\n", GF_POLICY_GOLDEN_CUDA);
        return 1;
    }
    if (each_cuda_row(cuda, check_cuda_row, &ck) || fgetc(ck.table) != EOF)
        ck.failures++;
    fclose(ck.table);
    printf("%zu CUDA rows, %zu failures\n", ck.rows, ck.failures);
    return ck.failures;
}

int main(int argc, char **argv)
{
    setenv("GFIR_FFTW_PLANNER", "estimate", 1);
    /* no calibrated crossover: the CUDA rows are the default's */
    setenv("XDG_CACHE_HOME", "/nonexistent/gfir-policy-golden", 1);
    if (argc == 3 && !strcmp(argv[1], "--write-cuda")) {
        const gf_backend *cuda = gf_find_backend(GFIR_BACKEND_CUDA);
        FILE *out = cuda ? fopen(argv[2], "w") : NULL;
        int failed;
        if (!out)
            return 1;
        failed = each_cuda_row(cuda, write_cuda_row, out);
        return fclose(out) || failed;
    }
    if (argc == 3 && !strcmp(argv[1], "--write")) {
        FILE *out = fopen(argv[2], "w");
        int failed;
        if (!out)
            return 1;
        failed = each_shape(write_row, out);
        return fclose(out) || failed;
    }
    checking ck = {fopen(GF_POLICY_GOLDEN, "r"), 0, 0};
    if (!ck.table) {
        fprintf(stderr, "cannot read %s\n", GF_POLICY_GOLDEN);
        return 1;
    }
    if (each_shape(check_row, &ck))
        ck.failures++;
    else if (fgetc(ck.table) != EOF) {
        fprintf(stderr, "the table has rows past the grid's %zu\n", ck.rows);
        ck.failures++;
    }
    fclose(ck.table);
    printf("%zu rows, %zu failures\n", ck.rows, ck.failures);
    ck.failures += check_cuda();
    return ck.failures ? 1 : 0;
}
