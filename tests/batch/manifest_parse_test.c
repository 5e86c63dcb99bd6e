/*
 * manifest_parse_test.c - the text layers under `gfir batch`, on their own:
 * JSON objects (escapes, surrogates, nesting, every error with its column,
 * and random byte strings written and read back), manifests as TSV, CSV and
 * JSONL records (byte order mark, CRLF, quoting, bad lines that do not stop
 * the lines after them), and how a shard is chosen from --shard, Slurm's
 * array variables and Kubernetes' completion index.
 */
#include "batch/json.h"
#include "batch/shard.h"
#include "batch/table.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

/* ---- JSON ------------------------------------------------------------------ */

static json_object parse_ok(const char *text)
{
    json_object o;
    const char *err = NULL;
    size_t col = 0;
    if (json_parse_object(text, strlen(text), &o, &err, &col))
        fail_msg("'%s' did not parse: column %zu: %s", text, col, err);
    return o;
}

static void want_field(const json_object *o, const char *key, json_kind kind, const char *text)
{
    const json_field *f = json_get(o, key);
    if (!f)
        fail_msg("no field '%s'", key);
    assert_int_equal(f->kind, kind);
    if (text)
        assert_string_equal(f->text, text);
    else
        assert_null(f->text);
}

static void test_json_values(void **state)
{
    (void)state;
    json_object o = parse_ok(" {\"a\": \"x\\ty\\\"z\\\\\\/\", \"n\" : -12.5e+3, \"t\":true,"
                             "\"f\":false, \"z\":null, \"deep\": {\"k\": [1, [2, {\"q\": []}]]},"
                             "\"u\": \"\\u00e9\\ud83d\\ude00\", \"e\": \"\", \"zero\": 0} \r\n");
    assert_int_equal(o.nfields, 9);
    want_field(&o, "a", JSON_STRING, "x\ty\"z\\/");
    want_field(&o, "n", JSON_NUMBER, "-12.5e+3");
    want_field(&o, "t", JSON_TRUE, NULL);
    want_field(&o, "f", JSON_FALSE, NULL);
    want_field(&o, "z", JSON_NULL, NULL);
    want_field(&o, "deep", JSON_NESTED, NULL);
    want_field(&o, "u", JSON_STRING, "\xc3\xa9\xf0\x9f\x98\x80");
    want_field(&o, "e", JSON_STRING, "");
    want_field(&o, "zero", JSON_NUMBER, "0");
    assert_null(json_get(&o, "missing"));
    json_object_free(&o);
    o = parse_ok("{}");
    assert_int_equal(o.nfields, 0);
    json_object_free(&o);
}

static void want_error(const char *text, size_t column, const char *words)
{
    json_object o;
    const char *err = NULL;
    size_t col = 0;
    if (!json_parse_object(text, strlen(text), &o, &err, &col))
        fail_msg("'%s' parsed, but is not valid", text);
    if (col != column)
        fail_msg("'%s': error at column %zu (%s), want %zu", text, col, err, column);
    if (!strstr(err, words))
        fail_msg("'%s': error '%s' does not say '%s'", text, err, words);
    assert_int_equal(o.nfields, 0);
    assert_null(o.fields);
}

static void test_json_errors(void **state)
{
    (void)state;
    want_error("", 1, "not a JSON object");
    want_error("[1, 2]", 1, "not a JSON object");
    want_error("{\"a\": \"open", 12, "not closed");
    want_error("{\"a\": 1} x", 10, "text follows");
    want_error("{\"a\": 1, \"a\": 2}", 16, "twice");
    want_error("{\"a\": \"\\q\"}", 9, "unknown escape");
    want_error("{\"a\" 1}", 6, "':'");
    want_error("{a: 1}", 2, "key must be a string");
    want_error("{\"a\": 1,}", 9, "key must be a string");
    want_error("{\"a\": 1 \"b\": 2}", 9, "',' or '}'");
    want_error("{\"a\": \"\\udc00\"}", 14, "low surrogate");
    want_error("{\"a\": \"\\ud83d\"}", 14, "low half");
    want_error("{\"a\": \"\\u12g4\"}", 12, "hexadecimal");
    want_error("{\"a\": \"\\u0000\"}", 14, "\\u0000");
    want_error("{\"a\": \"tab\there\"}", 11, "control character");
    want_error("{\"a\": 01}", 8, "',' or '}'");
    want_error("{\"a\": 1.}", 9, "after its '.'");
    want_error("{\"a\": 1e}", 9, "exponent");
    want_error("{\"a\": tru}", 7, "not a string, number");
    want_error("{\"a\": [1, 2}", 12, "',' or ']'");
    want_error("{\"a\": }", 7, "not a string, number");
}

