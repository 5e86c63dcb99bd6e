/*
 * shard.c - this process's share of a manifest (shard.h).
 */
#include "batch/shard.h"
#include "message.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Shards beyond this are surely a typo: each runs a process. */
#define MAX_SHARDS 1000000UL

static int usage(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

static int usage(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cli_vmessage(fmt, ap);
    va_end(ap);
    return 2;
}

/* A whole number from s up to max, with nothing after it. */
static int whole(const char *s, unsigned long max, unsigned long *out)
{
    char *end;
    unsigned long long v;
    if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
        return 1;
    errno = 0;
    v = strtoull(s, &end, 10);
    if (errno || *end || v > max)
        return 1;
    *out = (unsigned long)v;
    return 0;
}

static int from_spec(const char *spec, unsigned long shards, shard *out)
{
    const char *slash = strchr(spec, '/');
    char k[32];
    if (!slash || (size_t)(slash - spec) >= sizeof k)
        return usage("--shard %s: want K/N, shard K (from 0) of N, e.g. --shard 0/4", spec);
    memcpy(k, spec, (size_t)(slash - spec));
    k[slash - spec] = '\0';
    if (whole(k, MAX_SHARDS, &out->k) || whole(slash + 1, MAX_SHARDS, &out->n) || out->n == 0)
        return usage("--shard %s: want K/N with whole numbers, N from 1 to %lu", spec,
                     MAX_SHARDS);
    if (out->k >= out->n)
        return usage("--shard %s: K counts from 0, so it must be below N (the last shard is "
                     "%lu/%lu)", spec, out->n - 1, out->n);
    if (shards && shards != out->n)
        return usage("--shard %s and --shards %lu disagree on the number of shards", spec,
                     shards);
    snprintf(out->source, sizeof out->source, "--shard");
    return 0;
}

/* An environment variable that must be a whole number. */
static int env_number(const char *(*getenv_fn)(const char *), const char *name, int required,
                      unsigned long *out, int *present)
{
    const char *v = getenv_fn(name);
    *present = v != NULL;
    if (!v)
        return required ? usage("%s is not set", name) : 0;
    if (whole(v, 0xFFFFFFFFUL, out))
        return usage("%s=%s is not a whole number", name, v);
    return 0;
}

static int from_slurm(const char *(*getenv_fn)(const char *), unsigned long shards, shard *out)
{
    unsigned long id, count, min = 0, max = 0, step = 1;
    int has, has_min, has_max, has_step;
    if (env_number(getenv_fn, "SLURM_ARRAY_TASK_ID", 1, &id, &has) ||
        env_number(getenv_fn, "SLURM_ARRAY_TASK_COUNT", 1, &count, &has) ||
        env_number(getenv_fn, "SLURM_ARRAY_TASK_MIN", 0, &min, &has_min) ||
        env_number(getenv_fn, "SLURM_ARRAY_TASK_MAX", 0, &max, &has_max) ||
        env_number(getenv_fn, "SLURM_ARRAY_TASK_STEP", 0, &step, &has_step))
        return 2;
    if (count == 0 || step == 0 || id < min)
        return usage("SLURM_ARRAY_TASK_ID=%lu, _MIN=%lu, _STEP=%lu, _COUNT=%lu do not make "
                     "a shard", id, min, step, count);
    /* a list such as --array=1,4,9 numbers no shards: only ranges do */
    if ((id - min) % step || (has_max && (max < min || (max - min) / step + 1 != count)))
        return usage("this Slurm array (tasks %lu to %lu, %lu of them) is not one range "
                     "with a fixed step; use --array=0-N or --shard K/N", min, max, count);
    out->k = (id - min) / step;
    out->n = count;
    if (out->k >= out->n)
        return usage("SLURM_ARRAY_TASK_ID=%lu is past the array's %lu tasks", id, count);
    if (shards && shards != count)
        return usage("--shards %lu, but the Slurm array has %lu tasks", shards, count);
    snprintf(out->source, sizeof out->source, "SLURM_ARRAY_TASK_ID=%lu", id);
    return 0;
}

int shard_choose(const char *spec, unsigned long shards, const char *(*getenv_fn)(const char *),
                 shard *out)
{
    unsigned long index;
    int has;

    memset(out, 0, sizeof *out);
    if (shards > MAX_SHARDS)
        return usage("--shards %lu: at most %lu", shards, MAX_SHARDS);
    if (spec)
        return from_spec(spec, shards, out);
    if (getenv_fn("SLURM_ARRAY_TASK_ID"))
        return from_slurm(getenv_fn, shards, out);
    if (getenv_fn("JOB_COMPLETION_INDEX")) {
        if (env_number(getenv_fn, "JOB_COMPLETION_INDEX", 1, &index, &has))
            return 2;
        if (!shards)
            return usage("JOB_COMPLETION_INDEX=%lu is set: give --shards N, the Job's "
                         "completions", index);
        if (index >= shards)
            return usage("JOB_COMPLETION_INDEX=%lu is not below --shards %lu", index, shards);
        out->k = index;
        out->n = shards;
        snprintf(out->source, sizeof out->source, "JOB_COMPLETION_INDEX=%lu", index);
        return 0;
    }
    if (shards)
        return usage("--shards %lu needs a shard index: SLURM_ARRAY_TASK_ID or "
                     "JOB_COMPLETION_INDEX in the environment, or --shard K/N", shards);
    out->k = 0;
    out->n = 1;
    snprintf(out->source, sizeof out->source, "the whole manifest");
    return 0;
}
