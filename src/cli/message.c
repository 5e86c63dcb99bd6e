/*
 * message.c - the command line's one-line messages (message.h).
 */
#include "message.h"

#include <stdio.h>

static _Thread_local const cli_message_sink *sink;

void cli_message_redirect(const cli_message_sink *s)
{
    sink = s;
}

const cli_message_sink *cli_message_current_sink(void)
{
    return sink;
}

void cli_vmessage(const char *fmt, va_list ap)
{
    if (sink) {
        char text[1024];
        vsnprintf(text, sizeof text, fmt, ap);
        sink->fn(sink->ctx, text);
        return;
    }
    fputs("gfir: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

int cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cli_vmessage(fmt, ap);
    va_end(ap);
    return 1;
}

void cli_note(int quiet, const char *fmt, ...)
{
    va_list ap;
    if (quiet)
        return;
    va_start(ap, fmt);
    cli_vmessage(fmt, ap);
    va_end(ap);
}
