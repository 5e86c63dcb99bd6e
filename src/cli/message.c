/*
 * message.c - the command line's one-line messages (message.h).
 */
#include "message.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static _Thread_local const cli_message_sink *sink;
/* set while the sink takes a message: what it says itself goes to stderr */
static _Thread_local int in_sink;

void cli_message_redirect(const cli_message_sink *s)
{
    sink = s;
}

const cli_message_sink *cli_message_current_sink(void)
{
    return sink;
}

/* The escape of byte c (and, for a C1 control, of the byte after it) into
 * out, which holds 9 bytes; how many bytes of s it stood for. */
static size_t escape_one(const unsigned char *s, char *out)
{
    const unsigned char c = s[0];
    if (c == '\n' || c == '\t' || c == '\\') {
        out[0] = '\\';
        out[1] = c == '\n' ? 'n' : c == '\t' ? 't' : '\\';
        out[2] = '\0';
        return 1;
    }
    if (c < 0x20 || c == 0x7F) {
        snprintf(out, 9, "\\%03o", c);
        return 1;
    }
    /* U+0080..U+009F: C1 controls (0x9B is CSI to a terminal that takes them) */
    if (c == 0xC2 && s[1] >= 0x80 && s[1] <= 0x9F) {
        snprintf(out, 9, "\\%03o\\%03o", c, s[1]);
        return 2;
    }
    out[0] = (char)c;
    out[1] = '\0';
    return 1;
}

void cli_escape(const char *s, char *out, size_t size)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t len = 0;
    if (size == 0)
        return;
    while (*p) {
        char one[9];
        const size_t used = escape_one(p, one), n = strlen(one);
        if (len + n >= size)
            break;
        memcpy(out + len, one, n);
        len += n;
        p += used;
    }
    out[len] = '\0';
}

/* fmt formatted and escaped, in memory the caller frees; NULL without. */
static char *format_escaped(const char *fmt, va_list ap)
{
    va_list again;
    char *raw, *out;
    int n;
    va_copy(again, ap);
    n = vsnprintf(NULL, 0, fmt, again);
    va_end(again);
    if (n < 0)
        return NULL;
    raw = malloc((size_t)n + 1);
    /* every byte may become four (\ooo) */
    out = malloc((size_t)n * 4 + 1);
    if (!raw || !out) {
        free(raw);
        free(out);
        return NULL;
    }
    vsnprintf(raw, (size_t)n + 1, fmt, ap);
    cli_escape(raw, out, (size_t)n * 4 + 1);
    free(raw);
    return out;
}

/* One line to stderr: prefix and text escaped, in one write, so that lines
 * of threads that speak at once do not mix. */
static void to_stderr(const char *prefix, const char *fmt, va_list ap)
{
    char *text = format_escaped(fmt, ap);
    const char *shown = text ? text : "(out of memory for a message)";
    const size_t np = strlen(prefix), nt = strlen(shown);
    char *line = malloc(np + nt + 2);
    if (line) {
        memcpy(line, prefix, np);
        memcpy(line + np, shown, nt);
        line[np + nt] = '\n';
        fwrite(line, 1, np + nt + 1, stderr);
    } else {
        fprintf(stderr, "%s%s\n", prefix, shown);
    }
    free(line);
    free(text);
}

/* One line to the sink as it was formatted (whoever prints it escapes it),
 * or to stderr after prefix. */
static void say(const char *prefix, const char *fmt, va_list ap)
{
    va_list again;
    char *text;
    int n;
    if (!sink || in_sink) {
        to_stderr(prefix, fmt, ap);
        return;
    }
    va_copy(again, ap);
    n = vsnprintf(NULL, 0, fmt, again);
    va_end(again);
    text = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (text)
        vsnprintf(text, (size_t)n + 1, fmt, ap);
    in_sink = 1;
    sink->fn(sink->ctx, text ? text : "(out of memory for a message)");
    in_sink = 0;
    free(text);
}

void cli_vmessage(const char *fmt, va_list ap)
{
    say("gfir: ", fmt, ap);
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

void cli_info(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    to_stderr("gfir: ", fmt, ap);
    va_end(ap);
}

void cli_line(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say("", fmt, ap);
    va_end(ap);
}

void cli_page(const char *text)
{
    fputs(text, stderr);
}

void cli_text_add(cli_text *t, const char *fmt, ...)
{
    va_list ap;
    int n;
    if (t->len >= sizeof t->text - 1)
        return;
    va_start(ap, fmt);
    n = vsnprintf(t->text + t->len, sizeof t->text - t->len, fmt, ap);
    va_end(ap);
    if (n > 0)
        t->len += (size_t)n < sizeof t->text - t->len ? (size_t)n : sizeof t->text - 1 - t->len;
}

void cli_status_draw(const char *text)
{
    char shown[1024];
    cli_escape(text, shown, sizeof shown);
    fprintf(stderr, "\r%s\033[K", shown);
    fflush(stderr);
}

void cli_status_keep(void)
{
    fputc('\n', stderr);
}
