/*
 * convolver.c - the "gfir convolver" plugins (mono, mono to stereo, stereo,
 * 64 channels):
 * an impulse response from a file, set as the patch parameter <urn:gfir:lv2:ir>
 * (an atom:Path) on the control port, as eg-sampler sets its sample.
 *
 * The worker reads, resamples, conditions the IR and builds the filter
 * (ir.h, runner.h); run() only executes the plan, takes handovers and mixes
 * wet, dry and gain. The loaded path goes out on the notify port, and so do
 * failures (the old IR stays) and notes as <urn:gfir:lv2:status> strings.
 * The path is saved and restored with the host's state, through mapPath.
 * save() may run on any thread while run() goes on (the state extension):
 * it reads a copy of the path that only the worker and restore() write,
 * under a lock that run() and work_response never take. What the worker
 * writes there is what the audio thread tells it plays (WORK_PLAYS), once
 * it has taken a load's answer in or seen it fail: never a path it loaded
 * that an activate() or a failure kept from playing.
 */
#include "plugins.h"
#include "convolver.h"
#include "features.h"
#include "ir.h"
#include "mailbox.h"
#include "runner.h"

#include <lv2/atom/forge.h>
#include <lv2/atom/util.h>
#include <lv2/patch/patch.h>
#include <lv2/state/state.h>

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    PORT_CONTROL, PORT_NOTIFY, PORT_WET, PORT_DRY, PORT_GAIN, PORT_NORMALIZE, PORT_TRIM,
    PORT_BACKEND, PORT_LATENCY, PORT_AUDIO /* inputs, then outputs */
};
#define PATH_MAX_BYTES 4096
#define MESSAGE_BYTES 512
/* wet_db and dry_db at or below this: off */
#define GAIN_OFF_DB (-90.0f)

typedef struct conditioning {
    int normalize, backend;
    float trim_db;
} conditioning;

/* WORK_RESTORE: a restored path, sent back to the audio thread to load as a
 * patch:Set of it would be (restore); WORK_PLAYS: the path of the IR the
 * audio thread runs (or will, once its fade begins), for save(): no answer */
enum { WORK_LOAD, WORK_CONDITION, WORK_RESTORE, WORK_PLAYS };

/* a request, then for all but WORK_CONDITION path_bytes of path (with its NUL) */
typedef struct request {
    int kind;
    conditioning cond;
    gfir_plan *plan;            /* the running plan */
    gl_shape shape;
    uint32_t generation;        /* the runner's (runner.h) */
    uint32_t path_bytes;
} request;

/* a response, then path_bytes of the loaded path (of the path to load, for
 * WORK_RESTORE), then message_bytes */
typedef struct response {
    int kind;                   /* the request's */
    int ok;
    gl_handover h;              /* its generation: the request's */
    uint32_t path_bytes, message_bytes;
} response;

typedef struct uris {
    LV2_URID atom_Path, atom_String, atom_Object, atom_Sequence, atom_URID, atom_eventTransfer;
    LV2_URID patch_Set, patch_Get, patch_property, patch_value, ir, status;
} uris;

typedef struct convolver {
    unsigned inputs, outputs;
    double rate_hz;
    gl_features host;
    uris u;
    LV2_Atom_Forge forge;
    gl_runner runner;
    const LV2_Atom_Sequence *control;
    LV2_Atom_Sequence *notify;
    const float *controls[PORT_LATENCY];
    float *latency_port;
    const float *in[GL_MAX_CHANNELS];
    float *out[GL_MAX_CHANNELS];
    /* audio thread */
    char path[PATH_MAX_BYTES];  /* the IR running ("" none) */
    char wanted[PATH_MAX_BYTES];/* asked for by patch:Set, not yet sent to the worker */
    int want_load, in_flight, notify_path, loaded;
    int flight_kind;            /* the request in flight: its kind, its path */
    char flight[PATH_MAX_BYTES];
    int tell_state;             /* the worker is owed a WORK_PLAYS of path */
    /* the path wanted, or in flight, came from restore(): if it does not
     * load, save() keeps storing it (a session opened without its IR file
     * does not lose the reference), while the IR before it plays on */
    int want_restored, flight_restored;
    conditioning asked;         /* what the running IR was conditioned with
                                   (normalize -1: to be conditioned again) */
    char message[MESSAGE_BYTES];/* for the notify port ("" none) */
    uint64_t control_copy[PATH_MAX_BYTES / 8 + 64]; /* see aligned_control */
    /* worker */
    gl_ir ir;                   /* the file as read, at the host's rate */
    /* state: what save() stores ("" none): the path of the IR that plays
     * (WORK_PLAYS), or the one restore() read since (a host that saves a
     * session it has just opened, before any run()); never touched by the
     * audio thread */
    pthread_mutex_t state_lock;
    char state_path[PATH_MAX_BYTES];
    gl_mailbox mailbox;         /* an answer the host's queue refused, for run() */
} convolver;

