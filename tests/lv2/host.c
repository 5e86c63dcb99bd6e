/*
 * host.c - the tests' LV2 host on liblilv (host.h).
 */
#include "host.h"

#include <lv2/atom/forge.h>
#include <lv2/atom/util.h>
#include <lv2/buf-size/buf-size.h>
#include <lv2/log/log.h>
#include <lv2/options/options.h>
#include <lv2/patch/patch.h>
#include <lv2/state/state.h>
#include <lv2/worker/worker.h>

#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void (*host_armed)(int on);

/* ---- URIDs ---------------------------------------------------------------------- */

static char *uris[4096];
static LV2_URID nuris;

static LV2_URID map_uri(LV2_URID_Map_Handle handle, const char *uri)
{
    (void)handle;
    for (LV2_URID i = 0; i < nuris; i++)
        if (!strcmp(uris[i], uri))
            return i + 1;
    if (nuris == sizeof uris / sizeof *uris)
        return 0;
    uris[nuris] = strdup(uri);
    return uris[nuris] ? ++nuris : 0;
}

static const char *unmap_uri(LV2_URID_Unmap_Handle handle, LV2_URID urid)
{
    (void)handle;
    return urid >= 1 && urid <= nuris ? uris[urid - 1] : NULL;
}

LV2_URID host_map(const char *uri)
{
    return map_uri(NULL, uri);
}

static LV2_URID_Map map = {NULL, map_uri};
static LV2_URID_Unmap unmap = {NULL, unmap_uri};

/* ---- the worker: fixed queues, so scheduling allocates nothing ------------------- */

enum { SLOTS = 32, SLOT_BYTES = 8192 };
typedef struct queue {
    uint32_t n, size[SLOTS];
    uint64_t data[SLOTS][SLOT_BYTES / 8];
} queue;
static queue requests, responses;

/* host_worker_thread: the queues under a lock, the work on a thread */
static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t queue_ready = PTHREAD_COND_INITIALIZER;
static pthread_t worker;
static int threaded, stopping;
static host *worker_host;

static LV2_Worker_Status push(queue *q, uint32_t size, const void *data)
{
    LV2_Worker_Status st = LV2_WORKER_SUCCESS;
    if (threaded)
        pthread_mutex_lock(&queue_lock);
    if (q->n == SLOTS || size > SLOT_BYTES) {
        st = LV2_WORKER_ERR_NO_SPACE;
    } else {
        q->size[q->n] = size;
        memcpy(q->data[q->n++], data, size);
    }
    if (threaded) {
        pthread_cond_signal(&queue_ready);
        pthread_mutex_unlock(&queue_lock);
    }
    return st;
}

static LV2_Worker_Status schedule(LV2_Worker_Schedule_Handle handle, uint32_t size,
                                  const void *data)
{
    (void)handle;
    return push(&requests, size, data);
}

/* host_refuse_responses: the next this many respond() calls fail */
static int refusing;

void host_refuse_responses(int n)
{
    refusing = n;
}

static LV2_Worker_Status respond(LV2_Worker_Respond_Handle handle, uint32_t size,
                                 const void *data)
{
    (void)handle;
    if (refusing > 0) {
        refusing--;
        return LV2_WORKER_ERR_NO_SPACE;
    }
    return push(&responses, size, data);
}

static LV2_Worker_Schedule schedule_feature = {NULL, schedule};

/* ---- the log -------------------------------------------------------------------- */

static host *logging;

static int log_vprintf(LV2_Log_Handle handle, LV2_URID type, const char *fmt, va_list ap)
{
    (void)handle;
    if (logging && type == map_uri(NULL, LV2_LOG__Error))
        logging->errors_logged++;
    if (getenv("GFIR_TEST_VERBOSE"))
        return vfprintf(stderr, fmt, ap);
    return 0;
}

static int log_printf(LV2_Log_Handle handle, LV2_URID type, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    const int n = log_vprintf(handle, type, fmt, ap);
    va_end(ap);
    return n;
}

static LV2_Log_Log log_feature = {NULL, log_printf, log_vprintf};

/* ---- opening ---------------------------------------------------------------------- */

