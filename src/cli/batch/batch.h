/*
 * batch.h - `gfir batch`: a manifest of jobs (INPUT, OUTPUT, filter), this
 * process's shard of it, each output written exactly once, run as the worker
 * of a Slurm job array or a Kubernetes Indexed Job (docs/batch.md).
 *
 * args.c parses argv; manifest.c reads the jobs (table.c their lines,
 * claims.c the files they name: each output once, never a file read);
 * receipt.c keeps what is done; sweep.c removes what killed runs left;
 * runner.c runs the rest on a few workers with plans reused (a damaged INPUT
 * fails its job), bar.c draws its progress; merge.c gathers the receipts
 * once every shard is done.
 */
#ifndef GFIR_CLI_BATCH_H
#define GFIR_CLI_BATCH_H

#include "cli.h"
#include "filter/stage.h"

#include <stdint.h>

/* Files in flight at most: each holds a temporary output that a signal
 * handler must be able to remove (output.h keeps that many). */
#define BATCH_MAX_JOBS 64

/* One stage of the command line's filter, as given. */
typedef struct batch_stage {
    stage_kind kind;            /* STAGE_DESIGN for --preset */
    const char *spec;
} batch_stage;

typedef struct batch_options {
    const char *manifest;       /* --manifest */
    const char *shard_spec;     /* --shard K/N, or NULL */
    unsigned long shards;       /* --shards N, or 0 */
    const char *receipts;       /* --receipts DIR; MANIFEST.receipts once options are read */
    const char *merge;          /* --merge FILE, or NULL; then options that only run
                                   jobs (--shard, --jobs, the engine's) are refused */
    unsigned jobs;              /* --jobs: files in flight, 0 = two per CPU (at most
                                   BATCH_MAX_JOBS) */
    uint64_t seed;              /* --seed: for IR sets, where a row gives none */
    batch_stage stages[64];     /* --preset, --taps, --ir: the filter of rows without one */
    size_t nstages;
    double gain_db;             /* --gain: for rows without a gain */
    int normalize;              /* --normalize for every job: a cli_normalize (filter.h),
                                   CLI_NORMALIZE_DEFAULT when not given */
    cli_align align;            /* --align: for rows without one */
    const char *format;         /* --format: for rows without one */
    int force;                  /* --force: redo every job, receipted or not */
    size_t max_taps;            /* --max-taps: every job's filter, taps x paths */
    cli_options engine;         /* --backend, --kernel, --block, --no-fold, --no-dither, -q, -v */
    int gpus[BATCH_MAX_JOBS];   /* --gpu N, --gpus LIST: the GPUs workers spread over */
    const char *gpus_spec;      /* --gpu's or --gpus' value as given, or NULL */
    int ngpus;                  /* 0: not given (every visible GPU where the backend may
                                   be CUDA, gpus.h) */
    const char *tar;            /* --tar DIR: outputs packed into tar shards there (tar.h) */
    uint64_t shard_bytes;       /* --shard-size with a K/M/G suffix: bytes a tar shard ends at */
    uint64_t shard_members;     /* --shard-size without: outputs a tar shard holds */
    const char *emit;           /* --emit-manifest FILE, or NULL (emit.h); like --merge, it
                                   runs no jobs */
    int describe;               /* --describe: --emit-manifest's lengths without a run */
    double early_ms;            /* --early-ms: also KEY.early.EXT (early.h); 0: not */
} batch_options;

/* The whole of `gfir batch ARGS` (argv[0] is "batch"): the exit code. */
int cli_run_batch(int argc, char **argv);

#endif
