/*
 * json.c - one JSON object per line, read and written (json.h), through
 * Debian's jansson (libjansson-dev). Jansson rather than json-c or cJSON:
 * json_loadb reads a buffer of a given length (a manifest line is not
 * NUL-terminated), it is strict JSON by default (UTF-8 checked, no
 * comments or trailing commas), it refuses a key given twice when asked
 * (JSON_REJECT_DUPLICATES), its nesting has a ceiling, its errors carry
 * the byte position, and no state is global (cJSON's error pointer is).
 */
#include "batch/json.h"

#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Jansson's sentences, in its own words, outlive the json_error_t they came
 * in: kept here (the reader is used by one thread at a time). */
static char last_error[JSON_ERROR_TEXT_LENGTH];

static int fail(json_record *obj, const char **error, size_t *column, const char *why,
                size_t at)
{
    json_record_free(obj);
    *error = why;
    *column = at;
    return 1;
}

/* A number as text: integers exactly, reals in the fewest digits that read
 * back as the same double. */
static char *number_text(const json_t *v)
{
    char text[40];
    if (json_is_integer(v)) {
        snprintf(text, sizeof text, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
    } else {
        const double x = json_real_value(v);
        for (int digits = 15; digits <= 17; digits++) {
            snprintf(text, sizeof text, "%.*g", digits, x);
            if (strtod(text, NULL) == x)
                break;
        }
    }
    return strdup(text);
}

static int add_field(json_record *obj, const char *key, const json_t *v)
{
    json_field *f = &obj->fields[obj->nfields];
    f->text = NULL;
    switch (json_typeof(v)) {
    case JSON_OBJECT:
    case JSON_ARRAY:
        f->kind = JSON_KIND_NESTED;
        break;
    case JSON_STRING:
        f->kind = JSON_KIND_STRING;
        f->text = strndup(json_string_value(v), json_string_length(v));
        break;
    case JSON_INTEGER:
    case JSON_REAL:
        f->kind = JSON_KIND_NUMBER;
        f->text = number_text(v);
        break;
    case JSON_TRUE:
        f->kind = JSON_KIND_TRUE;
        break;
    case JSON_FALSE:
        f->kind = JSON_KIND_FALSE;
        break;
    default:
        f->kind = JSON_KIND_NULL;
        break;
    }
    f->key = strdup(key);
    obj->nfields++;
    return !f->key || ((f->kind == JSON_KIND_STRING || f->kind == JSON_KIND_NUMBER) && !f->text);
}

int json_parse_object(const char *text, size_t len, json_record *obj, const char **error,
                      size_t *column)
{
    json_error_t e;
    json_t *root, *v;
    const char *key;
    size_t at = 0;

    memset(obj, 0, sizeof *obj);
    while (at < len && strchr(" \t\r\n", text[at]) && text[at])
        at++;
    if (at == len || text[at] != '{')
        return fail(obj, error, column, "the line is not a JSON object ({...})", at + 1);
    /* JSON_ALLOW_NUL off: a string holding \u0000 is refused, as a C
     * string could not carry it */
    root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &e);
    if (!root) {
        snprintf(last_error, sizeof last_error, "%s", e.text);
        /* e.position counts the bytes read, the one at fault included */
        return fail(obj, error, column, last_error, e.position > 0 ? (size_t)e.position : 1);
    }
    obj->fields = calloc(json_object_size(root) ? json_object_size(root) : 1, sizeof *obj->fields);
    if (!obj->fields) {
        json_decref(root);
        return fail(obj, error, column, "out of memory", 1);
    }
    json_object_foreach(root, key, v) {
        if (add_field(obj, key, v)) {
            json_decref(root);
            return fail(obj, error, column, "out of memory", 1);
        }
    }
    json_decref(root);
    return 0;
}

const json_field *json_get(const json_record *obj, const char *key)
{
    for (size_t i = 0; i < obj->nfields; i++)
        if (!strcmp(obj->fields[i].key, key))
            return &obj->fields[i];
    return NULL;
}

void json_record_free(json_record *obj)
{
    for (size_t i = 0; i < obj->nfields; i++) {
        free(obj->fields[i].key);
        free(obj->fields[i].text);
    }
    free(obj->fields);
    memset(obj, 0, sizeof *obj);
}

int json_utf8_valid(const char *s)
{
    json_t *v = json_string(s);
    json_decref(v);
    return v != NULL;
}

/* ---- writing ------------------------------------------------------------- */

static int reserve(json_buf *b, size_t more)
{
    size_t cap;
    char *t;
    if (b->failed)
        return 1;
    if (b->len + more + 1 <= b->cap)
        return 0;
    cap = b->cap ? b->cap : 256;
    while (cap < b->len + more + 1)
        cap *= 2;
    t = realloc(b->text, cap);
    if (!t) {
        b->failed = 1;
        return 1;
    }
    b->text = t;
    b->cap = cap;
    return 0;
}

void json_buf_raw(json_buf *b, const char *s, size_t n)
{
    if (reserve(b, n))
        return;
    memcpy(b->text + b->len, s, n);
    b->len += n;
    b->text[b->len] = '\0';
}

void json_buf_printf(json_buf *b, const char *fmt, ...)
{
    va_list ap;
    int n;
    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || reserve(b, (size_t)n)) {
        b->failed = 1;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(b->text + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void json_buf_string(json_buf *b, const char *s)
{
    json_t *v = json_string(s);
    size_t n;
    if (!v) { /* not UTF-8 (manifest.c refuses such a row before) */
        b->failed = 1;
        return;
    }
    n = json_dumpb(v, NULL, 0, JSON_ENCODE_ANY);
    if (n == 0 || reserve(b, n)) {
        b->failed = 1;
    } else {
        json_dumpb(v, b->text + b->len, n, JSON_ENCODE_ANY);
        b->len += n;
        b->text[b->len] = '\0';
    }
    json_decref(v);
}

void json_buf_free(json_buf *b)
{
    free(b->text);
    memset(b, 0, sizeof *b);
}
