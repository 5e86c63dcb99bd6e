/*
 * gpu.c - GPUs named on the command line (gpu.h).
 */
#include "gpu.h"
#include "message.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "this host has 2 visible GPUs, 0 and 1" and the like, into buf. */
static void say_visible(int visible, char *buf, size_t len)
{
    if (visible == 1)
        snprintf(buf, len, "this host has 1 visible GPU, 0");
    else if (visible == 2)
        snprintf(buf, len, "this host has 2 visible GPUs, 0 and 1");
    else
        snprintf(buf, len, "this host has %d visible GPUs, 0 to %d", visible, visible - 1);
}

/* One ordinal of a list: digits only, below 1000000. */
static int ordinal_of(const char *s, size_t n, int *out)
{
    char digits[8];
    char *end;
    long v;
    if (n == 0 || n >= sizeof digits || strspn(s, "0123456789") < n)
        return 1;
    memcpy(digits, s, n);
    digits[n] = '\0';
    errno = 0;
    v = strtol(digits, &end, 10);
    if (errno || *end)
        return 1;
    *out = (int)v;
    return 0;
}

int cli_gpu_list(const char *opt, const char *spec, int max, int visible, const char *no_gpu,
                 int *ordinals, int *n, char *why, size_t len)
{
    const char *p = spec;
    char host[96];
    *n = 0;
    if (!strcmp(spec, "all") && max > 1) {
        if (visible <= 0) {
            snprintf(why, len, "%s all: no GPU is visible: %s", opt, no_gpu);
            return 1;
        }
        for (int i = 0; i < visible && *n < max; i++)
            ordinals[(*n)++] = i;
        return 0;
    }
    for (;;) {
        const size_t span = strcspn(p, ",");
        int v;
        if (ordinal_of(p, span, &v)) {
            snprintf(why, len, "%s %s: %s", opt, spec,
                     max > 1 ? "want all, or GPU numbers separated by commas (0,1)"
                             : "want a GPU number (0 is the first)");
            return 2;
        }
        for (int i = 0; i < *n; i++)
            if (ordinals[i] == v) {
                snprintf(why, len, "%s %s: GPU %d is named twice", opt, spec, v);
                return 2;
            }
        if (*n == max) {
            if (max > 1)
                snprintf(why, len, "%s %s: at most %d GPUs", opt, spec, max);
            else
                snprintf(why, len, "%s %s: want one GPU number (--gpus takes a list)", opt, spec);
            return 2;
        }
        ordinals[(*n)++] = v;
        if (!p[span])
            break;
        p += span + 1;
    }
    if (visible <= 0) {
        snprintf(why, len, "%s %s: no GPU is visible: %s", opt, spec, no_gpu);
        return 1;
    }
    for (int i = 0; i < *n; i++)
        if (ordinals[i] >= visible) {
            say_visible(visible, host, sizeof host);
            snprintf(why, len, "%s %s: %s%s", opt, spec, host,
                     getenv("CUDA_VISIBLE_DEVICES")
                         ? " (CUDA_VISIBLE_DEVICES numbers the ones it leaves from 0)" : "");
            return 1;
        }
    return 0;
}

int cli_gpus_visible(void)
{
    return gfir_backend_devices(GFIR_BACKEND_CUDA);
}

const char *cli_no_gpu_reason(void)
{
#ifndef GFIR_CLI_CUDA_VERSION
    return "this gfir was built without CUDA";
#else
    const char *env = getenv("CUDA_VISIBLE_DEVICES");
    if (env)
        return env[0] ? "CUDA_VISIBLE_DEVICES leaves none" : "CUDA_VISIBLE_DEVICES is empty";
    return "CUDA finds no device (no NVIDIA GPU, or its driver is not loaded)";
#endif
}

int cli_arg_gpus(const cli_args *a, const char *opt, const char *arg, int max, int host,
                 int *ordinals, int *n)
{
    char why[512];
    int rc = cli_gpu_list(opt, arg, max, host ? cli_gpus_visible() : INT_MAX,
                          cli_no_gpu_reason(), ordinals, n, why, sizeof why);
    if (rc == 2)
        return cli_usage_error(a, "%s", why);
    if (rc)
        cli_error("%s", why);
    return rc;
}
