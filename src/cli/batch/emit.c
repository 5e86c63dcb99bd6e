/*
 * emit.c - the outputs as a NeMo/Lhotse manifest (emit.h), written with
 * jansson.
 */
#include "batch/emit.h"
#include "batch/early.h"
#include "batch/merge.h"
#include "batch/runner.h"
#include "chain.h"
#include "file/file.h"
#include "filter/filter.h"
#include "message.h"

#include <gfir.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SHOW_MISSING 20

static const char *const align_names[] = {"same", "causal", "full"};

/* An output's shape: what its receipt says, or what --describe works out. */
typedef struct shape {
    uint64_t frames;
    unsigned rate_hz, channels;
    char tar[4096];             /* its shard, or "" */
} shape;

static int from_receipt(const receipt *r, shape *s)
{
    json_record o;
    const char *err;
    size_t col;
    const json_field *f[3];
    int rc = 1;
    if (json_parse_object(r->text, strlen(r->text), &o, &err, &col))
        return 1;
    f[0] = json_get(&o, "frames");
    f[1] = json_get(&o, "rate");
    f[2] = json_get(&o, "channels");
    if (f[0] && f[1] && f[2] && f[0]->kind == JSON_KIND_NUMBER && f[1]->kind == JSON_KIND_NUMBER &&
        f[2]->kind == JSON_KIND_NUMBER) {
        s->frames = strtoull(f[0]->text, NULL, 10);
        s->rate_hz = (unsigned)strtoul(f[1]->text, NULL, 10);
        s->channels = (unsigned)strtoul(f[2]->text, NULL, 10);
        snprintf(s->tar, sizeof s->tar, "%s", r->tar ? r->tar : "");
        rc = 0;
    }
    json_record_free(&o);
    return rc;
}

/* The length the run would write: INPUT's header, the filter as built for
 * it (its taps and routing), the alignment and the segment. */
static int describe(const batch_options *bo, const manifest_job *j, shape *s)
{
    SNDFILE *in = NULL;
    SF_INFO info;
    cli_options o = bo->engine;
    cli_chain chain;
    uint64_t n;
    int rc;

    memset(s, 0, sizeof *s);
    if (cli_open_input(j->input, 0, &in, &info))
        return 1;
    n = cli_input_frames(&info);
    cli_close_input(in);
    if (n == 0)
        return cli_error("INPUT '%s': its header does not say how many frames it holds",
                         j->input);
    o.filter = batch_filter_for(bo, j);
    o.quiet = 1;
    rc = !o.filter || cli_chain_create(&o, info.samplerate, (unsigned)info.channels,
                                       CLI_FILE_BLOCK_FRAMES, (size_t)n, &chain);
    cli_filter_free(o.filter);
    if (rc)
        return 1;
    s->rate_hz = (unsigned)info.samplerate;
    s->channels = chain.out_channels;
    if (j->seg.unit != SEGMENT_NONE) {
        segment_plan p;
        char why[160];
        rc = segment_resolve(&j->seg, s->rate_hz, n, j->align, chain.ntaps, &p, why, sizeof why);
        if (rc)
            cli_error("INPUT '%s': %s", j->input, why);
        s->frames = p.frames;
    } else {
        s->frames = n + (j->align == CLI_ALIGN_FULL ? chain.ntaps - 1 : 0);
    }
    cli_chain_destroy(&chain);
    return rc;
}

static json_t *channel_ids(unsigned channels)
{
    json_t *a = json_array();
    for (unsigned c = 0; a && c < channels; c++)
        json_array_append_new(a, json_integer(c));
    return a;
}

