/*
 * features.h - what a host offers a plugin at instantiation: the URID map,
 * the worker, the log and the block sizes of its options. Every one is
 * optional here; each plugin decides what it cannot do without.
 */
#ifndef GFIR_LV2_FEATURES_H
#define GFIR_LV2_FEATURES_H

#include <lv2/core/lv2.h>
#include <lv2/log/logger.h>
#include <lv2/urid/urid.h>
#include <lv2/worker/worker.h>

#include <stddef.h>

/* the plugins' URIs: GFIR_LV2_URI ":filter-mono", ":convolver-stereo", ... */
#define GFIR_LV2_URI "urn:gfir:lv2"

typedef struct gl_features {
    LV2_URID_Map *map;                  /* NULL when not offered */
    LV2_Worker_Schedule *schedule;      /* NULL: no worker */
    LV2_Log_Logger logger;              /* prints to stderr without the log feature */
    size_t max_block;                   /* bufsz:maxBlockLength, else 0 */
    size_t nominal_block;               /* bufsz:nominalBlockLength, else 0 */
} gl_features;

/* Reads features (NULL allowed). The block sizes need the map. */
void gl_features_scan(const LV2_Feature *const *features, gl_features *f);

/* The block the plans are made for: the host's largest, else its nominal,
 * else 0 (the library's default; larger calls are split either way). */
size_t gl_features_block(const gl_features *f);

/* The crossfade of a filter change: 50 ms at the host's rate, at least one frame. */
size_t gl_fade_frames(double rate_hz);

#endif
