/*
 * cache_test.c - src/core/cache.c: the cache directory's path from XDG_CACHE_HOME
 * or HOME, and its tables of numbers by key (the GPU's calibrated crossover
 * lives in one), in a scratch directory.
 */
#define _POSIX_C_SOURCE 200809L
#include "core/cache.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

static char scratch[] = "/tmp/gfir-cache-test-XXXXXX";

static void write_file(const char *name, const char *text)
{
    char path[4096];
    assert_true(gf_cache_path(path, sizeof path, name, 1));
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void test_path(void **state)
{
    (void)state;
    char path[4096], want[4096];
    assert_int_equal(setenv("XDG_CACHE_HOME", scratch, 1), 0);
    assert_true(gf_cache_path(path, sizeof path, "x", 1));
    snprintf(want, sizeof want, "%s/gfir/x", scratch);
    assert_string_equal(path, want);
    /* a relative XDG_CACHE_HOME is ignored for HOME's ~/.cache */
    assert_int_equal(setenv("XDG_CACHE_HOME", "relative", 1), 0);
    assert_int_equal(setenv("HOME", scratch, 1), 0);
    assert_true(gf_cache_path(path, sizeof path, "x", 1));
    snprintf(want, sizeof want, "%s/.cache/gfir/x", scratch);
    assert_string_equal(path, want);
    /* neither: no path, and nothing stored or found */
    assert_int_equal(unsetenv("HOME"), 0);
    assert_false(gf_cache_path(path, sizeof path, "x", 0));
    assert_int_equal(gf_cache_store("t", "k", 5), -1);
    assert_int_equal(gf_cache_lookup("t", "k"), 0);
    /* a path that does not fit */
    assert_int_equal(setenv("XDG_CACHE_HOME", scratch, 1), 0);
    assert_false(gf_cache_path(path, 8, "x", 0));
}

static void test_table(void **state)
{
    (void)state;
    assert_int_equal(setenv("XDG_CACHE_HOME", scratch, 1), 0);
    assert_int_equal(gf_cache_lookup("table", "NVIDIA H100 80GB HBM3"), 0); /* no file */
    assert_int_equal(gf_cache_store("table", "NVIDIA H100 80GB HBM3", 384), 0);
    assert_int_equal(gf_cache_store("table", "NVIDIA H200", 512), 0);
    assert_int_equal(gf_cache_lookup("table", "NVIDIA H100 80GB HBM3"), 384);
    assert_int_equal(gf_cache_lookup("table", "NVIDIA H200"), 512);
    assert_int_equal(gf_cache_lookup("table", "NVIDIA H100"), 0); /* whole keys only */
    /* storing again replaces the key's line and keeps the others */
    assert_int_equal(gf_cache_store("table", "NVIDIA H100 80GB HBM3", 300), 0);
    assert_int_equal(gf_cache_lookup("table", "NVIDIA H100 80GB HBM3"), 300);
    assert_int_equal(gf_cache_lookup("table", "NVIDIA H200"), 512);
    char path[4096], line[256];
    int lines = 0;
    assert_true(gf_cache_path(path, sizeof path, "table", 0));
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    while (fgets(line, sizeof line, f))
        lines++;
    fclose(f);
    assert_int_equal(lines, 2);
    /* a key with a newline would break the file */
    assert_int_equal(gf_cache_store("table", "two\nlines", 1), -1);
}

static void test_bad_lines(void **state)
{
    (void)state;
    assert_int_equal(setenv("XDG_CACHE_HOME", scratch, 1), 0);
    write_file("junk", "zero 1\n0 a\n-5 b\n12c\n7 good key\n\n99999999999999999999999 d\n");
    assert_int_equal(gf_cache_lookup("junk", "a"), 0);
    assert_int_equal(gf_cache_lookup("junk", "b"), 0);
    assert_int_equal(gf_cache_lookup("junk", "c"), 0);
    assert_int_equal(gf_cache_lookup("junk", "d"), 0);
    assert_int_equal(gf_cache_lookup("junk", "1"), 0);
    assert_int_equal(gf_cache_lookup("junk", "good key"), 7);
}

int main(void)
{
    if (!mkdtemp(scratch)) {
        perror("cache_test: mkdtemp");
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_path),
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_bad_lines),
    };
    const int failed = cmocka_run_group_tests(tests, NULL, NULL);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", scratch);
    if (system(cmd) != 0)
        fprintf(stderr, "cache_test: could not remove %s\n", scratch);
    return failed;
}
