/*
 * merge.c - receipts into one manifest of the outputs (merge.h).
 */
#include "batch/merge.h"
#include "file/output.h"
#include "message.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define SHOW_MISSING 20

int batch_check_target(const manifest *m, const receipt_book *book, const char *path,
                       const char *what)
{
    char key[OUTPUT_PATH_LEN], other[OUTPUT_PATH_LEN], last[OUTPUT_PATH_LEN] = "";
    output_identity(path, key, NULL);
    output_identity(m->path, other, NULL);
    if (!strcmp(key, other))
        return cli_error("%s '%s' is the manifest '%s'", what, path, m->path);
    if (strcmp(path, "-")) {
        output_canonical(book->dir, other);
        output_canonical(path, last);
        if (output_within(last, other))
            return cli_error("%s '%s' is in the receipts directory '%s'", what, path,
                             book->dir);
    }
    for (size_t i = 0; i < m->njobs; i++) {
        const manifest_job *j = &m->jobs[i];
        const char *const files[] = {j->input, j->output, j->ir, j->taps};
        static const char *const roles[] = {"input", "output", "ir", "taps"};
        for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
            if (!files[f])
                continue;
            output_identity(files[f], other, NULL);
            if (!strcmp(key, other))
                return cli_error("%s '%s' is the %s of %s:%zu ('%s'); gfir never "
                                 "overwrites a job's files", what, path, roles[f], m->path,
                                 j->line, files[f]);
        }
    }
    return 0;
}

int batch_write_whole(const char *what, const char *path, const json_buf *text)
{
    output_file of = OUTPUT_FILE_INIT;
    int rc = 1;
    /* before the temporary file exists: a signal then removes it */
    output_catch_signals();
    if (output_check_named(what, NULL, path) || output_begin_named(&of, what, path))
        goto done;
    if (output_write_all(of.fd, text->text ? text->text : "", text->len)) {
        cli_error("cannot write %s '%s': %s", what, path, strerror(errno));
        goto done;
    }
    rc = output_commit(&of);
done:
    output_end(&of);
    return rc;
}

int batch_merge(const manifest *m, const receipt_book *book, const char *path)
{
    json_buf out = {0};
    size_t missing = 0;
    int rc = 1;

    if (batch_check_target(m, book, path, "--merge"))
        return 1;
    for (size_t i = 0; i < m->njobs; i++) {
        const manifest_job *j = &m->jobs[i];
        const receipt *r = receipts_find(book, j);
        if (!r) {
            if (++missing <= SHOW_MISSING)
                cli_note(0, "%s:%zu: no receipt for OUTPUT '%s' as the manifest gives it now "
                         "(not run, failed, or changed since)", m->path, j->line, j->output);
            continue;
        }
        json_buf_raw(&out, r->text, strlen(r->text));
        json_buf_raw(&out, "\n", 1);
    }
    if (missing) {
        cli_error("%zu of %zu jobs have no receipt in '%s'; '%s' was not written", missing,
                  m->njobs, book->dir, path);
        goto done;
    }
    if (out.failed) {
        cli_error("out of memory merging %zu receipts", m->njobs);
        goto done;
    }
    rc = batch_write_whole("--merge", path, &out);
done:
    json_buf_free(&out);
    return rc;
}
