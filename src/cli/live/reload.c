/*
 * reload.c - the reload thread (reload.h).
 *
 * It sleeps in poll() on an inotify descriptor and a pipe. The inotify
 * watches are on the directories of the filter's files, not on the files:
 * editors that save by writing a new file and renaming it over the old one
 * replace the inode a file watch would follow, and a directory sees both
 * that (IN_MOVED_TO) and a plain write (IN_CLOSE_WRITE, once the writer is
 * done). The pipe carries SIGHUP (its handler writes a byte) and the stop.
 * A change is acted on once the files have been quiet for QUIET_S, so that
 * a save that touches several files, or twice, makes one reload.
 *
 * Messages from the design (a preset's syntax, a missing file) are caught
 * on this thread (cli_message_redirect) and said in the one line that
 * reports the failed reload.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include "live/reload.h"
#include "chain.h"
#include "filter/filter.h"
#include "message.h"
#include "progress.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef __linux__
#include <sys/inotify.h>
#endif

/* Files quiet this long after a change before it is read: a save is done. */
#define QUIET_S 0.1
/* How often the thread looks for what the worker gave up, when idle. */
#define COLLECT_MS 100
/* While the worker has a change to take, how often to look whether it has. */
#define TAKEN_MS 10
/* A change the worker has not taken after this long waits for the one
 * before it to take over (a crossfade, a new plan filling its history):
 * one line says so. */
#define WAIT_NOTE_S 1.0

typedef struct watched {
    int wd;                     /* the directory's watch */
    char *name;                 /* the file's name in it */
    char *path;                 /* as the filter names it, for messages */
} watched;

struct live_reload {
    const cli_options *o;
    cli_filter *filter;         /* the options as last loaded: what is watched */
    double rate;
    unsigned channels;
    size_t block;
    size_t crossfade_frames;
    gfir_plan *plan;            /* the newest plan: new filters are made for it */
    unsigned plan_sets;         /* its tap sets */
    gfir_path *plan_paths;      /* its paths (NULL: sets by channel), npaths of them */
    size_t plan_npaths;
    unsigned outputs;           /* the stream's output channels: every filter's */
    int inotify;                /* -1: none */
    watched *files;
    size_t nfiles;
    int wake[2];                /* SIGHUP and the stop write here */
    pthread_t thread;
    int running;
    reload_change change;       /* what `ready` points at while published */
    char what[PATH_MAX + 64];   /* what made the change handed over, for its lines */
    char next_what[PATH_MAX + 64]; /* what made the reload still to come: the first
                                   event since the last reload began */
    double published_at;        /* when the change was handed over */
    int wait_said;              /* the line that it waits was printed */
    int took_plan;              /* the last change taken was a plan of its own ... */
    size_t took_ntaps;          /* ... of this many taps */
    size_t new_ntaps;
    size_t delay, new_delay;    /* the filter's delay (filter.h), running and coming */
    int new_plan;
    _Atomic(const reload_change *) ready;
    _Atomic(gfir_plan *) retired_plan;
    atomic_int status;          /* the worker's swap status for the change it took */
    atomic_int stop;
    struct sigaction old_hup;
};

static int hup_fd = -1;

static void on_hup(int sig)
{
    const int saved = errno;
    (void)sig;
    if (hup_fd >= 0 && write(hup_fd, "h", 1) < 0) {
        /* a full pipe has a reload pending already */
    }
    errno = saved;
}

/* ---- the worker's side ------------------------------------------------------ */

const reload_change *reload_pending(live_reload *r)
{
    return r ? atomic_load_explicit(&r->ready, memory_order_acquire) : NULL;
}

void reload_taken(live_reload *r, gfir_status status)
{
    atomic_store_explicit(&r->status, status, memory_order_relaxed);
    atomic_store_explicit(&r->ready, NULL, memory_order_release);
}

int reload_can_retire(live_reload *r)
{
    return atomic_load_explicit(&r->retired_plan, memory_order_acquire) == NULL;
}

void reload_retire(live_reload *r, gfir_plan *plan)
{
    atomic_store_explicit(&r->retired_plan, plan, memory_order_release);
}

/* ---- what is watched ---------------------------------------------------------- */

static void forget_files(live_reload *r)
{
    for (size_t i = 0; i < r->nfiles; i++) {
        free(r->files[i].name);
        free(r->files[i].path);
    }
    free(r->files);
    r->files = NULL;
    r->nfiles = 0;
}

/* Watches path's directory for it. Directories watched before keep their
 * watch (inotify gives the same descriptor again); a file that left the
 * filter only leaves events nobody matches. */
