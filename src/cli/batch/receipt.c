/*
 * receipt.c - the receipts of finished outputs (receipt.h).
 */
#define _GNU_SOURCE /* flock */
#include "batch/receipt.h"
#include "batch/dirs.h"
#include "batch/hash.h"
#include "file/output.h"
#include "message.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

static uint64_t hash_path(const char *s)
{
    return hash_string(s, HASH_FNV_BASIS);
}

static void index_put(receipt_book *b, size_t item)
{
    size_t j = hash_path(b->items[item].output) & (b->index_cap - 1);
    while (b->index[j] != SIZE_MAX)
        j = (j + 1) & (b->index_cap - 1);
    b->index[j] = item;
}

/* Indexes items[item], the newest, growing the index to stay under 3/4 full. */
static int index_insert(receipt_book *b, size_t item)
{
    if (4 * (item + 1) > 3 * b->index_cap) {
        size_t cap = b->index_cap ? 2 * b->index_cap : 1024;
        size_t *index = malloc(cap * sizeof *index);
        if (!index)
            return 1;
        for (size_t i = 0; i < cap; i++)
            index[i] = SIZE_MAX;
        free(b->index);
        b->index = index;
        b->index_cap = cap;
        for (size_t i = 0; i < item; i++)
            index_put(b, i);
    }
    index_put(b, item);
    return 0;
}

static const char *text_of(const json_record *o, const char *key)
{
    const json_field *f = json_get(o, key);
    return f && f->kind == JSON_KIND_STRING ? f->text : NULL;
}

static int number_of(const json_record *o, const char *key, int64_t *v)
{
    const json_field *f = json_get(o, key);
    char *end;
    if (!f || f->kind != JSON_KIND_NUMBER)
        return 1;
    errno = 0;
    *v = strtoll(f->text, &end, 10);
    return errno || *end;
}

/* One receipt line into the book; 1 when it is not a receipt. */
static int add_line(receipt_book *b, const char *line, size_t len)
{
    json_record o;
    const char *err, *output, *input, *recipe;
    size_t col;
    int64_t bytes, mtime, in_bytes, in_mtime;
    receipt *r;
    int rc = 1;

    if (json_parse_object(line, len, &o, &err, &col))
        return 1;
    output = text_of(&o, "output");
    if (!output && text_of(&o, "tar") && json_get(&o, "keys")) { /* a tar shard's list */
        rc = 0;
        goto done;
    }
    input = text_of(&o, "input");
    recipe = text_of(&o, "filter");
    if (!output || !input || !recipe || number_of(&o, "bytes", &bytes) ||
        number_of(&o, "mtime_ns", &mtime) || bytes < 0)
        goto done;
    if (b->nitems == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 256;
        receipt *items = realloc(b->items, cap * sizeof *items);
        if (!items)
            goto done;
        b->items = items;
        b->cap = cap;
    }
    r = &b->items[b->nitems];
    r->output = strdup(output);
    r->input = strdup(input);
    r->recipe = strdup(recipe);
    r->text = strndup(line, len);
    r->tar = text_of(&o, "tar") ? strdup(text_of(&o, "tar")) : NULL;
    r->bytes = (uint64_t)bytes;
    r->mtime_ns = mtime;
    /* without INPUT's facts nothing says it is unchanged: the job is redone */
    if (number_of(&o, "input_bytes", &in_bytes) || number_of(&o, "input_mtime_ns", &in_mtime) ||
        in_bytes < 0) {
        in_bytes = -1;
        in_mtime = 0;
    }
    r->input_bytes = in_bytes < 0 ? UINT64_MAX : (uint64_t)in_bytes;
    r->input_mtime_ns = in_mtime;
    if (!r->output || !r->input || !r->recipe || !r->text || index_insert(b, b->nitems)) {
        free(r->output);
        free(r->input);
        free(r->recipe);
        free(r->text);
        free(r->tar);
        goto done;
    }
    b->nitems++;
    rc = 0;
done:
    json_record_free(&o);
    return rc;
}

/* Reads one shard's file. *whole receives the length up to its last line
 * end: anything after it is a line a killed process did not finish. */