static json_t *entry(const batch_options *bo, const manifest_job *j, const shape *s)
{
    const double duration = s->rate_hz ? (double)s->frames / s->rate_hz : 0.0;
    json_t *o = json_object(), *rec = json_object(), *src = json_object(), *g = json_object();
    json_t *sources = json_array();
    const char *ir = j->ir;
    /* a row without a filter has the command line's */
    for (size_t i = 0; !ir && !j->preset && !j->taps && i < bo->nstages; i++)
        if (bo->stages[i].kind == STAGE_IR)
            ir = bo->stages[i].spec;
    /* with --tar, the output's name is the member's, KEY.EXT */
    json_object_set_new(o, "audio_filepath", json_string(j->output));
    json_object_set_new(o, "duration", json_real(duration));
    if (bo->early_ms > 0) { /* its early twin: the same length */
        char early[4096];
        if (!early_path(j->output, early, sizeof early))
            json_object_set_new(o, "early_filepath", json_string(early));
    }
    if (bo->tar && s->tar[0])
        json_object_set_new(o, "tar", json_string(s->tar));
    json_object_set_new(rec, "id", json_string(j->id));
    json_object_set_new(src, "type", json_string("file"));
    json_object_set_new(src, "channels", channel_ids(s->channels));
    json_object_set_new(src, "source", json_string(j->output));
    json_array_append_new(sources, src);
    json_object_set_new(rec, "sources", sources);
    json_object_set_new(rec, "sampling_rate", json_integer(s->rate_hz));
    json_object_set_new(rec, "num_samples", json_integer((json_int_t)s->frames));
    json_object_set_new(rec, "duration", json_real(duration));
    json_object_set_new(rec, "channel_ids", channel_ids(s->channels));
    json_object_set_new(o, "recording", rec);
    json_object_set_new(g, "input", json_string(j->input));
    json_object_set_new(g, "ir", ir ? json_string(ir) : json_null());
    json_object_set_new(g, "seed", j->seed <= (uint64_t)INT64_MAX
                                       ? json_integer((json_int_t)j->seed)
                                       : json_real((double)j->seed));
    json_object_set_new(g, "gain_db", json_real(j->gain_db));
    json_object_set_new(g, "align", json_string(align_names[j->align]));
    if (j->seg.unit != SEGMENT_NONE) {
        /* where in INPUT (the output holds only the segment: NeMo's offset,
         * into audio_filepath, would be wrong here) */
        char seg[96];
        segment_describe(&j->seg, seg, sizeof seg);
        json_object_set_new(g, "segment", json_string(seg));
    }
    json_object_set_new(g, "filter", json_string(j->recipe));
    json_object_set_new(g, "version", json_string(gfir_version_string()));
    json_object_set_new(o, "gfir", g);
    return o;
}

int batch_emit(const batch_options *bo, const manifest *m, const receipt_book *book)
{
    json_buf out = {0};
    size_t missing = 0;
    int rc = 1;

    if (batch_check_target(m, book, bo->emit, "--emit-manifest"))
        return 1;
    for (size_t i = 0; i < m->njobs; i++) {
        const manifest_job *j = &m->jobs[i];
        shape s;
        json_t *o;
        char *line;
        if (bo->describe ? describe(bo, j, &s) : !receipts_find(book, j) ||
                                                     from_receipt(receipts_find(book, j), &s)) {
            if (++missing <= SHOW_MISSING)
                cli_note(0, "%s:%zu: %s", m->path, j->line,
                         bo->describe ? "cannot be described (said above)"
                                      : "no receipt for this output as the manifest gives it "
                                        "now (not run, failed, or changed since)");
            continue;
        }
        o = entry(bo, j, &s);
        line = o ? json_dumps(o, JSON_COMPACT) : NULL;
        json_decref(o);
        if (!line) {
            out.failed = 1;
            break;
        }
        json_buf_raw(&out, line, strlen(line));
        json_buf_raw(&out, "\n", 1);
        free(line);
    }
    if (missing) {
        cli_error("%zu of %zu jobs could not be %s; '%s' was not written", missing, m->njobs,
                  bo->describe ? "described" : "found in the receipts", bo->emit);
        goto done;
    }
    if (out.failed) {
        cli_error("out of memory for --emit-manifest");
        goto done;
    }
    rc = batch_write_whole("--emit-manifest", bo->emit, &out);
done:
    json_buf_free(&out);
    return rc;
}
