/*
 * filter.c - the "gfir filter" plugins (mono and stereo): a Kaiser-window
 * filter designed from control ports named like the preset keys.
 *
 * Designing runs on the host's worker, and the result is crossfaded in
 * (runner.h); a host without a worker (lv2apply) gets the design of the
 * controls at activation, which then stays. The filter's own delay goes on
 * the latency port: (ntaps - 1) / 2 for linear phase, 0 for minimum phase.
 */
#include "plugins.h"
#include "features.h"
#include "mailbox.h"
#include "runner.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    PORT_TYPE, PORT_CUTOFF, PORT_LOW, PORT_HIGH, PORT_TRANSITION, PORT_ATTENUATION, PORT_GAIN,
    PORT_PHASE, PORT_LATENCY, PORT_AUDIO /* in_1, out_1, in_2, out_2, ... */
};
#define MAX_CHANNELS 2

typedef struct params {
    int type, minimum_phase;
    float cutoff_hz, low_hz, high_hz, transition_hz, attenuation_db, gain_db;
} params;

/* The Turtle's defaults: the lowpass and bandpass presets' values. */
static const params defaults = {0, 0, 4000, 300, 3400, 400, 80, 0};


/* a design request: the controls, the running plan and its shape, and
 * the runner's generation (runner.h) */
typedef struct request {
    params p;
    gfir_plan *plan;
    gl_shape shape;
    uint32_t generation;
} request;

typedef struct response {
    int ok;
    gl_handover h;              /* its latency: the filter's own delay */
} response;

typedef struct filter {
    unsigned channels;
    double rate_hz;
    gl_features host;
    gl_runner runner;
    const float *controls[PORT_LATENCY];
    float *latency_port;
    const float *in[MAX_CHANNELS];
    float *out[MAX_CHANNELS];
    params asked;               /* what the worker was last asked for */
    int in_flight;              /* a design request of this generation not yet answered */
    gl_mailbox mailbox;         /* an answer the host's queue refused, for run() */
} filter;

static params read_controls(const filter *f)
{
    params p = defaults;
    float *const fields[] = {NULL, &p.cutoff_hz, &p.low_hz, &p.high_hz, &p.transition_hz,
                             &p.attenuation_db, &p.gain_db};
    for (int i = PORT_CUTOFF; i <= PORT_GAIN; i++)
        if (f->controls[i])
            *fields[i] = *f->controls[i];
    if (f->controls[PORT_TYPE]) {
        const long t = lrintf(*f->controls[PORT_TYPE]);
        p.type = t < 0 ? 0 : t > GFIR_BANDSTOP ? GFIR_BANDSTOP : (int)t;
    }
    if (f->controls[PORT_PHASE])
        p.minimum_phase = lrintf(*f->controls[PORT_PHASE]) == 1;
    return p;
}

static int same_params(const params *a, const params *b)
{
    return a->type == b->type && a->minimum_phase == b->minimum_phase &&
           a->cutoff_hz == b->cutoff_hz && a->low_hz == b->low_hz && a->high_hz == b->high_hz &&
           a->transition_hz == b->transition_hz && a->attenuation_db == b->attenuation_db &&
           a->gain_db == b->gain_db;
}

static const char *const type_names[] = {"lowpass", "highpass", "bandpass", "bandstop"};

/* The taps of p at the rate, as `gfir --preset` designs them, then made
 * minimum phase and scaled by gain_db as --min-phase and --gain do. */