static int read_file(receipt_book *b, const char *path, off_t *whole)
{
    FILE *f = fopen(path, "r");
    char *text = NULL;
    size_t len = 0, cap = 0, n;
    size_t ignored = 0, first_ignored = 0, lineno = 0;

    if (!f)
        return cli_error("cannot read receipts '%s': %s", path, strerror(errno));
    do {
        if (len + 65536 > cap) {
            char *t = realloc(text, cap = 2 * cap + 65536);
            if (!t) {
                fclose(f);
                free(text);
                return cli_error("out of memory reading receipts '%s'", path);
            }
            text = t;
        }
        n = fread(text + len, 1, cap - len, f);
        len += n;
    } while (n > 0);
    if (ferror(f)) {
        fclose(f);
        free(text);
        return cli_error("cannot read receipts '%s': %s", path, strerror(errno));
    }
    fclose(f);
    *whole = 0;
    for (size_t start = 0; start < len;) {
        const char *nl = memchr(text + start, '\n', len - start);
        if (!nl)
            break;
        size_t end = (size_t)(nl - text);
        lineno++;
        if (end > start && add_line(b, text + start, end - start) && !ignored++)
            first_ignored = lineno;
        start = end + 1;
        *whole = (off_t)start;
    }
    free(text);
    if (ignored)
        cli_note(0, "%s:%zu: %zu line%s that are not receipts, ignored", path, first_ignored,
                 ignored, ignored == 1 ? "" : "s");
    return 0;
}

static int is_shard_file(const char *name)
{
    unsigned long k, n;
    char tail[8];
    return sscanf(name, "shard-%lu-of-%lu.%7s", &k, &n, tail) == 3 && !strcmp(tail, "jsonl");
}

static int read_all(receipt_book *b)
{
    DIR *d = opendir(b->dir);
    struct dirent *e;
    int rc = 0;
    if (!d)
        return errno == ENOENT ? 0 : cli_error("cannot read receipts in '%s': %s", b->dir,
                                               strerror(errno));
    while (!rc && (e = readdir(d))) {
        char path[4096];
        off_t whole;
        if (!is_shard_file(e->d_name) || (b->path && !strcmp(b->own_name, e->d_name)))
            continue;
        snprintf(path, sizeof path, "%s/%s", b->dir, e->d_name);
        rc = read_file(b, path, &whole);
    }
    closedir(d);
    return rc;
}

