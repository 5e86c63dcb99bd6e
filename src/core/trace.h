/*
 * trace.h - where a live call's time goes, for the benchmarks that must say
 * where a tail comes from (tools/live_bench --trace): an engine that keeps
 * a trace splits each whole-period call into the host's work before the
 * device's (staging the input), the enqueueing, the wait for the output,
 * and the device's own time for the call's work, read from the device's
 * clock. Not installed; tracing costs a timing event per call, so it is
 * off until asked for.
 */
#ifndef GF_CORE_TRACE_H
#define GF_CORE_TRACE_H

#include "gfir.h"

typedef struct gf_call_trace {
    double staged_s;    /* the input copied into the engine's staging buffer */
    double enqueued_s;  /* the call's work handed to the device */
    double waited_s;    /* from then until the output was seen ready */
    double device_s;    /* the device's time from the call's first work to its output (< 0: none) */
} gf_call_trace;

/* From the next call on, the plan's engine keeps a trace of each call;
 * GFIR_ERR_UNSUPPORTED where its engine keeps none. */
gfir_status gf_trace_start(gfir_plan *plan);
/* The last call's trace; GFIR_ERR_UNSUPPORTED where none is kept or the
 * last call was not traced (only whole-period calls are). */
gfir_status gf_trace_last(const gfir_plan *plan, gf_call_trace *out);

#endif
