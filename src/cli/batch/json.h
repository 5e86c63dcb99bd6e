/*
 * json.h - the little JSON that batch manifests (JSONL) and receipts need,
 * read and escaped by jansson (json.c says why that library): one object
 * per line whose values are strings, numbers, booleans or null. Nested
 * arrays and objects are accepted and skipped, so NeMo- and Lhotse-style
 * manifests with extra fields parse. And the other way: text for such
 * objects, with strings escaped. The names are json_record and
 * JSON_KIND_*: jansson's own are json_object and JSON_STRING.
 */
#ifndef GFIR_CLI_BATCH_JSON_H
#define GFIR_CLI_BATCH_JSON_H

#include <stddef.h>

typedef enum json_kind {
    JSON_KIND_STRING,
    JSON_KIND_NUMBER,
    JSON_KIND_TRUE,
    JSON_KIND_FALSE,
    JSON_KIND_NULL,
    JSON_KIND_NESTED            /* an array or object, not kept */
} json_kind;

typedef struct json_field {
    char *key;
    json_kind kind;
    char *text;                 /* a string decoded to UTF-8, or a number (an integer as
                                 * written, a real in its shortest exact digits); else NULL */
} json_field;

typedef struct json_record {
    json_field *fields;
    size_t nfields;
} json_record;

/*
 * Parses text (len bytes, no NUL needed) as exactly one object with optional
 * white space around it. 0 on success; else 1 with *error a static sentence
 * and *column where it went wrong (1-based), and *obj empty. A key given
 * twice is an error: which value would count is not obvious. Strings must be
 * UTF-8 and hold no \u0000; nesting deeper than jansson's ceiling (2048)
 * is refused.
 */
int json_parse_object(const char *text, size_t len, json_record *obj, const char **error,
                      size_t *column);
/* The field named key, or NULL. */
const json_field *json_get(const json_record *obj, const char *key);
void json_record_free(json_record *obj);

/* Text being built, growing as needed; a failed allocation sticks in failed. */
typedef struct json_buf {
    char *text;                 /* NUL-terminated when len > 0 */
    size_t len, cap;
    int failed;
} json_buf;

void json_buf_raw(json_buf *b, const char *s, size_t n);
void json_buf_printf(json_buf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* s as a JSON string, quotes included, control characters escaped. s must
 * be UTF-8 (JSON is Unicode text): else b->failed is set. */
void json_buf_string(json_buf *b, const char *s);
/* 1 when s is UTF-8, so it can go into a JSON string. */
int json_utf8_valid(const char *s);
void json_buf_free(json_buf *b);

#endif
