/*
 * message.c - the command line's one-line messages (message.h).
 */
#include "message.h"

#include <stdio.h>

void cli_vmessage(const char *fmt, va_list ap)
{
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
