/*
 * output.h - where gfir writes: OUTPUT (and --response's plot) appears whole
 * or not at all, and what cannot be replaced is written straight through.
 *
 * A regular file, or a name that does not exist yet, is written to a
 * temporary file beside it, synced, renamed over it only on success, and its
 * directory synced. A symlink is followed: the temporary file goes beside the
 * link's target and the link stays. An existing file keeps its permissions,
 * less setuid and setgid; a read-only one is refused.
 *
 * "-" (standard output: a pipe, a socket, a file, a terminal), a FIFO, a
 * terminal or another character device is written straight through, as the
 * data comes: no temporary file, and a failure leaves what was written so far.
 *
 * Temporary files are named .BASE.gfir-XXXXXX (BASE cut short where the name
 * would be too long) and locked from before their first byte until closed,
 * so one left by a run that could not clean up (SIGKILL, a power cut) is told
 * from one in use whatever its age, and removed by the next run that writes
 * the same OUTPUT (or by `gfir batch` as it starts a shard). The temporary
 * file is made, renamed and removed through the directory opened when it was
 * made (openat, renameat, unlinkat on its descriptor), so OUTPUT's directory
 * moved or swapped mid-run cannot strand it: it ends in the directory it was
 * made in, renamed or removed.
 */
#ifndef GFIR_CLI_OUTPUT_H
#define GFIR_CLI_OUTPUT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#define OUTPUT_PATH_LEN 4096

typedef struct output_file {
    const char *what;               /* its name in messages: "OUTPUT", "--response" */
    const char *path;               /* as given; "-" is standard output */
    char target[OUTPUT_PATH_LEN];   /* the file replaced: path with symlinks followed */
    char tmp[OUTPUT_PATH_LEN];      /* the temporary file's name in dir_fd; "" when none */
    int dir_fd;                     /* open on the directory it was made in, or -1 */
    int fd;                         /* open on tmp or on the special file, or -1 */
    int slot;                       /* its place in the signal handler's list */
    int stream;                     /* written straight through, no temporary file */
    int seekable;                   /* fd can seek back (a header can be rewritten) */
    uint64_t bytes;                 /* once committed (not a stream): the file's size */
    int64_t mtime_ns;               /* and modification time, as written, since the epoch */
} output_file;

/* An output_file before output_begin, safe to pass to output_end. */
#define OUTPUT_FILE_INIT {.what = "OUTPUT", .fd = -1, .dir_fd = -1, .slot = -1}

/* OUTPUT must not be INPUT (input may be NULL, or "-" for standard input),
 * nor a directory, a block device, a socket or a read-only file. One line and
 * 1 when it is. */
int output_check(const char *input, const char *output);
/* The same, naming the output `what` (e.g. "--response") in its message. */
int output_check_named(const char *what, const char *input, const char *output);

/* Whether two outputs would write the same file (or both standard output). */
int output_same(const char *a, const char *b);
/* path as an absolute name: symlinks followed to the name they end at, the
 * longest part of that which exists resolved (realpath), the rest applied as
 * written. Names of one file agree even before it exists: "out/x.wav",
 * "./out/x.wav", "out/../out/x.wav". */
void output_canonical(const char *path, char out[OUTPUT_PATH_LEN]);
/* What path ("-": standard output) names, as text that is the same for every
 * name of one file: its device and inode where it exists (symlinks
 * followed; 1 is returned, with its status in *sb unless sb is NULL), else
 * its canonical name (0). */
int output_identity(const char *path, char key[OUTPUT_PATH_LEN], struct stat *sb);
/* Whether path is dir itself, or something in it or below it; both are
 * canonical (output_canonical). */
int output_within(const char *path, const char *dir);

/* Removes temporary files when a signal ends the process (SIGINT, SIGTERM,
 * SIGHUP, SIGPIPE, SIGQUIT, SIGXCPU, SIGALRM, SIGUSR1, SIGUSR2), then lets the
 * signal end it as it would have. A signal ignored when gfir started stays
 * ignored (nohup). SIGXFSZ is ignored, so a write past `ulimit -f` fails
 * with "File too large" and the run ends as any failed write does. */
void output_catch_signals(void);

/* Opens what path names for writing: the temporary file beside it, or the
 * special file itself. One line and 1 on failure. */
int output_begin(output_file *of, const char *path);
/* The same, naming the output `what` in messages. */
int output_begin_named(output_file *of, const char *what, const char *path);
/* Makes the output final: syncs the temporary file, renames it over OUTPUT
 * and syncs the directory. The caller has closed whatever wrote through fd
 * (fd itself stays open until output_end). */
int output_commit(output_file *of);
/* Closes fd and removes the temporary file unless it was committed. */
void output_end(output_file *of);
/* Whether name, an entry of OUTPUT's directory, is a temporary file that
 * output_begin made for an OUTPUT named base (its last component). */
int output_is_temporary(const char *name, const char *base);
/* Whether name is a temporary file output_begin made, for any OUTPUT. */
int output_is_any_temporary(const char *name);
/* Removes name, a temporary file in the directory open as dirfd, if its
 * writer is gone: a regular file of this user's that no process holds
 * locked, whatever its age. Only an empty one is kept for its first minute:
 * a writer locks its file just after creating it and before writing a byte,
 * so an empty unlocked file may be one in those microseconds. 1 when it was
 * removed. */
int output_remove_stale(int dirfd, const char *name);

/* Writes all of buf to fd, through EINTR and short writes: 0, or -1 with
 * errno set. */
int output_write_all(int fd, const void *buf, size_t len);

#endif
