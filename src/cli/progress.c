/*
 * progress.c - the progress bar (progress.h): bar, percentage, speed in
 * multiples of real time, time left, dropped in that order of need when the
 * terminal is narrow.
 *
 * The line is kept one column short of the width: a terminal that wraps on
 * the last column would move the cursor to a new line, and every redraw
 * would then leave the previous one behind.
 */
#include "progress.h"
#include "message.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#define MAX_BAR 30
#define WORDY_MIN_BAR 12    /* narrower than this, "realtime" and "left" go */
#define MIN_BAR 5           /* narrower than this, the bar goes */
#define SHOW_AFTER_S 1.0
#define REDRAW_EVERY_S 0.1
#define LINE_MAX_COLS 256

double progress_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Columns that can be written without wrapping. */
static int usable_columns(void)
{
    struct winsize ws;
    const char *env = getenv("COLUMNS");
    int cols = 80;
    if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        cols = ws.ws_col;
    else if (env && atoi(env) > 0)
        cols = atoi(env);
    cols -= 1;
    return cols < 1 ? 1 : cols > LINE_MAX_COLS ? LINE_MAX_COLS : cols;
}

const char *progress_speed(double factor)
{
    static char text[32];
    snprintf(text, sizeof text, factor >= 100 ? "%.0f" : factor >= 1 ? "%.1f" : "%.2g", factor);
    return text;
}

void progress_start(progress *p, int enabled, double total_frames, double rate_hz)
{
    p->enabled = enabled && total_frames > 0 && isatty(STDERR_FILENO);
    p->shown = 0;
    p->start_s = p->last_s = progress_now();
    p->total_frames = total_frames;
    p->done_frames = 0;
    p->rate_hz = rate_hz;
}

/* The longest of the forms that fits: each drops what matters least. */
static void compose(char *line, int cols, double frac, double speed, double left_s)
{
    const int pct = (int)(frac * 100), min = (int)left_s / 60, sec = (int)left_s % 60;
    const char *sp = progress_speed(speed);
    char tail[96];
    int bar;
    snprintf(tail, sizeof tail, " %3d%%  %sx realtime  %d:%02d left", pct, sp, min, sec);
    if (cols - (int)strlen(tail) - 2 < WORDY_MIN_BAR)
        snprintf(tail, sizeof tail, " %3d%% %sx %d:%02d", pct, sp, min, sec);
    bar = cols - (int)strlen(tail) - 2;
    if (bar > MAX_BAR)
        bar = MAX_BAR;
    if (bar < MIN_BAR) {
        snprintf(line, (size_t)cols + 1, "%s", tail + 1);
        return;
    }
    line[0] = '[';
    for (int i = 0; i < bar; i++)
        line[1 + i] = i < (int)(frac * bar) ? '#' : '.';
    line[1 + bar] = ']';
    snprintf(line + 2 + bar, (size_t)(cols - bar - 1), "%s", tail);
}

void progress_update(progress *p, double done_frames)
{
    char line[LINE_MAX_COLS + 1];
    double now, elapsed, frac;

    p->done_frames = done_frames;
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
    compose(line, usable_columns(), frac, done_frames / p->rate_hz / elapsed,
            frac > 0 ? elapsed * (1 - frac) / frac : 0);
    cli_status_draw(line);
    p->shown = 1;
}

void progress_done(progress *p)
{
    char line[LINE_MAX_COLS + 1];
    const double elapsed = progress_now() - p->start_s, audio_s = p->done_frames / p->rate_hz;
    const char *sp = progress_speed(elapsed > 0 ? audio_s / elapsed : 0);
    const int cols = usable_columns();
    if (!p->shown)
        return;
    snprintf(line, sizeof line, "gfir: filtered %.2f s of audio in %.2f s (%sx realtime)",
             audio_s, elapsed, sp);
    if ((int)strlen(line) > cols)
        snprintf(line, sizeof line, "gfir: %.1f s of audio in %.1f s (%sx)", audio_s, elapsed,
                 sp);
    if ((int)strlen(line) > cols)
        snprintf(line, sizeof line, "gfir: done in %.1f s", elapsed);
    line[cols] = '\0';
    cli_status_draw(line);
    cli_status_keep();
    p->shown = 0;
}

void progress_end(progress *p)
{
    if (p->shown)
        cli_status_draw("");
    p->shown = 0;
}