static void watch_file(live_reload *r, const char *path)
{
#ifdef __linux__
    const char *slash = strrchr(path, '/');
    char dir[PATH_MAX];
    watched *w;
    int wd;
    if (r->inotify < 0)
        return;
    for (size_t i = 0; i < r->nfiles; i++)
        if (!strcmp(r->files[i].path, path))
            return;
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == path)
        snprintf(dir, sizeof dir, "/");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    wd = inotify_add_watch(r->inotify, dir, IN_CLOSE_WRITE | IN_MOVED_TO);
    if (wd < 0) {
        cli_note(r->o->quiet, "cannot watch %s for changes (%s); SIGHUP reloads it", dir,
                 strerror(errno));
        return;
    }
    w = realloc(r->files, (r->nfiles + 1) * sizeof *w);
    if (!w)
        return;
    r->files = w;
    w[r->nfiles].wd = wd;
    w[r->nfiles].name = strdup(slash ? slash + 1 : path);
    w[r->nfiles].path = strdup(path);
    if (w[r->nfiles].name && w[r->nfiles].path)
        r->nfiles++;
    else {
        free(w[r->nfiles].name);
        free(w[r->nfiles].path);
    }
#else
    (void)r;
    (void)path;
#endif
}

/* Every preset and file of the filter's stages: an IR list's files, a
 * route's IRs. */
static void watch_filter(live_reload *r, const cli_filter *f)
{
    forget_files(r);
    for (size_t i = 0; i < f->chain.nstages; i++) {
        const cli_stage *s = &f->chain.stages[i];
        if (s->preset_path)
            watch_file(r, s->preset_path);
        if (s->path && s->kind != STAGE_IR)
            watch_file(r, s->path);
        for (size_t k = 0; k < s->nfiles; k++)
            watch_file(r, s->files[k]);
        for (size_t t = 0; t < s->nterms; t++)
            if (s->terms[t].file)
                watch_file(r, s->terms[t].file);
    }
}

/* Reads what inotify has; records the first watched file that changed in
 * r->next_what, unless an event came first. 1 when one of them did. */
static int read_changes(live_reload *r)
{
    int hit = 0;
#ifdef __linux__
    char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
    ssize_t len;
    while ((len = read(r->inotify, buf, sizeof buf)) > 0)
        for (char *p = buf; p < buf + len;) {
            const struct inotify_event *e = (const struct inotify_event *)p;
            p += sizeof *e + e->len;
            for (size_t i = 0; e->len && i < r->nfiles; i++)
                if (r->files[i].wd == e->wd && !strcmp(r->files[i].name, e->name)) {
                    if (!hit && !r->next_what[0])
                        snprintf(r->next_what, sizeof r->next_what, "%s changed",
                                 r->files[i].path);
                    hit = 1;
                }
        }
#else
    (void)r;
#endif
    return hit;
}

/* ---- a reload ------------------------------------------------------------------- */

/* Keeps the last message of a failed step, for the one line about it. */
static void keep_message(void *ctx, const char *message)
{
    snprintf(ctx, 512, "%s", message);
}

/* The design's taps as the running plan takes them: its number of tap
 * sets (a mono design copied to each). NULL without memory. */
static float *taps_for_plan(const cli_design *d, unsigned sets)
{
    float *taps = malloc((size_t)sets * d->ntaps * sizeof *taps);
    if (taps)
        for (unsigned s = 0; s < sets; s++)
            memcpy(taps + s * d->ntaps, d->taps + (d->filter_channels == 1 ? 0 : s) * d->ntaps,
                   d->ntaps * sizeof *taps);
    return taps;
}

/* The plan's layout, kept to hold reloads to: the paths a swap keeps. 1
 * after a message without memory. */
static int keep_layout(live_reload *r, const cli_design *d)
{
    gfir_path *paths = NULL;
    if (d->paths && !(paths = malloc(d->npaths * sizeof *paths)))
        return cli_error("out of memory");
    if (paths)
        memcpy(paths, d->paths, d->npaths * sizeof *paths);
    free(r->plan_paths);
    r->plan_paths = paths;
    r->plan_npaths = d->npaths;
    r->plan_sets = d->filter_channels;
    return 0;
}

/* Whether d's tap sets meet the channels as the plan's do, so that a swap,
 * which keeps the plan's paths, gives d. */
static int same_layout(const live_reload *r, const cli_design *d)
{
    if (!d->paths || !r->plan_paths)
        return !d->paths && !r->plan_paths &&
               (d->filter_channels == 1 || d->filter_channels == r->plan_sets);
    return d->filter_channels == r->plan_sets && d->npaths == r->plan_npaths &&
           !memcmp(d->paths, r->plan_paths, d->npaths * sizeof *d->paths);
}

/* The change for design d: a filter for the running plan when it fits,
 * else a plan of its own. 1 after a message on failure. */
