/*
 * output.c - the temporary file beside OUTPUT, its rename, special files
 * written straight through, and the signal handler that cleans up (output.h).
 */
#define _DEFAULT_SOURCE /* flock */
#include "file/output.h"
#include "message.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define TMP_SUFFIX ".gfir-"
#define TMP_RANDOM "XXXXXX"
/* An empty temporary file younger than this is never taken for a stale one:
 * its writer may not have locked it yet (it does so microseconds after
 * creating it and before writing, but a stopped or swapped-out process
 * takes longer). One with bytes in it was locked when they were written. */
#define EMPTY_STALE_AFTER_S 60
#define MAX_LINK_HOPS 40

/* ---- the signal handler's list of temporary files ----------------------------
 * A slot is claimed, filled, then made live; the handler unlinks live ones
 * only, through their directories' descriptors (unlinkat is async-signal-safe). A name goes live before the file is
 * created: any thread may take the signal (library pools, batch workers,
 * other jobs' pipelines), so blocking it in the creating thread alone would
 * leave a window in which a file exists that no handler knows. */
#define MAX_OPEN 16
enum { SLOT_FREE, SLOT_CLAIMED, SLOT_LIVE };
static char open_tmp[MAX_OPEN][OUTPUT_PATH_LEN];
static int open_dir[MAX_OPEN];
static atomic_int open_state[MAX_OPEN];

static const int caught[] = {SIGINT,  SIGTERM, SIGHUP,  SIGPIPE, SIGQUIT,
                             SIGXCPU, SIGALRM, SIGUSR1, SIGUSR2};
#define NCAUGHT (sizeof caught / sizeof caught[0])

static void on_signal(int sig)
{
    for (int i = 0; i < MAX_OPEN; i++)
        if (atomic_load(&open_state[i]) == SLOT_LIVE)
            unlinkat(open_dir[i], open_tmp[i], 0);
    signal(sig, SIG_DFL);
    raise(sig);
}

