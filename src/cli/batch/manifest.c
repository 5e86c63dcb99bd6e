/*
 * manifest.c - a batch manifest's jobs, every line checked (manifest.h); the
 * files they name are checked in claims.c.
 */
#include "batch/manifest.h"
#include "batch/claims.h"
#include "batch/early.h"
#include "batch/irset.h"
#include "batch/table.h"
#include "file/format.h"
#include "file/output.h"
#include "filter/filter.h"
#include "message.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Bad lines shown before the rest are only counted. */
#define SHOW_ERRORS 20

static const char *const known_fields[] = {"id",   "input",  "output",   "ir",    "preset",
                                           "taps", "gain",   "align",    "format", "seed",
                                           "offset", "duration", "start", "end"};
static const char *const align_names[] = {"same", "causal", "full"};

/* ---- reading --------------------------------------------------------------- */

typedef struct reader {
    const batch_options *bo;
    const shard *sh;
    manifest *m;
    table_reader t;
    char where[4200];           /* "MANIFEST:LINE", the messages' context */
    size_t bad;                 /* lines at fault so far */
    size_t said;                /* of them, those whose messages were printed */
    size_t last_bad;            /* the last line at fault */
    size_t cap;                 /* of m->jobs */
    claims files;               /* what the rows so far write and read */
    ir_set *sets;               /* IR sets met so far, each listed once */
    size_t nsets;
    char *checked_preset;       /* the last preset that loaded */
    int checked_preset_has_ir;  /* and whether it has an IR stage */
    char *checked_format;       /* the last format (or extension) that exists */
} reader;

/* Collects a message about the current line (printed with its line number). */
static void on_message(void *ctx, const char *message)
{
    reader *r = ctx;
    if (r->last_bad != r->t.line || !r->bad) {
        r->bad++;
        r->last_bad = r->t.line;
    }
    if (r->bad <= SHOW_ERRORS) {
        r->said = r->bad;
        /* straight to stderr: bad() calls this with the sink (this) in place */
        cli_info("%s: %s", r->where, message);
    }
}