/* The path save() stores, set by the worker or restore(). */
static void set_state_path(convolver *c, const char *path, size_t bytes)
{
    pthread_mutex_lock(&c->state_lock);
    memcpy(c->state_path, path, bytes);
    pthread_mutex_unlock(&c->state_lock);
}

static void map_uris(LV2_URID_Map *m, uris *u)
{
    u->atom_Path = m->map(m->handle, LV2_ATOM__Path);
    u->atom_String = m->map(m->handle, LV2_ATOM__String);
    u->atom_Object = m->map(m->handle, LV2_ATOM__Object);
    u->atom_Sequence = m->map(m->handle, LV2_ATOM__Sequence);
    u->atom_URID = m->map(m->handle, LV2_ATOM__URID);
    u->atom_eventTransfer = m->map(m->handle, LV2_ATOM__eventTransfer);
    u->patch_Set = m->map(m->handle, LV2_PATCH__Set);
    u->patch_Get = m->map(m->handle, LV2_PATCH__Get);
    u->patch_property = m->map(m->handle, LV2_PATCH__property);
    u->patch_value = m->map(m->handle, LV2_PATCH__value);
    u->ir = m->map(m->handle, GL_CONVOLVER_IR_URI);
    u->status = m->map(m->handle, GL_CONVOLVER_STATUS_URI);
}

static float control(const convolver *c, int port, float fallback)
{
    return c->controls[port] ? *c->controls[port] : fallback;
}

static conditioning read_conditioning(const convolver *c)
{
    conditioning k;
    const long n = lrintf(control(c, PORT_NORMALIZE, GFIR_NORMALIZE_PEAK));
    const long b = lrintf(control(c, PORT_BACKEND, GFIR_BACKEND_AUTO));
    k.normalize = n < 0 ? 0 : n > GFIR_NORMALIZE_ENERGY ? GFIR_NORMALIZE_ENERGY : (int)n;
    k.backend = b < 0 ? 0 : b > GFIR_BACKEND_CUDA ? GFIR_BACKEND_CUDA : (int)b;
    k.trim_db = control(c, PORT_TRIM, (float)GL_TRIM_OFF_DB);
    return k;
}

static int same_conditioning(const conditioning *a, const conditioning *b)
{
    return a->normalize == b->normalize && a->backend == b->backend && a->trim_db == b->trim_db;
}

/* Conditions ir and builds it against the running plan. */
static int build(convolver *c, const gl_ir *ir, const conditioning *k, gfir_plan *plan,
                 const gl_shape *shape, gl_handover *h, char *why, size_t why_size, char *note,
                 size_t note_size)
{
    float *taps;
    size_t ntaps;
    gl_shape want;
    int rc;
    if (gl_ir_condition(ir, c->inputs, c->outputs, k->trim_db, (gfir_normalize)k->normalize,
                        &taps, &ntaps, &want, why, why_size))
        return 1;
    want.backend = (gfir_backend)k->backend;
    rc = gl_build(&c->runner, &want, taps, ntaps, plan, shape, h, why, why_size, note,
                  note_size);
    free(taps);
    return rc;
}

/* The variants: the audio ports a side, by the URI's end (manifest.ttl.in). */
static const struct variant {
    const char *suffix;
    unsigned inputs, outputs;
} variants[] = {
    {":convolver-mono", 1, 1},
    {":convolver-mono-stereo", 1, 2},
    {":convolver-stereo", 2, 2},
    {":convolver-64", GL_MAX_CHANNELS, GL_MAX_CHANNELS},
};

