/*
 * features.c - the host's features and options (features.h).
 */
#include "features.h"

#include <lv2/buf-size/buf-size.h>
#include <lv2/options/options.h>
#include <lv2/atom/atom.h>

#include <string.h>

/* An integer option's value, whatever integer type the host gave it. */
static size_t option_size(const LV2_Options_Option *o, LV2_URID atom_int, LV2_URID atom_long)
{
    if (o->type == atom_int && o->size == sizeof(int32_t))
        return *(const int32_t *)o->value > 0 ? (size_t)*(const int32_t *)o->value : 0;
    if (o->type == atom_long && o->size == sizeof(int64_t))
        return *(const int64_t *)o->value > 0 ? (size_t)*(const int64_t *)o->value : 0;
    return 0;
}

void gl_features_scan(const LV2_Feature *const *features, gl_features *f)
{
    const LV2_Options_Option *options = NULL;
    LV2_Log_Log *log = NULL;
    memset(f, 0, sizeof *f);
    for (size_t i = 0; features && features[i]; i++) {
        const char *uri = features[i]->URI;
        if (!strcmp(uri, LV2_URID__map))
            f->map = features[i]->data;
        else if (!strcmp(uri, LV2_WORKER__schedule))
            f->schedule = features[i]->data;
        else if (!strcmp(uri, LV2_LOG__log))
            log = features[i]->data;
        else if (!strcmp(uri, LV2_OPTIONS__options))
            options = features[i]->data;
    }
    lv2_log_logger_init(&f->logger, f->map, log);
    if (!f->map || !options)
        return;
    const LV2_URID max = f->map->map(f->map->handle, LV2_BUF_SIZE__maxBlockLength);
    const LV2_URID nominal = f->map->map(f->map->handle, LV2_BUF_SIZE__nominalBlockLength);
    const LV2_URID atom_int = f->map->map(f->map->handle, LV2_ATOM__Int);
    const LV2_URID atom_long = f->map->map(f->map->handle, LV2_ATOM__Long);
    for (const LV2_Options_Option *o = options; o->key || o->value; o++) {
        if (o->context != LV2_OPTIONS_INSTANCE)
            continue;
        if (o->key == max)
            f->max_block = option_size(o, atom_int, atom_long);
        else if (o->key == nominal)
            f->nominal_block = option_size(o, atom_int, atom_long);
    }
}

size_t gl_features_block(const gl_features *f)
{
    return f->max_block ? f->max_block : f->nominal_block;
}

size_t gl_fade_frames(double rate_hz)
{
    const double frames = rate_hz * 0.05;
    return frames >= 1 ? (size_t)(frames + 0.5) : 1;
}