int host_port(const host *h, const char *symbol)
{
    LilvNode *sym = lilv_new_string(h->world, symbol);
    const LilvPort *p = lilv_plugin_get_port_by_symbol(h->plugin, sym);
    lilv_node_free(sym);
    return p ? (int)lilv_port_get_index(h->plugin, p) : -1;
}

void *host_control(host *h)
{
    return (uint8_t *)h->control_atom + (h->misaligned_control ? 4 : 0);
}

static void empty_sequence(void *buf, uint32_t capacity)
{
    LV2_Atom_Sequence *seq = (LV2_Atom_Sequence *)buf;
    seq->atom.type = map_uri(NULL, LV2_ATOM__Sequence);
    seq->atom.size = capacity;
    seq->body.unit = 0;
    seq->body.pad = 0;
}

static void connect_ports(host *h)
{
    LilvNode *audio = lilv_new_uri(h->world, LV2_CORE__AudioPort);
    LilvNode *input = lilv_new_uri(h->world, LV2_CORE__InputPort);
    LilvNode *atom = lilv_new_uri(h->world, LV2_ATOM__AtomPort);
    const uint32_t n = lilv_plugin_get_num_ports(h->plugin);
    float mins[HOST_MAX_PORTS], maxs[HOST_MAX_PORTS];
    lilv_plugin_get_port_ranges_float(h->plugin, mins, maxs, h->controls);
    h->inputs = h->outputs = 0;
    for (uint32_t i = 0; i < n; i++) {
        const LilvPort *p = lilv_plugin_get_port_by_index(h->plugin, i);
        const int is_input = lilv_port_is_a(h->plugin, p, input);
        if (lilv_port_is_a(h->plugin, p, audio)) {
            if (is_input)
                h->audio_in[h->inputs++] = i;
            else
                h->audio_out[h->outputs++] = i;
        } else if (lilv_port_is_a(h->plugin, p, atom)) {
            lilv_instance_connect_port(h->instance, i,
                                       is_input ? host_control(h) : (void *)h->notify_atom);
        } else {
            lilv_instance_connect_port(h->instance, i, &h->controls[i]);
        }
    }
    empty_sequence(host_control(h), sizeof(LV2_Atom_Sequence_Body));
    lilv_node_free(audio);
    lilv_node_free(input);
    lilv_node_free(atom);
}

/* The plugin's audio inputs (input 1) or outputs (0). */
static unsigned count_audio(const host *h, int input)
{
    LilvNode *audio = lilv_new_uri(h->world, LV2_CORE__AudioPort);
    LilvNode *side = lilv_new_uri(h->world, input ? LV2_CORE__InputPort : LV2_CORE__OutputPort);
    const unsigned n = lilv_plugin_get_num_ports_of_class(h->plugin, audio, side, NULL);
    lilv_node_free(audio);
    lilv_node_free(side);
    return n;
}

/* The module stays loaded once opened (RTLD_NODELETE), as in a host that
 * runs for long: what a library inside it keeps for the whole process
 * (FFTW's planner, for one) is then still reachable at exit, where an
 * unloaded module would leave it to LeakSanitizer as lost. */
static void keep_loaded(const LilvPlugin *plugin)
{
    char *path = lilv_file_uri_parse(lilv_node_as_uri(lilv_plugin_get_library_uri(plugin)), NULL);
    void *module = path ? dlopen(path, RTLD_NOW | RTLD_NODELETE) : NULL;
    if (module)
        dlclose(module);
    lilv_free(path);
}

int host_without_worker;