static void test_json_deep_nesting(void **state)
{
    (void)state;
    char text[400];
    size_t n = 0;
    n += (size_t)sprintf(text + n, "{\"a\": ");
    for (int i = 0; i < 100; i++)
        text[n++] = '[';
    for (int i = 0; i < 100; i++)
        text[n++] = ']';
    text[n++] = '}';
    text[n] = '\0';
    want_error(text, 70, "nest too deeply");
}

/* Random byte strings, every byte but NUL, through json_buf_string and back. */
static void test_json_round_trip(void **state)
{
    (void)state;
    uint64_t s = 0x243F6A8885A308D3ULL;
    for (int trial = 0; trial < 2000; trial++) {
        char value[300];
        size_t len = 1 + trial % 250;
        json_buf b = {0};
        json_object o;
        const char *err;
        size_t col;
        for (size_t i = 0; i < len; i++) {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            value[i] = (char)(1 + s % 255);
        }
        value[len] = '\0';
        json_buf_raw(&b, "{\"k\":", 5);
        json_buf_string(&b, value);
        json_buf_printf(&b, ",\"n\":%d}", trial);
        assert_false(b.failed);
        if (json_parse_object(b.text, b.len, &o, &err, &col))
            fail_msg("trial %d: own output did not parse: column %zu: %s", trial, col, err);
        want_field(&o, "k", JSON_STRING, value);
        json_object_free(&o);
        json_buf_free(&b);
    }
}

/* ---- manifests as records ---------------------------------------------------- */

static char path[64];

