/*
 * runner.c - a shard's jobs on a few workers (runner.h).
 */
#define _GNU_SOURCE /* qsort_r */
#include "batch/runner.h"
#include "batch/bar.h"
#include "batch/dirs.h"
#include "batch/early.h"
#include "batch/gpus.h"
#include "batch/sweep.h"
#include "batch/tar.h"
#include "chain.h"
#include "file/file.h"
#include "file/format.h"
#include "file/metadata.h"
#include "file/output.h"
#include "file/render.h"
#include "filter/filter.h"
#include "message.h"
#include "progress.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Filters whose plans a worker keeps. Jobs come sorted by filter, so one
 * would do for a single rate and layout; a few more cover manifests that mix
 * rates or channel counts within a filter. */
#define CHAINS_PER_WORKER 4
/* Receipts are synced in groups: at most this many outputs, or this long
 * after the first of them finished, wait for their receipt. */
#define GROUP_OUTPUTS 64
#define GROUP_SECONDS 0.5

typedef struct outcome {
    size_t job;                 /* into the manifest's jobs */
    int failed;
    int clips;                  /* integer output: non-finite samples went out held */
    int gpu_index;              /* the GPU its plans ran on, by index into the runner's
                                   groups; -1: on the CPU */
    char why[1024];             /* the job's messages, when it failed */
    receipt_facts facts;
    struct outcome *next;
} outcome;

typedef struct cached_chain {
    char *key;                  /* filter, rate and channels; NULL when empty */
    cli_chain chain;
    uint64_t used;              /* for least recently used */
} cached_chain;

typedef struct runner runner;

typedef struct worker {
    runner *r;
    int gpu_index;              /* its GPU, by index into the runner's groups */
    pthread_t thread;
    cached_chain cache[CHAINS_PER_WORKER];
    uint64_t clock;
    pthread_mutex_t why_mu;     /* its job's threads may all say something */
    outcome *current;
    cli_message_sink sink;
} worker;

struct runner {
    const batch_options *bo;
    const manifest *m;
    size_t *todo;               /* jobs to run, by index into m->jobs */
    size_t ntodo;
    atomic_size_t next;         /* the next of todo to take, under claim_mu */
    size_t chunk;               /* the most jobs one claim takes */
    pthread_mutex_t claim_mu;
    atomic_int stop;            /* receipts cannot be written: take no more */
    size_t block;
    /* finished jobs, for the calling thread */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    outcome *head, *tail;
    unsigned running;
    tar_packer *tar;            /* --tar: outputs go into its shards, else NULL */
    receipt_book *book;
    batch_groups groups;        /* the workers and their GPUs */
};

/* ---- one job ---------------------------------------------------------------- */

static void on_message(void *ctx, const char *message)
{
    worker *w = ctx;
    pthread_mutex_lock(&w->why_mu);
    if (w->current) {
        char *why = w->current->why;
        size_t len = strlen(why);
        snprintf(why + len, sizeof w->current->why - len, "%s%s", len ? "; " : "", message);
    }
    pthread_mutex_unlock(&w->why_mu);
}

static char *chain_key(const manifest_job *j, int rate_hz, int channels)
{
    size_t n = strlen(j->filter) + 64;
    char *key = malloc(n);
    if (key)
        snprintf(key, n, "%s\n%d Hz\n%d channels", j->filter, rate_hz, channels);
    return key;
}

cli_filter *batch_filter_for(const batch_options *bo, const manifest_job *j)
{
    cli_filter *f = cli_filter_new();
    int rc = 0;
    if (!f) {
        cli_error("out of memory");
        return NULL;
    }
    if (j->preset || j->taps || j->ir) {
        if (j->preset)
            rc |= cli_filter_add_preset(f, j->preset);
        if (j->taps && !rc)
            rc |= cli_filter_add_file(f, STAGE_TAPS, j->taps);
        if (j->ir && !rc)
            rc |= cli_filter_add_file(f, STAGE_IR, j->ir);
    } else {
        for (size_t i = 0; i < bo->nstages && !rc; i++)
            rc = bo->stages[i].kind == STAGE_DESIGN
                     ? cli_filter_add_preset(f, bo->stages[i].spec)
                     : cli_filter_add_file(f, bo->stages[i].kind, bo->stages[i].spec);
    }
    f->gain_db = j->gain_db;
    f->max_taps = bo->max_taps;
    f->verbose = bo->engine.verbose;
    f->normalize = (cli_normalize)bo->normalize;
    if (rc) {
        cli_filter_free(f);
        return NULL;
    }
    return f;
}