int host_open(host *h, const char *uri, double rate_hz, int32_t max_block)
{
    static LV2_Options_Option options[3];
    static int32_t block;
    static LV2_Feature map_f = {LV2_URID__map, &map}, unmap_f = {LV2_URID__unmap, &unmap},
                       work_f = {LV2_WORKER__schedule, &schedule_feature},
                       log_f = {LV2_LOG__log, &log_feature},
                       options_f = {LV2_OPTIONS__options, options},
                       bounded_f = {LV2_BUF_SIZE__boundedBlockLength, NULL};
    static const LV2_Feature *features[] = {&map_f,     &unmap_f,   &work_f, &log_f,
                                            &options_f, &bounded_f, NULL};
    static const LV2_Feature *no_worker[] = {&map_f, &unmap_f, &log_f, &options_f, &bounded_f,
                                             NULL};
    LilvNode *u;
    memset(h, 0, sizeof *h);
    block = max_block;
    options[0] = (LV2_Options_Option){LV2_OPTIONS_INSTANCE, 0,
                                      map_uri(NULL, LV2_BUF_SIZE__maxBlockLength),
                                      sizeof block, map_uri(NULL, LV2_ATOM__Int), &block};
    options[1] = (LV2_Options_Option){LV2_OPTIONS_INSTANCE, 0,
                                      map_uri(NULL, LV2_BUF_SIZE__nominalBlockLength),
                                      sizeof block, map_uri(NULL, LV2_ATOM__Int), &block};
    h->rate_hz = rate_hz;
    h->max_block = max_block;
    h->world = lilv_world_new();
    lilv_world_load_all(h->world);
    u = lilv_new_uri(h->world, uri);
    h->plugin = lilv_plugins_get_by_uri(lilv_world_get_all_plugins(h->world), u);
    lilv_node_free(u);
    if (!h->plugin) {
        fprintf(stderr, "host: no plugin %s on LV2_PATH (%s)\n", uri, getenv("LV2_PATH"));
        return 1;
    }
    if (lilv_plugin_get_num_ports(h->plugin) > HOST_MAX_PORTS ||
        count_audio(h, 1) > HOST_MAX_AUDIO || count_audio(h, 0) > HOST_MAX_AUDIO) {
        fprintf(stderr, "host: %s has more ports than the host takes\n", uri);
        return 1;
    }
    logging = h;
    keep_loaded(h->plugin);
    h->instance =
        lilv_plugin_instantiate(h->plugin, rate_hz, host_without_worker ? no_worker : features);
    if (!h->instance) {
        fprintf(stderr, "host: %s did not instantiate\n", uri);
        return 1;
    }
    connect_ports(h);
    lilv_instance_activate(h->instance);
    return 0;
}

/* What a host owes the plugin before it frees it: the work it took done, and
 * the responses delivered (the worker extension's promise), so that what
 * they hold (a plan, garbage to free) reaches the plugin. */
static void settle(host *h)
{
    const LV2_Worker_Interface *w =
        lilv_instance_get_extension_data(h->instance, LV2_WORKER__interface);
    host_work(h);
    for (uint32_t i = 0; w && i < responses.n; i++)
        w->work_response(lilv_instance_get_handle(h->instance), responses.size[i],
                         responses.data[i]);
    responses.n = 0;
}

void host_close(host *h)
{
    host_worker_thread(h, 0);
    if (h->instance) {
        settle(h);
        lilv_instance_deactivate(h->instance);
        lilv_instance_free(h->instance);
    }
    if (h->world)
        lilv_world_free(h->world);
    memset(h, 0, sizeof *h);
    requests.n = responses.n = 0;
}

/* ---- messages -------------------------------------------------------------------- */

void host_set_ir(host *h, const char *path)
{
    host_set_path(h, "urn:gfir:lv2:ir", path);
}

void host_set_path(host *h, const char *property, const char *path)
{
    LV2_Atom_Forge forge;
    LV2_Atom_Forge_Frame seq, obj;
    lv2_atom_forge_init(&forge, &map);
    lv2_atom_forge_set_buffer(&forge, host_control(h), sizeof h->control_atom - 8);
    lv2_atom_forge_sequence_head(&forge, &seq, 0);
    lv2_atom_forge_frame_time(&forge, 0);
    lv2_atom_forge_object(&forge, &obj, 0, map_uri(NULL, LV2_PATCH__Set));
    lv2_atom_forge_key(&forge, map_uri(NULL, LV2_PATCH__property));
    lv2_atom_forge_urid(&forge, map_uri(NULL, property));
    lv2_atom_forge_key(&forge, map_uri(NULL, LV2_PATCH__value));
    lv2_atom_forge_path(&forge, path, (uint32_t)strlen(path));
    lv2_atom_forge_pop(&forge, &obj);
    lv2_atom_forge_pop(&forge, &seq);
}

