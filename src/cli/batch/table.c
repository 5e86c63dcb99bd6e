/*
 * table.c - manifest lines as records (table.h).
 */
#include "batch/table.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

static int set_error(table_reader *t, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static int set_error(table_reader *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->error, sizeof t->error, fmt, ap);
    va_end(ap);
    return 1;
}

/* Reads one line, its '\n' included, into t->buf: its length, 0 at the end
 * of the file, -1 with t->error and t->io_error set when it cannot be read or
 * is not a manifest's (longer than TABLE_MAX_LINE_BYTES, a NUL byte, more
 * than TABLE_MAX_LINES lines): memory stays within one line of that bound,
 * whatever the file holds (/dev/zero, one endless line, endless blank lines). */
static ssize_t read_line(table_reader *t)
{
    size_t n = 0;
    int c;
    if (!t->buf) {
        t->buf = malloc(TABLE_MAX_LINE_BYTES + 3);
        if (!t->buf) {
            t->io_error = 1;
            return -set_error(t, "out of memory");
        }
        t->bufcap = TABLE_MAX_LINE_BYTES + 3;
    }
    errno = 0;
    while ((c = getc(t->f)) != EOF) {
        if (c == '\0') {
            t->io_error = 1;
            t->line++;
            return -set_error(t, "a NUL byte: this is not a text manifest");
        }
        if (n == TABLE_MAX_LINE_BYTES + 2) { /* room for "\r\n" after the most text */
            t->io_error = 1;
            t->line++;
            return -set_error(t, "a line longer than %d bytes", TABLE_MAX_LINE_BYTES);
        }
        t->buf[n++] = (char)c;
        if (c == '\n')
            break;
    }
    if (c == EOF && ferror(t->f)) {
        t->io_error = 1;
        return -set_error(t, "cannot read: %s", strerror(errno ? errno : EIO));
    }
    if (n > 0 && t->line == TABLE_MAX_LINES) {
        t->io_error = 1;
        t->line++;
        return -set_error(t, "more than %lu lines", (unsigned long)TABLE_MAX_LINES);
    }
    t->buf[n] = '\0';
    return (ssize_t)n;
}

/* The next line without its line end, or NULL at the end of the file (or on
 * an error, which sets t->error). Counts lines. */
static char *next_line(table_reader *t, size_t *len)
{
    ssize_t n = read_line(t);
    if (n <= 0)
        return NULL;
    t->line++;
    if (n > 0 && t->buf[n - 1] == '\n')
        n--;
    if (n > 0 && t->buf[n - 1] == '\r')
        n--;
    if (n > TABLE_MAX_LINE_BYTES) {
        t->io_error = 1;
        set_error(t, "a line longer than %d bytes", TABLE_MAX_LINE_BYTES);
        return NULL;
    }
    t->buf[n] = '\0';
    *len = (size_t)n;
    if (t->line == 1 && n >= 3 && !memcmp(t->buf, "\xEF\xBB\xBF", 3)) {
        *len -= 3;
        return t->buf + 3;
    }
    return t->buf;
}

static int blank(const char *s)
{
    return s[strspn(s, " \t")] == '\0';
}

/*
 * Splits a TSV or CSV line into NUL-terminated fields in t->fields, pointed
 * to by t->values (grown to hold them); *count receives how many.
 */
static int split(table_reader *t, const char *s, size_t len, char ***values, size_t *count)
{
    const char sep = t->layout == TABLE_TSV ? '\t' : ',';
    size_t n = 1;
    char *out, **v;

    for (size_t i = 0; i < len; i++)
        n += s[i] == sep;
    if (len + 1 > t->fieldscap) {
        char *f = realloc(t->fields, len + 1);
        if (!f)
            return set_error(t, "out of memory");
        t->fields = f;
        t->fieldscap = len + 1;
    }
    v = realloc(*values, n * sizeof *v);
    if (!v)
        return set_error(t, "out of memory");
    *values = v;
    out = t->fields;
    *count = 0;
    for (size_t i = 0;;) {
        v[(*count)++] = out;
        if (t->layout == TABLE_CSV && i < len && s[i] == '"') {
            for (i++;; i++) {
                if (i == len)
                    return set_error(t, "field %zu: a quoted field is not closed on its line",
                                     *count);
                if (s[i] == '"' && i + 1 < len && s[i + 1] == '"')
                    *out++ = s[i++];
                else if (s[i] == '"')
                    break;
                else
                    *out++ = s[i];
            }
            i++;
            if (i < len && s[i] != sep)
                return set_error(t, "field %zu: text after a quoted field's closing quote",
                                 *count);
        } else {
            while (i < len && s[i] != sep)
                *out++ = s[i++];
        }
        *out++ = '\0';
        if (i >= len)
            break;
        i++; /* the separator */
    }
    return 0;
}

