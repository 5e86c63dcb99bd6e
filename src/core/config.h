/*
 * config.h - reading and checking a caller's gfir_config.
 */
#ifndef GF_CORE_CONFIG_H
#define GF_CORE_CONFIG_H

#include "gfir.h"

#include <stddef.h>

/* Copies the caller's config, of whatever size gfir_config_init() recorded,
 * into *full with defaults for the fields it lacks. GFIR_ERR_ARG (and why)
 * for a struct too small to be one, or one setting fields this library lacks. */
gfir_status gf_config_read(const gfir_config *cfg, gfir_config *full, char *why, size_t whylen);

/* The values' ranges (gfir.h), against the taps. */
gfir_status gf_config_check(const float *taps, size_t ntaps, const gfir_config *cfg, char *why,
                            size_t whylen);

#endif