static void read_notify(host *h)
{
    const LV2_Atom_Sequence *seq = (const LV2_Atom_Sequence *)h->notify_atom;
    LV2_ATOM_SEQUENCE_FOREACH (seq, ev) {
        const LV2_Atom *property = NULL, *value = NULL;
        if (ev->body.type != map_uri(NULL, LV2_ATOM__Object))
            continue;
        lv2_atom_object_get((const LV2_Atom_Object *)&ev->body,
                            map_uri(NULL, LV2_PATCH__property), &property,
                            map_uri(NULL, LV2_PATCH__value), &value, 0);
        if (!property || !value || property->type != map_uri(NULL, LV2_ATOM__URID))
            continue;
        const LV2_URID key = ((const LV2_Atom_URID *)property)->body;
        char *into = key == map_uri(NULL, "urn:gfir:lv2:ir") ? h->notified_path
                     : key == map_uri(NULL, "urn:gfir:lv2:status") ? h->notified_status
                                                                     : NULL;
        const size_t cap = into == h->notified_path ? sizeof h->notified_path
                                                    : sizeof h->notified_status;
        if (into)
            snprintf(into, cap, "%.*s", (int)value->size, (const char *)LV2_ATOM_BODY_CONST(value));
    }
}

void host_cycle(host *h, float *const *in, float *const *out, uint32_t frames)
{
    const LV2_Worker_Interface *w =
        lilv_instance_get_extension_data(h->instance, LV2_WORKER__interface);
    for (unsigned c = 0; c < h->inputs; c++)
        lilv_instance_connect_port(h->instance, h->audio_in[c], in[c]);
    for (unsigned c = 0; c < h->outputs; c++)
        lilv_instance_connect_port(h->instance, h->audio_out[c], out[c]);
    if (host_port(h, "control") >= 0)
        lilv_instance_connect_port(h->instance, (uint32_t)host_port(h, "control"),
                                   host_control(h));
    empty_sequence(h->notify_atom, sizeof h->notify_atom - sizeof(LV2_Atom));
    if (host_armed)
        host_armed(1);
    if (threaded)
        pthread_mutex_lock(&queue_lock);
    h->delivered = h->hold_responses ? 0 : responses.n;
    for (uint32_t i = 0; w && i < h->delivered; i++)
        w->work_response(lilv_instance_get_handle(h->instance), responses.size[i],
                         responses.data[i]);
    if (!h->hold_responses)
        responses.n = 0;
    if (threaded)
        pthread_mutex_unlock(&queue_lock);
    lilv_instance_run(h->instance, frames);
    if (host_armed)
        host_armed(0);
    read_notify(h);
    empty_sequence(host_control(h), sizeof(LV2_Atom_Sequence_Body));
    if (!h->hold_work && !threaded)
        host_work(h);
}

void host_cycle_at(host *h, float *const *x, float *const *y, size_t at, uint32_t frames)
{
    float *in[HOST_MAX_AUDIO], *out[HOST_MAX_AUDIO];
    for (unsigned c = 0; c < h->inputs; c++)
        in[c] = x[c] + at;
    for (unsigned c = 0; c < h->outputs; c++)
        out[c] = y[c] + at;
    host_cycle(h, in, out, frames);
}

int host_set_control(host *h, const char *symbol, float value)
{
    const int port = host_port(h, symbol);
    if (port < 0)
        return -1;
    h->controls[port] = value;
    return 0;
}

static void *work_thread(void *arg)
{
    static queue batch;
    const LV2_Worker_Interface *w =
        lilv_instance_get_extension_data(worker_host->instance, LV2_WORKER__interface);
    (void)arg;
    for (;;) {
        pthread_mutex_lock(&queue_lock);
        while (!requests.n && !stopping)
            pthread_cond_wait(&queue_ready, &queue_lock);
        if (stopping) {
            pthread_mutex_unlock(&queue_lock);
            return NULL;
        }
        batch = requests;
        requests.n = 0;
        pthread_mutex_unlock(&queue_lock);
        for (uint32_t i = 0; w && i < batch.n; i++)
            w->work(lilv_instance_get_handle(worker_host->instance), respond, NULL,
                    batch.size[i], batch.data[i]);
    }
}

