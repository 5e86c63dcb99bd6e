/*
 * manifest.c - a batch manifest's jobs, every line checked (manifest.h).
 */
#include "batch/manifest.h"
#include "batch/hash.h"
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

static const char *const known_fields[] = {"id",   "input", "output", "ir",   "preset",
                                           "taps", "gain",  "align",  "format", "seed"};
static const char *const align_names[] = {"same", "causal", "full"};

/* ---- files named: each output once, and never a file a job reads ---------- */

/* What a job does with a file: it writes an output and reads the rest. */
typedef enum file_role { ROLE_OUTPUT, ROLE_INPUT, ROLE_IR, ROLE_TAPS } file_role;
static const char *const role_names[] = {"output", "input", "ir", "taps"};

/* Files by identity (output_identity: device and inode where the file
 * exists, else its canonical name), so that two spellings or a link are one
 * file. Two independent 64-bit hashes of each: a false match needs both to
 * collide (about n^2 / 2^129 for n files), and no name need be kept. */
typedef struct seen_entry {
    uint64_t h1, h2;
    size_t line;                /* the first line that named it; 0: the command line */
    file_role role;
    int used;
} seen_entry;

typedef struct seen_set {
    seen_entry *slots;
    size_t cap, count;
} seen_set;

/* A basis for the second hash unrelated to FNV's usual one. */
#define SECOND_BASIS 0x84222325cbf29ce4ULL

static int seen_grow(seen_set *s)
{
    size_t cap = s->cap ? 2 * s->cap : 1024;
    seen_entry *slots = calloc(cap, sizeof *slots);
    if (!slots)
        return 1;
    for (size_t i = 0; i < s->cap; i++) {
        if (!s->slots[i].used)
            continue;
        size_t j = s->slots[i].h1 & (cap - 1);
        while (slots[j].used)
            j = (j + 1) & (cap - 1);
        slots[j] = s->slots[i];
    }
    free(s->slots);
    s->slots = slots;
    s->cap = cap;
    return 0;
}

static const seen_entry *seen_find(const seen_set *s, const char *key)
{
    const uint64_t h1 = hash_string(key, HASH_FNV_BASIS), h2 = hash_string(key, SECOND_BASIS);
    if (!s->cap)
        return NULL;
    for (size_t j = h1 & (s->cap - 1); s->slots[j].used; j = (j + 1) & (s->cap - 1))
        if (s->slots[j].h1 == h1 && s->slots[j].h2 == h2)
            return &s->slots[j];
    return NULL;
}

/* Records key (if new) as named first by line in role; 1 without memory. */
static int seen_add(seen_set *s, const char *key, size_t line, file_role role)
{
    const uint64_t h1 = hash_string(key, HASH_FNV_BASIS), h2 = hash_string(key, SECOND_BASIS);
    size_t j;
    if (4 * (s->count + 1) > 3 * s->cap && seen_grow(s))
        return 1;
    for (j = h1 & (s->cap - 1); s->slots[j].used; j = (j + 1) & (s->cap - 1))
        if (s->slots[j].h1 == h1 && s->slots[j].h2 == h2)
            return 0;
    s->slots[j] = (seen_entry){h1, h2, line, role, 1};
    s->count++;
    return 0;
}

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
    seen_set outputs;           /* every output so far */
    seen_set reads;             /* every input, IR and taps file so far */
    char manifest_key[OUTPUT_PATH_LEN];   /* the manifest's identity */
    char receipts[OUTPUT_PATH_LEN];       /* the receipts directory, canonical */
    char out_key[OUTPUT_PATH_LEN];        /* the current row's output's identity */
    char key[OUTPUT_PATH_LEN];            /* scratch: a file's identity */
    char *last_read, *last_read_key;      /* the last IR or taps file, and its identity */
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

