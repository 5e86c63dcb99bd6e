/*
 * message.h - how every part of the command line speaks on stderr: one line,
 * "gfir: " first. Errors return 1, so a failing step can `return
 * cli_error(...)`. Nothing in src/cli writes to stderr but through here.
 *
 * A message is one line whatever it holds: control characters (a file name
 * with a newline or a terminal's escape sequence in it, from a manifest
 * that reaches a shared log) are written as `ls -b` writes them: \n, \t,
 * \\, and \033 for the rest, in octal. So is a C1 control in UTF-8
 * (U+0080 to U+009F); other UTF-8 text stays as it is.
 */
#ifndef GFIR_CLI_MESSAGE_H
#define GFIR_CLI_MESSAGE_H

#include <stdarg.h>
#include <stddef.h>

#if defined(__GNUC__)
#define CLI_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define CLI_PRINTF(f, a)
#endif

/* One line on stderr: "gfir: " then the message. */
void cli_vmessage(const char *fmt, va_list ap);

/* Where a thread's messages go instead of stderr: fn gets each one as it was
 * formatted, without "gfir: " and the line end, to say later through here
 * (which escapes it); what fn says itself goes to stderr. `gfir batch`
 * collects a job's messages so that it can report each failed job in one
 * line of its own. */
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
int cli_error(const char *fmt, ...) CLI_PRINTF(1, 2);
/* The same, unless quiet; returns nothing. */
void cli_note(int quiet, const char *fmt, ...) CLI_PRINTF(2, 3);
/* What -v tells of the work (the plan, the gain): "gfir: " and the line
 * on stderr at once, never collected by a sink, which holds a job's
 * failure. */
void cli_info(const char *fmt, ...) CLI_PRINTF(1, 2);
/* One line without "gfir: " (a usage line, the live summaries), escaped
 * the same. */
void cli_line(const char *fmt, ...) CLI_PRINTF(1, 2);
/* gfir's own lines (a page of its own text, nothing from outside) as they
 * are. */
void cli_page(const char *text);

/* A message built in parts, then said with cli_note(q, "%s", t.text): a
 * part past the end is cut. */
typedef struct cli_text {
    char text[8192];
    size_t len;
} cli_text;
void cli_text_add(cli_text *t, const char *fmt, ...) CLI_PRINTF(2, 3);

/* The progress line, on a terminal: text over the one before, the rest of
 * it erased; "" erases it. Never through a sink: only the main thread
 * draws it. */
void cli_status_draw(const char *text);
/* Ends the progress line where it is (the next message starts below). */
void cli_status_keep(void);

/* s as a message shows it, into out (size bytes, always terminated); what
 * does not fit is cut. For stdout's lines that carry names (--describe). */
void cli_escape(const char *s, char *out, size_t size);

#endif