int host_worker_thread(host *h, int on)
{
    if (on && !threaded) {
        worker_host = h;
        stopping = 0;
        threaded = 1;
        if (pthread_create(&worker, NULL, work_thread, NULL)) {
            threaded = 0;
            return 1;
        }
    } else if (!on && threaded) {
        pthread_mutex_lock(&queue_lock);
        stopping = 1;
        pthread_cond_signal(&queue_ready);
        pthread_mutex_unlock(&queue_lock);
        pthread_join(worker, NULL);
        threaded = 0;
    }
    return 0;
}

void host_work(host *h)
{
    const LV2_Worker_Interface *w =
        lilv_instance_get_extension_data(h->instance, LV2_WORKER__interface);
    if (threaded) /* the worker's thread does it, and work() is never run twice at once */
        return;
    for (uint32_t i = 0; w && i < requests.n; i++)
        w->work(lilv_instance_get_handle(h->instance), respond, NULL, requests.size[i],
                requests.data[i]);
    requests.n = 0;
}

void host_drop_work(host *h)
{
    (void)h;
    if (!threaded)
        requests.n = 0;
}

/* ---- state ------------------------------------------------------------------------ */

static const void *port_value(const char *symbol, void *data, uint32_t *size, uint32_t *type)
{
    host *h = data;
    const int i = host_port(h, symbol);
    *size = sizeof(float);
    *type = map_uri(NULL, LV2_ATOM__Float);
    return i >= 0 ? &h->controls[i] : NULL;
}

static void set_port_value(const char *symbol, void *data, const void *value, uint32_t size,
                           uint32_t type)
{
    host *h = data;
    const int i = host_port(h, symbol);
    if (i >= 0 && size == sizeof(float) && type == map_uri(NULL, LV2_ATOM__Float))
        h->controls[i] = *(const float *)value;
}

static LV2_Feature map_f = {LV2_URID__map, &map};

int host_save(host *h, const char *dir)
{
    static const LV2_Feature *features[] = {&map_f, NULL};
    LilvState *saved = lilv_state_new_from_instance(h->plugin, h->instance, &map, NULL, dir, dir,
                                                    dir, port_value, h, 0, features);
    const int failed = !saved || lilv_state_save(h->world, &map, &unmap, saved, NULL, dir,
                                                 "state.ttl");
    lilv_state_free(saved);
    return failed;
}

int host_restore(host *h, const char *dir, int thread_safe)
{
    static LV2_Worker_Schedule state_schedule = {NULL, schedule};
    static LV2_Feature work_f = {LV2_WORKER__schedule, &state_schedule};
    static const LV2_Feature *plain[] = {&map_f, NULL}, *safe[] = {&map_f, &work_f, NULL};
    char file[4200];
    snprintf(file, sizeof file, "%s/state.ttl", dir);
    LilvState *loaded = lilv_state_new_from_file(h->world, &map, NULL, file);
    if (!loaded)
        return 1;
    lilv_state_restore(loaded, h->instance, set_port_value, h, 0, thread_safe ? safe : plain);
    lilv_state_free(loaded);
    return 0;
}

typedef struct saved_value {
    LV2_URID key;
    char *value;
    size_t size;
} saved_value;

static LV2_State_Status store_value(LV2_State_Handle handle, uint32_t key, const void *value,
                                    size_t size, uint32_t type, uint32_t flags)
{
    saved_value *s = handle;
    (void)type, (void)flags;
    if (key == s->key)
        snprintf(s->value, s->size, "%.*s", (int)size, (const char *)value);
    return LV2_STATE_SUCCESS;
}

int host_saved(host *h, const char *uri, char *value, size_t size)
{
    const LV2_State_Interface *state =
        lilv_instance_get_extension_data(h->instance, LV2_STATE__interface);
    static const LV2_Feature *const none[] = {NULL};
    saved_value s = {map_uri(NULL, uri), value, size};
    value[0] = '\0';
    return !state || state->save(lilv_instance_get_handle(h->instance), store_value, &s, 0,
                                 none) != LV2_STATE_SUCCESS;
}

int host_save_restore(host *h, const char *dir, host *fresh)
{
    return host_save(h, dir) ||
           host_open(fresh, lilv_node_as_uri(lilv_plugin_get_uri(h->plugin)), h->rate_hz,
                     h->max_block) ||
           host_restore(fresh, dir, 0);
}
