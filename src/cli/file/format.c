/*
 * format.c - the output file's container and samples (format.h).
 *
 * Samples carry over between containers only when they are plain numbers
 * (PCM, float, u-law, A-law); a codec's samples (MP3, Vorbis, Opus, ADPCM,
 * ...) stay only within their own container, since the same codec in
 * another container is either unwritable (MP3 in WAV) or not what anyone
 * expects. Decoded codec output is worth 16 bits, so it becomes pcm16.
 */
#include "file/format.h"
#include "file/quality.h"
#include "message.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

static const struct {
    const char *name;
    int subtype;
} subtypes[] = {
    {"pcm8", SF_FORMAT_PCM_S8}, {"pcm8", SF_FORMAT_PCM_U8}, {"pcm16", SF_FORMAT_PCM_16},
    {"pcm24", SF_FORMAT_PCM_24}, {"pcm32", SF_FORMAT_PCM_32}, {"float", SF_FORMAT_FLOAT},
    {"double", SF_FORMAT_DOUBLE}, {"ulaw", SF_FORMAT_ULAW}, {"alaw", SF_FORMAT_ALAW},
    {"vorbis", SF_FORMAT_VORBIS}, {"opus", SF_FORMAT_OPUS}, {"mp3", SF_FORMAT_MPEG_LAYER_III},
};

static const int mp3_rates[] = {8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000};
static const int opus_rates[] = {8000, 12000, 16000, 24000, 48000};

/* --format's name for an encoding, else libsndfile's ("IMA ADPCM"). */
static const char *subtype_name(int subtype)
{
    SF_FORMAT_INFO fi;
    for (size_t i = 0; i < sizeof subtypes / sizeof subtypes[0]; i++)
        if (subtypes[i].subtype == subtype)
            return subtypes[i].name;
    fi.format = subtype;
    if (sf_command(NULL, SFC_GET_FORMAT_INFO, &fi, sizeof fi) == 0 && fi.name)
        return fi.name;
    return "the input's";
}

/* Samples that mean the same in any container that holds them. */
static int plain_samples(int subtype)
{
    switch (subtype) {
    case SF_FORMAT_PCM_S8: case SF_FORMAT_PCM_U8: case SF_FORMAT_PCM_16:
    case SF_FORMAT_PCM_24: case SF_FORMAT_PCM_32: case SF_FORMAT_FLOAT:
    case SF_FORMAT_DOUBLE: case SF_FORMAT_ULAW: case SF_FORMAT_ALAW:
        return 1;
    default:
        return 0;
    }
}

/* Whether INPUT's samples need more than 16 bits to stay as they are. */
static int wide_samples(int subtype)
{
    switch (subtype) {
    case SF_FORMAT_PCM_24: case SF_FORMAT_PCM_32: case SF_FORMAT_FLOAT:
    case SF_FORMAT_DOUBLE: case SF_FORMAT_ALAC_20: case SF_FORMAT_ALAC_24:
    case SF_FORMAT_ALAC_32: case SF_FORMAT_DWVW_24:
        return 1;
    default:
        return 0;
    }
}

/* A container by extension or name ("wav", "flac", "mp3", ...), or 0; *codec
 * is the encoding the name implies (.opus is Ogg with Opus), or 0. */
static int container_for(const char *name, int *codec)
{
    static const struct {
        const char *alias, *ext;
        int codec;
    } aliases[] = {{"aif", "aiff", 0},  {"aifc", "aiff", 0}, {"ogg", "oga", 0},
                   {"opus", "oga", SF_FORMAT_OPUS}, {"vorbis", "oga", SF_FORMAT_VORBIS},
                   {"snd", "au", 0}, {"wave", "wav", 0},
                   {"mp3", "m1a", SF_FORMAT_MPEG_LAYER_III}};
    SF_FORMAT_INFO fi;
    int count = 0;
    *codec = 0;
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++) {
        if (!strcasecmp(name, aliases[i].alias)) {
            name = aliases[i].ext;
            *codec = aliases[i].codec;
        }
    }
    sf_command(NULL, SFC_GET_FORMAT_MAJOR_COUNT, &count, sizeof count);
    for (int i = 0; i < count; i++) {
        fi.format = i;
        if (sf_command(NULL, SFC_GET_FORMAT_MAJOR, &fi, sizeof fi) == 0 && fi.extension &&
            !strcasecmp(name, fi.extension)) {
            /* of MPEG audio, libsndfile writes only layer III */
            if ((fi.format & SF_FORMAT_TYPEMASK) == SF_FORMAT_MPEG)
                *codec = SF_FORMAT_MPEG_LAYER_III;
            return fi.format & SF_FORMAT_TYPEMASK;
        }
    }
    return 0;
}

