/*
 * config.c - gfir_config: its defaults, reading a caller's struct of any
 * version's size (gfir.h says the rule), and checking its values.
 */
#include "core/config.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* The smallest struct this library reads: struct_size and the fields 0.1
 * had (0.2 put struct_size before them; 0.1's programs need rebuilding, and
 * the soname, libgfir.so.0.2, says so). Every field after these has an
 * all-zero default or is given one here. */
#define CONFIG_MIN_SIZE (offsetof(gfir_config, device) + sizeof(int))

static void defaults(gfir_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->struct_size = sizeof *cfg;
    cfg->channels = 1;
    cfg->filter_channels = 1;
    cfg->max_block_frames = 0;
    cfg->backend = GFIR_BACKEND_AUTO;
    cfg->kernel = GFIR_KERNEL_AUTO;
    cfg->threads = 0;
    cfg->device = 0;
    cfg->max_latency_frames = 0;
    cfg->expected_frames = 0;
}

void gfir_config_init_size(gfir_config *cfg, size_t struct_size)
{
    gfir_config d;
    if (!cfg || struct_size < sizeof cfg->struct_size)
        return;
    defaults(&d);
    /* never a byte past what the caller has; zeros for fields we do not know */
    if (struct_size > sizeof d) {
        memset((char *)cfg + sizeof d, 0, struct_size - sizeof d);
        memcpy(cfg, &d, sizeof d);
    } else {
        memcpy(cfg, &d, struct_size);
    }
    cfg->struct_size = struct_size;
}

gfir_status gf_config_read(const gfir_config *cfg, gfir_config *full, char *why, size_t whylen)
{
    const size_t size = cfg->struct_size;
    if (size < CONFIG_MIN_SIZE) {
        snprintf(why, whylen, "gfir_config of %zu bytes: was it set up with gfir_config_init()?",
                 size);
        return GFIR_ERR_ARG;
    }
    defaults(full);
    if (size <= sizeof *full) {
        memcpy(full, cfg, size);
        full->struct_size = sizeof *full;
        return GFIR_OK;
    }
    for (size_t i = sizeof *full; i < size; i++) {
        if (((const unsigned char *)cfg)[i] != 0) {
            snprintf(why, whylen, "gfir_config sets a field at byte %zu that this gfir %s "
                     "does not have (the program was built against a newer gfir.h)",
                     i, gfir_version_string());
            return GFIR_ERR_ARG;
        }
    }
    memcpy(full, cfg, sizeof *full);
    full->struct_size = sizeof *full;
    return GFIR_OK;
}

/* Paths name existing channels and tap sets, with finite gains. */
static gfir_status check_paths(const gfir_config *cfg, unsigned outputs, char *why,
                               size_t whylen)
{
    if (cfg->npaths == 0 || cfg->npaths > GFIR_MAX_PATHS) {
        snprintf(why, whylen, "npaths is %zu; with paths it must be 1 to %d", cfg->npaths,
                 GFIR_MAX_PATHS);
        return GFIR_ERR_ARG;
    }
    if (cfg->filter_channels == 0 || cfg->filter_channels > GFIR_MAX_PATHS) {
        snprintf(why, whylen, "filter_channels is %u; with paths it must be 1 to %d",
                 cfg->filter_channels, GFIR_MAX_PATHS);
        return GFIR_ERR_CHANNELS;
    }
    for (size_t i = 0; i < cfg->npaths; i++) {
        const gfir_path *p = &cfg->paths[i];
        if (p->input >= cfg->channels || p->output >= outputs || p->taps >= cfg->filter_channels) {
            snprintf(why, whylen, "path %zu (input %u, output %u, tap set %u) needs input below "
                     "%u, output below %u and tap set below %u", i, p->input, p->output,
                     p->taps, cfg->channels, outputs, cfg->filter_channels);
            return GFIR_ERR_CHANNELS;
        }
        if (!isfinite(p->gain)) {
            snprintf(why, whylen, "path %zu has a gain that is not finite", i);
            return GFIR_ERR_ARG;
        }
    }
    return GFIR_OK;
}

/* The devices list: a count with a list, ordinals that can name a device. */
static gfir_status check_devices(const gfir_config *cfg, char *why, size_t whylen)
{
    if (!cfg->devices && cfg->ndevices) {
        snprintf(why, whylen, "ndevices is %u but devices is NULL", cfg->ndevices);
        return GFIR_ERR_NULL;
    }
    if (cfg->devices && (cfg->ndevices == 0 || cfg->ndevices > GFIR_MAX_DEVICES)) {
        snprintf(why, whylen, "ndevices is %u; with devices it must be 1 to %d", cfg->ndevices,
                 GFIR_MAX_DEVICES);
        return GFIR_ERR_ARG;
    }
    for (unsigned k = 0; k < cfg->ndevices; k++)
        if (cfg->devices[k] < 0) {
            snprintf(why, whylen, "devices[%u] is %d; device ordinals are 0 or more", k,
                     cfg->devices[k]);
            return GFIR_ERR_ARG;
        }
    return GFIR_OK;
}

