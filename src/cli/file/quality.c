/*
 * quality.c - a codec's quality from --format (quality.h).
 *
 * libsndfile 1.2 maps SFC_SET_COMPRESSION_LEVEL (0 best quality, 1 smallest
 * file) so: LAME's variable bitrate quality is 10 x level; a constant MP3
 * bitrate is max - level x (max - min) kbit/s, truncated, over MPEG-1's 32 to
 * 320 (32 kHz and up), MPEG-2's 8 to 160 (16 to 24 kHz) or MPEG-2.5's 8 to 64;
 * Vorbis's quality is 1 - level; an Opus channel gets (1 - level) x 250 + 6
 * kbit/s, truncated to bit/s; FLAC's level is 8 x level, rounded. The levels
 * below are those maps inverted, with half a unit added where libsndfile
 * truncates, so the setting asked for is the one made.
 */
#include "file/quality.h"
#include "message.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* gfir's defaults: LAME -V 2 (LAME's own recommendation for transparency),
 * oggenc -q 5, Opus at 64 kbit/s a channel (128 for stereo, where Opus is
 * transparent for most music). FLAC keeps libsndfile's default level. */
#define MP3_VBR_DEFAULT 2.0
#define VORBIS_Q_DEFAULT 5.0
#define OPUS_KBPS_PER_CHANNEL 64.0

/* The bitrates LAME writes, kbit/s, by MPEG version (from the rate). */
static const int mpeg1_kbps[] = {32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 0};
static const int mpeg2_kbps[] = {8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160, 0};
static const int mpeg25_kbps[] = {8, 16, 24, 32, 40, 48, 56, 64, 0};

static const int *mp3_bitrates(int rate)
{
    return rate >= 32000 ? mpeg1_kbps : rate >= 16000 ? mpeg2_kbps : mpeg25_kbps;
}

/* "32, 40, ... and 320" */
static void list_bitrates(const int *kbps, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; kbps[i] && used < size; i++)
        used += (size_t)snprintf(buf + used, size - used, "%s%d", i == 0 ? ""
                                 : kbps[i + 1] ? ", " : " and ", kbps[i]);
}

/* A number that ends the word: *v, or 0 when there is none. */
static int number(const char *s, double *v)
{
    char *end;
    if (!*s || !strchr("0123456789.+-", *s))
        return 0;
    *v = strtod(s, &end);
    return *end == '\0' && isfinite(*v);
}

int quality_parse(const char *word, codec_quality *q)
{
    const size_t len = strlen(word);
    char head[32];
    if (len == 0 || len >= sizeof head)
        return -1;
    snprintf(head, sizeof head, "%.*s", (int)(len - 1), word);
    if ((word[0] == 'v' || word[0] == 'V') && number(word + 1, &q->value))
        q->kind = QUALITY_VBR;
    else if ((word[0] == 'q' || word[0] == 'Q') && number(word + 1, &q->value))
        q->kind = QUALITY_VORBIS;
    else if ((word[len - 1] == 'k' || word[len - 1] == 'K') && number(head, &q->value))
        q->kind = QUALITY_KBPS;
    else if (number(word, &q->value))
        q->kind = QUALITY_LEVEL;
    else
        return -1;
    return 0;
}

/* What each encoding takes, in the words of the message that refuses the rest. */
static int refuse(const char *format, const char *takes)
{
    cli_error("--format %s: %s", format, takes);
    return 2;
}

static int check_mp3(const codec_quality *q, const SF_INFO *out, const char *format)
{
    const int *kbps = mp3_bitrates(out->samplerate);
    char list[160], takes[256];
    if (q->kind == QUALITY_VBR && q->value >= 0 && q->value <= 9)
        return 0;
    if (q->kind == QUALITY_KBPS)
        for (int i = 0; kbps[i]; i++)
            if (q->value == kbps[i])
                return 0;
    list_bitrates(kbps, list, sizeof list);
    snprintf(takes, sizeof takes, "MP3 at %d Hz takes a constant bitrate of %s kbit/s "
             "(mp3:320k) or a variable bitrate quality v0 (best) to v9 (mp3:v0)",
             out->samplerate, list);
    return refuse(format, takes);
}

