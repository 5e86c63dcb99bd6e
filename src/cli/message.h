/*
 * message.h - how every part of the command line speaks: one line on stderr,
 * "gfir: " first. Errors return 1, so a failing step can `return cli_error(...)`.
 */
#ifndef GFIR_CLI_MESSAGE_H
#define GFIR_CLI_MESSAGE_H

#include <stdarg.h>

/* One line on stderr: "gfir: " then the message. */
void cli_vmessage(const char *fmt, va_list ap);

/* Where a thread's messages go instead of stderr: fn gets each one, without
 * "gfir: " and the line end. `gfir batch` collects a job's messages so that
 * it can report each failed job in one line of its own. */
typedef struct cli_message_sink {
    void (*fn)(void *ctx, const char *message);
    void *ctx;
} cli_message_sink;

/* Sends this thread's messages to sink (NULL: back to stderr). Threads that
 * work for this one take its sink over (file/pipeline.c). */
void cli_message_redirect(const cli_message_sink *sink);
/* This thread's sink, or NULL. */
const cli_message_sink *cli_message_current_sink(void);
/* Formats "gfir: ..." on stderr and returns 1. */
int cli_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/* The same, unless quiet; returns nothing. */
void cli_note(int quiet, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

#endif