void output_catch_signals(void)
{
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < NCAUGHT; i++)
        sigaddset(&sa.sa_mask, caught[i]);
    for (size_t i = 0; i < NCAUGHT; i++) {
        /* what the caller ignores (nohup: SIGHUP) stays ignored */
        if (sigaction(caught[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
            continue;
        sigaction(caught[i], &sa, NULL);
    }
    signal(SIGXFSZ, SIG_IGN);
}

static int claim_slot(void)
{
    for (int i = 0; i < MAX_OPEN; i++) {
        int expected = SLOT_FREE;
        if (atomic_compare_exchange_strong(&open_state[i], &expected, SLOT_CLAIMED))
            return i;
    }
    return -1;
}

static void forget(output_file *of)
{
    if (of->slot >= 0) {
        atomic_store(&open_state[of->slot], SLOT_CLAIMED);
        open_tmp[of->slot][0] = '\0';
        atomic_store(&open_state[of->slot], SLOT_FREE);
        of->slot = -1;
    }
}

/* ---- what a path names ---------------------------------------------------------- */

/* The identity of an INPUT or OUTPUT ("-": the standard stream); 0 or -1. */
static int identify(const char *path, int std_fd, struct stat *sb)
{
    return !strcmp(path, "-") ? fstat(std_fd, sb) : stat(path, sb);
}

/* Follows symlinks from path to the name they end at, which need not exist:
 * a dangling link names the file to create. 0, or an errno value. */
static int follow_links(const char *path, char *out)
{
    char cur[OUTPUT_PATH_LEN], link[OUTPUT_PATH_LEN], next[OUTPUT_PATH_LEN];
    struct stat sb;
    if (snprintf(cur, sizeof cur, "%s", path) >= (int)sizeof cur)
        return ENAMETOOLONG;
    for (int hops = 0; hops < MAX_LINK_HOPS; hops++) {
        if (lstat(cur, &sb) != 0 || !S_ISLNK(sb.st_mode)) {
            memcpy(out, cur, sizeof cur);
            return 0;
        }
        ssize_t n = readlink(cur, link, sizeof link - 1);
        if (n < 0)
            return errno;
        link[n] = '\0';
        const char *slash = strrchr(cur, '/');
        int dirlen = link[0] != '/' && slash ? (int)(slash - cur) + 1 : 0;
        if (snprintf(next, sizeof next, "%.*s%s", dirlen, cur, link) >= (int)sizeof next)
            return ENAMETOOLONG;
        memcpy(cur, next, sizeof cur);
    }
    return ELOOP;
}

/* Appends name's components to out, an absolute name without symlinks:
 * "." is dropped and ".." takes one back, which is right for names that do
 * not exist (none of them is a symlink). */
static void append_lexically(char *out, const char *name)
{
    size_t len = strlen(out);
    while (*name) {
        const size_t n = strcspn(name, "/");
        if (n == 2 && !strncmp(name, "..", 2)) {
            while (len > 1 && out[len - 1] != '/')
                len--;
            len = len > 1 ? len - 1 : 1;
            out[len] = '\0';
        } else if (n > 0 && !(n == 1 && name[0] == '.') &&
                   len + (len > 1) + n < OUTPUT_PATH_LEN) {
            if (len > 1)
                out[len++] = '/';
            memcpy(out + len, name, n);
            len += n;
            out[len] = '\0';
        }
        name += n + (name[n] == '/');
    }
}

void output_canonical(const char *path, char out[OUTPUT_PATH_LEN])
{
    char target[OUTPUT_PATH_LEN], rest[OUTPUT_PATH_LEN] = "", joined[OUTPUT_PATH_LEN];
    char *real;
    if (follow_links(path, target) != 0)
        snprintf(target, sizeof target, "%s", path);
    while (!(real = realpath(target[0] ? target : ".", NULL))) {
        char *slash = strrchr(target, '/');
        /* nothing resolves (the current directory is gone): as given */
        if (!target[0] || !strcmp(target, "/") ||
            snprintf(joined, sizeof joined, "%s%s%s", slash ? slash + 1 : target,
                     rest[0] ? "/" : "", rest) >= (int)sizeof joined) {
            snprintf(out, OUTPUT_PATH_LEN, "%s", path);
            return;
        }
        memcpy(rest, joined, sizeof rest);
        if (!slash)
            target[0] = '\0';
        else
            slash[slash == target] = '\0';
    }
    snprintf(out, OUTPUT_PATH_LEN, "%s", real);
    free(real);
    append_lexically(out, rest);
}

int output_identity(const char *path, char key[OUTPUT_PATH_LEN], struct stat *sb)
{
    struct stat own;
    sb = sb ? sb : &own;
    if (identify(path, STDOUT_FILENO, sb) == 0) {
        /* a name is absolute: never taken for a device and inode */
        snprintf(key, OUTPUT_PATH_LEN, ":%llx:%llx", (unsigned long long)sb->st_dev,
                 (unsigned long long)sb->st_ino);
        return 1;
    }
    output_canonical(path, key);
    return 0;
}

int output_within(const char *path, const char *dir)
{
    const size_t n = strlen(dir);
    return !strncmp(path, dir, n) && (path[n] == '/' || path[n] == '\0' || !strcmp(dir, "/"));
}

int output_same(const char *a, const char *b)
{
    char ka[OUTPUT_PATH_LEN], kb[OUTPUT_PATH_LEN];
    if (!strcmp(a, "-") != !strcmp(b, "-")) {
        /* standard output is another name only of a file that exists */
        struct stat sa, sb;
        return identify(a, STDOUT_FILENO, &sa) == 0 && identify(b, STDOUT_FILENO, &sb) == 0 &&
               sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    }
    output_identity(a, ka, NULL);
    output_identity(b, kb, NULL);
    return !strcmp(ka, kb);
}

static int read_only(const char *path, const struct stat *sb)
{
    return !(sb->st_mode & 0222) || access(path, W_OK) != 0;
}

static int refuse_read_only(const char *what, const char *path)
{
    return cli_error("%s '%s' is read-only; gfir does not replace it (make it writable or "
                     "remove it first)", what, path);
}

int output_check_named(const char *what, const char *input, const char *output)
{
    struct stat in, out;
    if (identify(output, STDOUT_FILENO, &out) != 0)
        return 0; /* a new file: output_begin says what goes wrong, if anything */
    if (input && identify(input, STDIN_FILENO, &in) == 0 && in.st_dev == out.st_dev &&
        in.st_ino == out.st_ino)
        return cli_error("%s '%s' is the same file as INPUT '%s'; gfir never overwrites its "
                         "input", what, output, input);
    if (S_ISDIR(out.st_mode))
        return cli_error("%s '%s' is a directory", what, output);
    /* standard output may be a socket (a child of Node or libuv, inetd,
     * socket activation): written straight through, as a pipe is */
    if (S_ISBLK(out.st_mode) || (S_ISSOCK(out.st_mode) && strcmp(output, "-")))
        return cli_error("%s '%s' is a %s; gfir writes files, pipes, FIFOs and character "
                         "devices", what, output, S_ISBLK(out.st_mode) ? "block device" : "socket");
    if (S_ISREG(out.st_mode) && strcmp(output, "-") && read_only(output, &out))
        return refuse_read_only(what, output);
    return 0;
}

int output_check(const char *input, const char *output)
{
    return output_check_named("OUTPUT", input, output);
}

/* ---- special files: straight through --------------------------------------------- */

static int begin_stream(output_file *of, int fd)
{
    off_t at = lseek(fd, 0, SEEK_CUR);
    int flags = fcntl(fd, F_GETFL);
    of->fd = fd;
    of->stream = 1;
    /* libsndfile rewrites a header at offset 0 when it can seek: only where
     * the file starts at our first byte and is not appended to */
    of->seekable = at == 0 && flags >= 0 && !(flags & O_APPEND);
    return 0;
}

static int open_special(output_file *of, const char *path, const struct stat *sb)
{
    int fd;
    if (!S_ISFIFO(sb->st_mode) && !S_ISCHR(sb->st_mode))
        return output_check_named(of->what, NULL, path) ? 1
               : cli_error("cannot write %s '%s': not a file, FIFO or character device",
                           of->what, path);
    /* a FIFO waits here for its reader, as any writer of one does */
    fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return cli_error("cannot write %s '%s': %s", of->what, path, strerror(errno));
    return begin_stream(of, fd);
}

/* ---- regular files: a temporary file, renamed ---------------------------------------- */

/* ".BASE.gfir-": what a temporary file's name starts with, BASE cut short
 * where the whole name would pass NAME_MAX. */
static void tmp_prefix(const char *base, char prefix[NAME_MAX + 1])
{
    const int room = NAME_MAX - 1 - (int)(strlen(TMP_SUFFIX) + strlen(TMP_RANDOM));
    const int keep = (int)strlen(base) < room ? (int)strlen(base) : room;
    snprintf(prefix, NAME_MAX + 1, ".%.*s%s", keep, base, TMP_SUFFIX);
}

int output_is_temporary(const char *name, const char *base)
{
    char prefix[NAME_MAX + 1];
    const size_t rlen = strlen(TMP_RANDOM);
    size_t plen;
    tmp_prefix(base, prefix);
    plen = strlen(prefix);
    if (strncmp(name, prefix, plen) || strlen(name) != plen + rlen)
        return 0;
    for (size_t i = plen; i < plen + rlen; i++)
        if (!((name[i] >= '0' && name[i] <= '9') || (name[i] >= 'a' && name[i] <= 'z') ||
              (name[i] >= 'A' && name[i] <= 'Z')))
            return 0;
    return 1;
}

int output_is_any_temporary(const char *name)
{
    const size_t len = strlen(name), extra = strlen(TMP_SUFFIX) + strlen(TMP_RANDOM);
    char base[NAME_MAX + 1];
    if (name[0] != '.' || len < extra + 2 || len - extra - 1 > NAME_MAX)
        return 0;
    memcpy(base, name + 1, len - extra - 1);
    base[len - extra - 1] = '\0';
    return output_is_temporary(name, base);
}

int output_remove_stale(int dirfd, const char *name)
{
    const time_t now = time(NULL);
    struct stat before, held;
    int fd, removed = 0;
    if (fstatat(dirfd, name, &before, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(before.st_mode) ||
        before.st_uid != geteuid() ||
        (before.st_size == 0 && now - before.st_mtime < EMPTY_STALE_AFTER_S))
        return 0;
    fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return 0;
    /* the same file still: not one that replaced it after the fstatat */
    if (flock(fd, LOCK_EX | LOCK_NB) == 0 && fstat(fd, &held) == 0 &&
        held.st_dev == before.st_dev && held.st_ino == before.st_ino)
        removed = unlinkat(dirfd, name, 0) == 0;
    close(fd);
    return removed;
}

/* Removes temporary files of this OUTPUT's name that their writers left. */
static void remove_stale(int dir_fd, const char *base, const char *own)
{
    const int fd = openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    struct dirent *e;
    if (!d) {
        if (fd >= 0)
            close(fd);
        return;
    }
    while ((e = readdir(d)))
        if (output_is_temporary(e->d_name, base) && strcmp(e->d_name, own))
            output_remove_stale(dirfd(d), e->d_name);
    closedir(d);
}

/* Creates tmp exclusively, its last TMP_RANDOM letters made up, with mode
 * as open() applies the umask to it (mkstemp's 0600 would need the umask
 * read, which only changing it can do). Each name tried is live in slot (if
 * any, >= 0) from before it may exist, so a signal taken by any thread
 * removes it; one that turns out to be another writer's (one chance in 62^6
 * per file beside it) is live only until open says so. An fd, or -1 with
 * errno set. */
static int create_tmp(int dir_fd, char *tmp, mode_t mode, int slot)
{
    static const char letters[] =
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    static atomic_uint calls;
    const size_t len = strlen(tmp), rlen = strlen(TMP_RANDOM);
    struct timespec ts;
    uint64_t x;
    clock_gettime(CLOCK_REALTIME, &ts);
    x = ((uint64_t)ts.tv_nsec << 20) ^ (uint64_t)ts.tv_sec ^ ((uint64_t)getpid() << 40) ^
        ((uint64_t)atomic_fetch_add(&calls, 1) << 52) ^ (uint64_t)(uintptr_t)tmp;
    for (int attempt = 0; attempt < 100; attempt++) {
        int fd, err;
        for (size_t i = len - rlen; i < len; i++) {
            x ^= x << 13; /* xorshift64: names that differ run to run */
            x ^= x >> 7;
            x ^= x << 17;
            tmp[i] = letters[x % (sizeof letters - 1)];
        }
        if (slot >= 0) {
            memcpy(open_tmp[slot], tmp, len + 1);
            open_dir[slot] = dir_fd;
            atomic_store(&open_state[slot], SLOT_LIVE);
        }
        fd = openat(dir_fd, tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
        if (fd >= 0)
            return fd;
        /* not ours: out of the list before the next name (or the failure) */
        err = errno;
        if (slot >= 0)
            atomic_store(&open_state[slot], SLOT_CLAIMED);
        errno = err;
        if (err != EEXIST)
            return -1;
    }
    errno = EEXIST;
    return -1;
}

/* The temporary file beside of->target; existing: OUTPUT's status, or NULL. */
static int begin_tmp(output_file *of, const struct stat *existing)
{
    const char *slash = strrchr(of->target, '/');
    const char *base = slash ? slash + 1 : of->target;
    const int dirlen = slash ? (int)(slash - of->target) + 1 : 0;
    /* an existing file keeps its permissions, never setuid or setgid */
    const mode_t mode = existing ? existing->st_mode & 01777 : 0666;
    char dir[OUTPUT_PATH_LEN], prefix[NAME_MAX + 1];
    int err;

    snprintf(dir, sizeof dir, "%.*s", dirlen, of->target);
    tmp_prefix(base, prefix);
    snprintf(of->tmp, sizeof of->tmp, "%s%s", prefix, TMP_RANDOM);
    if (existing && read_only(of->target, existing)) {
        of->tmp[0] = '\0';
        return refuse_read_only(of->what, of->path);
    }
    /* everything after this goes through the directory, wherever it is moved */
    of->dir_fd = open(dir[0] ? dir : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (of->dir_fd < 0) {
        err = errno;
        of->tmp[0] = '\0';
        return cli_error("cannot write in %s's directory '%.*s': %s", of->what,
                         dirlen > 1 ? dirlen - 1 : 1, dirlen ? of->target : ".", strerror(err));
    }
    of->slot = claim_slot();
    of->fd = create_tmp(of->dir_fd, of->tmp, mode, of->slot);
    err = errno;
    /* held until closed: a lock no process holds marks a stale file */
    if (of->fd >= 0)
        flock(of->fd, LOCK_EX | LOCK_NB);
    if (of->fd < 0) {
        of->tmp[0] = '\0';
        forget(of);
        return cli_error("cannot write in %s's directory '%.*s': %s", of->what,
                         dirlen > 1 ? dirlen - 1 : 1, dirlen ? of->target : ".", strerror(err));
    }
    if (existing)
        fchmod(of->fd, mode); /* exactly, whatever the umask */
    remove_stale(of->dir_fd, base, of->tmp);
    of->seekable = 1;
    return 0;
}

int output_begin(output_file *of, const char *path)
{
    return output_begin_named(of, "OUTPUT", path);
}

int output_begin_named(output_file *of, const char *what, const char *path)
{
    struct stat sb, target;
    int exists, err;

    memset(of, 0, sizeof *of);
    of->what = what;
    of->path = path;
    of->fd = -1;
    of->dir_fd = -1;
    of->slot = -1;
    if (!strcmp(path, "-")) {
        int fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
        if (fd < 0)
            return cli_error("cannot write to standard output: %s", strerror(errno));
        return begin_stream(of, fd);
    }
    exists = stat(path, &sb) == 0;
    if (!exists && errno != ENOENT)
        return cli_error("cannot write %s '%s': %s", of->what, path, strerror(errno));
    if (exists && !S_ISREG(sb.st_mode))
        return open_special(of, path, &sb);
    err = follow_links(path, of->target);
    if (err)
        return cli_error("cannot write %s '%s': %s", of->what, path, strerror(err));
    /* a name the links do not lead back to (a /proc link to a deleted file) */
    if (exists && (stat(of->target, &target) != 0 || target.st_dev != sb.st_dev ||
                   target.st_ino != sb.st_ino))
        return cli_error("cannot write %s '%s': cannot tell which file it names", of->what,
                         path);
    return begin_tmp(of, exists ? &sb : NULL);
}

/* The rename is on disk only once the directory is. */
static int sync_dir(const output_file *of)
{
    const char *slash = strrchr(of->target, '/');
    char dir[OUTPUT_PATH_LEN];
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - of->target) + 1 : 1,
             slash ? of->target : ".");
    /* some file systems cannot sync a directory; nothing more can be done there */
    if (fsync(of->dir_fd) != 0 && errno != EINVAL && errno != ENOTSUP)
        return cli_error("cannot sync %s's directory '%s': %s", of->what, dir, strerror(errno));
    return 0;
}

int output_commit(output_file *of)
{
    struct stat sb;
    if (of->stream) {
        /* a file behind standard output; pipes and devices cannot sync */
        if (fsync(of->fd) != 0 && errno != EINVAL && errno != EROFS)
            return cli_error("cannot write %s '%s': %s", of->what, of->path, strerror(errno));
        return 0;
    }
    /* on disk before the rename, so a crash cannot leave OUTPUT empty */
    if (fsync(of->fd) != 0 || fstat(of->fd, &sb) != 0)
        return cli_error("cannot write %s '%s': %s", of->what, of->path, strerror(errno));
    of->bytes = (uint64_t)sb.st_size;
    of->mtime_ns = (int64_t)sb.st_mtim.tv_sec * 1000000000 + sb.st_mtim.tv_nsec;
    const char *slash = strrchr(of->target, '/');
    if (renameat(of->dir_fd, of->tmp, of->dir_fd, slash ? slash + 1 : of->target) != 0)
        return cli_error("cannot rename the finished output to '%s': %s", of->target,
                         strerror(errno));
    of->tmp[0] = '\0';
    forget(of);
    return sync_dir(of);
}

void output_end(output_file *of)
{
    if (of->tmp[0])
        unlinkat(of->dir_fd, of->tmp, 0);
    of->tmp[0] = '\0';
    forget(of);
    /* closed after the name is gone: an unlocked file with bytes is stale */
    if (of->fd >= 0)
        close(of->fd);
    of->fd = -1;
    if (of->dir_fd >= 0)
        close(of->dir_fd);
    of->dir_fd = -1;
}

int output_write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            errno = n < 0 ? errno : EIO;
            return -1;
        }
        p += n;
        len -= (size_t)n;
    }
    return 0;
}