static int design(const params *p, double rate_hz, float **taps, size_t *ntaps, char *why,
                  size_t why_size)
{
    const gfir_filter_type type = (gfir_filter_type)p->type;
    const int band = type == GFIR_BANDPASS || type == GFIR_BANDSTOP;
    const double c1 = band ? p->low_hz : p->cutoff_hz, c2 = band ? p->high_hz : 0;
    const double gain = pow(10.0, p->gain_db / 20.0);
    gfir_status st = gfir_design_length(type, rate_hz, p->transition_hz, p->attenuation_db, ntaps);
    *taps = NULL;
    if (st == GFIR_OK && !(*taps = malloc(*ntaps * sizeof **taps)))
        st = GFIR_ERR_NOMEM;
    if (st == GFIR_OK)
        st = gfir_design_kaiser(type, rate_hz, c1, c2, p->transition_hz, p->attenuation_db, *taps,
                                *ntaps);
    if (st == GFIR_OK && p->minimum_phase)
        st = gfir_design_minimum_phase(*taps, *ntaps, *taps, NULL);
    if (st != GFIR_OK) {
        snprintf(why, why_size, "gfir filter: cannot design %s at %g Hz (cutoff %g, band %g-%g, "
                 "transition %g, attenuation %g dB): %s", type_names[type], rate_hz,
                 p->cutoff_hz, p->low_hz, p->high_hz, p->transition_hz, p->attenuation_db,
                 gfir_strerror(st));
        free(*taps);
        *taps = NULL;
        return 1;
    }
    for (size_t i = 0; i < *ntaps; i++)
        (*taps)[i] = (float)((*taps)[i] * gain);
    return 0;
}

/* Designs p and builds it against the running plan: the worker's job, and
 * activate's where there is no worker. Logs why it fails. */
static int build(filter *f, const params *p, gfir_plan *plan, const gl_shape *shape,
                 response *r)
{
    char why[512], note[256];
    float *taps;
    size_t ntaps;
    /* the CPU: only its plans promise an execute without locks or waits
     * (gfir.h), and designed filters are short */
    const gl_shape want = {f->channels, f->channels, 1, 0, {{0}}, GFIR_BACKEND_CPU};
    if (design(p, f->rate_hz, &taps, &ntaps, why, sizeof why) ||
        gl_build(&f->runner, &want, taps, ntaps, plan, shape, &r->h, why, sizeof why, note,
                 sizeof note)) {
        free(taps);
        lv2_log_error(&f->host.logger, "%s\n", why);
        return 1;
    }
    free(taps);
    r->h.latency = p->minimum_phase ? 0 : (ntaps - 1) / 2;
    return 0;
}

static LV2_Handle instantiate(const LV2_Descriptor *d, double rate_hz, const char *bundle,
                              const LV2_Feature *const *features)
{
    filter *f = calloc(1, sizeof *f);
    (void)bundle;
    if (!f)
        return NULL;
    f->channels = strstr(d->URI, "stereo") ? 2 : 1;
    f->rate_hz = rate_hz;
    gl_mailbox_init(&f->mailbox);
    gl_features_scan(features, &f->host);
    if (gl_runner_init(&f->runner, f->channels, f->channels, gl_features_block(&f->host),
                       gl_fade_frames(rate_hz))) {
        free(f);
        return NULL;
    }
    return f;
}

static void connect_port(LV2_Handle h, uint32_t port, void *data)
{
    filter *f = h;
    if (port < PORT_LATENCY)
        f->controls[port] = data;
    else if (port == PORT_LATENCY)
        f->latency_port = data;
    else if (port - PORT_AUDIO < 2 * f->channels) {
        const unsigned c = (port - PORT_AUDIO) / 2;
        if ((port - PORT_AUDIO) % 2)
            f->out[c] = data;
        else
            f->in[c] = data;
    }
}

/* The controls designed at once. A request made before may still be on
 * the host's worker: its answer, of an older generation, is thrown away
 * (work_response), and the next request need not wait for it (a host may
 * even drop the work of a deactivated plugin). */
static void activate(LV2_Handle h)
{
    filter *f = h;
    response r;
    int built;
    f->asked = read_controls(f);
    f->in_flight = 0;
    built = build(f, &f->asked, NULL, NULL, &r) == 0;
    if (gl_runner_reset(&f->runner, built ? &r.h : NULL)) {
        /* no room kept for the plan it would replace: the old filter goes on,
         * and a worker is asked for the controls' again */
        lv2_log_error(&f->host.logger, "gfir filter: out of memory at activation\n");
        gl_handover_free(&r.h);
        f->asked.type = -1;
    }
    /* the plan replaced has no worker to go to */
    if (!f->host.schedule)
        gl_runner_empty_trash(&f->runner);
}

