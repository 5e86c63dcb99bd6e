/*
 * args.c - `gfir batch` options into batch_options, and its help page.
 */
#include "batch/args.h"
#include "argparse.h"
#include "filter/ceiling.h"
#include "filter/filter.h"
#include "gpu.h"
#include "message.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_BLOCK_FRAMES ((size_t)1 << 24)

static const char usage_line[] = "usage: gfir batch MANIFEST [--shard K/N] [options]";

static void print_help(void)
{
    printf("%s\n", usage_line);
    fputs(
"Runs many jobs (INPUT, OUTPUT, filter) from a manifest: every output written\n"
"exactly once, plans reused from file to file, several files in flight. Made\n"
"to be the worker of a Slurm job array or a Kubernetes Indexed Job: each task\n"
"runs its shard, and a task killed and run again finishes what is left.\n"
"docs/batch.md has scripts for both.\n"
"\n"
"Examples:\n"
"  gfir batch jobs.tsv                       every job, here\n"
"  gfir batch jobs.tsv --shard 2/8           the third of 8 shards\n"
"  sbatch --array=0-7 --wrap 'gfir batch jobs.tsv'\n"
"  gfir batch jobs.tsv --merge done.jsonl    after every shard\n"
"\n"
"The manifest (MANIFEST, or --manifest MANIFEST): TSV or CSV with a header\n"
"line, or JSONL (one object a line).\n"
"Fields: input, output (required); ir, preset, taps (a filter, the syntax of\n"
"gfir's options; a row with none takes the command line's); gain (dB), align\n"
"(same|causal|full), format (CONTAINER[:SAMPLES][:QUALITY]), id, seed; offset (and\n"
"duration, seconds) or start and end (frames): only those frames of the whole\n"
"reverberated input, reading only what they need. An ir naming a\n"
"directory, or a list (.txt, .list, .lst, .scp: a path a line), gives each\n"
"job one IR from it, chosen by the seed and the job's id (else its output).\n"
"Paths are relative to the current directory; missing output directories are\n"
"made. Each output is a file of its own (not -, a FIFO or a device), named\n"
"once however it is spelt, and no job's input, IR or taps, nor the manifest\n"
"or a receipt. A bad line stops every shard before it starts, with its line\n"
"number.\n"
"\n"
"Shards (job i, counted from 0 in file order, belongs to shard i mod N):\n"
"      --shard K/N      run shard K (from 0) of N. Without it: Slurm's\n"
"                       SLURM_ARRAY_TASK_ID and _COUNT, else Kubernetes'\n"
"                       JOB_COMPLETION_INDEX with --shards, else everything\n"
"      --shards N       the number of shards, with JOB_COMPLETION_INDEX\n"
"      --receipts DIR   where each shard keeps its receipts, DIR/shard-K-of-N.jsonl\n"
"                       (default: MANIFEST.receipts)\n"
"      --merge FILE     write every shard's receipts, in manifest order, to FILE\n"
"                       (JSONL); fails, writing nothing, if a job has none.\n"
"                       FILE is none of the batch's own files; options that\n"
"                       only run jobs (--shard, -j, -b, -k, --block, ...) are\n"
"                       refused with it\n"
"      --manifest FILE  MANIFEST, as an option\n"
"      --early-ms MS    also write KEY.early.EXT: the input through the IR cut\n"
"                       MS ms after its direct path (its first tap within 20 dB\n"
"                       of the peak), same length and alignment as KEY.EXT\n"
"      --emit-manifest FILE  write, in manifest order, one JSON object per output\n"
"                       for NeMo (audio_filepath, duration) and Lhotse (its\n"
"                       recording), with provenance (input, ir, seed, gain,\n"
"                       align, version); from the receipts, as --merge\n"
"      --describe       with --emit-manifest: run nothing, work the lengths out\n"
"                       from INPUT's header and the filter, exactly\n"
"      --tar DIR        pack the outputs into tar shards in DIR, DIR/shard-K-of-N-\n"
"                       PPPPPP.tar, members KEY.EXT (KEY: the row's output less\n"
"                       its extension) and KEY.json (its receipt)\n"
"      --shard-size S   a tar shard ends after S outputs, or with a K, M or G\n"
"                       suffix, once it holds S bytes (default 1000)\n"
"  -j, --jobs N         files in flight, at most 64 (default: two per CPU,\n"
"                       at most 16, and at least one per GPU)\n"
"      --gpus all|LIST  the GPUs the files are shared out over (0,1: the\n"
"                       first two of those CUDA_VISIBLE_DEVICES leaves): the\n"
"                       files in flight are split among them, all taking from\n"
"                       one queue. Default: every visible GPU with --backend\n"
"                       cuda or auto. Implies --backend cuda\n"
"      --gpu N          --gpus N: one GPU\n"
"      --seed S         seed for rows without one (default 0)\n"
"      --force          redo every job of the shard, receipted or not\n"
"\n"
"Defaults for rows that give none (as for gfir INPUT OUTPUT):\n"
"  -p, --preset, -t, --taps, -i, --ir, -g, --gain, -a, --align, -f, --format\n"
"For every job:\n"
"  -n, --normalize none|peak|energy, --no-dither, -b, --backend, -k, --kernel,\n"
"      --block, --no-fold, --max-taps N (a longer filter fails its job;\n"
"      default 33554432, as gfir --help says)\n"
"\n"
"  -q, --quiet          no progress bar and no summary unless a job failed\n"
"  -v, --verbose        say which plans were made, on which GPUs\n"
"  -h, --help           this page\n"
"\n"
"Exactly once: an output is written to a temporary file beside it and renamed\n"
"when whole; then its receipt (id, line, input, output, filter, frames, peak,\n"
"clipped samples, seconds, ...) is appended and synced. A job whose receipt\n"
"matches its input, output and filter, whose output still has the receipt's\n"
"size and time and whose input those it had when the job began, is skipped;\n"
"any other job is done again. A failed job (a bad or damaged INPUT, one\n"
"cut short included) prints one line (MANIFEST:LINE: why), writes nothing and\n"
"never stops the others.\n"
"Exit status: 0 when every job of the shard is done, 1 when one failed or the\n"
"manifest is bad, 2 for wrong usage.\n",
        stdout);
}

