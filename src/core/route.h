/*
 * route.h - routed plans (gfir_path) on engines that filter channels one to
 * one: each path becomes a channel of its own, through its tap set scaled by
 * its gain, and each output is the sum of its paths' channels. Every engine
 * of every backend runs paths this way, with the same streaming contract;
 * its cost is one convolution per path rather than per input (an FFT engine
 * that shares an input's transforms among its paths does better).
 */
#ifndef GF_CORE_ROUTE_H
#define GF_CORE_ROUTE_H

#include "gfir.h"

#include <stddef.h>

typedef struct gf_route {
    unsigned inputs, outputs;
    unsigned sets;              /* the caller's tap sets (gfir_config.filter_channels) */
    size_t npaths;
    gfir_path *paths;           /* the caller's, copied */
    float *vin;                 /* expanded only, block x npaths: each path's input */
    float *vout;                /* expanded only, block x npaths: each path's output */
} gf_route;

/* Copies cfg's paths. GFIR_ERR_NOMEM (why set) when memory runs out. */
gfir_status gf_route_create(gf_route **route, const gfir_config *cfg, char *why, size_t whylen);
/* For an engine that filters channels one to one: the buffers of the paths
 * as channels for calls of up to block frames, and in *path_taps (for the
 * caller to free) npaths tap sets of ntaps, each path's set times its gain. */
gfir_status gf_route_expand(gf_route *r, const float *taps, size_t ntaps, size_t block,
                            float **path_taps, char *why, size_t whylen);
/* The tap sets as paths only: path_taps (npaths x ntaps) gets each path's
 * set times its gain. */
void gf_route_expand_taps(const gf_route *r, const float *taps, size_t ntaps, float *path_taps);
/* Each path's channel gets its input channel's n frames (n <= block). */
void gf_route_gather(const gf_route *r, const float *in, size_t n);
/* Each output gets the sum of its paths' n frames; outputs no path reaches get silence. */
void gf_route_reduce(const gf_route *r, float *out, size_t n);
void gf_route_destroy(gf_route *r);

#endif
