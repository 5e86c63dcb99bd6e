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
#include <pthread.h>
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
/* A temporary file younger than this is never taken for a stale one: its
 * writer may not have locked it yet (it does so microseconds after creating
 * it, but a stopped or swapped-out process takes longer). */
#define STALE_AFTER_S 60
#define MAX_LINK_HOPS 40

/* ---- the signal handler's list of temporary files ----------------------------
 * A slot is claimed, filled, then made live; the handler unlinks live ones
 * only (unlink is async-signal-safe). Signals are blocked from creating a
 * file to making its slot live, so none is created unlisted. */
#define MAX_OPEN 16
enum { SLOT_FREE, SLOT_CLAIMED, SLOT_LIVE };
static char open_tmp[MAX_OPEN][OUTPUT_PATH_LEN];
static atomic_int open_state[MAX_OPEN];

static const int caught[] = {SIGINT,  SIGTERM, SIGHUP,  SIGPIPE, SIGQUIT,
                             SIGXCPU, SIGALRM, SIGUSR1, SIGUSR2};
#define NCAUGHT (sizeof caught / sizeof caught[0])

static void on_signal(int sig)
{
    for (int i = 0; i < MAX_OPEN; i++)
        if (atomic_load(&open_state[i]) == SLOT_LIVE)
            unlink(open_tmp[i]);
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

static void block_caught(sigset_t *old)
{
    sigset_t set;
    sigemptyset(&set);
    for (size_t i = 0; i < NCAUGHT; i++)
        sigaddset(&set, caught[i]);
    pthread_sigmask(SIG_BLOCK, &set, old);
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

/* path as an absolute name with its directory's symlinks resolved, for
 * telling whether two names that do not exist yet are one. */
static void canonical(const char *path, char *out)
{
    char target[OUTPUT_PATH_LEN], dir[OUTPUT_PATH_LEN];
    const char *slash, *base;
    if (follow_links(path, target) != 0)
        snprintf(target, sizeof target, "%s", path);
    slash = strrchr(target, '/');
    base = slash ? slash + 1 : target;
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - target) + 1 : 2,
             slash ? target : "./");
    char *real = realpath(dir, NULL);
    if (!real || snprintf(out, OUTPUT_PATH_LEN, "%s/%s", real, base) >= OUTPUT_PATH_LEN)
        snprintf(out, OUTPUT_PATH_LEN, "%s", target);
    free(real);
}