static const cli_args parsing = {usage_line, "gfir batch --help"};

/* --shard-size: outputs, or bytes with a K, M or G suffix (powers of 1024). */
static int parse_shard_size(const char *arg, batch_options *bo)
{
    static const char units[] = "KMG";
    const size_t len = strlen(arg);
    const char *unit = len ? strchr(units, arg[len - 1] & ~0x20) : NULL;
    char digits[32];
    unsigned long long v;
    if (!unit || !arg[len - 1]) {
        if (cli_arg_whole(&parsing, "--shard-size", arg, 1, 100000000, &v))
            return 2;
        bo->shard_members = v;
        bo->shard_bytes = 0;
        return 0;
    }
    if (len - 1 >= sizeof digits)
        return cli_usage_error(&parsing, "--shard-size '%s' is not a count or a size", arg);
    memcpy(digits, arg, len - 1);
    digits[len - 1] = '\0';
    if (cli_arg_whole(&parsing, "--shard-size", digits, 1, 1048576, &v))
        return 2;
    bo->shard_bytes = (uint64_t)v << (10 * (unit - units + 1));
    bo->shard_members = 0;
    return 0;
}

enum {
    OPT_MANIFEST = 256, OPT_SHARD, OPT_SHARDS, OPT_RECEIPTS, OPT_MERGE, OPT_SEED, OPT_BLOCK,
    OPT_NO_DITHER, OPT_NO_FOLD, OPT_FORCE, OPT_MAX_TAPS, OPT_TAR, OPT_SHARD_SIZE, OPT_EMIT,
    OPT_DESCRIBE, OPT_EARLY_MS, OPT_GPU, OPT_GPUS, OPT_END
};

