/*
 * merge.c - receipts into one manifest of the outputs (merge.h).
 */
#include "batch/merge.h"
#include "file/output.h"
#include "message.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define SHOW_MISSING 20

static int write_all(int fd, const char *text, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, text, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return 1;
        text += n;
        len -= (size_t)n;
    }
    return 0;
}

int batch_merge(const manifest *m, const receipt_book *book, const char *path)
{
    output_file of = {.fd = -1, .slot = -1};
    json_buf out = {0};
    size_t missing = 0;
    int rc = 1;

    for (size_t i = 0; i < m->njobs; i++) {
        const manifest_job *j = &m->jobs[i];
        const receipt *r = receipts_find(book, j);
        if (!r) {
            if (++missing <= SHOW_MISSING)
                fprintf(stderr, "gfir: %s:%zu: no receipt for OUTPUT '%s' as the manifest "
                        "gives it now (not run, failed, or changed since)\n", m->path, j->line,
                        j->output);
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
    if (output_check(NULL, path) || output_begin(&of, path))
        goto done;
    if (write_all(of.fd, out.text ? out.text : "", out.len)) {
        cli_error("cannot write '%s': %s", path, strerror(errno));
        goto done;
    }
    rc = output_commit(&of);
done:
    output_end(&of);
    json_buf_free(&out);
    return rc;
}
