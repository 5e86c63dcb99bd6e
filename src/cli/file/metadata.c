/*
 * metadata.c - INPUT's tags and channel layout onto OUTPUT (metadata.h).
 *
 * libsndfile takes any tag for any writable format and drops at close what
 * the format has no field for (WAV has no license, AU has no tags at all),
 * and accepts a channel map that some formats never write; so what was kept
 * is learnt from OUTPUT itself, not from the return values.
 */
#include "file/metadata.h"
#include "file/format.h"
#include "message.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const struct {
    int type;
    const char *name;
} tag_names[] = {
    {SF_STR_TITLE, "title"},     {SF_STR_ARTIST, "artist"},   {SF_STR_ALBUM, "album"},
    {SF_STR_TRACKNUMBER, "tracknumber"}, {SF_STR_DATE, "date"}, {SF_STR_GENRE, "genre"},
    {SF_STR_COMMENT, "comment"}, {SF_STR_COPYRIGHT, "copyright"},
    {SF_STR_LICENSE, "license"}, {SF_STR_SOFTWARE, "software"},
};
#define NTAGS (sizeof tag_names / sizeof tag_names[0])

/* The speaker names ffmpeg and WAVE_FORMAT_EXTENSIBLE use, by SF_CHANNEL_MAP_*
 * (libsndfile reads WAV's front channels as LEFT, RIGHT, CENTER). */
static const char *const speaker_names[SF_CHANNEL_MAP_MAX] = {
    [SF_CHANNEL_MAP_MONO] = "mono",         [SF_CHANNEL_MAP_LEFT] = "FL",
    [SF_CHANNEL_MAP_RIGHT] = "FR",          [SF_CHANNEL_MAP_CENTER] = "FC",
    [SF_CHANNEL_MAP_FRONT_LEFT] = "FL",     [SF_CHANNEL_MAP_FRONT_RIGHT] = "FR",
    [SF_CHANNEL_MAP_FRONT_CENTER] = "FC",   [SF_CHANNEL_MAP_REAR_CENTER] = "BC",
    [SF_CHANNEL_MAP_REAR_LEFT] = "BL",      [SF_CHANNEL_MAP_REAR_RIGHT] = "BR",
    [SF_CHANNEL_MAP_LFE] = "LFE",           [SF_CHANNEL_MAP_FRONT_LEFT_OF_CENTER] = "FLC",
    [SF_CHANNEL_MAP_FRONT_RIGHT_OF_CENTER] = "FRC", [SF_CHANNEL_MAP_SIDE_LEFT] = "SL",
    [SF_CHANNEL_MAP_SIDE_RIGHT] = "SR",     [SF_CHANNEL_MAP_TOP_CENTER] = "TC",
    [SF_CHANNEL_MAP_TOP_FRONT_LEFT] = "TFL", [SF_CHANNEL_MAP_TOP_FRONT_RIGHT] = "TFR",
    [SF_CHANNEL_MAP_TOP_FRONT_CENTER] = "TFC", [SF_CHANNEL_MAP_TOP_REAR_LEFT] = "TBL",
    [SF_CHANNEL_MAP_TOP_REAR_RIGHT] = "TBR", [SF_CHANNEL_MAP_TOP_REAR_CENTER] = "TBC",
    [SF_CHANNEL_MAP_AMBISONIC_B_W] = "W",   [SF_CHANNEL_MAP_AMBISONIC_B_X] = "X",
    [SF_CHANNEL_MAP_AMBISONIC_B_Y] = "Y",   [SF_CHANNEL_MAP_AMBISONIC_B_Z] = "Z",
};

/* Canonical names, so LEFT and FRONT_LEFT compare equal. */
static const char *speaker(int id)
{
    const char *name = id > 0 && id < SF_CHANNEL_MAP_MAX ? speaker_names[id] : NULL;
    return name ? name : "?";
}

static void layout_text(const int *layout, int channels, char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int c = 0; c < channels && len < size; c++)
        len += (size_t)snprintf(buf + len, size - len, "%s%s", c ? " " : "", speaker(layout[c]));
}

static int same_layout(const int *a, const char *b_text, int channels)
{
    char text[256];
    layout_text(a, channels, text, sizeof text);
    return !strcmp(text, b_text);
}

/* Layouts a format implies without recording them: mono and stereo anywhere,
 * FLAC's channel assignment for 3 to 8 channels, and Vorbis's order, which
 * Ogg Vorbis and Ogg Opus (mapping family 1) both use. */
