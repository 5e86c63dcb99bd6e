/*
 * bar.h - `gfir batch`'s progress bar on a terminal: the shard's files done,
 * the rate, the time left and the failures, on one line redrawn in place,
 * from a second into the run. Cleared before any other line is printed.
 */
#ifndef GFIR_CLI_BATCH_BAR_H
#define GFIR_CLI_BATCH_BAR_H

#include <stddef.h>

/* The most time between two looks at the workers: the bar's refresh. */
#define BAR_EVERY_S 0.1

typedef struct batch_bar {
    int on;                     /* drawn at all (stderr is a terminal, not -q) */
    int shown;                  /* on the screen now */
    double start_s, last_s;     /* the run's start, the last drawing (progress_now) */
} batch_bar;

/* Of total files, done are done (before or now), of which worked were done
 * by this run and failed failed; now: progress_now(). */
void bar_draw(batch_bar *b, size_t done, size_t total, size_t worked, size_t failed,
              double now);
void bar_clear(batch_bar *b);

#endif
