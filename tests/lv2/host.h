/*
 * host.h - a small LV2 host on liblilv for the tests: the URID map, a worker
 * whose work runs between two cycles (never inside run()), the options
 * (block lengths), a log that keeps the last message, ports, patch:Set of a
 * path, and what comes back on the notify port.
 */
#ifndef GFIR_TEST_LV2_HOST_H
#define GFIR_TEST_LV2_HOST_H

#include <lilv/lilv.h>
#include <lv2/atom/atom.h>
#include <lv2/urid/urid.h>

#include <stddef.h>
#include <stdint.h>

#define HOST_MAX_PORTS 256
#define HOST_MAX_AUDIO 64   /* audio ports a side (gfir convolver-64) */
#define HOST_ATOM_BYTES 16384

typedef struct host {
    LilvWorld *world;
    const LilvPlugin *plugin;
    LilvInstance *instance;
    double rate_hz;
    int32_t max_block;
    unsigned inputs, outputs;           /* audio ports */
    uint32_t audio_in[HOST_MAX_AUDIO], audio_out[HOST_MAX_AUDIO]; /* their indices */
    float controls[HOST_MAX_PORTS];
    uint64_t control_atom[HOST_ATOM_BYTES / 8], notify_atom[HOST_ATOM_BYTES / 8];
    int misaligned_control;             /* 1: the control sequence 4 bytes off 64-bit
                                           alignment, as jalv 1.6.6 hands it */
    char notified_path[4096];           /* the last patch:Set of the IR on notify */
    char notified_status[1024];         /* the last status string on notify */
    int errors_logged;
    unsigned delivered;                 /* work responses the last cycle delivered */
    int hold_work;                      /* 1: cycles leave the work they schedule queued */
    int hold_responses;                 /* 1: cycles leave the work's responses queued */
} host;

/* 1: host_open offers the plugin no worker (work:schedule), as lv2apply and
 * GStreamer's wrapper offer none. */
extern int host_without_worker;

/* Loads the bundle from LV2_PATH and instantiates uri at rate_hz with
 * blocks of up to max_block frames; ports connected, controls at their
 * defaults, activated. Returns 0, or 1 (with a message on stderr). */
int host_open(host *h, const char *uri, double rate_hz, int32_t max_block);

/* Stops the worker's thread, does the work still queued and delivers its
 * responses (as the worker extension promises the plugin), then frees the
 * instance. */
void host_close(host *h);

/* The port index of symbol, or -1. */
int host_port(const host *h, const char *symbol);

/* The control sequence as the plugin sees it. */
void *host_control(host *h);

/* Queues a patch:Set of the convolver's IR to path for the next cycle. */
void host_set_ir(host *h, const char *path);

/* The same for any plugin's path parameter (tools/lv2_bench's peers). */
void host_set_path(host *h, const char *property, const char *path);

/* One cycle: work responses delivered, run() of frames frames from the
 * planar inputs to the planar outputs (pointers per channel), then the
 * work it scheduled done. The run and the responses happen between
 * host_armed(1) and host_armed(0) when hooks are set. */
void host_cycle(host *h, float *const *in, float *const *out, uint32_t frames);

/* host_cycle of frames frames from frame at of whole planar signals x and y
 * (one per audio port). */
void host_cycle_at(host *h, float *const *x, float *const *y, size_t at, uint32_t frames);

/* Sets the control port symbol to value; 0, or -1 where there is none. */
int host_set_control(host *h, const char *symbol, float value);

/* Does the work queued so far (what cycles left while hold_work was set);
 * nothing while the worker's thread runs (host_worker_thread). */
void host_work(host *h);

/* The next n respond() calls fail (LV2_WORKER_ERR_NO_SPACE), as a host's
 * full response queue does. */
void host_refuse_responses(int n);

/* Forgets the work queued so far, undone, as a host may drop the work of a
 * plugin it deactivates (not while the worker's thread runs). */
void host_drop_work(host *h);

/* on: the work from now on runs on a thread of its own, as in jalv, as soon
 * as it is scheduled, its responses delivered at the start of a later
 * cycle; off (and host_close): that thread is stopped. 0 on success. */
int host_worker_thread(host *h, int on);

/* Called around the real-time part of each cycle (NULL: none). */
extern void (*host_armed)(int on);

/* Saves the instance's state (its controls and the plugin's own) into
 * dir/state.ttl. 0 on success. */
int host_save(host *h, const char *dir);

/* Restores dir/state.ttl into h's instance, as a host restores a session:
 * the plugin's state, then the controls. thread_safe: as hosts do for
 * plugins with state:threadSafeRestore, restore gets a worker schedule of its
 * own, whose work goes into the same queue as run()'s (after what waits
 * there). 0 on success. */
int host_restore(host *h, const char *dir, int thread_safe);

/* What the plugin's save() stores now under the property uri, as a string
 * into value (size bytes; "" where it stores nothing), without mapPath:
 * paths as they are. 0 on success. */
int host_saved(host *h, const char *uri, char *value, size_t size);

/* Saves the instance's state into dir, restores it into a fresh instance of
 * the same plugin in *fresh (opened as host_open does). 0 on success. */
int host_save_restore(host *h, const char *dir, host *fresh);

LV2_URID host_map(const char *uri);

#endif
