/*
 * dirs.h - directories for outputs and receipts: a corpus's outputs mirror
 * its inputs' tree, so each job's directory is made as it is needed.
 */
#ifndef GFIR_CLI_BATCH_DIRS_H
#define GFIR_CLI_BATCH_DIRS_H

/* Makes dir and its parents as needed. 0, or 1 after one line ("cannot make
 * WHAT '...': why"). */
int dirs_make(const char *dir, const char *what);
/* The directory path is in ("." when it names none), or NULL without memory. */
char *dirs_parent(const char *path);

#endif
