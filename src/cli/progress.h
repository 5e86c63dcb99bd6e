/*
 * progress.h - a progress bar on stderr when it is a terminal and the job
 * takes more than a second; nothing otherwise.
 */
#ifndef GFIR_CLI_PROGRESS_H
#define GFIR_CLI_PROGRESS_H

typedef struct progress {
    int enabled;
    int shown;
    double start_s, last_s;
    double total_frames;        /* 0 when the length is unknown */
    double rate_hz;
} progress;

/* Monotonic seconds. */
double progress_now(void);
void progress_start(progress *p, int enabled, double total_frames, double rate_hz);
void progress_update(progress *p, double done_frames);
void progress_end(progress *p);

#endif
