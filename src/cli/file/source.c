/*
 * source.c - sound read to the decoder's end, and from any pipe (source.h).
 */
#define _GNU_SOURCE /* tee(2) and O_TMPFILE: Linux's, with fallbacks */
#include "file/source.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- a regular file whose end libsndfile is not told ----------------------- */

/* One file read through virtual I/O; the list lets source_close find the
 * descriptor that sf_close leaves open. */
typedef struct endless {
    struct endless *next;
    SNDFILE *sf;
    SNDFILE *first;             /* the file opened as usual: its tags (an ID3v1 tag is at
                                   the end, which mpg123 finds only by seeking there) */
    int fd, close_fd;
    off_t base;                 /* where the sound starts in fd (standard input may be mid-file) */
    sf_count_t len, pos;
} endless;

static pthread_mutex_t endless_mu = PTHREAD_MUTEX_INITIALIZER;
static endless *endless_list;

static sf_count_t endless_length(void *user)
{
    return ((endless *)user)->len;
}

/* Seeking to the end is refused: mpg123 learns a file's length that way, and
 * from the length guesses the count of frames that libsndfile then stops at. */
static sf_count_t endless_seek(sf_count_t offset, int whence, void *user)
{
    endless *e = user;
    sf_count_t to = whence == SEEK_SET ? offset : whence == SEEK_CUR ? e->pos + offset : -1;
    if (to < 0)
        return -1;
    e->pos = to;
    return to;
}

static sf_count_t endless_read(void *ptr, sf_count_t count, void *user)
{
    endless *e = user;
    sf_count_t done = 0;
    while (done < count) {
        ssize_t n = pread(e->fd, (char *)ptr + done, (size_t)(count - done),
                          e->base + e->pos + done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        done += n;
    }
    e->pos += done;
    return done;
}

static sf_count_t endless_tell(void *user)
{
    return ((endless *)user)->pos;
}

/* sf, an MP3 opened on fd, again through virtual I/O; sf is kept for its
 * tags and closed with the result. NULL when that fails (then sf is as it
 * was). */
static SNDFILE *reopen_endless(SNDFILE *sf, int fd, int close_fd, off_t base, SF_INFO *info)
{
    static SF_VIRTUAL_IO io = {endless_length, endless_seek, endless_read, NULL, endless_tell};
    struct stat sb;
    SF_INFO again;
    endless *e = calloc(1, sizeof *e);
    if (!e || fstat(fd, &sb) != 0 || sb.st_size <= base) {
        free(e);
        return NULL;
    }
    *e = (endless){.fd = fd, .close_fd = close_fd, .base = base, .len = sb.st_size - base};
    memset(&again, 0, sizeof again);
    e->sf = sf_open_virtual(&io, SFM_READ, &again, e);
    if (!e->sf) {
        free(e);
        return NULL;
    }
    e->first = sf;
    *info = again;
    pthread_mutex_lock(&endless_mu);
    e->next = endless_list;
    endless_list = e;
    pthread_mutex_unlock(&endless_mu);
    return e->sf;
}

void source_close(SNDFILE *sf)
{
    endless **at, *e = NULL;
    if (!sf)
        return;
    pthread_mutex_lock(&endless_mu);
    for (at = &endless_list; *at; at = &(*at)->next) {
        if ((*at)->sf == sf) {
            e = *at;
            *at = e->next;
            break;
        }
    }
    pthread_mutex_unlock(&endless_mu);
    sf_close(sf);
    if (e) {
        sf_close(e->first);
        if (e->close_fd)
            close(e->fd);
    }
    free(e);
}

SNDFILE *source_tags(SNDFILE *sf)
{
    SNDFILE *tags = sf;
    pthread_mutex_lock(&endless_mu);
    for (const endless *e = endless_list; e; e = e->next)
        if (e->sf == sf)
            tags = e->first;
    pthread_mutex_unlock(&endless_mu);
    return tags;
}

/* ---- a pipe: its first bytes seen without taking them ---------------------- */

#define HEAD_BYTES 12

/* Copies up to HEAD_BYTES of pipe fd's first bytes into head without taking
 * them from it (tee(2) into a pipe of our own). Returns how many, or -1 where
 * fd cannot be looked into so (not a pipe, or not Linux). */
static int peek_pipe(int fd, unsigned char *head)
{
    int p[2], got = -1;
    if (pipe(p) != 0)
        return -1;
    for (int tries = 0;; tries++) {
        ssize_t n = tee(fd, p[1], HEAD_BYTES, 0);
        struct pollfd pf = {fd, POLLIN, 0};
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            break;
        got = (int)read(p[0], head, (size_t)n);
        /* fewer bytes than wanted: wait for more, unless the writer is gone */
        if (got >= HEAD_BYTES || n == 0 || tries >= 10000 ||
            (poll(&pf, 1, 0) == 1 && (pf.revents & POLLHUP)))
            break;
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    }
    close(p[0]);
    close(p[1]);
    return got;
}

/* Whether libsndfile reads a stream beginning so without seeking: WAV, AIFF,
 * AU, W64, Ogg and MP3 (an ID3v2 tag or a frame's sync word). Others, read
 * from a pipe, fail (FLAC, VOC) or lose samples (CAF gave none of 10000
 * frames, RF64 one frame short, with libsndfile 1.2.0). */
static int streams(const unsigned char *h, int n)
{
    if (n < 4)
        return 1; /* too short to be sound: libsndfile says so */
    return !memcmp(h, "RIFF", 4) || !memcmp(h, "FORM", 4) || !memcmp(h, ".snd", 4) ||
           !memcmp(h, "dns.", 4) || !memcmp(h, "riff", 4) || !memcmp(h, "OggS", 4) ||
           !memcmp(h, "ID3", 3) || (h[0] == 0xFF && (h[1] & 0xE0) == 0xE0);
}

/* ---- spooling -------------------------------------------------------------- */

static const char *spool_dir(void)
{
    const char *d = getenv("TMPDIR");
    return d && *d ? d : "/tmp";
}

/* A file in dir that no name reaches: gone when closed, whatever happens. */
static int unnamed_file(const char *dir)
{
    char path[4096];
    int fd;
#ifdef O_TMPFILE
    fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL))
        return fd;
