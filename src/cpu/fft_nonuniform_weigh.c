/*
 * fft_nonuniform_weigh.c - the zero-latency FFT engine's weights: each unit
 * of a spread level's block (a transform slice or a multiply-accumulate,
 * fft_nonuniform.c) weighs what it takes on this machine, so that a block's
 * share of the time that has passed (advance() in fft_nonuniform_path.c)
 * is a share of its time.
 *
 * Fixed figures per kind of unit did not carry across machines: on a 2-core
 * Intel Xeon VM with 2 MB of L2 per core (2026-11-27, 2^20 taps, stereo,
 * 64-frame calls), the units of the 65536-frame level took 1.4 to 4.8 times
 * the nanoseconds the figures of the development machine gave them, the
 * multiply-accumulates and the (un)packing slices most, whose data stream
 * from memory. Those blocks crowded their time into the calls of those
 * units; the worst call with no swap was 1.8 times the mean, 1.6 with
 * measured weights.
 */
#include "cpu/fft_nonuniform_state.h"
#include "cpu/ftz.h"

#include <math.h>
#include <time.h>

double gf_nu_clock_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return 1e9 * (double)ts.tv_sec + (double)ts.tv_nsec;
}

/* The least of the passes: a pass that another thread or an interrupt
 * slowed rarely slows the same unit in every pass. The buffers hold zeros
 * from a reset, so no unit meets a subnormal number. */
void gf_nu_weigh_units(nu_state *st, double (*clock_ns)(void), int passes)
{
    const unsigned csr = gf_ftz_enter();
    for (size_t l = 0; l < st->nlevels; l++) {
        nu_level *lv = &st->level[l];
        double cost = 0.0;
        if (lv->sync)
            continue;
        for (size_t i = 0; i < lv->nunits; i++)
            lv->units[i].cost = HUGE_VAL;
        for (int p = 0; p < passes; p++)
            for (size_t i = 0; i < lv->nunits; i++) {
                const double t0 = clock_ns();
                double dt;
                gf_nu_path_unit(st, &st->paths[0], l, i);
                dt = clock_ns() - t0;
                if (dt < lv->units[i].cost)
                    lv->units[i].cost = dt;
            }
        for (size_t i = 0; i < lv->nunits; i++) {
            lv->units[i].cost_before = cost;
            cost += lv->units[i].cost;
        }
        lv->total = cost;
    }
    gf_ftz_leave(csr);
}
