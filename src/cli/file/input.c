/*
 * input.c - INPUT opened once: a sound file, a FIFO, or standard input
 * (file.h).
 */
#include "file/file.h"
#include "file/riff.h"
#include "file/format.h"
#include "file/source.h"
#include "message.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The containers libsndfile reads correctly from a pipe. Others fail (FLAC,
 * VOC) or, worse, lose samples without an error (CAF gave none of 10000
 * frames, RF64 one frame short, with libsndfile 1.2.0). From a pipe or a
 * FIFO source.c copies those to a file first; from what it cannot look
 * into without taking bytes (a socket, a terminal) they are refused. */
static const int pipe_readable[] = {SF_FORMAT_WAV, SF_FORMAT_WAVEX, SF_FORMAT_AIFF, SF_FORMAT_AU,
                                    SF_FORMAT_W64, SF_FORMAT_OGG,   SF_FORMAT_MPEG};
#define PIPE_READABLE_NAMES "WAV, AIFF, AU, W64, Ogg and MP3"

static int reads_from_pipe(int format)
{
    for (size_t i = 0; i < sizeof pipe_readable / sizeof pipe_readable[0]; i++)
        if ((format & SF_FORMAT_TYPEMASK) == pipe_readable[i])
            return 1;
    return 0;
}

/*
 * How many bytes a WAV's 'data' or an AIFF's 'SSND' chunk claims beyond the
 * end of the file (a download or a copy cut short), or 0. libsndfile reads
 * what is there and says nothing.
 */
static uint64_t missing_bytes(int fd, uint64_t size)
{
    unsigned char head[12], chunk[8];
    uint64_t at = 12;
    int little;
    if (pread(fd, head, sizeof head, 0) != (ssize_t)sizeof head)
        return 0;
    if (!memcmp(head, "RIFF", 4) && !memcmp(head + 8, "WAVE", 4))
        little = 1;
    else if (!memcmp(head, "FORM", 4) && (!memcmp(head + 8, "AIFF", 4) ||
                                          !memcmp(head + 8, "AIFC", 4)))
        little = 0;
    else
        return 0;
    for (int i = 0; i < 1000 && at + sizeof chunk <= size; i++) {
        if (pread(fd, chunk, sizeof chunk, (off_t)at) != (ssize_t)sizeof chunk)
            return 0;
        const uint32_t len = riff_get32(chunk + 4, little);
        if (!memcmp(chunk, little ? "data" : "SSND", 4)) {
            const uint64_t there = size - (at + sizeof chunk);
            /* 0 and 0xFFFFFFFF: a streaming writer that could not know the length */
            return len == 0 || len == 0xFFFFFFFFu || len <= there ? 0 : len - there;
        }
        at += sizeof chunk + len + (len & 1);
    }
    return 0;
}

static int refuse(SNDFILE **sf, int rc)
{
    source_close(*sf);
    *sf = NULL;
    return rc;
}

int cli_open_input(const char *path, int verbose, SNDFILE **sf, SF_INFO *info)
{
    return cli_open_input_counting(path, verbose, sf, info, NULL);
}

int cli_open_input_counting(const char *path, int verbose, SNDFILE **sf, SF_INFO *info,
                            uint64_t *cut_bytes)
{
    const int is_stdin = !strcmp(path, "-");
    /* a FIFO waits here for its writer, as any reader of one does */
    const int fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_NOCTTY | O_CLOEXEC);
    struct stat sb;
    uint64_t missing = 0;
    source_how how;
    char why[512];
    int err;

    *sf = NULL;
    memset(info, 0, sizeof *info);
    if (fd < 0)
        return cli_error("cannot open INPUT '%s': %s", path, strerror(errno));
    err = fstat(fd, &sb) != 0 ? errno : 0;
    if (err || S_ISDIR(sb.st_mode) || (S_ISREG(sb.st_mode) && sb.st_size == 0)) {
        if (!is_stdin)
            close(fd);
        return err ? cli_error("cannot open INPUT '%s': %s", path, strerror(err))
               : S_ISDIR(sb.st_mode) ? cli_error("INPUT '%s' is a directory", path)
                                     : cli_error("INPUT '%s' is empty (0 bytes)", path);
    }
    if (S_ISREG(sb.st_mode))
        missing = missing_bytes(fd, (uint64_t)sb.st_size);
    /* closes fd with *sf, and on failure (not standard input) */
    *sf = source_open(fd, !is_stdin, info, &how, why, sizeof why);
    if (!*sf)
        return cli_error("cannot read INPUT '%s' as sound: %s", path, why);
    if (how.to_the_end)
        cli_note(!verbose, "INPUT '%s' is an MP3 without a length header: read to its "
                 "decoder's end", path);
    if (how.spooled) {
        char label[FORMAT_LABEL_LEN];
        cli_note(!verbose, "INPUT '%s' is %s from a pipe, which libsndfile reads only from a "
                 "file: copied it (%.1f MB) to an unlinked temporary file in %s", path,
                 format_label(info->format, label), (double)how.spooled_bytes / 1e6,
                 how.spool_dir);
    }
    if (!info->seekable && !reads_from_pipe(info->format))
        return refuse(sf, cli_error("INPUT '%s': libsndfile cannot read this format from a "
                                    "socket or a terminal without losing samples; from there "
                                    "gfir reads " PIPE_READABLE_NAMES " (save others to a "
                                    "file first)", path));
    if (info->samplerate < CLI_MIN_RATE_HZ || info->samplerate > CLI_MAX_RATE_HZ)
        return refuse(sf, cli_error("INPUT '%s' is at %d Hz; gfir filters audio at %g to %g Hz",
                                    path, info->samplerate, CLI_MIN_RATE_HZ, CLI_MAX_RATE_HZ));
    if (info->seekable && info->frames <= 0)
        return refuse(sf, cli_error("INPUT '%s' has no audio frames", path));
    if (cut_bytes)
        *cut_bytes = missing;
    else if (missing) /* a warning: it prints even with -q */
        cli_note(0, "INPUT '%s' is cut short: its data chunk claims %llu bytes more than the file "
                 "holds; filtering the %lld frames there are", path,
                 (unsigned long long)missing, (long long)info->frames);
    return 0;
}

void cli_close_input(SNDFILE *sf)
{
    source_close(sf);
}

SNDFILE *cli_input_tags(SNDFILE *sf)
{
    return source_tags(sf);
}

/* libsndfile says SF_COUNT_MAX for a length the header leaves unknown (a
 * FLAC whose STREAMINFO counts 0 samples, as encoders writing to a pipe
 * leave it): that is no promise, and no reason to call the file cut short. */
size_t cli_input_frames(const SF_INFO *info)
{
    return info->seekable && info->frames > 0 && info->frames != SF_COUNT_MAX
               ? (size_t)info->frames : 0;
}
