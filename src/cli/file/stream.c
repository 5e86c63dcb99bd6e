/*
 * stream.c - sound files on pipes (stream.h).
 *
 * A WAV's header is libsndfile's own, written into memory for zero frames,
 * with its lengths then set for the frames to come; the samples follow as
 * libsndfile's headerless little-endian encoding of the same kind (RAW),
 * which is what a WAV's data chunk holds.
 */
#include "file/stream.h"
#include "file/output.h"
#include "file/riff.h"
#include "message.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A growable file in memory, for libsndfile's virtual I/O. */
typedef struct mem_file {
    unsigned char *data;
    sf_count_t len, cap, pos;
    int failed;
} mem_file;

static sf_count_t mem_length(void *user)
{
    return ((mem_file *)user)->len;
}

static sf_count_t mem_seek(sf_count_t offset, int whence, void *user)
{
    mem_file *m = user;
    sf_count_t to = whence == SEEK_SET ? offset : whence == SEEK_CUR ? m->pos + offset
                                                                      : m->len + offset;
    if (to < 0)
        return -1;
    m->pos = to;
    return to;
}

static sf_count_t mem_read(void *ptr, sf_count_t count, void *user)
{
    mem_file *m = user;
    sf_count_t n = m->pos < m->len ? m->len - m->pos : 0;
    n = count < n ? count : n;
    memcpy(ptr, m->data + m->pos, (size_t)n);
    m->pos += n;
    return n;
}

static sf_count_t mem_write(const void *ptr, sf_count_t count, void *user)
{
    mem_file *m = user;
    if (m->pos + count > m->cap) {
        sf_count_t cap = (m->pos + count) * 2;
        unsigned char *grown = realloc(m->data, (size_t)cap);
        if (!grown) {
            m->failed = 1;
            return 0;
        }
        memset(grown + m->cap, 0, (size_t)(cap - m->cap));
        m->data = grown;
        m->cap = cap;
    }
    memcpy(m->data + m->pos, ptr, (size_t)count);
    m->pos += count;
    if (m->pos > m->len)
        m->len = m->pos;
    return count;
}

static sf_count_t mem_tell(void *user)
{
    return ((mem_file *)user)->pos;
}

/*
 * Sets the lengths in a RIFF/WAVE header that ends with its 'data' chunk's
 * header: the RIFF size, the data size, and a 'fact' chunk's frame count.
 * 0 on success, -1 when the header is not laid out so.
 */
static int set_lengths(unsigned char *h, size_t len, uint64_t frames)
{
    uint64_t block = 0, data;
    int unknown = frames == STREAM_FRAMES_UNKNOWN;
    size_t at = 12;
    if (len < 12 || memcmp(h, "RIFF", 4) || memcmp(h + 8, "WAVE", 4))
        return -1;
    while (at + 8 <= len) {
        const uint32_t size = riff_get32(h + at + 4, 1);
        if (!memcmp(h + at, "fmt ", 4) && at + 8 + 14 <= len)
            block = (uint64_t)h[at + 8 + 12] | (uint64_t)h[at + 8 + 13] << 8;
        if (!memcmp(h + at, "data", 4)) {
            if (at + 8 != len || block == 0)
                return -1;
            data = frames * block;
            /* beyond 4 GB a WAV cannot say its length: say "unknown" */
            if (unknown || frames > UINT32_MAX || data > UINT32_MAX - len)
                unknown = 1;
            riff_put32le(h + 4, unknown ? UINT32_MAX : (uint32_t)(len - 8 + data));
            riff_put32le(h + at + 4, unknown ? UINT32_MAX : (uint32_t)data);
            return 0;
        }
        if (!memcmp(h + at, "fact", 4) && size >= 4 && at + 12 <= len)
            riff_put32le(h + at + 8,
                         unknown || frames > UINT32_MAX ? UINT32_MAX : (uint32_t)frames);
        at += 8 + (size_t)size + (size & 1);
    }
    return -1;
}

/* libsndfile's WAV header for info, with its lengths set for frames. */
static int wav_header(const SF_INFO *info, uint64_t frames, mem_file *m)
{
    SF_VIRTUAL_IO io = {mem_length, mem_seek, mem_read, mem_write, mem_tell};
    SF_INFO copy = *info;
    SNDFILE *sf = sf_open_virtual(&io, SFM_WRITE, &copy, m);
    if (!sf)
        return -1;
    /* a PEAK chunk holds the peaks, known only at the end */
    sf_command(sf, SFC_SET_ADD_PEAK_CHUNK, NULL, SF_FALSE);
    if (sf_close(sf) != 0 || m->failed)
        return -1;
    return set_lengths(m->data, (size_t)m->len, frames);
}

static int open_wav(int fd, const char *name, SF_INFO *info, uint64_t frames, SNDFILE **sf)
{
    mem_file m = {0};
    SF_INFO raw = *info;
    raw.format = SF_FORMAT_RAW | (info->format & SF_FORMAT_SUBMASK) | SF_ENDIAN_LITTLE;
    if (!sf_format_check(&raw) || wav_header(info, frames, &m) != 0) {
        free(m.data);
        return cli_error("OUTPUT '%s': a WAV of these samples cannot be written to a pipe; "
                         "use --format wav:pcm16, wav:pcm24 or wav:float", name);
    }
    if (output_write_all(fd, m.data, (size_t)m.len) != 0) {
        int err = errno;
        free(m.data);
        return cli_error("cannot write OUTPUT '%s': %s", name, strerror(err));
    }
    free(m.data);
    *sf = sf_open_fd(fd, SFM_WRITE, &raw, SF_FALSE);
    if (!*sf)
        return cli_error("cannot write OUTPUT '%s': %s", name, sf_strerror(NULL));
    return 0;
}

/* What libsndfile 1.2.0 writes to a pipe by itself; others fail, some after
 * writing part of a header. */
static const int pipe_writable[] = {SF_FORMAT_AU, SF_FORMAT_FLAC, SF_FORMAT_OGG, SF_FORMAT_MPEG};

int stream_open(int fd, const char *name, SF_INFO *info, uint64_t frames, SNDFILE **sf)
{
    const int major = info->format & SF_FORMAT_TYPEMASK;
    int writable = 0;
    *sf = NULL;
    if (major == SF_FORMAT_WAV || major == SF_FORMAT_WAVEX)
        return open_wav(fd, name, info, frames, sf);
    for (size_t i = 0; i < sizeof pipe_writable / sizeof pipe_writable[0]; i++)
        writable |= major == pipe_writable[i];
    if (!writable)
        return cli_error("OUTPUT '%s' cannot seek, and this format must: to a pipe, a FIFO or "
                         "a terminal gfir writes WAV, AU, FLAC, Ogg and MP3", name);
    *sf = sf_open_fd(fd, SFM_WRITE, info, SF_FALSE);
    if (!*sf)
        return cli_error("cannot write OUTPUT '%s': %s", name, sf_strerror(NULL));
    return 0;
}