static int writable(SF_INFO *info, int container, int subtype)
{
    if (container == SF_FORMAT_MPEG && subtype != SF_FORMAT_MPEG_LAYER_III)
        return 0;
    info->format = container | subtype;
    return sf_format_check(info);
}

const char *format_label(int format, char buf[FORMAT_LABEL_LEN])
{
    const char *name = NULL;
    SF_FORMAT_INFO fi;
    switch (format & SF_FORMAT_TYPEMASK) {
    case SF_FORMAT_WAVEX:
        name = "WAV (extensible)";
        break;
    case SF_FORMAT_MPEG:
        name = "MP3";
        break;
    case SF_FORMAT_OGG:
        name = (format & SF_FORMAT_SUBMASK) == SF_FORMAT_OPUS     ? "Ogg Opus"
               : (format & SF_FORMAT_SUBMASK) == SF_FORMAT_VORBIS ? "Ogg Vorbis"
                                                                  : "Ogg";
        break;
    default:
        fi.format = format & SF_FORMAT_TYPEMASK;
        if (sf_command(NULL, SFC_GET_FORMAT_INFO, &fi, sizeof fi) != 0 || !fi.name)
            name = "sound";
    }
    if (name)
        snprintf(buf, FORMAT_LABEL_LEN, "%s", name);
    else
        snprintf(buf, FORMAT_LABEL_LEN, "%.*s", (int)strcspn(fi.name, " ("), fi.name);
    return buf;
}

static int rate_in(int rate, const int *rates, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (rates[i] == rate)
            return 1;
    return 0;
}

/* What libsndfile's checks let through but its encoders refuse at open. */
static int codec_limits(const SF_INFO *out)
{
    switch (out->format & SF_FORMAT_SUBMASK) {
    case SF_FORMAT_MPEG_LAYER_III:
        if (!rate_in(out->samplerate, mp3_rates, sizeof mp3_rates / sizeof mp3_rates[0]))
            return cli_error("MP3 has no %d Hz (it has 8000, 11025, 12000, 16000, 22050, 24000, "
                             "32000, 44100 and 48000): resample with --rate, such as --rate 44100",
                             out->samplerate);
        return 0;
    case SF_FORMAT_OPUS:
        if (!rate_in(out->samplerate, opus_rates, sizeof opus_rates / sizeof opus_rates[0]))
            return cli_error("Opus has no %d Hz (it has 8000, 12000, 16000, 24000 and 48000): "
                             "resample with --rate 48000, or write .ogg (Vorbis)",
                             out->samplerate);
        return 0;
    }
    return 0;
}

/* The container's samples when INPUT's do not go: the widest first for
 * wide INPUT, 16 bits first otherwise, then its codecs. */
static int nearest(SF_INFO *out, int container, int in_subtype)
{
    static const int wide[] = {SF_FORMAT_PCM_24, SF_FORMAT_PCM_16, SF_FORMAT_FLOAT,
                               SF_FORMAT_VORBIS, SF_FORMAT_MPEG_LAYER_III};
    static const int narrow[] = {SF_FORMAT_PCM_16, SF_FORMAT_PCM_24, SF_FORMAT_FLOAT,
                                 SF_FORMAT_VORBIS, SF_FORMAT_MPEG_LAYER_III};
    const int *order = wide_samples(in_subtype) ? wide : narrow;
    for (size_t i = 0; i < sizeof wide / sizeof wide[0]; i++)
        if (writable(out, container, order[i]))
            return order[i];
    return 0;
}

/* Whether word names samples (pcm16, float, ...). */
static int samples_name(const char *word)
{
    for (size_t i = 0; i < sizeof subtypes / sizeof subtypes[0]; i++)
        if (!strcmp(word, subtypes[i].name))
            return 1;
    return 0;
}

/* --format's parts, CONTAINER[:SAMPLES][:QUALITY] (the last two in either
 * order): each into its buffer, "" where absent; q DEFAULT without one. A
 * word that is neither samples nor a quality is taken as samples, which the
 * caller then finds unknown. */
static void split_format(const char *format, char container[32], char samples[32],
                         codec_quality *q)
{
    char word[32];
    size_t len = strcspn(format ? format : "", ":");
    container[0] = samples[0] = '\0';
    q->kind = QUALITY_DEFAULT;
    q->value = 0;
    if (!format)
        return;
    snprintf(container, 32, "%.*s", (int)len, format);
    for (const char *p = format + len; *p == ':';) {
        len = strcspn(p + 1, ":");
        snprintf(word, sizeof word, "%.*s", (int)len, p + 1);
        if ((samples_name(word) || quality_parse(word, q) != 0) && !samples[0])
            snprintf(samples, 32, "%s", word);
        p += 1 + len;
    }
}