/* The shortest decimal that reads back as v, so equal gains give equal text. */
static void format_double(char *buf, size_t n, double v)
{
    for (int digits = 6; digits <= 17; digits++) {
        snprintf(buf, n, "%.*g", digits, v);
        if (strtod(buf, NULL) == v)
            return;
    }
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
        format_double(gain, sizeof gain, j->gain_db);
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

/* What a file that is not a regular one is, for messages. */
static const char *file_kind(mode_t mode)
{
    return S_ISDIR(mode)    ? "a directory"
           : S_ISFIFO(mode) ? "a FIFO"
           : S_ISCHR(mode)  ? "a character device"
           : S_ISBLK(mode)  ? "a block device"
           : S_ISSOCK(mode) ? "a socket"
                            : "not a regular file";
}

static int said_read(reader *r, const char *output, const seen_entry *e)
{
    if (e->line == 0)
        return bad(r, "output '%s' is the command line's --%s; gfir never overwrites a file "
                   "that a job reads", output, role_names[e->role]);
    return bad(r, "output '%s' is line %zu's %s; gfir never overwrites a file that a job reads",
               output, e->line, role_names[e->role]);
}

/* The row's output is a file of its own: a regular file or a new name, not
 * standard output, not the manifest or anything under the receipts
 * directory, not the row's input, no other row's output, input, IR or taps,
 * however spelt (by identity: output.h). Then its input is no other row's
 * output: shards run in any order. Records both. 1 when the line is bad. */
static int check_files(reader *r, const char *input, const char *output)
{
    char canonical[OUTPUT_PATH_LEN];
    const seen_entry *e;
    struct stat sb;
    const int exists = output_identity(output, r->out_key, &sb);

    if (!strcmp(output, "-"))
        return bad(r, "output '-': gfir batch writes each output to a file and renames it "
                   "into place, never to standard output");
    if (exists && !S_ISREG(sb.st_mode))
        return bad(r, "output '%s' is %s; gfir batch writes regular files, renamed into place",
                   output, file_kind(sb.st_mode));
    if (!strcmp(r->out_key, r->manifest_key))
        return bad(r, "output '%s' is the manifest", output);
    if (exists)
        output_canonical(output, canonical);
    if (output_within(exists ? canonical : r->out_key, r->receipts))
        return bad(r, "output '%s' is in the receipts directory '%s'", output,
                   r->bo->receipts);
    output_identity(input, r->key, NULL);
    if (!strcmp(r->key, r->out_key))
        return bad(r, "output '%s' is the input; gfir never overwrites its input", output);
    if ((e = seen_find(&r->outputs, r->out_key)))
        return bad(r, "output '%s' is line %zu's output too; each output must appear once",
                   output, e->line);
    if ((e = seen_find(&r->reads, r->out_key)))
        return said_read(r, output, e);
    if ((e = seen_find(&r->outputs, r->key)))
        return bad(r, "input '%s' is line %zu's output; a job never reads another's output "
                   "(shards run in any order)", input, e->line);
    if (seen_add(&r->reads, r->key, r->t.line, ROLE_INPUT) ||
        seen_add(&r->outputs, r->out_key, r->t.line, ROLE_OUTPUT))
        return cli_error("out of memory");
    return 0;
}

/* An IR or taps file the row reads (path may be NULL) is neither its own
 * output nor another row's; recorded, so that no later output is it. */
static int check_read(reader *r, const char *path, file_role role, const char *output)
{
    const seen_entry *e;
    if (!path)
        return 0;
    if (!r->last_read || strcmp(r->last_read, path)) {
        free(r->last_read);
        free(r->last_read_key);
        output_identity(path, r->key, NULL);
        r->last_read = strdup(path);
        r->last_read_key = strdup(r->key);
        if (!r->last_read || !r->last_read_key)
            return cli_error("out of memory");
    }
    if (!strcmp(r->last_read_key, r->out_key))
        return bad(r, "output '%s' is the row's %s; gfir never overwrites a file that a job "
                   "reads", output, role_names[role]);
    if ((e = seen_find(&r->outputs, r->last_read_key)))
        return bad(r, "%s '%s' is line %zu's output; a job never reads another's output "
                   "(shards run in any order)", role_names[role], path, e->line);
    return seen_add(&r->reads, r->last_read_key, r->t.line, role) ? cli_error("out of memory")
                                                                  : 0;
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
    if (failed)
        return 1;
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
        check_read(r, j->taps, ROLE_TAPS, output))
        return 1;
    return describe(bo, j, preset || taps || ir ? j->ir != NULL || preset_has_ir : default_has_ir);
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
                         "gain, align, format, seed)", c);
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
    output_identity(bo->manifest, r.manifest_key, NULL);
    output_canonical(bo->receipts, r.receipts);
    /* the command line's files, read by every row without a filter of its own */
    for (size_t i = 0; i < bo->nstages; i++) {
        if (bo->stages[i].kind == STAGE_DESIGN)
            continue;
        output_identity(bo->stages[i].spec, r.key, NULL);
        if (seen_add(&r.reads, r.key, 0, bo->stages[i].kind == STAGE_IR ? ROLE_IR : ROLE_TAPS))
            return cli_error("out of memory");
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
    free(r.outputs.slots);
    free(r.reads.slots);
    free(r.last_read);
    free(r.last_read_key);
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