static const struct variant *find_variant(const char *uri)
{
    const size_t prefix = strlen(GFIR_LV2_URI);
    if (strncmp(uri, GFIR_LV2_URI, prefix))
        return NULL;
    for (size_t i = 0; i < sizeof variants / sizeof *variants; i++)
        if (!strcmp(uri + prefix, variants[i].suffix))
            return &variants[i];
    return NULL;
}

static LV2_Handle instantiate(const LV2_Descriptor *d, double rate_hz, const char *bundle,
                              const LV2_Feature *const *features)
{
    const struct variant *v = find_variant(d->URI);
    convolver *c = v ? calloc(1, sizeof *c) : NULL;
    (void)bundle;
    if (!c)
        return NULL;
    gl_features_scan(features, &c->host);
    if (!c->host.map || !c->host.schedule) {
        lv2_log_error(&c->host.logger, "gfir convolver: the host offers no %s\n",
                      c->host.map ? "worker" : "URID map");
        free(c);
        return NULL;
    }
    c->inputs = v->inputs;
    c->outputs = v->outputs;
    c->rate_hz = rate_hz;
    gl_mailbox_init(&c->mailbox);
    c->asked = read_conditioning(c);
    map_uris(c->host.map, &c->u);
    lv2_atom_forge_init(&c->forge, c->host.map);
    if (pthread_mutex_init(&c->state_lock, NULL)) {
        free(c);
        return NULL;
    }
    if (gl_runner_init(&c->runner, c->inputs, c->outputs, gl_features_block(&c->host),
                       gl_fade_frames(rate_hz))) {
        pthread_mutex_destroy(&c->state_lock);
        free(c);
        return NULL;
    }
    return c;
}

static void connect_port(LV2_Handle h, uint32_t port, void *data)
{
    convolver *c = h;
    if (port == PORT_CONTROL)
        c->control = data;
    else if (port == PORT_NOTIFY)
        c->notify = data;
    else if (port < PORT_LATENCY)
        c->controls[port] = data;
    else if (port == PORT_LATENCY)
        c->latency_port = data;
    else if (port - PORT_AUDIO < c->inputs)
        c->in[port - PORT_AUDIO] = data;
    else if (port - PORT_AUDIO - c->inputs < c->outputs)
        c->out[port - PORT_AUDIO - c->inputs] = data;
}

/* A request made before may still be on the host's worker, or dropped
 * there (a host may drop the work of a plugin it deactivated): its answer,
 * of an older generation, is thrown away when it comes (work_response),
 * and the request is made again now, unless a newer patch:Set waits. */
static void activate(LV2_Handle h)
{
    convolver *c = h;
    if (c->in_flight && c->flight_kind == WORK_LOAD && !c->want_load) {
        memcpy(c->wanted, c->flight, sizeof c->wanted);
        c->want_load = 1;
        c->want_restored = c->flight_restored;
    } else if (c->in_flight && c->flight_kind == WORK_CONDITION) {
        c->asked.normalize = -1;
    }
    c->in_flight = 0;
    gl_runner_reset(&c->runner, NULL);
}

/* ---- the audio thread ----------------------------------------------------------- */

/* The control sequence where its events can be read: the host's buffer, or
 * a copy where the host's is not 64-bit aligned (jalv 1.6.6's are 4-byte
 * aligned), as long as the copy holds it (NULL when it does not). */
static const LV2_Atom_Sequence *aligned_control(convolver *c)
{
    size_t bytes;
    if (!c->control || ((uintptr_t)c->control & 7) == 0)
        return c->control;
    bytes = sizeof(LV2_Atom) + c->control->atom.size;
    if (bytes > sizeof c->control_copy)
        return NULL;
    memcpy(c->control_copy, c->control, bytes);
    return (const LV2_Atom_Sequence *)c->control_copy;
}