static int read_header(table_reader *t, const char *s, size_t len)
{
    if (split(t, s, len, &t->columns, &t->ncolumns)) {
        t->ncolumns = 0; /* none copied yet: table_close has nothing to free */
        return 1;
    }
    /* the names point into t->fields, which the records reuse: copy them */
    for (size_t i = 0; i < t->ncolumns; i++) {
        t->columns[i] = strdup(t->columns[i]);
        if (!t->columns[i]) {
            t->ncolumns = i;
            return set_error(t, "out of memory");
        }
    }
    for (size_t i = 0; i < t->ncolumns; i++) {
        if (!t->columns[i][0])
            return set_error(t, "the header's column %zu has no name", i + 1);
        for (size_t j = 0; j < i; j++)
            if (!strcmp(t->columns[i], t->columns[j]))
                return set_error(t, "the header names column '%s' twice", t->columns[i]);
    }
    return 0;
}

int table_open(table_reader *t, const char *path)
{
    const char *s;
    size_t len;

    memset(t, 0, sizeof *t);
    t->f = fopen(path, "r");
    if (!t->f)
        return set_error(t, "cannot open: %s", strerror(errno));
    do {
        s = next_line(t, &len);
        if (!s)
            return t->error[0] ? 1 : set_error(t, "no header and no jobs: the file is empty");
    } while (blank(s));
    if (s[strspn(s, " \t")] == '{') {
        t->layout = TABLE_JSONL;
        t->line = 0;
        rewind(t->f);
        return 0;
    }
    t->layout = strchr(s, '\t') ? TABLE_TSV : TABLE_CSV;
    return read_header(t, s, len);
}

int table_next(table_reader *t)
{
    const char *s, *error;
    size_t len, count, column;

    json_object_free(&t->obj);
    t->error[0] = '\0';
    do {
        s = next_line(t, &len);
        if (!s)
            return t->error[0] ? -1 : 0;
    } while (blank(s));
    if (t->layout == TABLE_JSONL) {
        if (json_parse_object(s, len, &t->obj, &error, &column)) {
            set_error(t, "column %zu: %s", column, error);
            return -1;
        }
        return 1;
    }
    if (split(t, s, len, &t->values, &count))
        return -1;
    if (count != t->ncolumns) {
        set_error(t, "%zu fields, but the header has %zu%s", count, t->ncolumns,
                  t->layout == TABLE_TSV ? " (fields are separated by tabs)" : "");
        return -1;
    }
    return 1;
}

int table_get(const table_reader *t, const char *key, const char **value)
{
    if (t->layout == TABLE_JSONL) {
        const json_field *f = json_get(&t->obj, key);
        if (!f || f->kind == JSON_NULL)
            return 0;
        if (f->kind != JSON_STRING && f->kind != JSON_NUMBER)
            return -1;
        if (!f->text[0])
            return 0;
        *value = f->text;
        return 1;
    }
    for (size_t i = 0; i < t->ncolumns; i++) {
        if (!strcmp(t->columns[i], key)) {
            if (!t->values[i][0])
                return 0;
            *value = t->values[i];
            return 1;
        }
    }
    return 0;
}

void table_close(table_reader *t)
{
    if (t->f)
        fclose(t->f);
    for (size_t i = 0; i < t->ncolumns; i++)
        free(t->columns[i]);
    free(t->columns);
    free(t->values);
    json_object_free(&t->obj);
    free(t->buf);
    free(t->fields);
    memset(t, 0, sizeof *t);
}