/* The plans for j's filter at this rate and layout: kept ones, reset, or new. */
static cli_chain *chain_for(worker *w, const manifest_job *j, const SF_INFO *info)
{
    runner *r = w->r;
    cached_chain *slot = &w->cache[0];
    char *key = chain_key(j, info->samplerate, info->channels);
    cli_options o = r->bo->engine;
    size_t taken, remaining, expected;
    cli_design d;
    int rc = 1, designed = 0;

    o.gpu = r->groups.n ? r->groups.gpu[w->gpu_index] : o.gpu;

    if (!key) {
        cli_error("out of memory");
        return NULL;
    }
    for (int i = 0; i < CHAINS_PER_WORKER; i++) {
        cached_chain *c = &w->cache[i];
        if (c->key && !strcmp(c->key, key)) {
            free(key);
            c->used = ++w->clock;
            for (size_t p = 0; p < c->chain.nplans; p++) {
                gfir_status st = gfir_plan_reset(c->chain.plans[p]);
                if (st != GFIR_OK) {
                    cli_error("cannot reset a plan: %s", cli_chain_error(&c->chain, st));
                    cli_chain_destroy(&c->chain);
                    free(c->key);
                    c->key = NULL;
                    return NULL;
                }
            }
            return &c->chain;
        }
        if (!c->key || c->used < slot->used)
            slot = c;
    }
    if (slot->key) {
        cli_chain_destroy(&slot->chain);
        free(slot->key);
        slot->key = NULL;
    }
    /* AUTO weighs a GPU's start-up against the work: here the rest of the shard */
    taken = atomic_load(&r->next);
    remaining = taken < r->ntodo ? r->ntodo - taken + 1 : 1;
    expected = cli_input_frames(info) < SIZE_MAX / 2 / remaining
                   ? cli_input_frames(info) * remaining : SIZE_MAX / 2;
    /* designs and plans side by side, each worker its own: a long room's
     * IR read, resampled and normalised one worker at a time (the lock this
     * had while the parsers used strtok) kept a second GPU idle */
    o.filter = batch_filter_for(r->bo, j);
    o.quiet = 1;
    /* begun as single-file gfir begins it (a long filter's --normalize
     * measured while the plans are made), for the same samples */
    designed = o.filter && !(o.no_fold ? cli_design_stages : cli_design_begin)(
                               o.filter, info->samplerate, (unsigned)info->channels, 1, &d);
    if (designed) {
        rc = cli_chain_from_design(&o, &d, r->block, expected, &slot->chain);
        cli_design_free(&d);
    }
    cli_filter_free(o.filter);
    if (rc) {
        free(key);
        return NULL;
    }
    slot->key = key;
    slot->used = ++w->clock;
    return &slot->chain;
}

/* A regular file or a new name: what is written straight through (a FIFO
 * that appeared since the manifest was read) has no size or time to record. */
static int refuse_special(const char *output)
{
    struct stat sb;
    if (stat(output, &sb) == 0 && !S_ISREG(sb.st_mode))
        return cli_error("OUTPUT '%s' is not a regular file; gfir batch writes files, renamed "
                         "into place", output);
    return 0;
}

