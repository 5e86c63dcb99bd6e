/*
 * period_clock.h - the period's clock the live benchmarks keep
 * (live_bench.c, roundtrip_bench.cu): the monotonic time in seconds, and a
 * sleep until a time on it.
 */
#ifndef GFIR_TOOLS_PERIOD_CLOCK_H
#define GFIR_TOOLS_PERIOD_CLOCK_H

#include <errno.h>
#include <time.h>

static inline double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static inline void sleep_until(double t)
{
    struct timespec ts;
    ts.tv_sec = (time_t)t;
    ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
        ;
}

#endif
