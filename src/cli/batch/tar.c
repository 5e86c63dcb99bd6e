/*
 * tar.c - outputs packed into tar shards through libarchive (tar.h).
 */
#include "batch/tar.h"
#include "batch/dirs.h"
#include "batch/early.h"
#include "file/output.h"
#include "message.h"

#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

typedef struct pending {
    const manifest_job *job;
    receipt_facts facts;
} pending;

struct tar_packer {
    const batch_options *bo;
    char prefix[64];            /* "shard-K-of-N-" */
    char scratch[1024];         /* $TMPDIR/gfir-tar-XXXXXX */
    unsigned next;              /* the next shard's number */
    /* the open shard */
    char path[4096];
    output_file of;
    struct archive *a;
    pending *jobs;
    size_t njobs, cap;
    uint64_t bytes;             /* members' bytes so far */
};

static const char *extension(const char *path)
{
    const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
    return dot && (!slash || dot > slash) && dot != path ? dot : "";
}

/* DIR/shard-K-of-N-PPPPPP.tar: 1 with *number when name is one of ours. */
static int our_shard(const tar_packer *tp, const char *name, unsigned *number)
{
    const size_t n = strlen(tp->prefix);
    char tail[8];
    return !strncmp(name, tp->prefix, n) && sscanf(name + n, "%6u.%4s", number, tail) == 2 &&
           !strcmp(tail, "tar") && strlen(name + n) == 10;
}

/* A shard some receipt names, at the size and time it records. */
static int vouched(const receipt_book *book, const char *path)
{
    struct stat sb;
    if (stat(path, &sb) != 0)
        return 0;
    for (size_t i = 0; i < book->nitems; i++) {
        const receipt *r = &book->items[i];
        if (r->tar && !strcmp(r->tar, path) && r->bytes == (uint64_t)sb.st_size &&
            r->mtime_ns == (int64_t)sb.st_mtim.tv_sec * 1000000000 + sb.st_mtim.tv_nsec)
            return 1;
    }
    return 0;
}

static int sweep(tar_packer *tp, const receipt_book *book)
{
    DIR *d = opendir(tp->bo->tar);
    struct dirent *e;
    if (!d)
        return cli_error("cannot read --tar '%s': %s", tp->bo->tar, strerror(errno));
    while ((e = readdir(d))) {
        char path[4096];
        unsigned number;
        snprintf(path, sizeof path, "%s/%s", tp->bo->tar, e->d_name);
        if (our_shard(tp, e->d_name, &number)) {
            if (vouched(book, path)) {
                tp->next = number + 1 > tp->next ? number + 1 : tp->next;
            } else {
                /* set aside, not removed: a run that died before its receipts
                 * left it, or another manifest's run writes to this
                 * directory; either way nothing is lost, and no reader of
                 * *.tar sees its keys twice */
                char aside[4200];
                snprintf(aside, sizeof aside, "%s.orphan", path);
                if (rename(path, aside) == 0)
                    cli_note(0, "%s: a tar shard no receipt of this manifest vouches for, "
                             "set aside as %s.orphan: its jobs are made again", path,
                             e->d_name);
            }
        } else if (e->d_name[0] == '.' && !strncmp(e->d_name + 1, tp->prefix, strlen(tp->prefix)) &&
                   output_is_any_temporary(e->d_name)) {
            output_remove_stale(dirfd(d), e->d_name);
        }
    }
    closedir(d);
    return 0;
}

int tar_open(tar_packer **out, const batch_options *bo, const shard *sh,
             const receipt_book *book)
{
    tar_packer *tp = calloc(1, sizeof *tp);
    const char *tmp = getenv("TMPDIR");
    *out = tp;
    if (!tp)
        return cli_error("out of memory");
    tp->bo = bo;
    tp->of = (output_file)OUTPUT_FILE_INIT;
    snprintf(tp->prefix, sizeof tp->prefix, "shard-%lu-of-%lu-", sh->k, sh->n);
    if (snprintf(tp->scratch, sizeof tp->scratch, "%s/gfir-tar-XXXXXX",
                 tmp && *tmp ? tmp : "/tmp") >= (int)sizeof tp->scratch) {
        tp->scratch[0] = '\0';
        return cli_error("TMPDIR is too long a path for --tar's scratch directory");
    }
    if (dirs_make(bo->tar, "--tar's directory") || sweep(tp, book))
        return 1;
    if (!mkdtemp(tp->scratch)) {
        cli_error("cannot make a scratch directory '%s': %s", tp->scratch, strerror(errno));
        tp->scratch[0] = '\0';
        return 1;
    }
    return 0;
}

int tar_scratch_path(const tar_packer *tp, const manifest_job *j, char *path, size_t n)
{
    return snprintf(path, n, "%s/%zu%s", tp->scratch, j->index, extension(j->output)) >=
           (int)n;
}

static int start_shard(tar_packer *tp)
{
    snprintf(tp->path, sizeof tp->path, "%s/%s%06u.tar", tp->bo->tar, tp->prefix, tp->next++);
    if (output_begin_named(&tp->of, "tar shard", tp->path))
        return 1;
    tp->a = archive_write_new();
    if (!tp->a || archive_write_set_format_pax_restricted(tp->a) != ARCHIVE_OK ||
        archive_write_open_fd(tp->a, tp->of.fd) != ARCHIVE_OK) {
        cli_error("cannot start tar shard '%s': %s", tp->path,
                  tp->a ? archive_error_string(tp->a) : "out of memory");
        /* the temporary shard goes now: nothing of it is committed */
        if (tp->a)
            archive_write_free(tp->a);
        tp->a = NULL;
        output_end(&tp->of);
        return 1;
    }
    return 0;
}

