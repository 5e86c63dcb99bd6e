/*
 * output.h - OUTPUT appears whole or not at all: it is written to a temporary
 * file beside it, synced and renamed over it only on success; a failure, or
 * a signal that ends the process, removes the temporary file.
 */
#ifndef GFIR_CLI_OUTPUT_H
#define GFIR_CLI_OUTPUT_H

#define OUTPUT_PATH_LEN 4096

typedef struct output_file {
    const char *path;               /* OUTPUT as given */
    char tmp[OUTPUT_PATH_LEN];      /* the temporary file; "" when none */
    int fd;                         /* open on tmp, or -1 */
    int slot;                       /* its place in the signal handler's list */
} output_file;

/* OUTPUT must not be INPUT (input may be NULL) nor a directory. */
int output_check(const char *input, const char *output);

/* Removes temporary files when SIGINT, SIGTERM, SIGHUP or SIGPIPE ends the
 * process, then lets the signal end it as it would have. */
void output_catch_signals(void);

/* Creates the temporary file beside path, with the permissions OUTPUT has (or
 * would get). One line and 1 on failure. */
int output_begin(output_file *of, const char *path);
/* Syncs the temporary file and renames it to OUTPUT. The caller has closed
 * whatever wrote through fd (fd itself stays open until output_end). */
int output_commit(output_file *of);
/* Closes fd and removes the temporary file unless it was committed. */
void output_end(output_file *of);
/* Whether name, an entry of OUTPUT's directory, is a temporary file that
 * output_begin made for an OUTPUT named base (its last component). */
int output_is_temporary(const char *name, const char *base);

#endif
