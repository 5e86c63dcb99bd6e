/*
 * fftw_test.c - gfir plans made and destroyed while another thread of the
 * same process plans and destroys FFTW transforms of its own, as a host does
 * (Ardour's export analysis beside gfir's plugin). FFTW's planner is one
 * global state: without fftw.c's planner hooks the two threads corrupt its
 * heap within a second (glibc or ASan aborts on a double free). Every plan
 * made during the race must still filter right: one call of random input
 * against a float64 direct convolution, relative L2 error under 1e-5 (float
 * FFT convolution of these lengths lands near 1e-7; a plan built from a
 * corrupted FFTW plan is off by orders of magnitude).
 */
#include "gfir.h"

#include <fftw3.h>
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#define PLANS 120
#define MAX_TAPS 6000
#define MAX_FRAMES 4096

static atomic_int stop;

/* the host's own FFTW use: plans of many sizes, made and destroyed */
static void *host_planner(void *arg)
{
    float *in = fftwf_malloc(65536 * sizeof *in);
    fftwf_complex *out = fftwf_malloc(32769 * sizeof *out);
    (void)arg;
    for (unsigned long n = 0; in && out && !atomic_load(&stop); n++) {
        fftwf_plan p = fftwf_plan_dft_r2c_1d(64 << (n % 11), in, out, FFTW_ESTIMATE);
        if (p)
            fftwf_destroy_plan(p);
    }
    fftwf_free(in);
    fftwf_free(out);
    return NULL;
}

static float uniform(unsigned *state)
{
    *state = *state * 1103515245u + 12345u;
    return (float)((*state >> 8) & 0xffff) / 65536.0f - 0.5f;
}

static void plans_beside_host_planning(void **unused)
{
    static float taps[MAX_TAPS], in[MAX_FRAMES], out[MAX_FRAMES];
    unsigned seed = 2026;
    pthread_t host;
    (void)unused;
    for (size_t i = 0; i < MAX_TAPS; i++)
        taps[i] = uniform(&seed);
    for (size_t i = 0; i < MAX_FRAMES; i++)
        in[i] = uniform(&seed);
    assert_int_equal(pthread_create(&host, NULL, host_planner, NULL), 0);
    for (int k = 0; k < PLANS; k++) {
        const size_t ntaps = 257 + (size_t)k * 1931 % (MAX_TAPS - 257);
        const size_t frames = 61 + (size_t)k * 997 % (MAX_FRAMES - 61);
        gfir_config cfg;
        gfir_plan *plan;
        double err = 0, ref_norm = 0;
        gfir_config_init(&cfg);
        cfg.backend = GFIR_BACKEND_CPU;
        cfg.max_block_frames = frames;
        assert_int_equal(gfir_plan_create(&plan, taps, ntaps, &cfg), GFIR_OK);
        assert_int_equal(gfir_plan_execute(plan, in, out, frames), GFIR_OK);
        gfir_plan_destroy(plan);
        for (size_t i = 0; i < frames; i++) {
            double ref = 0;
            for (size_t j = 0; j <= i && j < ntaps; j++)
                ref += (double)taps[j] * in[i - j];
            err += (out[i] - ref) * (out[i] - ref);
            ref_norm += ref * ref;
        }
        if (sqrt(err / ref_norm) >= 1e-5)
            fail_msg("plan %d (%zu taps, %zu frames): relative L2 error %.3g", k, ntaps, frames,
                     sqrt(err / ref_norm));
    }
    atomic_store(&stop, 1);
    assert_int_equal(pthread_join(host, NULL), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(plans_beside_host_planning),
    };
    /* the planner's measuring would serialise on its own clock; the race is
     * in planning as such */
    setenv("GFIR_FFTW_PLANNER", "estimate", 1);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