#endif
    if (snprintf(path, sizeof path, "%s/.gfir-spool-XXXXXX", dir) >= (int)sizeof path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    fd = mkstemp(path);
    if (fd >= 0)
        unlink(path);
    return fd;
}

/* Copies all of fd into an unnamed file; its descriptor, or -1 with why. */
static int copy_to_file(int fd, source_how *how, char *why, size_t why_len)
{
    char buf[65536];
    const char *dir = spool_dir();
    int out = unnamed_file(dir);
    if (out < 0) {
        snprintf(why, why_len, "it needs a temporary file in %s (this format cannot be read "
                 "from a pipe as it comes): %s", dir, strerror(errno));
        return -1;
    }
    for (;;) {
        ssize_t n = read(fd, buf, sizeof buf), w = 0;
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            snprintf(why, why_len, "reading the pipe failed: %s", strerror(errno));
            goto fail;
        }
        if (n == 0)
            break;
        while (w < n) {
            ssize_t k = write(out, buf + w, (size_t)(n - w));
            if (k < 0 && errno == EINTR)
                continue;
            if (k <= 0) {
                snprintf(why, why_len, "copying it from the pipe to a temporary file in %s "
                         "failed after %llu bytes: %s (set TMPDIR to a roomier place)", dir,
                         how->spooled_bytes, k < 0 ? strerror(errno) : "nothing written");
                goto fail;
            }
            w += k;
        }
        how->spooled_bytes += (unsigned long long)n;
    }
    if (lseek(out, 0, SEEK_SET) != 0) {
        snprintf(why, why_len, "cannot rewind its temporary copy: %s", strerror(errno));
        goto fail;
    }
    how->spooled = 1;
    how->spool_dir = dir;
    return out;
fail:
    close(out);
    return -1;
}

/* copy_to_file, where a write past `ulimit -f` fails (EFBIG) rather than
 * kills gfir: the signals that remove OUTPUT's temporary file are not set
 * up yet. */
static int spool(int fd, source_how *how, char *why, size_t why_len)
{
    struct sigaction ignore, was;
    int out;
    memset(&ignore, 0, sizeof ignore);
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    sigaction(SIGXFSZ, &ignore, &was);
    out = copy_to_file(fd, how, why, why_len);
    sigaction(SIGXFSZ, &was, NULL);
    return out;
}

/* ---- the one way in -------------------------------------------------------- */

/* Why libsndfile could not open a file, in words that name the cause: for an
 * MP3 whose decoder found no frame, libsndfile says the file "does not exist
 * or is not a regular file", which is not so (it is open). */
static void open_failed(char *why, size_t why_len)
{
    char log[2048] = "";
    sf_command(NULL, SFC_GET_LOG_INFO, log, sizeof log);
    if (strstr(log, "MPEG decoder") || strstr(log, "mpg123"))
        snprintf(why, why_len, "it begins as MP3 (MPEG audio) would, but the decoder finds no "
                 "audio frame in it: the file is corrupt, cut short, or not MP3");
    else
        snprintf(why, why_len, "%s", sf_strerror(NULL));
}

SNDFILE *source_open(int fd, int close_fd, SF_INFO *info, source_how *how, char *why,
                     size_t why_len)
{
    struct stat sb;
    unsigned char head[HEAD_BYTES];
    const off_t base = lseek(fd, 0, SEEK_CUR);
    SNDFILE *sf, *endless_sf;
    int n, keep;

    memset(how, 0, sizeof *how);
    memset(info, 0, sizeof *info);
    why[0] = '\0';
    if (fstat(fd, &sb) == 0 && S_ISFIFO(sb.st_mode) && (n = peek_pipe(fd, head)) >= 0 &&
        !streams(head, n)) {
        int copy = spool(fd, how, why, why_len);
        if (close_fd)
            close(fd);
        if (copy < 0)
            return NULL;
        fd = copy;
        close_fd = 1;
    }
    /* libsndfile closes fd with sf (when close_fd), and on failure */
    sf = sf_open_fd(fd, SFM_READ, info, close_fd);
    if (!sf) {
        open_failed(why, why_len);
        return NULL;
    }
    if ((info->format & SF_FORMAT_TYPEMASK) != SF_FORMAT_MPEG || !info->seekable || base < 0 ||
        how->spooled)
        return sf;
    keep = close_fd ? dup(fd) : fd;
    endless_sf = keep < 0 ? NULL : reopen_endless(sf, keep, close_fd, base, info);
    if (!endless_sf) {
        snprintf(why, why_len, "cannot open it again to read it to its end: %s",
                 keep < 0 ? strerror(errno) : "libsndfile refused");
        if (close_fd && keep >= 0)
            close(keep);
        sf_close(sf);
        return NULL;
    }
    /* with a Xing/LAME header mpg123 still knows the length, exactly */
    how->to_the_end = !info->seekable;
    return endless_sf;
}
