/*
 * sweep.c - a killed run's temporary outputs, removed (sweep.h).
 */
#include "batch/sweep.h"
#include "batch/dirs.h"
#include "file/output.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Removes the stale temporary files in dir, whatever OUTPUT they were for. */
static size_t sweep_dir(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    size_t removed = 0;
    if (!d)
        return 0;
    while ((de = readdir(d)))
        if (output_is_any_temporary(de->d_name))
            removed += (size_t)output_remove_stale(dirfd(d), de->d_name);
    closedir(d);
    return removed;
}

size_t sweep_temporaries(const manifest_job *jobs, size_t njobs)
{
    char **dirs = calloc(njobs ? njobs : 1, sizeof *dirs);
    size_t n = 0, removed = 0;
    if (!dirs)
        return 0;
    for (size_t i = 0; i < njobs; i++)
        if ((dirs[n] = dirs_parent(jobs[i].output)))
            n++;
    qsort(dirs, n, sizeof *dirs, by_name);
    for (size_t i = 0; i < n; i++)
        if (i == 0 || strcmp(dirs[i], dirs[i - 1]))
            removed += sweep_dir(dirs[i]);
    for (size_t i = 0; i < n; i++)
        free(dirs[i]);
    free(dirs);
    return removed;
}