static void ask_design(filter *f)
{
    LV2_Worker_Schedule *s = f->host.schedule;
    const params p = read_controls(f);
    request q;
    if (f->in_flight || same_params(&p, &f->asked) || !gl_runner_settled(&f->runner))
        return;
    memset(&q, 0, sizeof q);
    q.p = p;
    q.plan = f->runner.plan;
    q.shape = f->runner.shape;
    q.generation = f->runner.generation;
    if (s->schedule_work(s->handle, sizeof q, &q) == LV2_WORKER_SUCCESS) {
        f->asked = p;
        f->in_flight = 1;
        gl_runner_asked(&f->runner);
    }
}

static LV2_Worker_Status work_response(LV2_Handle h, uint32_t size, const void *data);

static void run(LV2_Handle h, uint32_t frames)
{
    filter *f = h;
    gl_runner *r = &f->runner;
    if (f->host.schedule) {
        gl_mailbox_deliver(&f->mailbox, f, work_response);
        gl_runner_send_garbage(r, f->host.schedule);
        ask_design(f);
    }
    for (size_t done = 0; done < frames;) {
        const size_t n = frames - done < r->block ? frames - done : r->block;
        for (unsigned c = 0; c < f->channels; c++)
            for (size_t i = 0; i < n; i++)
                r->in[i * f->channels + c] = f->in[c][done + i];
        gl_runner_process(r, n);
        for (unsigned c = 0; c < f->channels; c++)
            for (size_t i = 0; i < n; i++)
                f->out[c][done + i] = r->wet[i * f->channels + c];
        done += n;
    }
    /* of the filter in force: a filter offered waits while a fade runs */
    if (f->latency_port)
        *f->latency_port = (float)r->latency;
}

static LV2_Worker_Status work(LV2_Handle h, LV2_Worker_Respond_Function respond,
                              LV2_Worker_Respond_Handle handle, uint32_t size, const void *data)
{
    filter *f = h;
    request q;
    response r;
    if (gl_runner_take_garbage(size, data))
        return LV2_WORKER_SUCCESS;
    if (size != sizeof q)
        return LV2_WORKER_ERR_UNKNOWN;
    memcpy(&q, data, sizeof q);
    /* a failure keeps the running filter; the response still comes, so
     * that the next change is asked for */
    memset(&r, 0, sizeof r);
    r.ok = !build(f, &q.p, q.plan, &q.shape, &r);
    r.h.generation = q.generation;
    if (gl_respond(&f->mailbox, respond, handle, sizeof r, &r) != LV2_WORKER_SUCCESS) {
        lv2_log_error(&f->host.logger, "gfir filter: the host refused two answers in a row; "
                                       "this design is lost\n");
        gl_handover_free(&r.h);
    }
    return LV2_WORKER_SUCCESS;
}

static LV2_Worker_Status work_response(LV2_Handle h, uint32_t size, const void *data)
{
    filter *f = h;
    response r;
    if (size != sizeof r)
        return LV2_WORKER_ERR_UNKNOWN;
    memcpy(&r, data, sizeof r);
    /* one asked before the last activate(), which designed the controls,
     * is thrown away */
    if (r.h.generation == f->runner.generation)
        f->in_flight = 0;
    gl_runner_answer(&f->runner, &r.h);
    return LV2_WORKER_SUCCESS;
}

static void cleanup(LV2_Handle h)
{
    filter *f = h;
    gl_runner_free(&f->runner);
    free(f);
}

static const void *extension_data(const char *uri)
{
    static const LV2_Worker_Interface worker = {work, work_response, NULL};
    return strcmp(uri, LV2_WORKER__interface) ? NULL : &worker;
}

const LV2_Descriptor gl_filter_mono = {GFIR_LV2_URI ":filter-mono", instantiate, connect_port,
                                       activate, run, NULL, cleanup, extension_data};
const LV2_Descriptor gl_filter_stereo = {GFIR_LV2_URI ":filter-stereo", instantiate,
                                         connect_port, activate, run, NULL, cleanup,
                                         extension_data};
