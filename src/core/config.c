/*
 * config.c - gfir_config: its defaults, reading a caller's struct of any
 * version's size (gfir.h says the rule), and checking its values.
 */
#include "core/config.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* The struct as version 0.1 had it, behind struct_size: the smallest one
 * this library reads. Every field after it has an all-zero default or is
 * given one here. */
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

gfir_status gf_config_check(const float *taps, size_t ntaps, const gfir_config *cfg,
                                char *why, size_t whylen)
{
    if (cfg->channels == 0 || cfg->channels > GFIR_MAX_CHANNELS) {
        snprintf(why, whylen, "channels is %u; it must be 1 to %d", cfg->channels,
                 GFIR_MAX_CHANNELS);
        return GFIR_ERR_CHANNELS;
    }
    if (cfg->filter_channels != 1 && cfg->filter_channels != cfg->channels) {
        snprintf(why, whylen, "filter_channels is %u; it must be 1 or channels (%u)",
                 cfg->filter_channels, cfg->channels);
        return GFIR_ERR_CHANNELS;
    }
    if (ntaps == 0 || ntaps > GFIR_MAX_TAPS) {
        snprintf(why, whylen, "ntaps is %zu; it must be 1 to %zu", ntaps, (size_t)GFIR_MAX_TAPS);
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