/* patch:Set of the IR's path, or patch:Get of it (the atom input). */
static void read_messages(convolver *c)
{
    const uris *u = &c->u;
    const LV2_Atom_Sequence *control = aligned_control(c);
    if (!control)
        return;
    LV2_ATOM_SEQUENCE_FOREACH (control, ev) {
        const LV2_Atom_Object *obj = (const LV2_Atom_Object *)&ev->body;
        const LV2_Atom *property = NULL, *value = NULL;
        if (ev->body.type != u->atom_Object)
            continue;
        lv2_atom_object_get(obj, u->patch_property, &property, u->patch_value, &value, 0);
        if (!property || property->type != u->atom_URID ||
            ((const LV2_Atom_URID *)property)->body != u->ir)
            continue;
        if (obj->body.otype == u->patch_Get) {
            c->notify_path = 1;
        } else if (obj->body.otype == u->patch_Set && value && value->type == u->atom_Path &&
                   value->size > 1 && value->size <= PATH_MAX_BYTES) {
            memcpy(c->wanted, LV2_ATOM_BODY_CONST(value), value->size);
            c->wanted[value->size - 1] = '\0';
            c->want_load = 1;
            c->want_restored = 0;
        }
    }
}

/* Sends q, then path (NULL: none), to the worker through s: 1 when the
 * host's queue took it. */
static int send_request(LV2_Worker_Schedule *s, const request *q, const char *path)
{
    struct {
        request q;
        char path[PATH_MAX_BYTES];
    } msg;
    msg.q = *q;
    msg.q.path_bytes = path ? (uint32_t)strlen(path) + 1 : 0;
    if (path)
        memcpy(msg.path, path, msg.q.path_bytes);
    return s->schedule_work(s->handle, (uint32_t)(sizeof msg.q + msg.q.path_bytes), &msg) ==
           LV2_WORKER_SUCCESS;
}

/* One request at a time, when the last one's result has been taken in: a
 * new file first, else new conditioning of the one loaded. */
static void schedule_request(convolver *c)
{
    request q;
    const conditioning k = read_conditioning(c);
    if (c->in_flight || !gl_runner_settled(&c->runner))
        return;
    if (!c->want_load && (!c->loaded || same_conditioning(&k, &c->asked)))
        return;
    memset(&q, 0, sizeof q);
    q.kind = c->want_load ? WORK_LOAD : WORK_CONDITION;
    q.cond = k;
    q.plan = c->runner.plan;
    q.shape = c->runner.shape;
    q.generation = c->runner.generation;
    if (send_request(c->host.schedule, &q, c->want_load ? c->wanted : NULL)) {
        gl_runner_asked(&c->runner);
        c->in_flight = 1;
        c->flight_kind = q.kind;
        if (c->want_load)
            memcpy(c->flight, c->wanted, sizeof c->flight);
        c->flight_restored = c->want_load && c->want_restored;
        c->want_load = c->want_restored = 0;
        c->asked = k;
    }
}

/* The path that plays, to the worker for save(): until the host's queue
 * takes it, a later run() tries again. */
static void tell_state(convolver *c)
{
    request q;
    memset(&q, 0, sizeof q);
    q.kind = WORK_PLAYS;
    if (c->tell_state && send_request(c->host.schedule, &q, c->path))
        c->tell_state = 0;
}

static float db_gain(float db, int may_be_off)
{
    return may_be_off && db <= GAIN_OFF_DB ? 0.0f : powf(10.0f, db / 20.0f);
}

static void mix(convolver *c, size_t done, size_t n, float wet, float dry, float gain)
{
    const gl_runner *r = &c->runner;
    for (unsigned o = 0; o < c->outputs; o++) {
        const unsigned from = c->inputs == c->outputs ? o : 0;
        for (size_t i = 0; i < n; i++)
            c->out[o][done + i] = gain * (wet * r->wet[i * c->outputs + o] +
                                          dry * r->in[i * c->inputs + from]);
    }
}

/* A patch:Set of property at frame 0, up to its value. */
static void begin_set(LV2_Atom_Forge *f, const uris *u, LV2_Atom_Forge_Frame *obj,
                      LV2_URID property)
{
    lv2_atom_forge_frame_time(f, 0);
    lv2_atom_forge_object(f, obj, 0, u->patch_Set);
    lv2_atom_forge_key(f, u->patch_property);
    lv2_atom_forge_urid(f, property);
    lv2_atom_forge_key(f, u->patch_value);
}

