/*
 * message.h - how every part of the command line speaks: one line on stderr,
 * "gfir: " first. Errors return 1, so a failing step can `return cli_error(...)`.
 */
#ifndef GFIR_CLI_MESSAGE_H
#define GFIR_CLI_MESSAGE_H

#include <stdarg.h>

/* One line on stderr: "gfir: " then the message. */
void cli_vmessage(const char *fmt, va_list ap);
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