static int make_change(live_reload *r, const cli_design *d)
{
    memset(&r->change, 0, sizeof r->change);
    if (d->outputs != r->outputs)
        return cli_error("it routes to %u output channel%s, and the stream plays %u", d->outputs,
                         d->outputs == 1 ? "" : "s", r->outputs);
    r->new_ntaps = d->ntaps;
    r->new_delay = d->delay_frames;
    /* in the plan's layout the library says whether the filter fits the
     * running plan (gfir_filter_create refuses a longer one with
     * GFIR_ERR_TAPS); one that does not, or another layout, gets a plan of
     * its own */
    r->new_plan = !same_layout(r, d);
    if (!r->new_plan) {
        float *taps = taps_for_plan(d, r->plan_sets);
        gfir_status st;
        if (!taps)
            return cli_error("out of memory for %zu taps", d->ntaps);
        st = gfir_filter_create(&r->change.filter, r->plan, taps, d->ntaps);
        free(taps);
        if (st == GFIR_OK)
            return 0;
        if (st != GFIR_ERR_TAPS)
            return cli_error("%s", gfir_plan_error_detail(NULL));
        r->new_plan = 1;
    }
    if (cli_live_plan(r->o, d, r->block, &r->change.plan))
        return 1;
    if (keep_layout(r, d)) {
        gfir_plan_destroy(r->change.plan);
        r->change.plan = NULL;
        return 1;
    }
    r->plan = r->change.plan;
    return 0;
}

/* Designs the filter anew and hands it to the worker; on failure one line,
 * and the old filter plays on. */
static void reload(live_reload *r)
{
    char why[512] = "";
    const cli_message_sink sink = {keep_message, why};
    cli_filter *g;
    cli_design d;
    int failed;

    cli_message_redirect(&sink);
    g = cli_filter_renew(r->filter);
    failed = !g || cli_design_build(g, r->rate, r->channels, 1, &d);
    if (!failed) {
        failed = make_change(r, &d);
        cli_design_free(&d);
    }
    cli_message_redirect(NULL);
    if (failed) {
        cli_error("%s, but the filter cannot be reloaded: %s; the old one keeps playing",
                  r->what, why[0] ? why : "unknown reason");
        cli_filter_free(g);
        return;
    }
    watch_filter(r, g);
    cli_filter_free(r->filter);
    r->filter = g;
    atomic_store_explicit(&r->ready, &r->change, memory_order_release);
}

/* The worker took the change: say so, or free a filter it refused. */
static void report_taken(live_reload *r)
{
    const gfir_status st = atomic_load_explicit(&r->status, memory_order_relaxed);
    char delay[64] = "";
    if (st != GFIR_OK) {
        cli_error("%s, but the new filter could not be swapped in: %s", r->what,
                  gfir_strerror(st));
        gfir_filter_destroy(r->change.filter);
        return;
    }
    if (r->new_delay != r->delay)
        snprintf(delay, sizeof delay, ", filter delay now %.1f ms",
                 1000.0 * (double)r->new_delay / r->rate);
    r->delay = r->new_delay;
    r->took_plan = r->new_plan;
    r->took_ntaps = r->new_ntaps;
    cli_note(r->o->quiet, "%s: reloaded the filter (%zu taps%s%s), crossfade %.0f ms", r->what,
             r->new_ntaps, r->new_plan ? ", in a plan of its own" : "", delay,
             r->o->crossfade_ms);
}

/* One line when a change waits for the one before it to take over. */
static void report_waiting(live_reload *r)
{
    if (r->wait_said || progress_now() - r->published_at < WAIT_NOTE_S)
        return;
    r->wait_said = 1;
    if (r->took_plan)
        cli_note(r->o->quiet, "%s: the new filter waits until the one before it takes over "
                 "(its plan of %zu taps fills %.1f s of history, then crossfades over %.0f ms)",
                 r->what, r->took_ntaps, (double)r->took_ntaps / r->rate, r->o->crossfade_ms);
    else
        cli_note(r->o->quiet, "%s: the new filter waits until the crossfade to the one before "
                 "it ends (%.0f ms)", r->what, r->o->crossfade_ms);
}

/* Frees what the worker gave up. */
static void collect(live_reload *r)
{
    gfir_plan *old = atomic_exchange_explicit(&r->retired_plan, NULL, memory_order_acquire);
    gfir_filter *f;
    gfir_plan_destroy(old);
    while ((f = gfir_plan_retired(r->plan)) != NULL)
        gfir_filter_destroy(f);
}

/* Empties the pipe; 1 when SIGHUP wrote to it. */
static int read_wake(live_reload *r)
{
    char buf[64];
    ssize_t n;
    int hup = 0;
    while ((n = read(r->wake[0], buf, sizeof buf)) > 0)
        hup |= memchr(buf, 'h', (size_t)n) != NULL;
    return hup;
}

