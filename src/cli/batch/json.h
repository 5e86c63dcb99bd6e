/*
 * json.h - the little JSON that batch manifests (JSONL) and receipts need:
 * one object per line whose values are strings, numbers, booleans or null.
 * Nested arrays and objects are accepted and skipped, so NeMo- and
 * Lhotse-style manifests with extra fields parse. And the other way: text
 * for such objects, with strings escaped.
 */
#ifndef GFIR_CLI_BATCH_JSON_H
#define GFIR_CLI_BATCH_JSON_H

#include <stddef.h>

typedef enum json_kind {
    JSON_STRING,
    JSON_NUMBER,
    JSON_TRUE,
    JSON_FALSE,
    JSON_NULL,
    JSON_NESTED                 /* an array or object, not kept */
} json_kind;

typedef struct json_field {
    char *key;
    json_kind kind;
    char *text;                 /* a string decoded to UTF-8, or a number as written; else NULL */
} json_field;

typedef struct json_object {
    json_field *fields;
    size_t nfields;
} json_object;

/*
 * Parses text (len bytes, no NUL needed) as exactly one object with optional
 * white space around it. 0 on success; else 1 with *error a static sentence
 * and *column where it went wrong (1-based), and *obj empty. A key given
 * twice is an error: which value would count is not obvious.
 */
int json_parse_object(const char *text, size_t len, json_object *obj, const char **error,
                      size_t *column);
/* The field named key, or NULL. */
const json_field *json_get(const json_object *obj, const char *key);
void json_object_free(json_object *obj);

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
/* s as a JSON string, quotes included, control characters escaped. Other
 * bytes pass as they are, so a path that is not UTF-8 still reads back the
 * same through json_parse_object (strict JSON readers may refuse it). */
void json_buf_string(json_buf *b, const char *s);
void json_buf_free(json_buf *b);

#endif
