/*
 * bar.c - the progress bar of `gfir batch` (bar.h).
 */
#include "batch/bar.h"

#include <stdio.h>

#define BAR_WIDTH 30
#define BAR_AFTER_S 1.0

void bar_clear(batch_bar *b)
{
    if (b->shown)
        fprintf(stderr, "\r%*s\r", BAR_WIDTH + 60, "");
    b->shown = 0;
}

void bar_draw(batch_bar *b, size_t done, size_t total, size_t worked, size_t failed,
              double now)
{
    char bar[BAR_WIDTH + 1];
    double elapsed = now - b->start_s, frac = total ? (double)done / total : 1;
    double rate = (double)worked / elapsed;
    double left_s = rate > 0 ? (double)(total - done) / rate : 0;
    if (!b->on || elapsed < BAR_AFTER_S || now - b->last_s < BAR_EVERY_S)
        return;
    b->last_s = now;
    for (int i = 0; i < BAR_WIDTH; i++)
        bar[i] = i < (int)(frac * BAR_WIDTH) ? '#' : '.';
    bar[BAR_WIDTH] = '\0';
    fprintf(stderr, "\r[%s] %3d%%  %zu/%zu files  %.1f/s  %d:%02d left", bar, (int)(frac * 100),
            done, total, rate, (int)left_s / 60, (int)left_s % 60);
    if (failed)
        fprintf(stderr, "  %zu failed", failed);
    fprintf(stderr, " ");
    fflush(stderr);
    b->shown = 1;
}