static void *reload_main(void *arg)
{
    live_reload *r = arg;
    int dirty = 0, published = 0;
    double last_event = 0;
    while (!atomic_load(&r->stop)) {
        struct pollfd fds[2] = {{r->wake[0], POLLIN, 0}, {r->inotify, POLLIN, 0}};
        const int quiet_ms = (int)(QUIET_S * 1000);
        poll(fds, r->inotify >= 0 ? 2 : 1, published ? TAKEN_MS : dirty ? quiet_ms : COLLECT_MS);
        if (read_wake(r)) {
            if (!r->next_what[0])
                snprintf(r->next_what, sizeof r->next_what, "SIGHUP");
            dirty = 1;
            last_event = progress_now();
        }
        if (r->inotify >= 0 && read_changes(r)) {
            dirty = 1;
            last_event = progress_now();
        }
        if (published && !reload_pending(r)) {
            report_taken(r);
            published = 0;
        } else if (published) {
            report_waiting(r);
        }
        collect(r);
        if (dirty && !published && progress_now() - last_event >= QUIET_S) {
            dirty = 0;
            /* the reason goes with this reload; events from now on are the next's */
            memcpy(r->what, r->next_what, sizeof r->what);
            r->next_what[0] = '\0';
            reload(r);
            published = reload_pending(r) != NULL;
            r->published_at = progress_now();
            r->wait_said = 0;
        }
    }
    return NULL;
}

/* ---- start and stop ----------------------------------------------------------------- */

/* The thread runs at ordinary priority whatever its creator's: a long design
 * must never take the CPU from the audio. */
static int start_thread(live_reload *r)
{
    pthread_attr_t attr;
    struct sched_param sp;
    int err;
    memset(&sp, 0, sizeof sp);
    pthread_attr_init(&attr);
    pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
    pthread_attr_setschedpolicy(&attr, SCHED_OTHER);
    pthread_attr_setschedparam(&attr, &sp);
    err = pthread_create(&r->thread, &attr, reload_main, r);
    pthread_attr_destroy(&attr);
    if (err)
        return cli_error("cannot start the thread that reloads the filter: %s", strerror(err));
    r->running = 1;
    return 0;
}

int reload_start(live_reload **out, const cli_options *o, double rate_hz, unsigned channels,
                 size_t block_frames, gfir_plan *plan, const cli_design *d)
{
    live_reload *r = calloc(1, sizeof *r);
    struct sigaction sa;
    *out = NULL;
    if (!r)
        return cli_error("out of memory");
    r->o = o;
    r->rate = rate_hz;
    r->channels = channels;
    r->block = block_frames;
    r->plan = plan;
    r->outputs = d->outputs;
    r->delay = d->delay_frames;
    r->wake[0] = r->wake[1] = -1;
    r->inotify = -1;
    atomic_init(&r->ready, NULL);
    atomic_init(&r->retired_plan, NULL);
    atomic_init(&r->status, GFIR_OK);
    atomic_init(&r->stop, 0);
    r->filter = cli_filter_renew(o->filter);
    if (keep_layout(r, d)) {
        reload_stop(r);
        return 1;
    }
    if (!r->filter || pipe(r->wake) != 0 || fcntl(r->wake[0], F_SETFL, O_NONBLOCK) != 0 ||
        fcntl(r->wake[1], F_SETFL, O_NONBLOCK) != 0) {
        reload_stop(r);
        return cli_error("cannot set up reloading the filter: %s", strerror(errno));
    }
#ifdef __linux__
    r->inotify = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (r->inotify < 0)
        cli_note(o->quiet, "cannot watch the filter's files (%s); SIGHUP reloads it",
                 strerror(errno));
#endif
    watch_filter(r, r->filter);
    hup_fd = r->wake[1];
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_hup;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGHUP, &sa, &r->old_hup);
    if (start_thread(r)) {
        reload_stop(r);
        return 1;
    }
    *out = r;
    return 0;
}

void reload_stop(live_reload *r)
{
    const reload_change *left;
    if (!r)
        return;
    if (r->running) {
        atomic_store(&r->stop, 1);
        if (write(r->wake[1], "s", 1) < 0) {
            /* a full pipe wakes the thread as well */
        }
        pthread_join(r->thread, NULL);
        sigaction(SIGHUP, &r->old_hup, NULL);
    }
    hup_fd = -1;
    left = atomic_load(&r->ready);
    if (left) {
        gfir_filter_destroy(left->filter);
        gfir_plan_destroy(left->plan);
    }
    gfir_plan_destroy(atomic_load(&r->retired_plan));
    if (r->wake[0] >= 0)
        close(r->wake[0]);
    if (r->wake[1] >= 0)
        close(r->wake[1]);
    if (r->inotify >= 0)
        close(r->inotify);
    forget_files(r);
    cli_filter_free(r->filter);
    free(r->plan_paths);
    free(r);
}