void format_quality(const char *format, codec_quality *q)
{
    char container[32], samples[32];
    split_format(format, container, samples, q);
}

int format_choose(const char *format, const char *output, int quiet, const SF_INFO *in,
                  int has_layout, SF_INFO *out)
{
    char container_name[32], samples_word[32], label[FORMAT_LABEL_LEN];
    const char *samples = NULL, *dot;
    const int in_subtype = in->format & SF_FORMAT_SUBMASK;
    const int in_container = in->format & SF_FORMAT_TYPEMASK;
    int container, codec, subtype = 0, rc;
    codec_quality q;

    memset(out, 0, sizeof *out);
    out->samplerate = in->samplerate;
    out->channels = in->channels;
    split_format(format, container_name, samples_word, &q);
    samples = samples_word[0] ? samples_word : NULL;
    /* no container in --format (":pcm16"): OUTPUT's, as without --format */
    if (!container_name[0] && !strcmp(output, "-"))
        snprintf(container_name, sizeof container_name, "wav"); /* standard output */
    else if (!container_name[0] && (dot = strrchr(output, '.')) && !strchr(dot, '/'))
        snprintf(container_name, sizeof container_name, "%s", dot + 1);
    if (!container_name[0] && format)
        return cli_error("--format %s names no container and OUTPUT '%s' has no extension to "
                         "tell one; name it (e.g. --format wav%s)", format, output,
                         samples ? format + strcspn(format, ":") : ":pcm16");
    if (!container_name[0])
        return cli_error("OUTPUT '%s' has no extension to tell its format; add one or use "
                         "--format (e.g. --format wav:pcm16)", output);
    container = container_for(container_name, &codec);
    if (!container)
        return cli_error("unknown output format '%s' (use wav, flac, mp3, opus, ogg, aiff, caf, "
                         "w64, rf64, au, ...)", container_name);
    /* WAVE_FORMAT_EXTENSIBLE is where WAV keeps a channel layout */
    if (container == SF_FORMAT_WAV && (has_layout || in_container == SF_FORMAT_WAVEX))
        container = SF_FORMAT_WAVEX;
    if (samples) {
        for (size_t i = 0; i < sizeof subtypes / sizeof subtypes[0] && !subtype; i++)
            if (!strcmp(samples, subtypes[i].name) &&
                writable(out, container, subtypes[i].subtype))
                subtype = subtypes[i].subtype;
        if (!subtype)
            return cli_error("--format %s: '%s' samples are unknown or cannot go in %s files",
                             format, samples, format_label(container | codec, label));
    } else if (codec) {
        subtype = writable(out, container, codec) ? codec : 0;
    } else if (writable(out, container, in_subtype) &&
               (plain_samples(in_subtype) || in_container == container)) {
        subtype = in_subtype;
    } else {
        subtype = nearest(out, container, in_subtype);
        if (subtype && plain_samples(in_subtype) && plain_samples(subtype))
            cli_note(quiet, "note: %s files cannot hold %s samples; writing %s",
                     format_label(container, label), subtype_name(in_subtype),
                     subtype_name(subtype));
    }
    if (!subtype)
        return cli_error("%s files cannot hold %d channels at %d Hz",
                         format_label(container | codec, label), in->channels,
                         in->samplerate);
    out->format = container | subtype;
    if ((rc = codec_limits(out)) != 0)
        return rc;
    return quality_check(&q, out, format);
}

int format_configure(SNDFILE *out, const SF_INFO *info, const char *format, const char *path)
{
    codec_quality q;
    format_quality(format, &q);
    return quality_apply(out, &q, info, path);
}

void format_describe(const SF_INFO *info, const char *format, char *buf, size_t size)
{
    const int subtype = info->format & SF_FORMAT_SUBMASK;
    char name[FORMAT_LABEL_LEN], settings[96];
    const char *label = format_label(info->format, name);
    codec_quality q;
    format_quality(format, &q);
    quality_describe(&q, info, settings, sizeof settings);
    if (plain_samples(subtype))
        snprintf(buf, size, "%s, %s%s%s", label, subtype_name(subtype), settings[0] ? ", " : "",
                 settings);
    else
        snprintf(buf, size, "%s, %s", label, settings[0] ? settings : subtype_name(subtype));
}