static void run_job(worker *w, const manifest_job *j, outcome *out)
{
    const batch_options *bo = w->r->bo;
    const double t0 = progress_now();
    SNDFILE *in = NULL;
    SF_INFO in_info, out_info;
    file_metadata meta = {0};
    char scratch[4096];
    /* --tar: a scratch file, packed by the gathering thread */
    const char *output = w->r->tar && !tar_scratch_path(w->r->tar, j, scratch, sizeof scratch)
                             ? scratch
                             : j->output;
    char *dir = dirs_parent(output);
    /* no output from a damaged INPUT: the job fails, with the reason */
    render_target t = {.output = output, .info = &out_info, .meta = &meta, .align = j->align,
                       .no_dither = bo->engine.no_dither, .block = w->r->block,
                       .whole_input = 1, .scratch = output == scratch, .format = j->format};
    render_result res;
    cli_chain *chain;
    uint64_t cut_bytes = 0;
    receipt_facts in_facts = {0};

    out->failed = 1;
    if (!dir) {
        cli_error("out of memory");
        goto done;
    }
    if (output_check(j->input, output) || refuse_special(output))
        goto done;
    /* INPUT as it was before reading, so one changed since is redone next
     * time; one that cannot be stated is said by the open */
    receipt_stat_input(j->input, &in_facts);
    if (cli_open_input_counting(j->input, 0, &in, &in_info, &cut_bytes))
        goto done;
    if (cut_bytes) {
        cli_error("INPUT '%s' is cut short: its data chunk claims %llu bytes more than the "
                  "file holds", j->input, (unsigned long long)cut_bytes);
        goto done;
    }
    if (metadata_read(cli_input_tags(in), in_info.channels, &meta) ||
        format_choose(j->format, output, 1, &in_info, meta.layout != NULL, &out_info) ||
        dirs_make(dir, "OUTPUT's directory"))
        goto done;
    chain = chain_for(w, j, &in_info);
    out->gpu_index = chain && w->r->groups.n &&
                             gfir_plan_backend(chain->plans[0]) == GFIR_BACKEND_CUDA
                         ? w->gpu_index : -1;
    if (!chain || render_route_format(j->format, output, &in_info, chain, &meta, &out_info) ||
        segment_seek(&j->seg, j->input, j->align, in, &in_info, chain->ntaps, &t))
        goto done;
    if (render_file(in, j->input, (unsigned)in_info.channels, chain, &t, NULL, &res))
        goto done;
    if (res.streamed) {
        cli_error("OUTPUT '%s' was written straight through: it is not a regular file",
                  output);
        goto done;
    }
    /* its early twin, before the receipt that vouches for both */
    if (bo->early_ms > 0 &&
        early_render(bo, j, output, output == scratch, w->r->block,
                     w->r->groups.n ? w->r->groups.gpu[w->gpu_index] : bo->engine.gpu, &out_info,
                     &meta))
        goto done;
    /* bytes and time of the file as written, not of whatever the name holds
     * by now */
    out->facts = (receipt_facts){
        .frames = res.written,
        .rate_hz = (unsigned)out_info.samplerate,
        .channels = (unsigned)out_info.channels,
        .peak = res.peak,
        .clipped = res.clipped,
        .seconds = progress_now() - t0,
        .bytes = res.bytes,
        .mtime_ns = res.mtime_ns,
        .nonfinite_in = res.nonfinite_in,
        .nonfinite_out = res.nonfinite_out,
        .input_bytes = in_facts.input_bytes,
        .input_mtime_ns = in_facts.input_mtime_ns,
    };
    out->clips = res.clips;
    out->failed = 0;
done:
    if (in)
        cli_close_input(in);
    metadata_free(&meta);
    free(dir);
}

static void finish(runner *r, outcome *o)
{
    pthread_mutex_lock(&r->mu);
    if (r->tail)
        r->tail->next = o;
    else
        r->head = o;
    r->tail = o;
    pthread_cond_signal(&r->cv);
    pthread_mutex_unlock(&r->mu);
}

/* Takes the next run of jobs for one worker: up to r->chunk of them, ending
 * where their filter does (todo is sorted by filter). A worker then keeps one
 * plan for its run, and plans are built about once a run, not once a job:
 * with jobs handed out one at a time, 32 workers spread each room's 20 files
 * of tools/bench/batch.sh over 20 workers, and the CUDA plans built one at a
 * time under a build lock made gfir batch 2.6x slower than its 1-tap floor. */
static size_t claim(runner *r, size_t *count)
{
    size_t first, end;
    pthread_mutex_lock(&r->claim_mu);
    first = atomic_load(&r->next);
    end = first;
    if (first < r->ntodo) {
        const char *filter = r->m->jobs[r->todo[first]].filter;
        end = first + 1;
        while (end < r->ntodo && end - first < r->chunk &&
               !strcmp(r->m->jobs[r->todo[end]].filter, filter))
            end++;
    }
    atomic_store(&r->next, end);
    pthread_mutex_unlock(&r->claim_mu);
    *count = end - first;
    return first;
}