/* The path and the messages the audio thread owes the host, on notify. */
static void write_notify(convolver *c)
{
    const uris *u = &c->u;
    LV2_Atom_Forge *f = &c->forge;
    LV2_Atom_Forge_Frame seq, obj;
    if (!c->notify)
        return;
    lv2_atom_forge_set_buffer(f, (uint8_t *)c->notify, c->notify->atom.size);
    lv2_atom_forge_sequence_head(f, &seq, 0);
    if (c->notify_path && c->path[0]) {
        begin_set(f, u, &obj, u->ir);
        lv2_atom_forge_path(f, c->path, (uint32_t)strlen(c->path));
        lv2_atom_forge_pop(f, &obj);
    }
    c->notify_path = 0;
    if (c->message[0]) {
        begin_set(f, u, &obj, u->status);
        lv2_atom_forge_string(f, c->message, (uint32_t)strlen(c->message));
        lv2_atom_forge_pop(f, &obj);
        c->message[0] = '\0';
    }
    lv2_atom_forge_pop(f, &seq);
}

static LV2_Worker_Status work_response(LV2_Handle h, uint32_t size, const void *data);

static void run(LV2_Handle h, uint32_t frames)
{
    convolver *c = h;
    gl_runner *r = &c->runner;
    const float wet = db_gain(control(c, PORT_WET, 0), 1);
    const float dry = db_gain(control(c, PORT_DRY, GAIN_OFF_DB), 1);
    const float gain = db_gain(control(c, PORT_GAIN, 0), 0);
    gl_mailbox_deliver(&c->mailbox, c, work_response);
    read_messages(c);
    gl_runner_send_garbage(r, c->host.schedule);
    tell_state(c);
    schedule_request(c);
    for (size_t done = 0; done < frames;) {
        const size_t n = frames - done < r->block ? frames - done : r->block;
        for (unsigned i = 0; i < c->inputs; i++)
            for (size_t k = 0; k < n; k++)
                r->in[k * c->inputs + i] = c->in[i][done + k];
        gl_runner_process(r, n);
        mix(c, done, n, wet, dry, gain);
        done += n;
    }
    write_notify(c);
    if (c->latency_port)
        *c->latency_port = 0;
}

/* ---- the worker ------------------------------------------------------------------- */

/* Loads a file (or reconditions the one loaded) and builds its filter. On
 * success the file becomes the worker's IR. 0, or 1 with why. */
static int load(convolver *c, const char *path, const conditioning *k, gfir_plan *plan,
                const gl_shape *shape, gl_handover *h, char *why, size_t why_size, char *note,
                size_t note_size)
{
    gl_ir ir = {NULL, 0, 0};
    if (!path)
        return build(c, &c->ir, k, plan, shape, h, why, why_size, note, note_size);
    if (gl_ir_load(path, c->rate_hz, &ir, why, why_size))
        return 1;
    if (build(c, &ir, k, plan, shape, h, why, why_size, note, note_size)) {
        gl_ir_free(&ir);
        return 1;
    }
    gl_ir_free(&c->ir);
    c->ir = ir;
    return 0;
}

