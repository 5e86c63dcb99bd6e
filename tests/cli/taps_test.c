/*
 * taps_test.c - --taps text (src/cli/filter/taps.c): every token's double
 * is strtod's, bit for bit, whether the parser's exact fast path or strtod
 * itself read it, and every coefficient read from a file is that double's
 * float (a double one unit off would rarely change the float, so the
 * doubles are compared too). Random values in every
 * form a file may hold (%.9g as NumPy and SciPy write taps, %.17g, fixed and
 * exponent forms, leading zeros, signs, integers, more digits than the fast
 * path takes, exponents past 10^22, denormals, hex), separated by spaces,
 * tabs, commas, CRLF and comments, in a text long enough to cross the
 * reader's chunks many times. Results must be identical: the fast path
 * promises strtod's very double, so there is no tolerance to state. Tokens
 * that are not numbers still fail with one line.
 */
#include "filter/taps.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#define NTOKENS 40000
#define TOKEN_LEN 64

static uint64_t next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* A uniform double in [0, 1). */
static double unit(uint64_t *s)
{
    return (double)(next(s) >> 11) / 9007199254740992.0;
}

/* One token in one of the forms above. */
static void make_token(char *tok, uint64_t *s)
{
    const double mag = unit(s) * 2.0 - 1.0;
    const int e10 = (int)(next(s) % 61) - 40; /* 1e-40 .. 1e20 */
    const double v = mag * pow(10.0, e10);
    switch (next(s) % 12) {
    case 0: snprintf(tok, TOKEN_LEN, "%.9g", v); break;
    case 1: snprintf(tok, TOKEN_LEN, "%.17g", v); break;
    case 2: snprintf(tok, TOKEN_LEN, "%.6e", v); break;
    case 3: snprintf(tok, TOKEN_LEN, "%.12f", mag); break;
    case 4: snprintf(tok, TOKEN_LEN, "%.25f", mag); break; /* past 19 digits */
    case 5: snprintf(tok, TOKEN_LEN, "%+.8E", v); break;
    case 6: snprintf(tok, TOKEN_LEN, "000%.7f", mag < 0 ? -mag : mag); break;
    case 7: snprintf(tok, TOKEN_LEN, "%lld", (long long)(mag * 1e15)); break;
    case 8: snprintf(tok, TOKEN_LEN, "%.16ge%d", mag, (int)(next(s) % 60) - 30); break;
    case 9: snprintf(tok, TOKEN_LEN, "%a", v); break;
    case 10: snprintf(tok, TOKEN_LEN, "%s.%llue-%d", mag < 0 ? "-" : "+",
                      (unsigned long long)(next(s) % 100000000), (int)(next(s) % 50));
        break;
    default: snprintf(tok, TOKEN_LEN, "%.9g", mag * 1e-3); break;
    }
}

/* Reads text as a taps file of n coefficients and counts the tokens whose
 * double (taps_number) or coefficient is not strtod's, printing the first
 * five. */
static size_t read_and_compare(const char *text, size_t len, const char *const *toks, size_t n)
{
    size_t ntaps = 0, differ = 0;
    float *taps = NULL;
    FILE *fp = fmemopen((void *)text, len, "r");
    assert_non_null(fp);
    assert_int_equal(taps_read_text(fp, "test", (size_t)1 << 20, &taps, &ntaps), 0);
    fclose(fp);
    assert_int_equal(ntaps, n);
    for (size_t i = 0; i < n; i++) {
        const double want = strtod(toks[i], NULL);
        const float wantf = (float)want;
        double got = 0.0;
        if ((!taps_number(toks[i], &got) || memcmp(&want, &got, sizeof want) != 0 ||
             memcmp(&wantf, &taps[i], sizeof wantf) != 0) &&
            differ++ < 5)
            print_error("token %zu '%s': %.17g (tap %.9g), strtod says %.17g\n", i, toks[i], got,
                        (double)taps[i], want);
    }
    free(taps);
    return differ;
}

static const char *const separators[] = {" ", "\t", ",", "\n", "\r\n", " # a comment 1.5\n"};

static void test_values_match_strtod(void **state)
{
    uint64_t s = 0x9E3779B97F4A7C15ULL;
    char (*toks)[TOKEN_LEN] = malloc(NTOKENS * sizeof *toks);
    const char **names = malloc(NTOKENS * sizeof *names);
    char *text = malloc(NTOKENS * (TOKEN_LEN + 24));
    size_t len = 0;
    (void)state;
    assert_non_null(toks);
    assert_non_null(names);
    assert_non_null(text);
    for (size_t i = 0; i < NTOKENS; i++) {
        const char *sep = separators[next(&s) % 6];
        make_token(toks[i], &s);
        names[i] = toks[i];
        len += (size_t)sprintf(text + len, "%s%s", toks[i], sep);
    }
    assert_int_equal(read_and_compare(text, len, names, NTOKENS), 0);
    free(text);
    free(names);
    free(toks);
}

/* The edges of the fast path: the largest exact mantissa and power of ten,
 * one past each, signed zeros, and digits before and after the point. */
static void test_edges(void **state)
{
    static const char *const toks[] = {
        "9007199254740992", "9007199254740993", "9007199254740993e-22", "1e22", "1e23",
        "1e-22", "1e-23", "4.5e22", "-0", "+0.0e5", "0e999999", "1234567890123456789",
        "12345678901234567890", "0.000000000000000000000000001234", "3.3999999e38",
        "1.17549435e-38", "1.4e-45", "7.0e-46", ".5", "5.", "-.5e-1", "00000.000001"};
    const size_t n = sizeof toks / sizeof toks[0];
    char text[1024];
    size_t len = 0;
    (void)state;
    for (size_t i = 0; i < n; i++)
        len += (size_t)sprintf(text + len, "%s\n", toks[i]);
    assert_int_equal(read_and_compare(text, len, toks, n), 0);
}

/* What is not a number is refused, fast path or not. */
static void test_refused(void **state)
{
    static const char *const bad[] = {"1e", "1.2.3", "--1", "+", ".", "1e+", "1x", "e5", "0x"};
    (void)state;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[32];
        float *taps = (float *)1;
        size_t ntaps = 1;
        const int len = snprintf(text, sizeof text, "0.5 %s 0.25\n", bad[i]);
        FILE *fp = fmemopen(text, (size_t)len, "r");
        assert_non_null(fp);
        if (taps_read_text(fp, "bad", 64, &taps, &ntaps) == 0)
            fail_msg("'%s' was read as a number", bad[i]);
        assert_null(taps);
        assert_int_equal(ntaps, 0);
        fclose(fp);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_values_match_strtod),
        cmocka_unit_test(test_edges),
        cmocka_unit_test(test_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
