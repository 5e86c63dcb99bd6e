/*
 * bar.c - the progress bar of `gfir batch` (bar.h).
 */
#include "batch/bar.h"
#include "message.h"

#define BAR_WIDTH 30
#define BAR_AFTER_S 1.0

void bar_clear(batch_bar *b)
{
    if (b->shown)
        cli_status_draw("");
    b->shown = 0;
}

void bar_draw(batch_bar *b, size_t done, size_t total, size_t worked, size_t failed,
              double now)
{
    char bar[BAR_WIDTH + 1];
    cli_text line = {.len = 0};
    double elapsed = now - b->start_s, frac = total ? (double)done / total : 1;
    double rate = (double)worked / elapsed;
    double left_s = rate > 0 ? (double)(total - done) / rate : 0;
    if (!b->on || elapsed < BAR_AFTER_S || now - b->last_s < BAR_EVERY_S)
        return;
    b->last_s = now;
    for (int i = 0; i < BAR_WIDTH; i++)
        bar[i] = i < (int)(frac * BAR_WIDTH) ? '#' : '.';
    bar[BAR_WIDTH] = '\0';
    cli_text_add(&line, "[%s] %3d%%  %zu/%zu files  %.1f/s  %d:%02d left", bar,
                 (int)(frac * 100), done, total, rate, (int)left_s / 60, (int)left_s % 60);
    if (failed)
        cli_text_add(&line, "  %zu failed", failed);
    cli_status_draw(line.text);
    b->shown = 1;
}