static int bad(reader *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static int bad(reader *r, const char *fmt, ...)
{
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    on_message(r, text);
    return 1;
}

static int is_known(const char *name)
{
    for (size_t i = 0; i < sizeof known_fields / sizeof known_fields[0]; i++)
        if (!strcmp(name, known_fields[i]))
            return 1;
    return 0;
}

/* A field: 1 with *v set, 0 when absent; a wrong JSON type is counted bad. */
static int field(reader *r, const char *key, const char **v, int *failed)
{
    int got = table_get(&r->t, key, v);
    if (got < 0) {
        *failed = bad(r, "'%s' must be a string or a number", key);
        return 0;
    }
    return got;
}

/* A word as a shell would read it back: quoted when it holds anything but
 * letters, digits and a few safe marks. */
static void append_word(json_buf *b, const char *w)
{
    if (w[0] && !w[strspn(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                            "0123456789_-+=.,:/@%")]) {
        json_buf_raw(b, w, strlen(w));
        return;
    }
    json_buf_raw(b, "'", 1);
    for (const char *p = w; *p; p++) {
        if (*p == '\'')
            json_buf_raw(b, "'\\''", 4);
        else
            json_buf_raw(b, p, 1);
    }
    json_buf_raw(b, "'", 1);
}

static void append_option(json_buf *b, const char *option, const char *value)
{
    if (b->len)
        json_buf_raw(b, " ", 1);
    json_buf_raw(b, option, strlen(option));
    if (value) {
        json_buf_raw(b, " ", 1);
        append_word(b, value);
    }
}

static const char *const normalize_names[] = {"none", "peak", "energy"};

/* The job's filter and its recipe as gfir options; has_ir: the filter, as
 * loaded, has an IR stage (the default alignment is then full). */
static int describe(const batch_options *bo, manifest_job *j, int has_ir)
{
    static const char *const kind_option[] = {"--preset", "--taps", "--ir"};
    json_buf b = {0};
    char gain[64];

    if (j->preset || j->taps || j->ir) {
        if (j->preset)
            append_option(&b, "--preset", j->preset);
        if (j->taps)
            append_option(&b, "--taps", j->taps);
        if (j->ir)
            append_option(&b, "--ir", j->ir);
    } else {
        for (size_t i = 0; i < bo->nstages; i++)
            append_option(&b, kind_option[bo->stages[i].kind], bo->stages[i].spec);
    }
    if (j->gain_db != 0) {
        segment_shortest(gain, sizeof gain, j->gain_db);
        append_option(&b, "--gain", gain);
    }
    if (bo->normalize != CLI_NORMALIZE_DEFAULT)
        append_option(&b, "--normalize", normalize_names[bo->normalize]);
    if (j->align == CLI_ALIGN_DEFAULT)
        j->align = has_ir ? CLI_ALIGN_FULL : CLI_ALIGN_SAME;
    j->filter = b.failed ? NULL : strdup(b.text);
    append_option(&b, "--align", align_names[j->align]);
    if (j->format)
        append_option(&b, "--format", j->format);
    if (bo->engine.no_dither)
        append_option(&b, "--no-dither", NULL);
    /* a file and a tar member are different products: neither vouches for the other */
    if (bo->tar)
        append_option(&b, "--tar", NULL);
    if (bo->early_ms > 0) {
        char ms[32];
        segment_shortest(ms, sizeof ms, bo->early_ms);
        append_option(&b, "--early-ms", ms);
    }
    if (j->seg.unit != SEGMENT_NONE) {
        char seg[96];
        segment_describe(&j->seg, seg, sizeof seg);
        json_buf_raw(&b, " ", 1);
        json_buf_raw(&b, seg, strlen(seg));
    }
    j->recipe = b.failed ? NULL : strdup(b.text);
    json_buf_free(&b);
    return j->filter && j->recipe ? 0 : cli_error("out of memory");
}

static int parse_gain(reader *r, const char *v, double *gain_db)
{
    char *end;
    double g = strtod(v, &end);
    if (end == v || *end || !isfinite(g))
        return bad(r, "gain '%s' is not a number of decibels", v);
    *gain_db = g;
    return 0;
}

static int parse_seed(reader *r, const char *v, uint64_t *seed)
{
    char *end;
    unsigned long long s;
    errno = 0;
    s = strtoull(v, &end, 10);
    if (end == v || *end || errno || v[0] == '-' || v[0] == '+' || v[0] == ' ')
        return bad(r, "seed '%s' is not a whole number from 0 to 18446744073709551615", v);
    *seed = s;
    return 0;
}

static int parse_align(reader *r, const char *v, cli_align *align)
{
    for (int i = 0; i < 3; i++) {
        if (!strcmp(v, align_names[i])) {
            *align = (cli_align)i;
            return 0;
        }
    }
    return bad(r, "align '%s' is not same, causal or full", v);
}

/* offset/duration or start/end, into seg; 1 when the line is bad. */
static int read_segment(reader *r, segment *seg)
{
    static const char *const keys[] = {"offset", "duration", "start", "end"};
    const char *v[4] = {NULL, NULL, NULL, NULL};
    char why[160];
    int failed = 0;
    for (int i = 0; i < 4; i++)
        field(r, keys[i], &v[i], &failed);
    if (failed)
        return 1;
    return segment_parse(v[0], v[1], v[2], v[3], seg, why, sizeof why) ? bad(r, "%s", why) : 0;
}

/* The preset loads (cached: rows mostly share one); *has_ir: it has an IR
 * stage (the shipped `hall` does), as single-file gfir finds. */
static int check_preset(reader *r, const char *spec, int *has_ir)
{
    cli_filter *f;
    int rc;
    if (r->checked_preset && !strcmp(r->checked_preset, spec)) {
        *has_ir = r->checked_preset_has_ir;
        return 0;
    }
    f = cli_filter_new();
    if (!f)
        return cli_error("out of memory");
    rc = cli_filter_add_preset(f, spec);
    *has_ir = !rc && cli_filter_has_ir(f);
    cli_filter_free(f);
    if (!rc) {
        free(r->checked_preset);
        r->checked_preset = strdup(spec);
        r->checked_preset_has_ir = *has_ir;
    }
    return rc;
}

/* Whether the command line's filter, loaded, has an IR stage. */
static int stages_have_ir(const batch_options *bo, int *has_ir)
{
    cli_filter *f = cli_filter_new();
    int rc = 0;
    if (!f)
        return cli_error("out of memory");
    for (size_t i = 0; i < bo->nstages && !rc; i++)
        rc = bo->stages[i].kind == STAGE_DESIGN
                 ? cli_filter_add_preset(f, bo->stages[i].spec)
                 : cli_filter_add_file(f, bo->stages[i].kind, bo->stages[i].spec);
    *has_ir = !rc && cli_filter_has_ir(f);
    cli_filter_free(f);
    return rc;
}

/* The output's container exists (from format, else OUTPUT's extension), and a
 * quality it names fits a job at 48 kHz in stereo (what MP3 and Opus take most of). */
static int check_format(reader *r, const char *format, const char *output)
{
    const char *dot = strrchr(output, '.');
    const char *key = format ? format : dot && !strchr(dot, '/') ? dot : output;
    SF_INFO in = {.samplerate = 48000, .channels = 2, .format = SF_FORMAT_WAV | SF_FORMAT_PCM_16};
    SF_INFO out;
    if (r->checked_format && !strcmp(r->checked_format, key))
        return 0;
    if (format_choose(format, output, 1, &in, 0, &out))
        return 1;
    free(r->checked_format);
    r->checked_format = strdup(key);
    return 0;
}

/* The IR a job takes from a set, listing the set on first use. */
static int pick_ir(reader *r, const char *spec, uint64_t seed, const char *id, char **ir)
{
    ir_set *set = NULL;
    for (size_t i = 0; i < r->nsets && !set; i++)
        if (!strcmp(r->sets[i].spec, spec))
            set = &r->sets[i];
    if (!set) {
        ir_set *sets = realloc(r->sets, (r->nsets + 1) * sizeof *sets);
        if (!sets)
            return cli_error("out of memory");
        r->sets = sets;
        if (irset_load(spec, &r->sets[r->nsets]))
            return 1;
        set = &r->sets[r->nsets++];
    }
    *ir = strdup(irset_pick(set, seed, id));
    return *ir ? 0 : cli_error("out of memory");
}

static void job_free(manifest_job *j)
{
    free(j->id);
    free(j->input);
    free(j->output);
    free(j->preset);
    free(j->taps);
    free(j->ir);
    free(j->format);
    free(j->filter);
    free(j->recipe);
    memset(j, 0, sizeof *j);
}

static char *dup_or_null(const char *s, int *failed)
{
    char *d = s ? strdup(s) : NULL;
    if (s && !d)
        *failed = cli_error("out of memory");
    return d;
}

/* The row's files: claims_row's, said as the line's fault. */
static int check_files(reader *r, const char *input, const char *output)
{
    char why[1024];
    return claims_row(&r->files, r->t.line, input, output, why, sizeof why) ? bad(r, "%s", why)
                                                                          : 0;
}

static int check_read(reader *r, const char *path, file_role role, const char *output)
{
    char why[1024];
    return claims_read(&r->files, r->t.line, path, role, output, why, sizeof why)
               ? bad(r, "%s", why)
               : 0;
}

/* --tar: the row's key (its output less the extension) is its alone, as
 * its KEY.json member says (a.wav and a.flac would share a.json). */
static int check_key(reader *r, const char *input, const char *output)
{
    const char *slash = strrchr(output, '/'), *dot = strrchr(output, '.');
    char member[4096], why[1024];
    size_t stem = dot && (!slash || dot > slash) && dot != output ? (size_t)(dot - output)
                                                                  : strlen(output);
    if (snprintf(member, sizeof member, "%.*s.json", (int)stem, output) >= (int)sizeof member)
        return bad(r, "the output's name is too long for a tar member");
    if (claims_row(&r->files, r->t.line, input, member, why, sizeof why))
        return bad(r, "with --tar, its key '%.*s' names another row's output too (%s)", (int)stem,
                   output, why);
    return 0;
}

/* The row's other names: its tar key (--tar), else its early twin
 * (--early-ms), an output of the row too, claimed as one. */
static int check_other_names(reader *r, const char *input, const char *output)
{
    char early[4096];
    if (r->bo->tar)
        return check_key(r, input, output);
    if (!(r->bo->early_ms > 0))
        return 0;
    if (early_path(output, early, sizeof early))
        return bad(r, "the output's early twin has too long a name");
    return check_files(r, input, early);
}

/* One record into j; 1 when the line is bad (said why). default_has_ir:
 * the command line's filter has an IR stage. */
static int read_job(reader *r, manifest_job *j, int default_has_ir)
{
    const batch_options *bo = r->bo;
    const char *v, *input = NULL, *output = NULL, *id = NULL, *ir = NULL, *preset = NULL,
                   *taps = NULL, *format = bo->format;
    uint64_t seed = bo->seed;
    int failed = 0, preset_has_ir = 0;

    if (!field(r, "input", &input, &failed) && !failed)
        failed = bad(r, "no input");
    if (!field(r, "output", &output, &failed) && !failed)
        failed = bad(r, "no output");
    field(r, "id", &id, &failed);
    field(r, "ir", &ir, &failed);
    field(r, "preset", &preset, &failed);
    field(r, "taps", &taps, &failed);
    field(r, "format", &format, &failed);
    j->gain_db = bo->gain_db;
    j->align = bo->align;
    if (field(r, "gain", &v, &failed))
        failed |= parse_gain(r, v, &j->gain_db);
    if (field(r, "align", &v, &failed))
        failed |= parse_align(r, v, &j->align);
    if (field(r, "seed", &v, &failed))
        failed |= parse_seed(r, v, &seed);
    failed |= read_segment(r, &j->seg);
    if (failed)
        return 1;
    /* the receipt is JSON, which is Unicode text: a name it cannot hold
     * could not be vouched for */
    if (!json_utf8_valid(input) || !json_utf8_valid(output) || (id && !json_utf8_valid(id)))
        return bad(r, "the input, output or id is not UTF-8 (a receipt, being JSON, cannot hold "
                      "it)");
    if (!ir && !preset && !taps && bo->nstages == 0)
        return bad(r, "no filter: give ir, preset or taps, or a filter on the command line");
    if (check_files(r, input, output))
        return 1;
    if (preset && check_preset(r, preset, &preset_has_ir))
        return 1;
    if (check_format(r, format, output))
        return 1;
    j->line = r->t.line;
    j->index = r->m->total;
    j->seed = seed;
    j->id = dup_or_null(id ? id : output, &failed);
    j->input = dup_or_null(input, &failed);
    j->output = dup_or_null(output, &failed);
    j->preset = dup_or_null(preset, &failed);
    j->taps = dup_or_null(taps, &failed);
    j->format = dup_or_null(format, &failed);
    if (ir && irset_is_set(ir)) {
        if (!failed && pick_ir(r, ir, seed, j->id, &j->ir))
            return 1;
    } else {
        j->ir = dup_or_null(ir, &failed);
    }
    if (failed || check_read(r, j->ir, ROLE_IR, output) ||
        check_read(r, j->taps, ROLE_TAPS, output) || check_other_names(r, input, output))
        return 1;
    if (describe(bo, j, preset || taps || ir ? j->ir != NULL || preset_has_ir : default_has_ir))
        return 1;
    return json_utf8_valid(j->recipe) ? 0 : bad(r, "the filter names a file that is not UTF-8 (a "
                                                   "receipt, being JSON, cannot hold it)");
}

static int check_header(reader *r)
{
    int failed = 0, has_input = 0, has_output = 0;
    for (size_t i = 0; i < r->t.ncolumns; i++) {
        const char *c = r->t.columns[i];
        has_input |= !strcmp(c, "input");
        has_output |= !strcmp(c, "output");
        if (!is_known(c))
            failed = bad(r, "unknown column '%s' (columns: id, input, output, ir, preset, taps, "
                         "gain, align, format, seed, offset, duration, start, end)", c);
    }
    if (!has_input || !has_output)
        failed = bad(r, "the header needs an input and an output column");
    return failed;
}

static int keep(reader *r, manifest_job *j)
{
    if (r->m->njobs == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 256;
        manifest_job *jobs = realloc(r->m->jobs, cap * sizeof *jobs);
        if (!jobs)
            return cli_error("out of memory for %zu jobs", cap);
        r->m->jobs = jobs;
        r->cap = cap;
    }
    r->m->jobs[r->m->njobs++] = *j;
    return 0;
}

static void set_where(reader *r)
{
    snprintf(r->where, sizeof r->where, "%s:%zu", r->m->path, r->t.line);
}

static int read_all(reader *r, int default_has_ir)
{
    const cli_message_sink sink = {on_message, r};
    int got;
    cli_message_redirect(&sink);
    if (r->t.layout != TABLE_JSONL) {
        set_where(r);
        if (check_header(r)) {
            cli_message_redirect(NULL);
            return 1;
        }
    }
    while ((got = table_next(&r->t)) != 0) {
        manifest_job j = {0};
        set_where(r);
        if (got < 0) {
            bad(r, "%s", r->t.error);
            if (r->t.io_error)
                break;
        } else if (read_job(r, &j, default_has_ir)) {
            job_free(&j);
        } else if (r->bad == 0 && shard_owns(r->sh, r->m->total)) {
            if (keep(r, &j)) {
                job_free(&j);
                break;
            }
        } else {
            job_free(&j);
        }
        r->m->total++;
    }
    cli_message_redirect(NULL);
    return r->bad > 0;
}

int manifest_read(const batch_options *bo, const shard *sh, manifest *m)
{
    reader r;
    int rc, default_has_ir = 0;

    memset(m, 0, sizeof *m);
    memset(&r, 0, sizeof r);
    r.bo = bo;
    r.sh = sh;
    r.m = m;
    m->path = strdup(bo->manifest);
    if (!m->path)
        return cli_error("out of memory");
    if (stages_have_ir(bo, &default_has_ir))
        return 1;
    claims_init(&r.files, bo->manifest, bo->receipts);
    /* the command line's files, read by every row without a filter of its own */
    for (size_t i = 0; i < bo->nstages; i++) {
        if (bo->stages[i].kind == STAGE_DESIGN)
            continue;
        if (claims_add_read(&r.files, bo->stages[i].spec,
                            bo->stages[i].kind == STAGE_IR ? ROLE_IR : ROLE_TAPS)) {
            claims_free(&r.files);
            return cli_error("out of memory");
        }
    }
    if (table_open(&r.t, bo->manifest)) {
        rc = r.t.line ? cli_error("%s:%zu: %s", bo->manifest, r.t.line, r.t.error)
                      : cli_error("manifest '%s': %s", bo->manifest, r.t.error);
    } else {
        rc = read_all(&r, default_has_ir);
        if (rc && r.bad > r.said)
            cli_error("%s: %zu more bad lines", bo->manifest, r.bad - r.said);
        if (rc)
            cli_error("%s: %zu bad line%s; nothing was run", bo->manifest, r.bad,
                      r.bad == 1 ? "" : "s");
        else if (m->total == 0)
            rc = cli_error("manifest '%s' has no jobs", bo->manifest);
    }
    table_close(&r.t);
    claims_free(&r.files);
    for (size_t i = 0; i < r.nsets; i++)
        irset_free(&r.sets[i]);
    free(r.sets);
    free(r.checked_preset);
    free(r.checked_format);
    if (rc)
        manifest_free(m);
    return rc;
}

void manifest_free(manifest *m)
{
    for (size_t i = 0; i < m->njobs; i++)
        job_free(&m->jobs[i]);
    free(m->jobs);
    free(m->path);
    memset(m, 0, sizeof *m);
}
