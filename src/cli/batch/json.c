/*
 * json.c - one JSON object per line, read and written (json.h).
 */
#include "batch/json.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Nesting deeper than this is refused rather than recursed into. */
#define MAX_DEPTH 64

typedef struct reader {
    const char *s, *end, *p;
    const char *error;
    json_buf out;               /* the string being decoded */
} reader;

static int fail(reader *r, const char *error)
{
    if (!r->error)
        r->error = error;
    return 1;
}

static void skip_space(reader *r)
{
    while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r'))
        r->p++;
}

static int hex4(reader *r, unsigned *v)
{
    *v = 0;
    for (int i = 0; i < 4; i++, r->p++) {
        char c = r->p < r->end ? *r->p : '\0';
        unsigned d = c >= '0' && c <= '9'   ? (unsigned)(c - '0')
                     : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
                     : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10)
                                            : 16;
        if (d == 16)
            return fail(r, "a \\u escape needs four hexadecimal digits");
        *v = *v << 4 | d;
    }
    return 0;
}

static void put_utf8(json_buf *b, unsigned cp)
{
    char u[4];
    size_t n;
    if (cp < 0x80) {
        u[0] = (char)cp;
        n = 1;
    } else if (cp < 0x800) {
        u[0] = (char)(0xC0 | cp >> 6);
        u[1] = (char)(0x80 | (cp & 0x3F));
        n = 2;
    } else if (cp < 0x10000) {
        u[0] = (char)(0xE0 | cp >> 12);
        u[1] = (char)(0x80 | (cp >> 6 & 0x3F));
        u[2] = (char)(0x80 | (cp & 0x3F));
        n = 3;
    } else {
        u[0] = (char)(0xF0 | cp >> 18);
        u[1] = (char)(0x80 | (cp >> 12 & 0x3F));
        u[2] = (char)(0x80 | (cp >> 6 & 0x3F));
        u[3] = (char)(0x80 | (cp & 0x3F));
        n = 4;
    }
    json_buf_raw(b, u, n);
}

/* \uXXXX, with a surrogate pair when it takes two. */
static int unicode_escape(reader *r)
{
    unsigned cp, low;
    if (hex4(r, &cp))
        return 1;
    if (cp >= 0xDC00 && cp <= 0xDFFF)
        return fail(r, "a \\u escape starts with a low surrogate");
    if (cp >= 0xD800 && cp <= 0xDBFF) {
        if (r->end - r->p < 2 || r->p[0] != '\\' || r->p[1] != 'u')
            return fail(r, "a high surrogate \\u escape without its low half");
        r->p += 2;
        if (hex4(r, &low))
            return 1;
        if (low < 0xDC00 || low > 0xDFFF)
            return fail(r, "a high surrogate \\u escape without its low half");
        cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
    }
    if (cp == 0)
        return fail(r, "a string holds \\u0000");
    put_utf8(&r->out, cp);
    return 0;
}

/* A string at r->p (its opening quote) decoded into r->out. */
static int parse_string(reader *r)
{
    static const char escapes[] = "\"\"\\\\//b\bf\fn\nr\rt\t";
    r->out.len = 0;
    json_buf_raw(&r->out, "", 0);
    r->p++;
    while (r->p < r->end && *r->p != '"') {
        const char *run = r->p;
        while (r->p < r->end && *r->p != '"' && *r->p != '\\' && (unsigned char)*r->p >= 0x20)
            r->p++;
        json_buf_raw(&r->out, run, (size_t)(r->p - run));
        if (r->p == r->end || *r->p == '"')
            break;
        if (*r->p != '\\')
            return fail(r, "a control character inside a string (escape it)");
        if (++r->p == r->end)
            break;
        if (*r->p == 'u') {
            r->p++;
            if (unicode_escape(r))
                return 1;
            continue;
        }
        const char *e = NULL;
        for (size_t i = 0; escapes[i]; i += 2)
            if (escapes[i] == *r->p)
                e = &escapes[i + 1];
        if (!e)
            return fail(r, "an unknown escape in a string");
        json_buf_raw(&r->out, e, 1);
        r->p++;
    }
    if (r->p == r->end)
        return fail(r, "a string is not closed");
    r->p++;
    return r->out.failed ? fail(r, "out of memory") : 0;
}

static int parse_number(reader *r)
{
    const char *p = r->p;
    if (p < r->end && *p == '-')
        p++;
    if (p < r->end && *p == '0')
        p++;
    else if (p < r->end && *p >= '1' && *p <= '9')
        while (p < r->end && *p >= '0' && *p <= '9')
            p++;
    else
        return fail(r, "a value is not a string, number, object, array, true, false or null");
    if (p < r->end && *p == '.') {
        if (++p == r->end || *p < '0' || *p > '9') {
            r->p = p;
            return fail(r, "a number needs digits after its '.'");
        }
        while (p < r->end && *p >= '0' && *p <= '9')
            p++;
    }
    if (p < r->end && (*p == 'e' || *p == 'E')) {
        if (++p < r->end && (*p == '+' || *p == '-'))
            p++;
        if (p == r->end || *p < '0' || *p > '9') {
            r->p = p;
            return fail(r, "a number needs digits in its exponent");
        }
        while (p < r->end && *p >= '0' && *p <= '9')
            p++;
    }
    r->out.len = 0;
    json_buf_raw(&r->out, r->p, (size_t)(p - r->p));
    r->p = p;
    return r->out.failed ? fail(r, "out of memory") : 0;
}

static int word(reader *r, const char *w)
{
    size_t n = strlen(w);
    if ((size_t)(r->end - r->p) < n || memcmp(r->p, w, n) != 0)
        return 0;
    r->p += n;
    return 1;
}