static void *worker_main(void *arg)
{
    worker *w = arg;
    runner *r = w->r;
    size_t i = 0, left = 0;

    w->sink = (cli_message_sink){on_message, w};
    cli_message_redirect(&w->sink);
    while (!atomic_load(&r->stop)) {
        outcome *o;
        if (!left && ((i = claim(r, &left)), !left))
            break;
        left--;
        o = calloc(1, sizeof *o);
        if (!o) {
            atomic_store(&r->stop, 1);
            break;
        }
        o->job = r->todo[i++];
        pthread_mutex_lock(&w->why_mu);
        w->current = o;
        pthread_mutex_unlock(&w->why_mu);
        run_job(w, &r->m->jobs[o->job], o);
        pthread_mutex_lock(&w->why_mu);
        w->current = NULL;
        pthread_mutex_unlock(&w->why_mu);
        finish(r, o);
    }
    cli_message_redirect(NULL);
    for (int c = 0; c < CHAINS_PER_WORKER; c++) {
        if (w->cache[c].key)
            cli_chain_destroy(&w->cache[c].chain);
        free(w->cache[c].key);
    }
    pthread_mutex_lock(&r->mu);
    r->running--;
    pthread_cond_signal(&r->cv);
    pthread_mutex_unlock(&r->mu);
    return NULL;
}

/* ---- gathering: receipts, failures, the bar, the summary ------------------- */

typedef struct tally {
    size_t done_before, written, failed, clipped_outputs;
    size_t unrecorded;          /* of written: their receipts could not be written */
    size_t on_gpu[BATCH_MAX_JOBS], on_cpu; /* of written: where their plans ran */
    double audio_s;
    /* receipts waiting for their group's sync */
    json_buf group;
    size_t group_count;
    double group_since;
    batch_bar bar;
} tally;

/* Appends the group's receipts and syncs them. Each output's rename was
 * synced with its directory when it was made (output_commit), so a receipt
 * never reaches the disk before the rename it vouches for. */
static int commit_group(tally *t, receipt_book *book)
{
    int rc = t->group.failed ? cli_error("out of memory for receipts") : 0;
    if (!rc && t->group_count)
        rc = receipts_append(book, t->group.text, t->group.len);
    t->group.len = 0;
    t->group.failed = 0;
    t->group_count = 0;
    return rc;
}

/* One line for a job whose samples were not finite (INPUT's, or the
 * output's: an overflow), what single-file gfir says of them; its receipt
 * counts them. A damaged file (cut short, ending before its header's length)
 * is no warning: that job fails. */
static void report_nonfinite(const runner *r, tally *t, const manifest_job *j,
                             const outcome *o)
{
    const receipt_facts *f = &o->facts;
    const char *sep = "";
    cli_text line = {.len = 0};
    if (!f->nonfinite_in && !f->nonfinite_out)
        return;
    bar_clear(&t->bar);
    cli_text_add(&line, "%s:%zu: warning: ", r->m->path, j->line);
    if (f->nonfinite_in) {
        cli_text_add(&line, "%s%llu samples of INPUT '%s' are not finite (NaN or infinity), "
                     "filtered as silence", sep, (unsigned long long)f->nonfinite_in, j->input);
        sep = "; ";
    }
    if (f->nonfinite_out)
        cli_text_add(&line, "%s%llu output samples are not finite (the filter overflowed), "
                     "written as %s", sep, (unsigned long long)f->nonfinite_out,
                     o->clips ? "silence or full scale" : "NaN or infinity");
    cli_note(0, "%s", line.text);
}

static void take(runner *r, tally *t, outcome *o)
{
    const manifest_job *j = &r->m->jobs[o->job];
    if (o->failed) {
        bar_clear(&t->bar);
        cli_note(0, "%s:%zu: %s", r->m->path, j->line, o->why[0] ? o->why : "failed");
        t->failed++;
        return;
    }
    if (!t->group_count)
        t->group_since = progress_now();
    report_nonfinite(r, t, j, o);
    if (o->gpu_index >= 0)
        t->on_gpu[o->gpu_index]++;
    else
        t->on_cpu++;
    if (r->tar) { /* its receipt comes when its tar shard is renamed into place */
        if (tar_take(r->tar, r->book, j, &o->facts)) {
            t->unrecorded++;
            atomic_store(&r->stop, 1);
        }
        t->written++;
        t->audio_s += o->facts.rate_hz ? (double)o->facts.frames / o->facts.rate_hz : 0;
        t->clipped_outputs += o->facts.clipped > 0;
        return;
    }
    receipt_format(&t->group, j, &o->facts);
    t->group_count++;
    t->written++;
    t->audio_s += o->facts.rate_hz ? (double)o->facts.frames / o->facts.rate_hz : 0;
    t->clipped_outputs += o->facts.clipped > 0;
}