int output_same(const char *a, const char *b)
{
    struct stat sa, sb;
    char ca[OUTPUT_PATH_LEN], cb[OUTPUT_PATH_LEN];
    if (identify(a, STDOUT_FILENO, &sa) == 0 && identify(b, STDOUT_FILENO, &sb) == 0)
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    if (!strcmp(a, "-") || !strcmp(b, "-"))
        return 0;
    canonical(a, ca);
    canonical(b, cb);
    return !strcmp(ca, cb);
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
    if (S_ISBLK(out.st_mode) || S_ISSOCK(out.st_mode))
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

/* Removes temporary files of this OUTPUT's name that no process holds (their
 * writer died without cleaning up), if old enough and ours. */
static void remove_stale(const char *dir, const char *base, const char *own)
{
    const time_t now = time(NULL);
    DIR *d = opendir(dir[0] ? dir : ".");
    struct dirent *e;
    if (!d)
        return;
    while ((e = readdir(d))) {
        const char *name = e->d_name;
        struct stat before, held;
        int fd;
        if (!output_is_temporary(name, base) || !strcmp(name, own))
            continue;
        if (fstatat(dirfd(d), name, &before, AT_SYMLINK_NOFOLLOW) != 0 ||
            !S_ISREG(before.st_mode) || before.st_uid != geteuid() ||
            now - before.st_mtime < STALE_AFTER_S)
            continue;
        fd = openat(dirfd(d), name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0)
            continue;
        if (flock(fd, LOCK_EX | LOCK_NB) == 0 && fstat(fd, &held) == 0 &&
            held.st_dev == before.st_dev && held.st_ino == before.st_ino)
            unlinkat(dirfd(d), name, 0);
        close(fd);
    }
    closedir(d);
}

/* Creates of->tmp exclusively, its last TMP_RANDOM letters made up, with
 * mode as open() applies the umask to it (mkstemp's 0600 would need the
 * umask read, which only changing it can do). An fd, or -1 with errno set. */
static int create_tmp(char *tmp, mode_t mode)
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
        int fd;
        for (size_t i = len - rlen; i < len; i++) {
            x ^= x << 13; /* xorshift64: names that differ run to run */
            x ^= x >> 7;
            x ^= x << 17;
            tmp[i] = letters[x % (sizeof letters - 1)];
        }
        fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
        if (fd >= 0 || errno != EEXIST)
            return fd;
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
    sigset_t old;
    int err;

    snprintf(dir, sizeof dir, "%.*s", dirlen, of->target);
    tmp_prefix(base, prefix);
    if (snprintf(of->tmp, sizeof of->tmp, "%s%s%s", dir, prefix, TMP_RANDOM) >=
        (int)sizeof of->tmp) {
        of->tmp[0] = '\0';
        return cli_error("%s path '%s' is too long", of->what, of->path);
    }
    if (existing && read_only(of->target, existing)) {
        of->tmp[0] = '\0';
        return refuse_read_only(of->what, of->path);
    }
    block_caught(&old);
    of->slot = claim_slot();
    of->fd = create_tmp(of->tmp, mode);
    err = errno;
    if (of->fd >= 0) {
        /* held until closed: a lock no process holds marks a stale file */
        flock(of->fd, LOCK_EX | LOCK_NB);
        if (of->slot >= 0) {
            memcpy(open_tmp[of->slot], of->tmp, sizeof of->tmp);
            atomic_store(&open_state[of->slot], SLOT_LIVE);
        }
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (of->fd < 0) {
        of->tmp[0] = '\0';
        forget(of);
        return cli_error("cannot write in %s's directory '%.*s': %s", of->what,
                         dirlen > 1 ? dirlen - 1 : 1, dirlen ? of->target : ".", strerror(err));
    }
    if (existing)
        fchmod(of->fd, mode); /* exactly, whatever the umask */
    remove_stale(dir, base, of->tmp + strlen(dir));
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
    int fd, rc = 0;
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - of->target) + 1 : 1,
             slash ? of->target : ".");
    fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return cli_error("cannot sync %s's directory '%s': %s", of->what, dir,
                         strerror(errno));
    /* some file systems cannot sync a directory; nothing more can be done there */
    if (fsync(fd) != 0 && errno != EINVAL && errno != ENOTSUP)
        rc = cli_error("cannot sync %s's directory '%s': %s", of->what, dir, strerror(errno));
    close(fd);
    return rc;
}

int output_commit(output_file *of)
{
    if (of->stream) {
        /* a file behind standard output; pipes and devices cannot sync */
        if (fsync(of->fd) != 0 && errno != EINVAL && errno != EROFS)
            return cli_error("cannot write %s '%s': %s", of->what, of->path, strerror(errno));
        return 0;
    }
    /* on disk before the rename, so a crash cannot leave OUTPUT empty */
    if (fsync(of->fd) != 0)
        return cli_error("cannot write %s '%s': %s", of->what, of->path, strerror(errno));
    if (rename(of->tmp, of->target) != 0)
        return cli_error("cannot rename the finished output to '%s': %s", of->target,
                         strerror(errno));
    of->tmp[0] = '\0';
    forget(of);
    return sync_dir(of);
}

void output_end(output_file *of)
{
    if (of->fd >= 0)
        close(of->fd);
    of->fd = -1;
    if (of->tmp[0])
        unlink(of->tmp);
    of->tmp[0] = '\0';
    forget(of);
}