static int parse_value(reader *r, json_kind *kind, int depth);

/* An array or object at r->p, checked and dropped. */
static int skip_nested(reader *r, int depth)
{
    const char close = *r->p == '[' ? ']' : '}';
    json_kind kind;
    if (depth >= MAX_DEPTH)
        return fail(r, "values nest too deeply");
    r->p++;
    skip_space(r);
    if (r->p < r->end && *r->p == close) {
        r->p++;
        return 0;
    }
    for (;;) {
        skip_space(r);
        if (close == '}') {
            if (r->p == r->end || *r->p != '"')
                return fail(r, "an object's key must be a string");
            if (parse_string(r))
                return 1;
            skip_space(r);
            if (r->p == r->end || *r->p != ':')
                return fail(r, "a ':' must follow an object's key");
            r->p++;
        }
        if (parse_value(r, &kind, depth + 1))
            return 1;
        skip_space(r);
        if (r->p < r->end && *r->p == ',') {
            r->p++;
            continue;
        }
        if (r->p < r->end && *r->p == close) {
            r->p++;
            return 0;
        }
        return fail(r, close == ']' ? "an array needs ',' or ']' here"
                                    : "an object needs ',' or '}' here");
    }
}

static int parse_value(reader *r, json_kind *kind, int depth)
{
    skip_space(r);
    if (r->p == r->end)
        return fail(r, "a value is missing");
    switch (*r->p) {
    case '"':
        *kind = JSON_STRING;
        return parse_string(r);
    case '[':
    case '{':
        *kind = JSON_NESTED;
        return skip_nested(r, depth);
    default:
        break;
    }
    if (word(r, "true"))
        *kind = JSON_TRUE;
    else if (word(r, "false"))
        *kind = JSON_FALSE;
    else if (word(r, "null"))
        *kind = JSON_NULL;
    else {
        *kind = JSON_NUMBER;
        return parse_number(r);
    }
    return 0;
}

static int add_field(reader *r, json_object *obj, char *key, json_kind kind)
{
    json_field *f;
    if (json_get(obj, key)) {
        free(key);
        return fail(r, "a key appears twice");
    }
    f = realloc(obj->fields, (obj->nfields + 1) * sizeof *f);
    if (!f) {
        free(key);
        return fail(r, "out of memory");
    }
    obj->fields = f;
    f = &obj->fields[obj->nfields++];
    f->key = key;
    f->kind = kind;
    f->text = NULL;
    if (kind == JSON_STRING || kind == JSON_NUMBER) {
        f->text = strdup(r->out.text ? r->out.text : "");
        if (!f->text)
            return fail(r, "out of memory");
    }
    return 0;
}

static int parse_members(reader *r, json_object *obj)
{
    json_kind kind;
    char *key;
    r->p++;
    skip_space(r);
    if (r->p < r->end && *r->p == '}') {
        r->p++;
        return 0;
    }
    for (;;) {
        skip_space(r);
        if (r->p == r->end || *r->p != '"')
            return fail(r, "an object's key must be a string");
        if (parse_string(r))
            return 1;
        key = strdup(r->out.text ? r->out.text : "");
        if (!key)
            return fail(r, "out of memory");
        skip_space(r);
        if (r->p == r->end || *r->p != ':') {
            free(key);
            return fail(r, "a ':' must follow an object's key");
        }
        r->p++;
        if (parse_value(r, &kind, 1)) {
            free(key);
            return 1;
        }
        if (add_field(r, obj, key, kind))
            return 1;
        skip_space(r);
        if (r->p < r->end && *r->p == ',') {
            r->p++;
            continue;
        }
        if (r->p < r->end && *r->p == '}') {
            r->p++;
            return 0;
        }
        return fail(r, "an object needs ',' or '}' here");
    }
}

int json_parse_object(const char *text, size_t len, json_object *obj, const char **error,
                      size_t *column)
{
    reader r = {text, text + len, text, NULL, {0}};
    memset(obj, 0, sizeof *obj);
    skip_space(&r);
    if (r.p == r.end || *r.p != '{')
        fail(&r, "the line is not a JSON object ({...})");
    else if (!parse_members(&r, obj)) {
        skip_space(&r);
        if (r.p != r.end)
            fail(&r, "text follows the object");
    }
    json_buf_free(&r.out);
    if (!r.error)
        return 0;
    *error = r.error;
    *column = (size_t)(r.p - text) + 1;
    json_object_free(obj);
    return 1;
}

const json_field *json_get(const json_object *obj, const char *key)
{
    for (size_t i = 0; i < obj->nfields; i++)
        if (!strcmp(obj->fields[i].key, key))
            return &obj->fields[i];
    return NULL;
}

void json_object_free(json_object *obj)
{
    for (size_t i = 0; i < obj->nfields; i++) {
        free(obj->fields[i].key);
        free(obj->fields[i].text);
    }
    free(obj->fields);
    memset(obj, 0, sizeof *obj);
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
    json_buf_raw(b, "\"", 1);
    while (*s) {
        const char *run = s;
        while (*s && *s != '"' && *s != '\\' && (unsigned char)*s >= 0x20)
            s++;
        json_buf_raw(b, run, (size_t)(s - run));
        if (!*s)
            break;
        if (*s == '"' || *s == '\\') {
            char e[2] = {'\\', *s};
            json_buf_raw(b, e, 2);
        } else {
            json_buf_printf(b, "\\u%04x", (unsigned)(unsigned char)*s);
        }
        s++;
    }
    json_buf_raw(b, "\"", 1);
}

void json_buf_free(json_buf *b)
{
    free(b->text);
    memset(b, 0, sizeof *b);
}