static LV2_Worker_Status work(LV2_Handle h, LV2_Worker_Respond_Function respond,
                              LV2_Worker_Respond_Handle handle, uint32_t size, const void *data)
{
    convolver *c = h;
    request q;
    struct {
        response r;
        char text[PATH_MAX_BYTES + MESSAGE_BYTES];
    } msg;
    char why[MESSAGE_BYTES], note[MESSAGE_BYTES];
    const char *path;
    if (gl_runner_take_garbage(size, data))
        return LV2_WORKER_SUCCESS;
    if (size < sizeof q)
        return LV2_WORKER_ERR_UNKNOWN;
    memcpy(&q, data, sizeof q);
    if (size != sizeof q + q.path_bytes || q.path_bytes > PATH_MAX_BYTES ||
        (q.kind != WORK_CONDITION && (q.path_bytes == 0 || ((const char *)data)[size - 1])))
        return LV2_WORKER_ERR_UNKNOWN;
    path = q.kind != WORK_CONDITION ? (const char *)data + sizeof q : NULL;
    memset(&msg.r, 0, sizeof msg.r);
    msg.r.kind = q.kind;
    if (q.kind == WORK_PLAYS) {
        set_state_path(c, path, q.path_bytes);
        return LV2_WORKER_SUCCESS;
    }
    if (q.kind == WORK_RESTORE) {
        msg.r.ok = 1;
        msg.r.path_bytes = q.path_bytes;
        msg.r.message_bytes = 1;
        memcpy(msg.text, path, q.path_bytes);
        msg.text[q.path_bytes] = '\0';
        return gl_respond(&c->mailbox, respond, handle,
                          (uint32_t)(sizeof msg.r + q.path_bytes + 1), &msg);
    }
    note[0] = '\0';
    msg.r.ok = !load(c, path, &q.cond, q.plan, &q.shape, &msg.r.h, why, sizeof why, note,
                     sizeof note);
    msg.r.h.generation = q.generation;
    if (!msg.r.ok)
        lv2_log_error(&c->host.logger, "gfir convolver: %s\n", why);
    else if (note[0])
        lv2_log_note(&c->host.logger, "gfir convolver: %s\n", note);
    if (msg.r.ok && path) {
        msg.r.path_bytes = q.path_bytes;
        memcpy(msg.text, path, q.path_bytes);
    }
    msg.r.message_bytes = (uint32_t)strlen(msg.r.ok ? note : why) + 1;
    memcpy(msg.text + msg.r.path_bytes, msg.r.ok ? note : why, msg.r.message_bytes);
    if (gl_respond(&c->mailbox, respond, handle,
                   (uint32_t)(sizeof msg.r + msg.r.path_bytes + msg.r.message_bytes),
                   &msg) != LV2_WORKER_SUCCESS) {
        lv2_log_error(&c->host.logger, "gfir convolver: the host refused two answers in a "
                                       "row; this load is lost\n");
        gl_handover_free(&msg.r.h);
    }
    return LV2_WORKER_SUCCESS;
}

static LV2_Worker_Status work_response(LV2_Handle h, uint32_t size, const void *data)
{
    convolver *c = h;
    response r;
    const char *text = (const char *)data + sizeof r;
    int taken;
    if (size < sizeof r)
        return LV2_WORKER_ERR_UNKNOWN;
    memcpy(&r, data, sizeof r);
    if (size != sizeof r + r.path_bytes + r.message_bytes || r.message_bytes > MESSAGE_BYTES ||
        r.path_bytes > PATH_MAX_BYTES)
        return LV2_WORKER_ERR_UNKNOWN;
    if (r.kind == WORK_RESTORE) {
        /* not the answer to the request in flight: a path to load next */
        memcpy(c->wanted, text, r.path_bytes);
        c->want_load = c->want_restored = 1;
        return LV2_WORKER_SUCCESS;
    }
    taken = !gl_runner_answer(&c->runner, &r.h);
    /* one asked for before the last activate(), built from the input
     * before it, is thrown away: activate() asked for it again */
    if (r.h.generation != c->runner.generation)
        return LV2_WORKER_SUCCESS;
    c->in_flight = 0;
    if (taken && r.path_bytes) {
        memcpy(c->path, text, r.path_bytes);
        c->loaded = c->notify_path = 1;
    }
    /* loaded or not, what plays is now known; a restored path that did not
     * load stays what save() stores */
    c->tell_state |= r.kind == WORK_LOAD && ((taken && r.path_bytes) || !c->flight_restored);
    memcpy(c->message, text + r.path_bytes, r.message_bytes);
    return LV2_WORKER_SUCCESS;
}

/* ---- state ------------------------------------------------------------------------ */

static const void *feature(const LV2_Feature *const *features, const char *uri)
{
    for (size_t i = 0; features && features[i]; i++)
        if (!strcmp(features[i]->URI, uri))
            return features[i]->data;
    return NULL;
}

static void free_path(const LV2_Feature *const *features, char *path)
{
    const LV2_State_Free_Path *fp = feature(features, LV2_STATE__freePath);
    if (fp)
        fp->free_path(fp->handle, path);
    else
        free(path);
}

