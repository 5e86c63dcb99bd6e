/*
 * progress.c - a one-line progress bar on stderr: percentage, speed in
 * multiples of real time, time left.
 */
#include "progress.h"

#include <stdio.h>
#include <time.h>
#include <unistd.h>

#define BAR_WIDTH 30
#define SHOW_AFTER_S 1.0
#define REDRAW_EVERY_S 0.1

double progress_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

void progress_start(progress *p, int enabled, double total_frames, double rate_hz)
{
    p->enabled = enabled && total_frames > 0 && isatty(STDERR_FILENO);
    p->shown = 0;
    p->start_s = p->last_s = progress_now();
    p->total_frames = total_frames;
    p->rate_hz = rate_hz;
}

void progress_update(progress *p, double done_frames)
{
    char bar[BAR_WIDTH + 1];
    double now, elapsed, frac, speed, left_s;
    int filled;

    if (!p->enabled)
        return;
    now = progress_now();
    elapsed = now - p->start_s;
    if (elapsed < SHOW_AFTER_S || now - p->last_s < REDRAW_EVERY_S)
        return;
    p->last_s = now;
    frac = done_frames / p->total_frames;
    if (frac > 1)
        frac = 1;
    speed = done_frames / p->rate_hz / elapsed;
    left_s = frac > 0 ? elapsed * (1 - frac) / frac : 0;
    filled = (int)(frac * BAR_WIDTH);
    for (int i = 0; i < BAR_WIDTH; i++)
        bar[i] = i < filled ? '#' : '.';
    bar[BAR_WIDTH] = '\0';
    fprintf(stderr, "\r[%s] %3d%%  %6.1fx realtime  %d:%02d left ", bar, (int)(frac * 100),
            speed, (int)left_s / 60, (int)left_s % 60);
    fflush(stderr);
    p->shown = 1;
}

void progress_end(progress *p)
{
    if (p->shown)
        fprintf(stderr, "\r%*s\r", BAR_WIDTH + 44, "");
    p->shown = 0;
}
