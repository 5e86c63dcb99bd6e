/*
 * route.c - paths as channels (route.h).
 */
#include "core/route.h"
#include "core/why.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void gf_route_destroy(gf_route *r)
{
    if (!r)
        return;
    free(r->paths);
    free(r->vin);
    free(r->vout);
    free(r);
}

gfir_status gf_route_create(gf_route **route, const gfir_config *cfg, char *why, size_t whylen)
{
    gf_route *r = calloc(1, sizeof *r);
    *route = NULL;
    if (r)
        r->paths = malloc(cfg->npaths * sizeof *r->paths);
    if (!r || !r->paths) {
        gf_detail(why, whylen, GFIR_ERR_NOMEM, "out of host memory for %zu paths", cfg->npaths);
        gf_route_destroy(r);
        return GFIR_ERR_NOMEM;
    }
    r->inputs = cfg->channels;
    r->outputs = cfg->out_channels ? cfg->out_channels : cfg->channels;
    r->npaths = cfg->npaths;
    r->sets = cfg->filter_channels;
    memcpy(r->paths, cfg->paths, cfg->npaths * sizeof *r->paths);
    *route = r;
    return GFIR_OK;
}

gfir_status gf_route_expand(gf_route *r, const float *taps, size_t ntaps, size_t block,
                            float **path_taps, char *why, size_t whylen)
{
    const size_t np = r->npaths;
    *path_taps = NULL;
    if (block > ((size_t)1 << 30) / np) {
        return gf_detail(why, whylen, GFIR_ERR_ARG,
                         "max_block_frames %zu is too large for %zu paths", block, np);
    }
    r->vin = malloc(block * np * sizeof *r->vin);
    r->vout = malloc(block * np * sizeof *r->vout);
    *path_taps = malloc(np * ntaps * sizeof **path_taps);
    if (!r->vin || !r->vout || !*path_taps) {
        gf_detail(why, whylen, GFIR_ERR_NOMEM, "out of host memory for %zu paths of %zu taps", np,
                  ntaps);
        free(*path_taps);
        *path_taps = NULL;
        return GFIR_ERR_NOMEM;
    }
    gf_route_expand_taps(r, taps, ntaps, *path_taps);
    return GFIR_OK;
}

void gf_route_expand_taps(const gf_route *r, const float *taps, size_t ntaps, float *path_taps)
{
    for (size_t p = 0; p < r->npaths; p++) {
        const float *h = taps + (size_t)r->paths[p].taps * ntaps;
        const float g = r->paths[p].gain;
        for (size_t k = 0; k < ntaps; k++)
            path_taps[p * ntaps + k] = g * h[k];
    }
}

void gf_route_gather(const gf_route *r, const float *in, size_t n)
{
    const size_t np = r->npaths, ni = r->inputs;
    for (size_t p = 0; p < np; p++) {
        const float *x = in + r->paths[p].input;
        float *v = r->vin + p;
        for (size_t i = 0; i < n; i++)
            v[i * np] = x[i * ni];
    }
}

void gf_route_reduce(const gf_route *r, float *out, size_t n)
{
    const size_t np = r->npaths, no = r->outputs;
    memset(out, 0, n * no * sizeof *out);
    for (size_t p = 0; p < np; p++) {
        const float *v = r->vout + p;
        float *y = out + r->paths[p].output;
        for (size_t i = 0; i < n; i++)
            y[i * no] += v[i * np];
    }
}