static LV2_State_Status save(LV2_Handle h, LV2_State_Store_Function store,
                             LV2_State_Handle handle, uint32_t flags,
                             const LV2_Feature *const *features)
{
    convolver *c = h;
    const LV2_State_Map_Path *mp = feature(features, LV2_STATE__mapPath);
    char path[PATH_MAX_BYTES];
    char *abstract;
    LV2_State_Status st;
    (void)flags;
    pthread_mutex_lock(&c->state_lock);
    memcpy(path, c->state_path, sizeof path);
    pthread_mutex_unlock(&c->state_lock);
    if (!path[0])
        return LV2_STATE_SUCCESS;
    abstract = mp ? mp->abstract_path(mp->handle, path) : NULL;
    st = store(handle, c->u.ir, abstract ? abstract : path, strlen(abstract ? abstract : path) + 1,
               c->u.atom_Path, LV2_STATE_IS_POD | LV2_STATE_IS_PORTABLE);
    if (abstract)
        free_path(features, abstract);
    return st;
}

/* The saved IR, loaded as a patch:Set of it is: on the worker, after any
 * request already queued (a later restore wins over an earlier load), so
 * restore writes nothing the worker reads. With the host's worker schedule
 * among the features (state:threadSafeRestore: run() may go on meanwhile)
 * the path goes through that worker to work_response, in the audio thread;
 * without it the host runs neither run() nor work() during restore (the
 * state extension's Instantiation class), and restore leaves the path for
 * the next run(). The IR comes in at the first cycles after, with the
 * control values the host restored. */
static LV2_State_Status restore(LV2_Handle h, LV2_State_Retrieve_Function retrieve,
                                LV2_State_Handle handle, uint32_t flags,
                                const LV2_Feature *const *features)
{
    convolver *c = h;
    const LV2_State_Map_Path *mp = feature(features, LV2_STATE__mapPath);
    LV2_Worker_Schedule *s = (LV2_Worker_Schedule *)feature(features, LV2_WORKER__schedule);
    size_t size, bytes;
    uint32_t type, vflags;
    const char *value = retrieve(handle, c->u.ir, &size, &type, &vflags);
    request q;
    char *path, restored[PATH_MAX_BYTES];
    (void)flags;
    if (!value)
        return LV2_STATE_SUCCESS;
    if (type != c->u.atom_Path || size == 0 || value[size - 1])
        return LV2_STATE_ERR_BAD_TYPE;
    path = mp ? mp->absolute_path(mp->handle, value) : NULL;
    bytes = strlen(path ? path : value) + 1;
    if (bytes > PATH_MAX_BYTES) {
        lv2_log_error(&c->host.logger, "gfir convolver: restoring: path too long\n");
        if (path)
            free_path(features, path);
        return LV2_STATE_ERR_UNKNOWN;
    }
    memcpy(restored, path ? path : value, bytes);
    if (path)
        free_path(features, path);
    set_state_path(c, restored, bytes);
    if (!s) {
        memcpy(c->wanted, restored, bytes);
        c->want_load = c->want_restored = 1;
        return LV2_STATE_SUCCESS;
    }
    memset(&q, 0, sizeof q);
    q.kind = WORK_RESTORE;
    return send_request(s, &q, restored) ? LV2_STATE_SUCCESS : LV2_STATE_ERR_UNKNOWN;
}

static void cleanup(LV2_Handle h)
{
    convolver *c = h;
    gl_runner_free(&c->runner);
    gl_ir_free(&c->ir);
    pthread_mutex_destroy(&c->state_lock);
    free(c);
}

static const void *extension_data(const char *uri)
{
    static const LV2_Worker_Interface worker = {work, work_response, NULL};
    static const LV2_State_Interface state = {save, restore};
    if (!strcmp(uri, LV2_WORKER__interface))
        return &worker;
    if (!strcmp(uri, LV2_STATE__interface))
        return &state;
    return NULL;
}

#define CONVOLVER(name, uri) \
    const LV2_Descriptor name = {uri, instantiate, connect_port, activate, run, NULL, cleanup, \
                                 extension_data}
CONVOLVER(gl_convolver_mono, GFIR_LV2_URI ":convolver-mono");
CONVOLVER(gl_convolver_mono_stereo, GFIR_LV2_URI ":convolver-mono-stereo");
CONVOLVER(gl_convolver_stereo, GFIR_LV2_URI ":convolver-stereo");
CONVOLVER(gl_convolver_64, GFIR_LV2_URI ":convolver-64");
