/*
 * reload.h - reloading the filter while --play or --monitor runs.
 *
 * A thread of its own watches the files the filter came from (presets,
 * taps and impulse responses) and SIGHUP. When they change it reads the
 * filter's options again, designs the chain at the stream's rate and
 * prepares it for the running plan (gfir_filter_create), all off the audio
 * callback and off the worker, so a slow design never delays a period. The
 * worker takes the result between two blocks: a filter to swap into its
 * plan with a crossfade, or, when the plan cannot take the new filter
 * (longer than the plan, more tap sets, or other paths between the
 * channels), a new plan that it runs beside the old one until the new one
 * has the history it needs, then crossfades to (session.c). A filter that
 * cannot be loaded, or that routes to another count of output channels
 * than the stream plays, leaves the old one playing, and one line on
 * stderr says why.
 *
 * The thread also frees what the worker gives up: filters the plan retired
 * and whole plans. The worker never blocks on it: every exchange is an
 * atomic pointer.
 */
#ifndef GFIR_LIVE_RELOAD_H
#define GFIR_LIVE_RELOAD_H

#include "cli.h"

#include <stddef.h>

typedef struct live_reload live_reload;

/* What the worker may take: exactly one of filter and plan is set. */
typedef struct reload_change {
    gfir_filter *filter;        /* for the worker's newest plan */
    gfir_plan *plan;            /* a plan of its own, to run instead */
} reload_change;

struct cli_design;

/* Starts the thread for a stream of `channels` input channels at rate_hz
 * whose worker runs blocks of up to block_frames through `plan`, made from
 * o->filter designed as d (filter/filter.h: its tap sets, paths, output
 * channels and delay are what a reload is held to). One line and 1 on
 * failure (none: reloads only on SIGHUP then, with a note, where files
 * cannot be watched). */
int reload_start(live_reload **r, const cli_options *o, double rate_hz, unsigned channels,
                 size_t block_frames, gfir_plan *plan, const struct cli_design *d);
/* Stops the thread and frees everything it holds, the worker's plans
 * excepted. NULL is allowed. */
void reload_stop(live_reload *r);

/* Worker side, between blocks. The change waiting to be taken, or NULL. */
const reload_change *reload_pending(live_reload *r);
/* The worker took the pending change: its filter swapped in (status, which
 * on failure hands the filter back to be freed) or its plan adopted. */
void reload_taken(live_reload *r, gfir_status status);
/* 1 when the thread can take a plan the worker gives up now. */
int reload_can_retire(live_reload *r);
/* Hands over a plan the worker no longer runs (after reload_can_retire). */
void reload_retire(live_reload *r, gfir_plan *plan);

#endif