static int by_filter(const void *a, const void *b, void *jobs)
{
    const manifest_job *ja = &((const manifest_job *)jobs)[*(const size_t *)a];
    const manifest_job *jb = &((const manifest_job *)jobs)[*(const size_t *)b];
    int c = strcmp(ja->filter, jb->filter);
    return c ? c : (ja->index > jb->index) - (ja->index < jb->index);
}

static void summary(const batch_options *bo, const batch_groups *g, const shard *sh,
                    const manifest *m, const tally *t, double seconds)
{
    cli_text line = {.len = 0};
    /* a job is done once its receipt is on disk: one written without it is
     * done again by the next run, as one never run is */
    const size_t unrun = m->njobs - t->written - t->done_before - t->failed;
    const size_t failed = t->failed + t->unrecorded + unrun;
    if (bo->engine.quiet && !failed)
        return;
    if (sh->n > 1)
        cli_text_add(&line, "shard %lu/%lu (%s): ", sh->k, sh->n, sh->source);
    cli_text_add(&line, "%zu job%s: %zu written, %zu done before, %zu failed", m->njobs,
                 m->njobs == 1 ? "" : "s", t->written - t->unrecorded, t->done_before, failed);
    if (t->unrecorded)
        cli_text_add(&line, " (%zu output%s written without a receipt, which could not be "
                     "written: a rerun does %s again%s", t->unrecorded,
                     t->unrecorded == 1 ? "" : "s", t->unrecorded == 1 ? "it" : "them",
                     unrun ? "; " : ")");
    if (unrun)
        cli_text_add(&line, "%s%zu not run)", t->unrecorded ? "" : " (", unrun);
    if (t->written)
        cli_text_add(&line, "; %.1f s of audio in %.2f s (%.1fx realtime)", t->audio_s, seconds,
                     seconds > 0 ? t->audio_s / seconds : 0.0);
    batch_groups_say(g, t->on_gpu, t->on_cpu, &line);
    if (t->clipped_outputs)
        cli_text_add(&line, "; %zu output%s clipped (their receipts count the samples)",
                     t->clipped_outputs, t->clipped_outputs == 1 ? "" : "s");
    cli_note(0, "%s", line.text);
}

/* Takes what the workers finish until they all stop. */
static int gather(runner *r, receipt_book *book, tally *t)
{
    int rc = 0;
    for (;;) {
        outcome *list;
        unsigned running;
        struct timespec until;
        double now;

        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += (long)(BAR_EVERY_S * 1e9);
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        pthread_mutex_lock(&r->mu);
        if (!r->head && r->running)
            pthread_cond_timedwait(&r->cv, &r->mu, &until);
        list = r->head;
        r->head = r->tail = NULL;
        running = r->running;
        pthread_mutex_unlock(&r->mu);
        while (list) {
            outcome *next = list->next;
            take(r, t, list);
            free(list);
            list = next;
        }
        now = progress_now();
        if (!rc && t->group_count &&
            (t->group_count >= GROUP_OUTPUTS || now - t->group_since >= GROUP_SECONDS ||
             !running)) {
            const size_t count = t->group_count;
            rc = commit_group(t, book);
            if (rc) {
                t->unrecorded += count;
                atomic_store(&r->stop, 1);
            }
        }
        bar_draw(&t->bar, t->done_before + t->written + t->failed, r->m->njobs,
                 t->written + t->failed, t->failed, now);
        if (!running)
            break;
    }
    /* outputs taken after the receipts failed: never recorded */
    if (rc) {
        t->unrecorded += t->group_count;
        t->group_count = 0;
    }
    bar_clear(&t->bar);
    return rc;
}