static gfir_status check_routing(const gfir_config *cfg, char *why, size_t whylen)
{
    if (cfg->reserved || cfg->reserved2) {
        snprintf(why, whylen, "gfir_config's %s field is %u (this gfir %s has no field "
                 "there; the program was built against a newer gfir.h)",
                 cfg->reserved ? "reserved" : "reserved2",
                 cfg->reserved ? cfg->reserved : cfg->reserved2,
                 gfir_version_string());
        return GFIR_ERR_ARG;
    }
    const gfir_status st = check_devices(cfg, why, whylen);
    if (st != GFIR_OK)
        return st;
    const unsigned outputs = cfg->out_channels ? cfg->out_channels : cfg->channels;
    if (cfg->channels == 0 || cfg->channels > GFIR_MAX_CHANNELS) {
        snprintf(why, whylen, "channels is %u; it must be 1 to %d", cfg->channels,
                 GFIR_MAX_CHANNELS);
        return GFIR_ERR_CHANNELS;
    }
    if (outputs > GFIR_MAX_CHANNELS) {
        snprintf(why, whylen, "out_channels is %u; it must be 1 to %d", outputs,
                 GFIR_MAX_CHANNELS);
        return GFIR_ERR_CHANNELS;
    }
    if (cfg->paths)
        return check_paths(cfg, outputs, why, whylen);
    if (cfg->npaths) {
        snprintf(why, whylen, "npaths is %zu but paths is NULL", cfg->npaths);
        return GFIR_ERR_NULL;
    }
    if (outputs != cfg->channels) {
        snprintf(why, whylen, "out_channels is %u but channels is %u: a plan without paths "
                 "has as many outputs as inputs", outputs, cfg->channels);
        return GFIR_ERR_CHANNELS;
    }
    if (cfg->filter_channels != 1 && cfg->filter_channels != cfg->channels) {
        snprintf(why, whylen, "filter_channels is %u; it must be 1 or channels (%u)",
                 cfg->filter_channels, cfg->channels);
        return GFIR_ERR_CHANNELS;
    }
    return GFIR_OK;
}

gfir_status gf_config_check(const float *taps, size_t ntaps, const gfir_config *cfg,
                                char *why, size_t whylen)
{
    gfir_status st = check_routing(cfg, why, whylen);
    if (st != GFIR_OK)
        return st;
    if (ntaps == 0 || ntaps > GFIR_MAX_TAPS) {
        snprintf(why, whylen, "ntaps is %zu; it must be 1 to %zu", ntaps, (size_t)GFIR_MAX_TAPS);
        return GFIR_ERR_TAPS;
    }
    /* the convolutions a plan runs: each path (each tap set at least), or each channel */
    size_t units = cfg->paths ? cfg->npaths : cfg->channels;
    if (cfg->filter_channels > units)
        units = cfg->filter_channels;
    if (ntaps > GFIR_MAX_PLAN_TAPS / units) {
        snprintf(why, whylen, "%zu taps x %zu %s = %.0f taps in all, more than "
                 "GFIR_MAX_PLAN_TAPS (%zu)", ntaps, units,
                 cfg->paths ? "paths" : "channels", (double)ntaps * (double)units,
                 (size_t)GFIR_MAX_PLAN_TAPS);
        return GFIR_ERR_TOO_LARGE;
    }
    if (ntaps * cfg->filter_channels > ((size_t)1 << 32)) {
        snprintf(why, whylen, "%u tap sets of %zu taps are more than 2^32 taps in all",
                 cfg->filter_channels, ntaps);
        return GFIR_ERR_TAPS;
    }
    for (size_t i = 0; i < ntaps * cfg->filter_channels; i++) {
        if (!isfinite(taps[i])) {
            snprintf(why, whylen, "tap %zu of filter channel %zu is not finite", i % ntaps,
                     i / ntaps);
            return GFIR_ERR_TAPS;
        }
    }
    if ((unsigned)cfg->backend > GFIR_BACKEND_CUDA || !gfir_kernel_name(cfg->kernel)) {
        snprintf(why, whylen, "unknown backend or kernel value");
        return GFIR_ERR_ARG;
    }
    if (cfg->max_block_frames > ((size_t)1 << 30) / cfg->channels) {
        snprintf(why, whylen, "max_block_frames %zu is too large", cfg->max_block_frames);
        return GFIR_ERR_ARG;
    }
    return GFIR_OK;
}

