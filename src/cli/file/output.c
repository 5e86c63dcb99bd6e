/*
 * output.c - the temporary file beside OUTPUT and its rename (output.h).
 */
#include "file/output.h"
#include "message.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Temporary files open now, for the signal handler (unlink is
 * async-signal-safe). A slot is claimed by setting its flag. */
#define MAX_OPEN 16
static char open_tmp[MAX_OPEN][OUTPUT_PATH_LEN];
static atomic_int open_used[MAX_OPEN];

static void on_signal(int sig)
{
    for (int i = 0; i < MAX_OPEN; i++)
        if (atomic_load(&open_used[i]) && open_tmp[i][0])
            unlink(open_tmp[i]);
    signal(sig, SIG_DFL);
    raise(sig);
}

void output_catch_signals(void)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        sigaction(sigs[i], &sa, NULL);
}

static void forget(output_file *of)
{
    if (of->slot >= 0) {
        open_tmp[of->slot][0] = '\0';
        atomic_store(&open_used[of->slot], 0);
        of->slot = -1;
    }
}

static int same_file(const char *input, const char *output)
{
    struct stat a, b;
    if (stat(output, &b) != 0)
        return 0;
    return stat(input, &a) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

int output_check(const char *input, const char *output)
{
    struct stat sb;
    if (input && same_file(input, output))
        return cli_error("OUTPUT '%s' is the same file as INPUT '%s'; gfir never overwrites "
                         "its input", output, input);
    if (stat(output, &sb) == 0 && S_ISDIR(sb.st_mode))
        return cli_error("OUTPUT '%s' is a directory", output);
    return 0;
}

int output_begin(output_file *of, const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    int dirlen = slash ? (int)(slash - path) + 1 : 0;
    struct stat sb;
    mode_t mode, mask;

    of->path = path;
    of->fd = -1;
    of->slot = -1;
    if (snprintf(of->tmp, sizeof of->tmp, "%.*s.%s.gfir-XXXXXX", dirlen, path, base) >=
        (int)sizeof of->tmp) {
        of->tmp[0] = '\0';
        return cli_error("OUTPUT path '%s' is too long", path);
    }
    for (int i = 0; i < MAX_OPEN && of->slot < 0; i++) {
        int expected = 0;
        if (atomic_compare_exchange_strong(&open_used[i], &expected, 1))
            of->slot = i;
    }
    of->fd = mkstemp(of->tmp);
    if (of->fd < 0) {
        int err = errno;
        of->tmp[0] = '\0';
        forget(of);
        return cli_error("cannot write in OUTPUT's directory '%.*s': %s",
                         dirlen > 1 ? dirlen - 1 : 1, dirlen ? path : ".", strerror(err));
    }
    if (of->slot >= 0)
        memcpy(open_tmp[of->slot], of->tmp, sizeof of->tmp);
    if (stat(path, &sb) == 0) {
        mode = sb.st_mode & 07777;
    } else {
        mask = umask(0);
        umask(mask);
        mode = 0666 & ~mask;
    }
    fchmod(of->fd, mode);
    return 0;
}

int output_commit(output_file *of)
{
    /* on disk before the rename, so a crash cannot leave OUTPUT empty */
    if (fsync(of->fd) != 0)
        return cli_error("cannot write OUTPUT '%s': %s", of->path, strerror(errno));
    if (rename(of->tmp, of->path) != 0)
        return cli_error("cannot rename the finished output to '%s': %s", of->path,
                         strerror(errno));
    of->tmp[0] = '\0';
    forget(of);
    return 0;
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

int output_is_temporary(const char *name, const char *base)
{
    static const char suffix[] = ".gfir-";
    const size_t blen = strlen(base), slen = sizeof suffix - 1;
    if (name[0] != '.' || strncmp(name + 1, base, blen) || strncmp(name + 1 + blen, suffix, slen))
        return 0;
    name += 1 + blen + slen;
    /* mkstemp's six letters and digits */
    for (int i = 0; i < 6; i++)
        if (!((name[i] >= '0' && name[i] <= '9') || (name[i] >= 'a' && name[i] <= 'z') ||
              (name[i] >= 'A' && name[i] <= 'Z')))
            return 0;
    return name[6] == '\0';
}
