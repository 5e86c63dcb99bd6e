/*
 * format.c - the output file's container and samples: from --format, else
 * OUTPUT's extension with INPUT's samples, falling back to samples the
 * container can hold.
 */
#include "file/format.h"
#include "message.h"

#include <string.h>
#include <strings.h>

static const struct {
    const char *name;
    int subtype;
} subtypes[] = {
    {"pcm8", SF_FORMAT_PCM_S8}, {"pcm8", SF_FORMAT_PCM_U8}, {"pcm16", SF_FORMAT_PCM_16},
    {"pcm24", SF_FORMAT_PCM_24}, {"pcm32", SF_FORMAT_PCM_32}, {"float", SF_FORMAT_FLOAT},
    {"double", SF_FORMAT_DOUBLE}, {"ulaw", SF_FORMAT_ULAW}, {"alaw", SF_FORMAT_ALAW},
    {"vorbis", SF_FORMAT_VORBIS}, {"opus", SF_FORMAT_OPUS},
};

static const char *subtype_name(int subtype)
{
    for (size_t i = 0; i < sizeof subtypes / sizeof subtypes[0]; i++)
        if (subtypes[i].subtype == subtype)
            return subtypes[i].name;
    return "the input's encoding";
}

/* A container by extension or name ("wav", "flac", "aif", ...), or 0. */
static int container_for(const char *name)
{
    static const struct {
        const char *alias, *ext;
    } aliases[] = {{"aif", "aiff"}, {"aifc", "aiff"}, {"ogg", "oga"}, {"opus", "oga"},
                   {"snd", "au"},   {"wave", "wav"}};
    SF_FORMAT_INFO fi;
    int count = 0;
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (!strcasecmp(name, aliases[i].alias))
            name = aliases[i].ext;
    sf_command(NULL, SFC_GET_FORMAT_MAJOR_COUNT, &count, sizeof count);
    for (int i = 0; i < count; i++) {
        fi.format = i;
        if (sf_command(NULL, SFC_GET_FORMAT_MAJOR, &fi, sizeof fi) == 0 && fi.extension &&
            !strcasecmp(name, fi.extension))
            return fi.format & SF_FORMAT_TYPEMASK;
    }
    return 0;
}

static int valid_format(SF_INFO *info, int container, int subtype)
{
    info->format = container | subtype;
    return sf_format_check(info);
}

int format_choose(const char *format, const char *output, int quiet, const SF_INFO *in,
                  SF_INFO *out)
{
    char container_name[32] = "";
    const char *samples = NULL, *dot;
    int container, fallback[] = {SF_FORMAT_PCM_24, SF_FORMAT_PCM_16, SF_FORMAT_FLOAT,
                                 SF_FORMAT_VORBIS};

    memset(out, 0, sizeof *out);
    out->samplerate = in->samplerate;
    out->channels = in->channels;
    if (format) {
        size_t len = strcspn(format, ":");
        snprintf(container_name, sizeof container_name, "%.*s", (int)len, format);
        samples = format[len] ? format + len + 1 : NULL;
    } else if (!strcmp(output, "-")) {
        snprintf(container_name, sizeof container_name, "wav"); /* standard output */
    } else if ((dot = strrchr(output, '.')) && !strchr(dot, '/')) {
        snprintf(container_name, sizeof container_name, "%s", dot + 1);
    }
    if (!container_name[0])
        return cli_error("OUTPUT '%s' has no extension to tell its format; add one or use "
                         "--format (e.g. --format wav:pcm16)", output);
    container = container_for(container_name);
    if (!container)
        return cli_error("unknown output format '%s' (use wav, flac, aiff, ogg, caf, w64, "
                         "au, rf64, ...)", container_name);
    if (samples) {
        for (size_t i = 0; i < sizeof subtypes / sizeof subtypes[0]; i++)
            if (!strcmp(samples, subtypes[i].name) &&
                valid_format(out, container, subtypes[i].subtype))
                return 0;
        return cli_error("--format %s: '%s' samples are unknown or cannot go in a %s file",
                         format, samples, container_name);
    }
    if (valid_format(out, container, in->format & SF_FORMAT_SUBMASK))
        return 0;
    for (size_t i = 0; i < sizeof fallback / sizeof fallback[0]; i++) {
        if (valid_format(out, container, fallback[i])) {
            cli_note(quiet, "note: a %s file cannot hold %s samples; writing %s",
                     container_name, subtype_name(in->format & SF_FORMAT_SUBMASK),
                     subtype_name(fallback[i]));
            return 0;
        }
    }
    return cli_error("a %s file cannot hold %d channels at %d Hz", container_name,
                     in->channels, in->samplerate);
}