static void write_file(const char *text)
{
    FILE *f;
    strcpy(path, "/tmp/gfir-table-XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    f = fdopen(fd, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void want_value(const table_reader *t, const char *key, const char *want)
{
    const char *v = NULL;
    int got = table_get(t, key, &v);
    if (!want) {
        if (got != 0)
            fail_msg("line %zu: '%s' is '%s', want absent", t->line, key, got > 0 ? v : "?");
        return;
    }
    if (got != 1)
        fail_msg("line %zu: '%s' absent (%d), want '%s'", t->line, key, got, want);
    assert_string_equal(v, want);
}

static void test_tsv(void **state)
{
    (void)state;
    table_reader t;
    write_file("\xEF\xBB\xBFinput\toutput\tgain\r\n\r\na b.wav\tout,1.wav\t-3\r\n"
               "x.wav\ty.wav\t\n  \nonly.wav\tone\ttoo\tmany\n\"q\".wav\tz.wav\t1");
    assert_int_equal(table_open(&t, path), 0);
    assert_int_equal(t.layout, TABLE_TSV);
    assert_int_equal(table_next(&t), 1);
    assert_int_equal(t.line, 3);
    want_value(&t, "input", "a b.wav");
    want_value(&t, "output", "out,1.wav");
    want_value(&t, "gain", "-3");
    want_value(&t, "id", NULL);
    assert_int_equal(table_next(&t), 1);
    assert_int_equal(t.line, 4);
    want_value(&t, "gain", NULL);
    assert_int_equal(table_next(&t), -1);
    assert_int_equal(t.line, 6);
    assert_non_null(strstr(t.error, "4 fields, but the header has 3"));
    assert_int_equal(table_next(&t), 1);
    assert_int_equal(t.line, 7);
    want_value(&t, "input", "\"q\".wav");
    assert_int_equal(table_next(&t), 0);
    table_close(&t);
    unlink(path);
}

static void test_csv(void **state)
{
    (void)state;
    table_reader t;
    write_file("input,output,id\n\"a,b.wav\",\"say \"\"hi\"\".wav\",\n"
               "\"open.wav,x,y\n\"x\"y,z,w\nplain.wav,o.wav,\"\"\n\"\",\"\",\"\"\n");
    assert_int_equal(table_open(&t, path), 0);
    assert_int_equal(t.layout, TABLE_CSV);
    assert_int_equal(table_next(&t), 1);
    want_value(&t, "input", "a,b.wav");
    want_value(&t, "output", "say \"hi\".wav");
    want_value(&t, "id", NULL);
    assert_int_equal(table_next(&t), -1);
    assert_int_equal(t.line, 3);
    assert_non_null(strstr(t.error, "not closed"));
    assert_int_equal(table_next(&t), -1);
    assert_int_equal(t.line, 4);
    assert_non_null(strstr(t.error, "after a quoted field"));
    assert_int_equal(table_next(&t), 1);
    assert_int_equal(t.line, 5);
    want_value(&t, "output", "o.wav");
    assert_int_equal(table_next(&t), 1);
    want_value(&t, "input", NULL);
    assert_int_equal(table_next(&t), 0);
    table_close(&t);
    unlink(path);
}

static void test_jsonl(void **state)
{
    (void)state;
    table_reader t;
    const char *v;
    write_file("\n{\"audio_filepath\": \"a.wav\", \"input\": \"a.wav\", \"output\": \"b.wav\","
               " \"gain\": -6, \"text\": \"hello\", \"seed\": null, \"align\": true}\n"
               "{\"input\": \"c.wav\",\n\n  {\"input\": \"d.wav\"}  \n");
    assert_int_equal(table_open(&t, path), 0);
    assert_int_equal(t.layout, TABLE_JSONL);
    assert_int_equal(table_next(&t), 1);
    assert_int_equal(t.line, 2);
    want_value(&t, "input", "a.wav");
    want_value(&t, "gain", "-6");
    want_value(&t, "seed", NULL);
    assert_int_equal(table_get(&t, "align", &v), -1);
    assert_int_equal(table_next(&t), -1);
    assert_int_equal(t.line, 3);
    assert_non_null(strstr(t.error, "column"));
    assert_int_equal(table_next(&t), 1);
    assert_int_equal(t.line, 5);
    want_value(&t, "input", "d.wav");
    assert_int_equal(table_next(&t), 0);
    table_close(&t);
    unlink(path);
}

static void test_headers(void **state)
{
    (void)state;
    table_reader t;
    write_file("input,output,input\na,b,c\n");
    assert_int_equal(table_open(&t, path), 1);
    assert_int_equal(t.line, 1);
    assert_non_null(strstr(t.error, "twice"));
    table_close(&t);
    unlink(path);
    write_file("input\t\toutput\n");
    assert_int_equal(table_open(&t, path), 1);
    assert_non_null(strstr(t.error, "column 2 has no name"));
    table_close(&t);
    unlink(path);
    /* found by fuzz_manifest: the names were freed though never copied */
    write_file("\"input,output\na,b\n");
    assert_int_equal(table_open(&t, path), 1);
    assert_non_null(strstr(t.error, "not closed"));
    table_close(&t);
    unlink(path);
    write_file("\n \n");
    assert_int_equal(table_open(&t, path), 1);
    assert_non_null(strstr(t.error, "empty"));
    table_close(&t);
    unlink(path);
    assert_int_equal(table_open(&t, "/nonexistent/manifest.tsv"), 1);
    assert_non_null(strstr(t.error, "cannot open"));
    table_close(&t);
}

/* A line of exactly TABLE_MAX_LINE_BYTES (CRLF not counted) is a record; one
 * byte more, or a NUL byte, stops the reading at that line with why, and
 * nothing after it is read. */
static void test_line_bounds(void **state)
{
    (void)state;
    table_reader t;
    const size_t max = TABLE_MAX_LINE_BYTES;
    char *text = malloc(3 * max + 64), *at = text;
    assert_non_null(text);
    at += sprintf(at, "input\toutput\n");
    for (int longer = 0; longer < 2; longer++) {
        /* "a.wav<TAB>" then 'b' up to max bytes (+1), then CRLF */
        at += sprintf(at, "a.wav\t");
        const size_t fill = max - strlen("a.wav\t") + (size_t)longer;
        memset(at, 'b', fill);
        at += fill;
        at += sprintf(at, "\r\n");
    }
    sprintf(at, "c.wav\td.wav\n");
    write_file(text);
    assert_int_equal(table_open(&t, path), 0);
    assert_int_equal(table_next(&t), 1);
    assert_int_equal(strlen(t.values[1]), max - strlen("a.wav\t"));
    assert_int_equal(table_next(&t), -1);
    assert_int_equal(t.line, 3);
    assert_true(t.io_error);
    assert_non_null(strstr(t.error, "longer than 65536 bytes"));
    table_close(&t);
    unlink(path);
    free(text);

    static const char nul[] = "input,output\na.wav,b\0.wav\nc.wav,d.wav\n";
    strcpy(path, "/tmp/gfir-table-XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, nul, sizeof nul - 1), (ssize_t)(sizeof nul - 1));
    close(fd);
    assert_int_equal(table_open(&t, path), 0);
    assert_int_equal(table_next(&t), -1);
    assert_int_equal(t.line, 2);
    assert_non_null(strstr(t.error, "NUL byte"));
    table_close(&t);
    unlink(path);
}

/* ---- shards ------------------------------------------------------------------ */

static const char *env[16][2];

static const char *fake_getenv(const char *name)
{
    for (int i = 0; i < 16 && env[i][0]; i++)
        if (!strcmp(env[i][0], name))
            return env[i][1];
    return NULL;
}

static void set_env(const char *const *pairs)
{
    memset(env, 0, sizeof env);
    for (int i = 0; pairs && pairs[2 * i]; i++) {
        env[i][0] = pairs[2 * i];
        env[i][1] = pairs[2 * i + 1];
    }
}

static void want_shard(const char *spec, unsigned long shards, const char *const *pairs,
                         unsigned long k, unsigned long n)
{
    shard s;
    set_env(pairs);
    if (shard_choose(spec, shards, fake_getenv, &s) != 0)
        fail_msg("--shard %s --shards %lu: refused", spec ? spec : "-", shards);
    if (s.k != k || s.n != n)
        fail_msg("--shard %s --shards %lu: %lu/%lu, want %lu/%lu", spec ? spec : "-", shards,
                 s.k, s.n, k, n);
}

static void want_refused(const char *spec, unsigned long shards, const char *const *pairs)
{
    shard s;
    set_env(pairs);
    if (shard_choose(spec, shards, fake_getenv, &s) != 2)
        fail_msg("--shard %s --shards %lu: accepted as %lu/%lu", spec ? spec : "-", shards, s.k,
                 s.n);
}

static void test_shards(void **state)
{
    (void)state;
    const char *slurm0[] = {"SLURM_ARRAY_TASK_ID", "0", "SLURM_ARRAY_TASK_COUNT", "4",
                            "SLURM_ARRAY_TASK_MIN", "0", "SLURM_ARRAY_TASK_MAX", "3", NULL};
    const char *slurm1[] = {"SLURM_ARRAY_TASK_ID", "4", "SLURM_ARRAY_TASK_COUNT", "4",
                            "SLURM_ARRAY_TASK_MIN", "1", "SLURM_ARRAY_TASK_MAX", "4", NULL};
    const char *stepped[] = {"SLURM_ARRAY_TASK_ID", "20", "SLURM_ARRAY_TASK_COUNT", "4",
                             "SLURM_ARRAY_TASK_MIN", "10", "SLURM_ARRAY_TASK_MAX", "40",
                             "SLURM_ARRAY_TASK_STEP", "10", NULL};
    const char *listed[] = {"SLURM_ARRAY_TASK_ID", "4", "SLURM_ARRAY_TASK_COUNT", "3",
                            "SLURM_ARRAY_TASK_MIN", "1", "SLURM_ARRAY_TASK_MAX", "9", NULL};
    const char *bare[] = {"SLURM_ARRAY_TASK_ID", "2", "SLURM_ARRAY_TASK_COUNT", "3", NULL};
    const char *no_count[] = {"SLURM_ARRAY_TASK_ID", "2", NULL};
    const char *k8s[] = {"JOB_COMPLETION_INDEX", "5", NULL};
    const char *junk[] = {"JOB_COMPLETION_INDEX", "5x", NULL};

    want_shard(NULL, 0, NULL, 0, 1);
    want_shard("0/1", 0, NULL, 0, 1);
    want_shard("3/4", 0, NULL, 3, 4);
    want_shard("3/4", 4, k8s, 3, 4); /* --shard wins over the environment */
    want_refused("4/4", 0, NULL);
    want_refused("1/0", 0, NULL);
    want_refused("-1/4", 0, NULL);
    want_refused("1", 0, NULL);
    want_refused("1/4x", 0, NULL);
    want_refused("a/4", 0, NULL);
    want_refused("1/4", 3, NULL);
    want_shard(NULL, 0, slurm0, 0, 4);
    want_shard(NULL, 0, slurm1, 3, 4);
    want_shard(NULL, 4, slurm1, 3, 4);
    want_refused(NULL, 5, slurm1);
    want_shard(NULL, 0, stepped, 1, 4);
    want_refused(NULL, 0, listed);
    want_shard(NULL, 0, bare, 2, 3);
    want_refused(NULL, 0, no_count);
    want_shard(NULL, 8, k8s, 5, 8);
    want_refused(NULL, 0, k8s);
    want_refused(NULL, 5, k8s);
    want_refused(NULL, 8, junk);
    want_refused(NULL, 4, NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json_values),
        cmocka_unit_test(test_json_errors),
        cmocka_unit_test(test_json_deep_nesting),
        cmocka_unit_test(test_json_round_trip),
        cmocka_unit_test(test_tsv),
        cmocka_unit_test(test_csv),
        cmocka_unit_test(test_jsonl),
        cmocka_unit_test(test_headers),
        cmocka_unit_test(test_line_bounds),
        cmocka_unit_test(test_shards),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
