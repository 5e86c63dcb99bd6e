/*
 * progress.h - a progress bar on stderr when it is a terminal and the job
 * takes more than a second; nothing otherwise. The bar is one line that fits
 * the terminal's width (read at every redraw, so a resized window is
 * followed) and is redrawn in place.
 */
#ifndef GFIR_CLI_PROGRESS_H
#define GFIR_CLI_PROGRESS_H

typedef struct progress {
    int enabled;
    int shown;
    double start_s, last_s;
    double total_frames;        /* 0 when the length is unknown */
    double done_frames;         /* as of the last update */
    double rate_hz;
} progress;

/* Monotonic seconds. */
double progress_now(void);
void progress_start(progress *p, int enabled, double total_frames, double rate_hz);
void progress_update(progress *p, double done_frames);
/* The job succeeded: a bar that was shown becomes a one-line summary (audio
 * filtered, time taken, speed), so the terminal keeps a trace of it. */
void progress_done(progress *p);
/* Clears a bar still shown (after a failure, or after progress_done). */
void progress_end(progress *p);
/* A speed factor with as many digits as it deserves: "277", "3.9", "0.38". */
const char *progress_speed(double factor);

#endif
