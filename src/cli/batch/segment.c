/*
 * segment.c - a row's part of INPUT, from its fields to frames (segment.h).
 */
#include "batch/segment.h"
#include "file/file.h"
#include "message.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int seconds(const char *key, const char *v, double *out, char *why, size_t nwhy)
{
    char *end;
    double x = strtod(v, &end);
    if (end == v || *end || !isfinite(x) || x < 0 || x > 1e9) {
        snprintf(why, nwhy, "%s '%s' is not a number of seconds from 0 to 1e9", key, v);
        return 1;
    }
    *out = x;
    return 0;
}

static int frame(const char *key, const char *v, uint64_t *out, char *why, size_t nwhy)
{
    char *end;
    unsigned long long x;
    errno = 0;
    x = strtoull(v, &end, 10);
    if (end == v || *end || errno || v[0] < '0' || v[0] > '9' || x > (1ULL << 53)) {
        snprintf(why, nwhy, "%s '%s' is not a frame number from 0 to 2^53", key, v);
        return 1;
    }
    *out = x;
    return 0;
}

int segment_parse(const char *offset, const char *duration, const char *start, const char *end,
                  segment *s, char *why, size_t nwhy)
{
    memset(s, 0, sizeof *s);
    /* NeMo's manifests give every row the whole file's duration: without an
     * offset it is that, not a segment (a rounded length would cut a frame) */
    if (!offset)
        duration = NULL;
    if ((offset || duration) && (start || end)) {
        snprintf(why, nwhy, "a segment is offset and duration (seconds) or start and end "
                            "(frames), not both");
        return 1;
    }
    if (offset || duration) {
        s->unit = SEGMENT_SECONDS;
        if ((offset && seconds("offset", offset, &s->offset_s, why, nwhy)) ||
            (duration && seconds("duration", duration, &s->duration_s, why, nwhy)))
            return 1;
        if (duration && s->duration_s <= 0) {
            snprintf(why, nwhy, "duration '%s' is not more than 0", duration);
            return 1;
        }
    } else if (start || end) {
        s->unit = SEGMENT_FRAMES;
        if ((start && frame("start", start, &s->start, why, nwhy)) ||
            (end && frame("end", end, &s->end, why, nwhy)))
            return 1;
        if (end && s->end <= s->start) {
            snprintf(why, nwhy, "end %s is not after start %llu", end,
                     (unsigned long long)s->start);
            return 1;
        }
    }
    s->has_from = offset || start;
    s->has_to = duration || end;
    return 0;
}

int segment_resolve(const segment *s, unsigned rate_hz, uint64_t frames, cli_align align,
                    size_t ntaps, segment_plan *p, char *why, size_t nwhy)
{
    uint64_t a, b; /* the output's frames in --align causal's numbering, [a, b) */
    const uint64_t delay = align == CLI_ALIGN_SAME ? (ntaps - 1) / 2 : 0;

    memset(p, 0, sizeof *p);
    if (s->unit == SEGMENT_SECONDS) {
        /* frames as Lhotse counts them: the seconds times the rate, rounded */
        p->from = s->has_from ? (uint64_t)llround(s->offset_s * rate_hz) : 0;
        p->to = s->has_to ? p->from + (uint64_t)llround(s->duration_s * rate_hz) : frames;
    } else {
        p->from = s->has_from ? s->start : 0;
        p->to = s->has_to ? s->end : frames;
    }
    if (p->to <= p->from) {
        snprintf(why, nwhy, "the segment holds no frame at %u Hz", rate_hz);
        return 1;
    }
    if (p->to > frames) {
        snprintf(why, nwhy, "the segment ends at frame %llu, after INPUT's %llu frames",
                 (unsigned long long)p->to, (unsigned long long)frames);
        return 1;
    }
    a = p->from + delay;
    b = p->to + delay + (align == CLI_ALIGN_FULL ? ntaps - 1 : 0);
    /* y[n] needs x[n - ntaps + 1 .. n]: from a's history to b's last input */
    p->seek = a >= ntaps - 1 ? a - (ntaps - 1) : 0;
    p->read = (b < frames ? b : frames) - p->seek;
    p->drop = a - p->seek;
    p->frames = b - a;
    return 0;
}

int segment_seek(const segment *s, const char *input, cli_align align, SNDFILE *in,
                 const SF_INFO *info, size_t ntaps, render_target *t)
{
    segment_plan p;
    char why[160];
    if (s->unit == SEGMENT_NONE)
        return 0;
    if (segment_resolve(s, (unsigned)info->samplerate, cli_input_frames(info), align, ntaps, &p,
                        why, sizeof why))
        return cli_error("INPUT '%s': %s", input, why);
    if (sf_seek(in, (sf_count_t)p.seek, SEEK_SET) != (sf_count_t)p.seek)
        return cli_error("cannot seek INPUT '%s' to frame %llu: %s", input,
                         (unsigned long long)p.seek, sf_strerror(in));
    t->seg_read = p.read;
    t->seg_drop = p.drop;
    t->seg_frames = p.frames;
    return 0;
}

void segment_shortest(char *buf, size_t n, double x)
{
    if (!buf || n == 0) /* also tells GCC 12 under ASan, which warned of a NULL buf */
        return;
    for (int digits = 6; digits <= 17; digits++) {
        snprintf(buf, n, "%.*g", digits, x);
        if (strtod(buf, NULL) == x)
            return;
    }
}

void segment_describe(const segment *s, char *buf, size_t n)
{
    char a[32], b[32];
    buf[0] = '\0';
    if (s->unit == SEGMENT_SECONDS) {
        size_t len = 0;
        segment_shortest(a, sizeof a, s->offset_s);
        segment_shortest(b, sizeof b, s->duration_s);
        if (s->has_from)
            len += (size_t)snprintf(buf, n, "--offset %s", a);
        if (s->has_to && len < n)
            snprintf(buf + len, n - len, "%s--duration %s", len ? " " : "", b);
    } else if (s->unit == SEGMENT_FRAMES) {
        size_t len = 0;
        if (s->has_from)
            len += (size_t)snprintf(buf, n, "--start %llu", (unsigned long long)s->start);
        if (s->has_to && len < n)
            snprintf(buf + len, n - len, "%s--end %llu", len ? " " : "",
                     (unsigned long long)s->end);
    }
}