/* Opens, locks and reads this shard's own file, cutting a half-written last line. */
static int open_own(receipt_book *b, const shard *sh)
{
    off_t whole;
    struct stat sb;
    snprintf(b->own_name, sizeof b->own_name, "shard-%lu-of-%lu.jsonl", sh->k, sh->n);
    b->path = malloc(strlen(b->dir) + strlen(b->own_name) + 2);
    if (!b->path)
        return cli_error("out of memory");
    sprintf(b->path, "%s/%s", b->dir, b->own_name);
    b->fd = open(b->path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
    if (b->fd < 0)
        return cli_error("cannot open receipts '%s': %s", b->path, strerror(errno));
    if (flock(b->fd, LOCK_EX | LOCK_NB) != 0) {
        if (errno == EWOULDBLOCK)
            return cli_error("shard %lu/%lu is running already: another process holds "
                             "'%s'", sh->k, sh->n, b->path);
        cli_note(0, "note: cannot lock '%s' (%s): make sure no other process runs shard "
                 "%lu/%lu", b->path, strerror(errno), sh->k, sh->n);
    }
    if (read_file(b, b->path, &whole) || fstat(b->fd, &sb) != 0)
        return 1;
    if (sb.st_size > whole && ftruncate(b->fd, whole) != 0)
        return cli_error("cannot cut the unfinished last line of '%s': %s", b->path,
                         strerror(errno));
    return 0;
}

int receipts_open(receipt_book *b, const char *dir, const shard *sh)
{
    memset(b, 0, sizeof *b);
    b->fd = -1;
    b->dir = strdup(dir);
    if (!b->dir)
        return cli_error("out of memory");
    if (sh && (dirs_make(dir, "the receipts directory") || open_own(b, sh)))
        return 1;
    return read_all(b);
}

static int64_t mtime_ns(const struct stat *sb)
{
    return (int64_t)sb->st_mtim.tv_sec * 1000000000 + sb->st_mtim.tv_nsec;
}

int receipt_stat_input(const char *input, receipt_facts *f)
{
    struct stat sb;
    if (stat(input, &sb) != 0)
        return 1;
    f->input_bytes = (uint64_t)sb.st_size;
    f->input_mtime_ns = mtime_ns(&sb);
    return 0;
}

const receipt *receipts_find(const receipt_book *b, const manifest_job *j)
{
    struct stat sb, in;
    int stated = 0;
    if (!b->index_cap || b->force || stat(j->input, &in) != 0)
        return NULL;
    for (size_t k = hash_path(j->output) & (b->index_cap - 1); b->index[k] != SIZE_MAX;
         k = (k + 1) & (b->index_cap - 1)) {
        const receipt *r = &b->items[b->index[k]];
        if (strcmp(r->output, j->output) || strcmp(r->input, j->input) ||
            strcmp(r->recipe, j->recipe))
            continue;
        if (r->tar) { /* a member of a tar shard: that file as recorded */
            if (stat(r->tar, &sb) != 0)
                continue;
        } else if (!stated && stat(j->output, &sb) != 0) {
            return NULL;
        }
        stated = !r->tar;
        if ((uint64_t)sb.st_size == r->bytes && mtime_ns(&sb) == r->mtime_ns &&
            (uint64_t)in.st_size == r->input_bytes && mtime_ns(&in) == r->input_mtime_ns)
            return r;
    }
    return NULL;
}

void receipt_format(json_buf *out, const manifest_job *j, const receipt_facts *f)
{
    json_buf_raw(out, "{\"id\":", 6);
    json_buf_string(out, j->id);
    json_buf_printf(out, ",\"line\":%zu,\"input\":", j->line);
    json_buf_string(out, j->input);
    json_buf_raw(out, ",\"output\":", 10);
    json_buf_string(out, j->output);
    if (f->tar) {
        json_buf_raw(out, ",\"tar\":", 7);
        json_buf_string(out, f->tar);
    }
    json_buf_raw(out, ",\"filter\":", 10);
    json_buf_string(out, j->recipe);
    json_buf_printf(out, ",\"frames\":%" PRIu64 ",\"rate\":%u,\"channels\":%u,\"duration\":%.6f,",
                    f->frames, f->rate_hz, f->channels,
                    f->rate_hz ? (double)f->frames / f->rate_hz : 0.0);
    /* JSON has no infinity: a peak that is not finite is null */
    if (isfinite(f->peak))
        json_buf_printf(out, "\"peak\":%.6g,", f->peak);
    else
        json_buf_raw(out, "\"peak\":null,", 12);
    json_buf_printf(out, "\"clipped\":%" PRIu64 ",\"nonfinite_in\":%" PRIu64
                    ",\"nonfinite_out\":%" PRIu64 ",", f->clipped, f->nonfinite_in,
                    f->nonfinite_out);
    json_buf_printf(out, "\"seconds\":%.4f,\"bytes\":%" PRIu64 ",\"mtime_ns\":%" PRId64
                    ",\"input_bytes\":%" PRIu64 ",\"input_mtime_ns\":%" PRId64 "}\n",
                    f->seconds, f->bytes, f->mtime_ns, f->input_bytes, f->input_mtime_ns);
}

/* Receipts that could not be written whole and synced are cut off again:
 * the jobs they vouch for count as failed, and the next run must see them
 * as not done (a receipt there would have it skip them). */
static int unappend(receipt_book *b, off_t size, const char *what)
{
    const int err = errno;
    if (ftruncate(b->fd, size) != 0)
        return cli_error("cannot %s receipts '%s': %s (and cannot cut them off again: %s)",
                         what, b->path, strerror(err), strerror(errno));
    return cli_error("cannot %s receipts '%s': %s", what, b->path, strerror(err));
}

int receipts_append(receipt_book *b, const char *text, size_t len)
{
    struct stat sb;
    if (fstat(b->fd, &sb) != 0)
        return cli_error("cannot write receipts '%s': %s", b->path, strerror(errno));
    if (output_write_all(b->fd, text, len) != 0)
        return unappend(b, sb.st_size, "write");
    if (fdatasync(b->fd) != 0)
        return unappend(b, sb.st_size, "sync");
    return 0;
}

void receipts_close(receipt_book *b)
{
    if (b->fd >= 0)
        close(b->fd);
    for (size_t i = 0; i < b->nitems; i++) {
        free(b->items[i].output);
        free(b->items[i].input);
        free(b->items[i].recipe);
        free(b->items[i].text);
        free(b->items[i].tar);
    }
    free(b->items);
    free(b->index);
    free(b->dir);
    free(b->path);
    memset(b, 0, sizeof *b);
    b->fd = -1;
}