static int implied_layout(int format, const int *layout, int channels)
{
    static const char *const flac[] = {
        "FL FR FC", "FL FR BL BR", "FL FR FC BL BR", "FL FR FC LFE BL BR",
        "FL FR FC LFE BC SL SR", "FL FR FC LFE BL BR SL SR"};
    static const char *const vorbis[] = {
        "FL FC FR", "FL FR BL BR", "FL FC FR BL BR", "FL FC FR BL BR LFE",
        "FL FC FR SL SR BC LFE", "FL FC FR SL SR BL BR LFE"};
    if (channels == 1)
        return same_layout(layout, "mono", 1) || same_layout(layout, "FC", 1);
    if (channels == 2)
        return same_layout(layout, "FL FR", 2);
    if (channels > 8)
        return 0;
    switch (format & SF_FORMAT_TYPEMASK) {
    case SF_FORMAT_FLAC:
        return same_layout(layout, flac[channels - 3], channels);
    case SF_FORMAT_OGG:
        return same_layout(layout, vorbis[channels - 3], channels);
    }
    return 0;
}

int metadata_read(SNDFILE *in, int channels, file_metadata *m)
{
    memset(m, 0, sizeof *m);
    m->channels = channels;
    for (size_t i = 0; i < NTAGS; i++) {
        const char *value = sf_get_string(in, tag_names[i].type);
        if (value && *value && !(m->tags[tag_names[i].type] = strdup(value)))
            goto oom;
    }
    m->layout = malloc((size_t)channels * sizeof *m->layout);
    if (!m->layout)
        goto oom;
    if (sf_command(in, SFC_GET_CHANNEL_MAP_INFO, m->layout,
                   (int)((size_t)channels * sizeof *m->layout)) != SF_TRUE) {
        free(m->layout);
        m->layout = NULL;
    }
    return 0;
oom:
    metadata_free(m);
    return cli_error("out of memory for INPUT's tags");
}

void metadata_write(SNDFILE *out, const file_metadata *m)
{
    for (size_t i = 0; i < NTAGS; i++)
        if (m->tags[tag_names[i].type])
            sf_set_string(out, tag_names[i].type, m->tags[tag_names[i].type]);
    if (m->layout)
        sf_command(out, SFC_SET_CHANNEL_MAP_INFO, m->layout,
                   (int)((size_t)m->channels * sizeof *m->layout));
}

/* Appends name to a comma-separated list. */
static void list_add(char *list, size_t size, const char *name)
{
    size_t len = strlen(list);
    if (len < size)
        snprintf(list + len, size - len, "%s%s", len ? ", " : "", name);
}

static void check_tags(SNDFILE *sf, const char *label, const file_metadata *m, int quiet)
{
    char lost[256] = "", changed[256] = "";
    for (size_t i = 0; i < NTAGS; i++) {
        const char *want = m->tags[tag_names[i].type];
        const char *got = want ? sf_get_string(sf, tag_names[i].type) : NULL;
        if (want && !got)
            list_add(lost, sizeof lost, tag_names[i].name);
        else if (want && strcmp(got, want))
            list_add(changed, sizeof changed, tag_names[i].name);
    }
    if (lost[0])
        cli_note(quiet, "note: %s files have no place for INPUT's %s; OUTPUT goes without",
                 label, lost);
    if (changed[0])
        cli_note(quiet, "note: %s files could not keep INPUT's %s as it was", label, changed);
}

static void check_layout(SNDFILE *sf, const SF_INFO *info, const char *label,
                         const file_metadata *m, int quiet)
{
    char want[256], got[256] = "";
    int *layout;
    if (!m->layout)
        return;
    layout_text(m->layout, m->channels, want, sizeof want);
    layout = malloc((size_t)m->channels * sizeof *layout);
    if (layout && sf_command(sf, SFC_GET_CHANNEL_MAP_INFO, layout,
                             (int)((size_t)m->channels * sizeof *layout)) == SF_TRUE)
        layout_text(layout, m->channels, got, sizeof got);
    free(layout);
    if (strcmp(want, got) && !implied_layout(info->format, m->layout, m->channels))
        cli_note(quiet, "note: %s files do not record this channel layout (%s); OUTPUT's "
                 "channels keep INPUT's order", label, want);
}

void metadata_check(const char *path, const file_metadata *m, int quiet)
{
    struct stat sb;
    char label[FORMAT_LABEL_LEN];
    int any = m->layout != NULL;
    SF_INFO info;
    SNDFILE *sf;
    for (size_t i = 0; i < NTAGS; i++)
        any |= m->tags[tag_names[i].type] != NULL;
    if (quiet || !any || stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
        return;
    memset(&info, 0, sizeof info);
    sf = sf_open(path, SFM_READ, &info);
    if (!sf)
        return;
    format_label(info.format, label);
    check_tags(sf, label, m, quiet);
    check_layout(sf, &info, label, m, quiet);
    sf_close(sf);
}

void metadata_describe(const file_metadata *m, char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < NTAGS && len < size; i++)
        if (m->tags[tag_names[i].type])
            len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? ", " : "; tags ",
                                    tag_names[i].name);
    if (m->layout && len < size) {
        char text[256];
        layout_text(m->layout, m->channels, text, sizeof text);
        snprintf(buf + len, size - len, "; layout %s", text);
    }
}

void metadata_free(file_metadata *m)
{
    for (size_t i = 0; i < NTAGS; i++)
        free(m->tags[tag_names[i].type]);
    free(m->layout);
    memset(m, 0, sizeof *m);
}