int batch_run(const batch_options *bo, const shard *sh, const manifest *m, receipt_book *book)
{
    runner r;
    tally t;
    worker *workers = NULL;
    unsigned nworkers;
    size_t swept;
    int rc = 1;

    memset(&r, 0, sizeof r);
    memset(&t, 0, sizeof t);
    r.bo = bo;
    r.m = m;
    r.book = book;
    r.block = bo->engine.block_frames ? bo->engine.block_frames : CLI_FILE_BLOCK_FRAMES;
    t.bar.start_s = progress_now();
    t.bar.on = !bo->engine.quiet && isatty(STDERR_FILENO);
    if (bo->tar && tar_open(&r.tar, bo, sh, book)) {
        tar_close(r.tar);
        return 1;
    }
    r.todo = malloc((m->njobs ? m->njobs : 1) * sizeof *r.todo);
    if (!r.todo) {
        tar_close(r.tar);
        return cli_error("out of memory");
    }
    for (size_t i = 0; i < m->njobs; i++) {
        if (receipts_find(book, &m->jobs[i]))
            t.done_before++;
        else
            r.todo[r.ntodo++] = i;
    }
    swept = sweep_temporaries(m->jobs, m->njobs);
    if (swept)
        cli_note(bo->engine.quiet, "note: removed %zu unfinished output%s that a killed run left",
                 swept, swept == 1 ? "" : "s");
    qsort_r(r.todo, r.ntodo, sizeof *r.todo, by_filter, m->jobs);
    batch_groups_choose(bo, r.ntodo, &r.groups);
    nworkers = r.groups.workers;
    if (r.tar && nworkers >= BATCH_MAX_JOBS) /* the open tar shard is a temporary file too */
        nworkers = BATCH_MAX_JOBS - 1;
    workers = calloc(nworkers, sizeof *workers);
    if (!workers) {
        tar_close(r.tar);
        free(r.todo);
        return cli_error("out of memory");
    }
    /* runs short enough that the last ones still balance the workers */
    r.chunk = r.ntodo / (2 * (size_t)nworkers);
    r.chunk = r.chunk < 1 ? 1 : r.chunk > 64 ? 64 : r.chunk;
    pthread_mutex_init(&r.claim_mu, NULL);
    pthread_mutex_init(&r.mu, NULL);
    pthread_cond_init(&r.cv, NULL);
    output_catch_signals();
    if (bo->engine.verbose)
        batch_groups_tell(&r.groups);
    for (unsigned i = 0; i < nworkers; i++) {
        workers[i].r = &r;
        workers[i].gpu_index = r.groups.n ? (int)(i % r.groups.n) : 0;
        pthread_mutex_init(&workers[i].why_mu, NULL);
        pthread_mutex_lock(&r.mu);
        r.running++;
        pthread_mutex_unlock(&r.mu);
        if (pthread_create(&workers[i].thread, NULL, worker_main, &workers[i]) != 0) {
            pthread_mutex_lock(&r.mu);
            r.running--;
            pthread_mutex_unlock(&r.mu);
            nworkers = i;
            break;
        }
    }
    if (nworkers == 0) {
        cli_error("cannot start a worker thread");
    } else {
        rc = gather(&r, book, &t);
        for (unsigned i = 0; i < nworkers; i++)
            pthread_join(workers[i].thread, NULL);
        if (!rc && tar_finish(r.tar, book)) {
            t.unrecorded += 1;
            rc = 1;
        }
        /* outcomes that came after the last look, if receipts failed: their
         * outputs have no receipt */
        for (outcome *o = r.head, *next; o; o = next) {
            next = o->next;
            t.failed += o->failed;
            t.written += !o->failed;
            t.unrecorded += !o->failed;
            free(o);
        }
        summary(bo, &r.groups, sh, m, &t, progress_now() - t.bar.start_s);
        if (t.written + t.done_before < m->njobs && !t.failed && !rc)
            rc = cli_error("%zu jobs were not run", m->njobs - t.written - t.done_before);
        rc = rc || t.failed;
    }
    for (unsigned i = 0; i < nworkers; i++)
        pthread_mutex_destroy(&workers[i].why_mu);
    free(workers);
    pthread_mutex_destroy(&r.claim_mu);
    pthread_mutex_destroy(&r.mu);
    pthread_cond_destroy(&r.cv);
    json_buf_free(&t.group);
    tar_close(r.tar);
    free(r.todo);
    return rc;
}
