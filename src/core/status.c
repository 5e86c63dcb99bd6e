/*
 * status.c - error sentences, names of backends and kernels, the version.
 */
#include "gfir.h"

#include <string.h>

#define GFIR_STR2(x) #x
#define GFIR_STR(x) GFIR_STR2(x)

const char *gfir_version_string(void)
{
    return GFIR_STR(GFIR_VERSION_MAJOR) "." GFIR_STR(GFIR_VERSION_MINOR) "." GFIR_STR(
        GFIR_VERSION_PATCH);
}

const char *gfir_strerror(gfir_status status)
{
    switch (status) {
    case GFIR_OK: return "no error";
    case GFIR_ERR_NULL: return "a required pointer is NULL";
    case GFIR_ERR_CHANNELS: return "bad channel count (filter channels must be 1 or the signal's)";
    case GFIR_ERR_TAPS: return "bad taps (none, too many, or not finite)";
    case GFIR_ERR_ARG: return "argument out of range";
    case GFIR_ERR_NOMEM: return "out of memory";
    case GFIR_ERR_UNAVAILABLE: return "backend not available (not built, or no device)";
    case GFIR_ERR_UNSUPPORTED: return "kernel does not support this configuration";
    case GFIR_ERR_DEVICE: return "device error";
    case GFIR_ERR_BUSY: return "a crossfade is still running";
    case GFIR_ERR_TOO_LARGE: return "filter too large (ntaps x paths above GFIR_MAX_PLAN_TAPS)";
    }
    return "unknown gfir status";
}

static const char *const backend_names[] = {"auto", "cpu", "cuda"};
static const char *const kernel_names[] = {"auto",  "gold",     "direct", "basic",
                                           "constant", "tiled", "cached", "fft"};
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

const char *gfir_backend_name(gfir_backend backend)
{
    return (unsigned)backend < COUNT(backend_names) ? backend_names[backend] : NULL;
}

const char *gfir_kernel_name(gfir_kernel kernel)
{
    return (unsigned)kernel < COUNT(kernel_names) ? kernel_names[kernel] : NULL;
}

static gfir_status find_name(const char *const *names, size_t count, const char *name,
                             int *out)
{
    if (!name || !out)
        return GFIR_ERR_NULL;
    for (size_t i = 0; i < count; i++) {
        if (strcmp(names[i], name) == 0) {
            *out = (int)i;
            return GFIR_OK;
        }
    }
    return GFIR_ERR_ARG;
}

gfir_status gfir_backend_from_name(const char *name, gfir_backend *out)
{
    int i;
    if (!out)
        return GFIR_ERR_NULL;
    gfir_status st = find_name(backend_names, COUNT(backend_names), name, &i);
    if (st == GFIR_OK)
        *out = (gfir_backend)i;
    return st;
}

gfir_status gfir_kernel_from_name(const char *name, gfir_kernel *out)
{
    int i;
    if (!out)
        return GFIR_ERR_NULL;
    gfir_status st = find_name(kernel_names, COUNT(kernel_names), name, &i);
    if (st == GFIR_OK)
        *out = (gfir_kernel)i;
    return st;
}