static int add_member(tar_packer *tp, const char *name, const void *data, size_t size)
{
    struct archive_entry *e = archive_entry_new();
    int rc = 0;
    if (!e)
        return cli_error("out of memory");
    archive_entry_set_pathname(e, name);
    archive_entry_set_size(e, (la_int64_t)size);
    archive_entry_set_filetype(e, AE_IFREG);
    archive_entry_set_perm(e, 0644);
    archive_entry_set_mtime(e, time(NULL), 0);
    if (archive_write_header(tp->a, e) != ARCHIVE_OK ||
        (size && archive_write_data(tp->a, data, size) != (la_ssize_t)size))
        rc = cli_error("cannot write tar shard '%s': %s", tp->path, archive_error_string(tp->a));
    archive_entry_free(e);
    tp->bytes += size;
    return rc;
}

static int read_whole(const char *path, char **data, size_t *size)
{
    FILE *f = fopen(path, "rb");
    long n;
    *data = NULL;
    if (!f || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0 ||
        !(*data = malloc((size_t)n + 1)) || fread(*data, 1, (size_t)n, f) != (size_t)n) {
        int err = errno;
        if (f)
            fclose(f);
        free(*data);
        return cli_error("cannot read the scratch output '%s': %s", path, strerror(err));
    }
    fclose(f);
    *size = (size_t)n;
    return 0;
}

/* Synced, renamed, the rename synced; then the receipts. */
static int close_shard(tar_packer *tp, receipt_book *book)
{
    json_buf text = {0};
    int rc = archive_write_close(tp->a) != ARCHIVE_OK
                 ? cli_error("cannot finish tar shard '%s': %s", tp->path,
                             archive_error_string(tp->a))
                 : 0;
    archive_write_free(tp->a);
    tp->a = NULL;
    if (!rc)
        rc = output_commit(&tp->of);
    for (size_t i = 0; !rc && i < tp->njobs; i++) {
        receipt_facts f = tp->jobs[i].facts;
        f.tar = tp->path;
        f.bytes = tp->of.bytes;
        f.mtime_ns = tp->of.mtime_ns;
        receipt_format(&text, tp->jobs[i].job, &f);
    }
    if (!rc) {
        json_buf_raw(&text, "{\"tar\":", 7);
        json_buf_string(&text, tp->path);
        json_buf_printf(&text, ",\"bytes\":%llu,\"keys\":[", (unsigned long long)tp->of.bytes);
        for (size_t i = 0; i < tp->njobs; i++) {
            const char *out = tp->jobs[i].job->output;
            char key[4096];
            snprintf(key, sizeof key, "%.*s", (int)(strlen(out) - strlen(extension(out))), out);
            if (i)
                json_buf_raw(&text, ",", 1);
            json_buf_string(&text, key);
        }
        json_buf_raw(&text, "]}\n", 3);
        rc = text.failed ? cli_error("out of memory for receipts")
                         : receipts_append(book, text.text, text.len);
    }
    json_buf_free(&text);
    output_end(&tp->of);
    tp->of = (output_file)OUTPUT_FILE_INIT;
    tp->njobs = 0;
    tp->bytes = 0;
    return rc;
}

/* The scratch file into the shard as member `name`, then removed. */
static int pack_file(tar_packer *tp, const char *scratch, const char *name)
{
    char *data = NULL;
    size_t size = 0;
    int rc = read_whole(scratch, &data, &size);
    unlink(scratch);
    rc = rc || add_member(tp, name, data, size);
    free(data);
    return rc;
}

int tar_take(tar_packer *tp, receipt_book *book, const manifest_job *j, const receipt_facts *f)
{
    char scratch[4096], early[4096], name[4096];
    const char *ext = extension(j->output);
    json_buf receipt = {0};
    int rc;

    tar_scratch_path(tp, j, scratch, sizeof scratch);
    if (!tp->a && start_shard(tp)) {
        unlink(scratch);
        return 1;
    }
    if (tp->njobs == tp->cap) {
        size_t cap = tp->cap ? 2 * tp->cap : 64;
        pending *p = realloc(tp->jobs, cap * sizeof *p);
        if (!p) {
            unlink(scratch);
            return cli_error("out of memory");
        }
        tp->jobs = p;
        tp->cap = cap;
    }
    receipt_format(&receipt, j, f);
    rc = pack_file(tp, scratch, j->output);
    if (tp->bo->early_ms > 0) { /* KEY.early.EXT, from its scratch twin */
        early_path(scratch, early, sizeof early);
        early_path(j->output, name, sizeof name);
        rc = pack_file(tp, early, name) || rc;
    }
    snprintf(name, sizeof name, "%.*s.json", (int)(strlen(j->output) - strlen(ext)), j->output);
    rc = rc || receipt.failed || add_member(tp, name, receipt.text, receipt.len);
    json_buf_free(&receipt);
    if (rc)
        return 1;
    tp->jobs[tp->njobs++] = (pending){j, *f};
    if ((tp->bo->shard_members && tp->njobs >= tp->bo->shard_members) ||
        (tp->bo->shard_bytes && tp->bytes >= tp->bo->shard_bytes))
        return close_shard(tp, book);
    return 0;
}

int tar_finish(tar_packer *tp, receipt_book *book)
{
    return tp && tp->a ? close_shard(tp, book) : 0;
}

void tar_close(tar_packer *tp)
{
    if (!tp)
        return;
    if (tp->a) {
        archive_write_free(tp->a);
        output_end(&tp->of);
    }
    if (tp->scratch[0])
        rmdir(tp->scratch);
    free(tp->jobs);
    free(tp);
}