/* What --merge does not do (run jobs: choose a shard, filter), so options
 * that only tune that are refused with it rather than ignored. The filter's
 * own options stay: they make the recipes its receipts must match. */
static const struct {
    int opt;
    const char *name;
} run_only[] = {
    {OPT_SHARD, "--shard"}, {OPT_SHARDS, "--shards"}, {'j', "--jobs"},     {'b', "--backend"},
    {'k', "--kernel"},      {OPT_BLOCK, "--block"},   {OPT_NO_FOLD, "--no-fold"},
    {OPT_FORCE, "--force"}, {OPT_MAX_TAPS, "--max-taps"}, {OPT_SHARD_SIZE, "--shard-size"},
    {OPT_GPU, "--gpu"},     {OPT_GPUS, "--gpus"},
};

static const struct option long_options[] = {
    {"manifest", required_argument, NULL, OPT_MANIFEST},
    {"shard", required_argument, NULL, OPT_SHARD},
    {"shards", required_argument, NULL, OPT_SHARDS},
    {"receipts", required_argument, NULL, OPT_RECEIPTS},
    {"merge", required_argument, NULL, OPT_MERGE},
    {"jobs", required_argument, NULL, 'j'},
    {"seed", required_argument, NULL, OPT_SEED},
    {"force", no_argument, NULL, OPT_FORCE},
    {"preset", required_argument, NULL, 'p'},
    {"taps", required_argument, NULL, 't'},
    {"ir", required_argument, NULL, 'i'},
    {"gain", required_argument, NULL, 'g'},
    {"normalize", required_argument, NULL, 'n'},
    {"align", required_argument, NULL, 'a'},
    {"format", required_argument, NULL, 'f'},
    {"no-dither", no_argument, NULL, OPT_NO_DITHER},
    {"backend", required_argument, NULL, 'b'},
    {"kernel", required_argument, NULL, 'k'},
    {"gpu", required_argument, NULL, OPT_GPU},
    {"gpus", required_argument, NULL, OPT_GPUS},
    {"block", required_argument, NULL, OPT_BLOCK},
    {"no-fold", no_argument, NULL, OPT_NO_FOLD},
    {"max-taps", required_argument, NULL, OPT_MAX_TAPS},
    {"tar", required_argument, NULL, OPT_TAR},
    {"shard-size", required_argument, NULL, OPT_SHARD_SIZE},
    {"emit-manifest", required_argument, NULL, OPT_EMIT},
    {"describe", no_argument, NULL, OPT_DESCRIBE},
    {"early-ms", required_argument, NULL, OPT_EARLY_MS},
    {"quiet", no_argument, NULL, 'q'},
    {"verbose", no_argument, NULL, 'v'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

static int add_stage(batch_options *bo, stage_kind kind, const char *spec)
{
    cli_filter *f;
    int rc = 0;
    if (bo->nstages == sizeof bo->stages / sizeof bo->stages[0])
        return cli_usage_error(&parsing, "more than %zu filter stages", bo->nstages);
    if (kind == STAGE_DESIGN) {
        /* a preset that does not load is refused now, not once per job */
        f = cli_filter_new();
        if (!f)
            return cli_error("out of memory");
        rc = cli_filter_add_preset(f, spec);
        cli_filter_free(f);
    }
    bo->stages[bo->nstages++] = (batch_stage){kind, spec};
    return rc;
}

/* One option; 0 to go on, else an exit code. */
static int apply_option(int c, const char *arg, batch_options *bo)
{
    static const char *const aligns[] = {"same", "causal", "full", NULL};
    static const char *const normalizes[] = {"none", "peak", "energy", NULL};
    unsigned long long v = 0;
    int i = 0;

    switch (c) {
    case OPT_MANIFEST:
        bo->manifest = arg;
        return 0;
    case OPT_SHARD:
        bo->shard_spec = arg;
        return 0;
    case OPT_SHARDS:
        if (cli_arg_whole(&parsing, "--shards", arg, 1, 1000000, &v))
            return 2;
        bo->shards = (unsigned long)v;
        return 0;
    case OPT_RECEIPTS:
        bo->receipts = arg;
        return 0;
    case OPT_MERGE:
        bo->merge = arg;
        return 0;
    case OPT_TAR:
        bo->tar = arg;
        return 0;
    case OPT_SHARD_SIZE:
        return parse_shard_size(arg, bo);
    case OPT_EMIT:
        bo->emit = arg;
        return 0;
    case OPT_DESCRIBE:
        bo->describe = 1;
        return 0;
    case OPT_EARLY_MS:
        if (cli_arg_double(&parsing, "--early-ms", arg, &bo->early_ms))
            return 2;
        if (!(bo->early_ms > 0 && bo->early_ms <= 10000))
            return cli_usage_error(&parsing, "--early-ms %s: give milliseconds above 0, at most "
                                   "10000", arg);
        return 0;
    case 'j':
        if (cli_arg_whole(&parsing, "--jobs", arg, 1, BATCH_MAX_JOBS, &v))
            return 2;
        bo->jobs = (unsigned)v;
        return 0;
    case OPT_SEED:
        if (cli_arg_whole(&parsing, "--seed", arg, 0, UINT64_MAX, &v))
            return 2;
        bo->seed = v;
        return 0;
    case 'p':
        return add_stage(bo, STAGE_DESIGN, arg) ? 1 : 0;
    case 't':
        return add_stage(bo, STAGE_TAPS, arg) ? 1 : 0;
    case 'i':
        return add_stage(bo, STAGE_IR, arg) ? 1 : 0;
    case 'g':
        return cli_arg_double(&parsing, "--gain", arg, &bo->gain_db) ? 2 : 0;
    case 'n':
        if (cli_arg_choice(&parsing, "--normalize", arg, normalizes, &i))
            return 2;
        bo->normalize = i;
        return 0;
    case 'a':
        if (cli_arg_choice(&parsing, "--align", arg, aligns, &i))
            return 2;
        bo->align = (cli_align)i;
        return 0;
    case 'f':
        bo->format = arg;
        return 0;
    case OPT_NO_DITHER:
        bo->engine.no_dither = 1;
        return 0;
    case 'b':
        return cli_arg_backend(&parsing, arg, &bo->engine.backend) ? 2 : 0;
    case 'k':
        return cli_arg_kernel(&parsing, arg, &bo->engine.kernel) ? 2 : 0;
    case OPT_GPU:
    case OPT_GPUS:
        bo->gpus_spec = arg;
        return cli_arg_gpus(&parsing, c == OPT_GPU ? "--gpu" : "--gpus", arg,
                            c == OPT_GPU ? 1 : BATCH_MAX_JOBS, 0, bo->gpus, &bo->ngpus);
    case OPT_BLOCK:
        if (cli_arg_whole(&parsing, "--block", arg, 1, MAX_BLOCK_FRAMES, &v))
            return 2;
        bo->engine.block_frames = (size_t)v;
        return 0;
    case OPT_NO_FOLD:
        bo->engine.no_fold = 1;
        return 0;
    case OPT_FORCE:
        bo->force = 1;
        return 0;
    case OPT_MAX_TAPS:
        if (cli_arg_whole(&parsing, "--max-taps", arg, 1, GFIR_MAX_PLAN_TAPS, &v))
            return 2;
        bo->max_taps = (size_t)v;
        return 0;
    case 'q':
        bo->engine.quiet = 1;
        return 0;
    case 'v':
        bo->engine.verbose = 1;
        return 0;
    case 'h':
        print_help();
        bo->engine.answered = 1;
        return 0;
    default:
        return 2;
    }
}

/* --gpu or --gpus, once the other options are read: the backend they imply,
 * a worker for each, and then this host's GPUs. */
static int check_gpus(batch_options *bo, const unsigned char *seen)
{
    const char *opt = seen[OPT_GPUS] ? "--gpus" : "--gpu";
    int rc;
    if (seen[OPT_GPU] && seen[OPT_GPUS])
        return cli_usage_error(&parsing, "--gpu and --gpus: give one (--gpu N is --gpus N)");
    if (seen['b'] && bo->engine.backend == GFIR_BACKEND_CPU)
        return cli_usage_error(&parsing, "%s %s and --backend cpu: GPUs filter with --backend "
                               "cuda or auto; give one of them", opt, bo->gpus_spec);
    if (!seen['b'])
        bo->engine.backend = GFIR_BACKEND_CUDA;
    if ((rc = cli_arg_gpus(&parsing, opt, bo->gpus_spec, seen[OPT_GPUS] ? BATCH_MAX_JOBS : 1,
                           1, bo->gpus, &bo->ngpus)) != 0)
        return rc;
    if (bo->jobs && bo->jobs < (unsigned)bo->ngpus)
        return cli_usage_error(&parsing, "--jobs %u and %s %s: each GPU takes a file in flight "
                               "at least; give --jobs %d or more", bo->jobs, opt,
                               bo->gpus_spec, bo->ngpus);
    bo->engine.gpu = bo->gpus[0];
    return 0;
}

int batch_parse_args(int argc, char **argv, batch_options *bo)
{
    unsigned char seen[OPT_END] = {0};
    int c, rc;
    memset(bo, 0, sizeof *bo);
    bo->align = CLI_ALIGN_DEFAULT;
    bo->normalize = CLI_NORMALIZE_DEFAULT;
    bo->engine.align = CLI_ALIGN_DEFAULT;
    bo->max_taps = CEILING_DEFAULT_TAPS;
    optind = 1;
    while ((c = cli_next_option(&parsing, argc, argv, ":j:p:t:i:g:n:a:f:b:k:qvh", long_options)) !=
           -1) {
        if (c == CLI_ARGS_BAD)
            return 2;
        rc = apply_option(c, optarg, bo);
        if (rc || bo->engine.answered)
            return rc;
        seen[c] = 1;
    }
    /* MANIFEST as an operand, as --manifest: one of them, once */
    if (optind < argc && bo->manifest)
        return cli_usage_error(&parsing, "'%s': the manifest is '%s' already (--manifest)",
                               argv[optind], bo->manifest);
    if (optind + 1 < argc)
        return cli_usage_error(&parsing, "gfir batch takes one MANIFEST ('%s' is a second)",
                               argv[optind + 1]);
    if (optind < argc)
        bo->manifest = argv[optind];
    if (!bo->manifest)
        return cli_usage_error(&parsing, "no MANIFEST given");
    if (bo->describe && !bo->emit)
        return cli_usage_error(&parsing, "--describe applies only with --emit-manifest");
    if (bo->emit && bo->merge)
        return cli_usage_error(&parsing, "--emit-manifest and --merge are two runs: give one");
    for (size_t i = 0; bo->emit && i < sizeof run_only / sizeof run_only[0]; i++)
        if (seen[run_only[i].opt])
            return cli_usage_error(&parsing, "%s applies only to running jobs, not to "
                                   "--emit-manifest", run_only[i].name);
    if (seen[OPT_SHARD_SIZE] && !bo->tar)
        return cli_usage_error(&parsing, "--shard-size applies only with --tar");
    if (bo->tar && !bo->shard_members && !bo->shard_bytes)
        bo->shard_members = 1000;
    for (size_t i = 0; bo->merge && i < sizeof run_only / sizeof run_only[0]; i++)
        if (seen[run_only[i].opt])
            return cli_usage_error(&parsing, "%s applies only to running jobs, not to --merge",
                                   run_only[i].name);
    return bo->gpus_spec ? check_gpus(bo, seen) : 0;
}