int quality_check(const codec_quality *q, const SF_INFO *out, const char *format)
{
    const double ch = out->channels;
    char takes[256];
    if (q->kind == QUALITY_DEFAULT)
        return 0;
    switch (out->format & SF_FORMAT_SUBMASK) {
    case SF_FORMAT_MPEG_LAYER_III:
        return check_mp3(q, out, format);
    case SF_FORMAT_OPUS:
        if (q->kind == QUALITY_KBPS && q->value >= 6 * ch && q->value <= 256 * ch)
            return 0;
        snprintf(takes, sizeof takes, "Opus takes a bitrate of 6 to 256 kbit/s a channel, "
                 "%g to %g kbit/s for %d channel%s (opus:96k)", 6 * ch, 256 * ch,
                 out->channels, out->channels == 1 ? "" : "s");
        return refuse(format, takes);
    case SF_FORMAT_VORBIS:
        if (q->kind == QUALITY_VORBIS && q->value >= 0 && q->value <= 10)
            return 0;
        return refuse(format, "Vorbis takes a quality q0 to q10, as oggenc -q (vorbis:q6)");
    }
    if ((out->format & SF_FORMAT_TYPEMASK) == SF_FORMAT_FLAC) {
        if (q->kind == QUALITY_LEVEL && q->value >= 0 && q->value <= 8 &&
            q->value == floor(q->value))
            return 0;
        return refuse(format, "FLAC takes a compression level 0 (fastest) to 8 (smallest), "
                      "as flac -8 (flac:8)");
    }
    return refuse(format, "a quality goes with MP3 (mp3:320k, mp3:v0), Opus (opus:96k), "
                  "Vorbis (vorbis:q6) or FLAC (flac:8); this format has none");
}

static int set(SNDFILE *sf, int command, void *arg, int size, const char *path)
{
    if (sf_command(sf, command, arg, size) != SF_TRUE)
        return cli_error("cannot set the encoder's quality for OUTPUT '%s': %s", path,
                         sf_strerror(sf));
    return 0;
}

static int apply_mp3(SNDFILE *sf, const codec_quality *q, const SF_INFO *info, const char *path)
{
    const int *kbps = mp3_bitrates(info->samplerate);
    int top = 0, mode;
    double level;
    if (q->kind == QUALITY_KBPS) {
        while (kbps[top + 1])
            top++;
        level = (kbps[top] - q->value - 0.5) / (kbps[top] - kbps[0]);
        level = level < 0 ? 0 : level;
        mode = SF_BITRATE_MODE_CONSTANT;
    } else {
        level = (q->kind == QUALITY_VBR ? q->value : MP3_VBR_DEFAULT) / 10;
        mode = SF_BITRATE_MODE_VARIABLE;
    }
    /* the level first: a new mode re-reads it, and fails while it is unset */
    return set(sf, SFC_SET_COMPRESSION_LEVEL, &level, sizeof level, path) ||
           set(sf, SFC_SET_BITRATE_MODE, &mode, sizeof mode, path);
}

int quality_apply(SNDFILE *sf, const codec_quality *q, const SF_INFO *info, const char *path)
{
    double level;
    switch (info->format & SF_FORMAT_SUBMASK) {
    case SF_FORMAT_MPEG_LAYER_III:
        return apply_mp3(sf, q, info, path);
    case SF_FORMAT_OPUS: {
        const double per_channel = q->kind == QUALITY_KBPS ? q->value / info->channels
                                                           : OPUS_KBPS_PER_CHANNEL;
        level = 1 - (per_channel * 1000 - 6000 + 0.5) / 250000;
        return set(sf, SFC_SET_COMPRESSION_LEVEL, &level, sizeof level, path);
    }
    case SF_FORMAT_VORBIS:
        level = 1 - (q->kind == QUALITY_VORBIS ? q->value : VORBIS_Q_DEFAULT) / 10;
        return set(sf, SFC_SET_COMPRESSION_LEVEL, &level, sizeof level, path);
    }
    if ((info->format & SF_FORMAT_TYPEMASK) == SF_FORMAT_FLAC && q->kind == QUALITY_LEVEL) {
        level = q->value / 8;
        return set(sf, SFC_SET_COMPRESSION_LEVEL, &level, sizeof level, path);
    }
    return 0;
}

void quality_describe(const codec_quality *q, const SF_INFO *info, char *buf, size_t size)
{
    buf[0] = '\0';
    switch (info->format & SF_FORMAT_SUBMASK) {
    case SF_FORMAT_MPEG_LAYER_III:
        if (q->kind == QUALITY_KBPS)
            snprintf(buf, size, "constant bitrate %g kbit/s", q->value);
        else
            snprintf(buf, size, "variable bitrate (LAME -V %g)",
                     q->kind == QUALITY_VBR ? q->value : MP3_VBR_DEFAULT);
        return;
    case SF_FORMAT_OPUS:
        if (q->kind == QUALITY_KBPS)
            snprintf(buf, size, "%g kbit/s", q->value);
        else
            snprintf(buf, size, "%g kbit/s a channel", OPUS_KBPS_PER_CHANNEL);
        return;
    case SF_FORMAT_VORBIS:
        snprintf(buf, size, "quality %g",
                 (q->kind == QUALITY_VORBIS ? q->value : VORBIS_Q_DEFAULT) / 10);
        return;
    }
    if ((info->format & SF_FORMAT_TYPEMASK) == SF_FORMAT_FLAC && q->kind == QUALITY_LEVEL)
        snprintf(buf, size, "compression level %g", q->value);
}
