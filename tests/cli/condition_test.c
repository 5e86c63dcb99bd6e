/*
 * condition_test.c - the file writer's last step (src/cli/file/condition.c)
 * against a plain reference written from its definition: samples beyond the
 * grid and finite are counted with their largest magnitude, the largest of
 * all kept (NaN as infinity), NaN and
 * infinities are counted with the first one's index, 8- and 16-bit output is
 * TPDF-dithered (xorshift64*, the same sequence every run), clamped to the
 * grid's ends and rounded half to even, NaN going out as silence.
 *
 * Random data (never zeros) in [-1.5, 1.5) with NaN, infinities and the
 * grid's exact edges scattered in, odd sizes from 1 up, several calls on one
 * conditioner so its running counts are checked too. Results must match
 * exactly: rounding to an integer grid leaves no tolerance to state.
 */
#include "file/condition.h"
#include "test_util.h"

#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <sndfile.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

typedef struct reference {
    uint64_t rng, clipped, nonfinite, first_nonfinite, seen;
    double peak, level;
} reference;

static float ref_uniform(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return (float)((*s * 0x2545F4914F6CDD1DULL) >> 40) * (1.0f / 16777216.0f);
}

/* The definition, one sample at a time; out gets the integers (steps > 0). */
static void ref_block(reference *r, const conditioner *c, float *buf, size_t n, double *out)
{
    for (size_t i = 0; i < n; i++) {
        const double x = buf[i];
        r->level = isnan(x) ? INFINITY : fabs(x) > r->level ? fabs(x) : r->level;
        if (isnan(x) || isinf(x)) {
            if (!r->nonfinite)
                r->first_nonfinite = r->seen + i;
            r->nonfinite++;
        } else if (c->count_clips && (x > c->hi || x < c->lo)) {
            r->clipped++;
            r->peak = fabs(x) > r->peak ? fabs(x) : r->peak;
        }
        if (c->dither) {
            const float a = ref_uniform(&r->rng), b = ref_uniform(&r->rng);
            buf[i] += (a - b) / c->steps;
        }
        if (c->steps > 0) {
            double v = (double)(buf[i] * c->steps);
            v = isnan(v) ? 0.0 : v > c->steps - 1 ? c->steps - 1 : v < -c->steps ? -c->steps : v;
            out[i] = nearbyint(v);
        } else if (c->count_clips) {
            out[i] = isnan(x) ? 0.0 : x > 1.0 ? 1.0 : x < -1.0 ? -1.0 : x;
        } else {
            out[i] = buf[i];
        }
    }
    r->seen += n;
}

/* Random samples with the awkward ones scattered in. */
static void fill(float *v, size_t n, const conditioner *c, uint64_t *rng)
{
    const float odd[] = {NAN, INFINITY, -INFINITY, 1.0f, -1.0f, c->hi, c->lo,
                         nextafterf(c->hi, 2.0f), nextafterf(c->lo, -2.0f), FLT_MAX};
    for (size_t i = 0; i < n; i++) {
        const double u = test_uniform(rng);
        v[i] = u < 0.02 ? odd[(size_t)(u * 500.0) % (sizeof odd / sizeof odd[0])]
                        : (float)(3.0 * test_uniform(rng) - 1.5);
    }
}

static void check_subtype(int subtype, int no_dither)
{
    static const size_t sizes[] = {1, 7, 997, 65537, 3, 4096};
    uint64_t rng = 0x243F6A8885A308D3ULL ^ (uint64_t)(subtype * 31 + no_dither);
    conditioner c;
    reference r = {0};
    condition_init(&c, subtype, no_dither);
    r.rng = c.rng;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        const size_t n = sizes[s];
        float *buf = malloc(n * sizeof *buf), *mine = malloc(n * sizeof *mine);
        short *pcm = malloc(n * sizeof *pcm);
        double *want = malloc(n * sizeof *want);
        assert_true(buf && mine && pcm && want);
        fill(buf, n, &c, &rng);
        memcpy(mine, buf, n * sizeof *buf);
        ref_block(&r, &c, buf, n, want);
        condition_block(&c, mine, n, subtype == SF_FORMAT_PCM_16 ? pcm : NULL);
        for (size_t i = 0; i < n; i++) {
            const double got = subtype == SF_FORMAT_PCM_16 ? pcm[i]
                               : c.steps > 0             ? (double)mine[i] * c.steps
                                                         : (double)mine[i];
            if (!(got == want[i] || (isnan(got) && isnan(want[i]))))
                fail_msg("subtype %#x dither %d: sample %zu of %zu is %.9g, want %.9g", subtype,
                         !no_dither, i, n, got, want[i]);
        }
        free(buf);
        free(mine);
        free(pcm);
        free(want);
    }
    assert_int_equal(c.clipped, r.clipped);
    assert_true((double)c.peak == r.peak);
    assert_true((double)c.level == r.level);
    assert_int_equal(c.nonfinite, r.nonfinite);
    assert_int_equal(c.first_nonfinite, r.first_nonfinite);
    assert_true(r.clipped > 0 || !c.count_clips);
    assert_true(r.nonfinite > 0);
}

static void test_pcm16(void **state)
{
    (void)state;
    check_subtype(SF_FORMAT_PCM_16, 1);
    check_subtype(SF_FORMAT_PCM_16, 0);
}

static void test_pcm8(void **state)
{
    (void)state;
    check_subtype(SF_FORMAT_PCM_S8, 1);
    check_subtype(SF_FORMAT_PCM_U8, 0);
}

static void test_wide(void **state)
{
    (void)state;
    check_subtype(SF_FORMAT_PCM_24, 0);
    check_subtype(SF_FORMAT_PCM_32, 0);
    check_subtype(SF_FORMAT_FLOAT, 0);
}

/* The level of finite samples: the largest magnitude, over tiles and calls. */
static void test_level(void **state)
{
    uint64_t rng = 99;
    float buf[5003];
    short pcm[5003];
    double want = 0.0;
    conditioner c;
    (void)state;
    condition_init(&c, SF_FORMAT_PCM_16, 1);
    for (int call = 0; call < 3; call++) {
        test_fill(buf, 5003, &rng);
        buf[(size_t)call * 1999] = (float)(1.25 + call * 0.01);
        for (size_t i = 0; i < 5003; i++)
            want = fabs(buf[i]) > want ? fabs(buf[i]) : want;
        condition_block(&c, buf, 5003, pcm);
        assert_true((double)c.level == want);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pcm16),
        cmocka_unit_test(test_pcm8),
        cmocka_unit_test(test_wide),
        cmocka_unit_test(test_level),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
