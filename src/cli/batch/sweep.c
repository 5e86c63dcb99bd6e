/*
 * sweep.c - a killed run's temporary outputs, removed (sweep.h).
 */
#include "batch/sweep.h"
#include "batch/dirs.h"
#include "file/output.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

/* ".BASE" + ".gfir-" + six letters: what output_begin adds around BASE */
#define TMP_EXTRA 13

typedef struct entry {
    char *dir;
    const char *base;
} entry;

static int by_place(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    int c = strcmp(x->dir, y->dir);
    return c ? c : strcmp(x->base, y->base);
}

static int by_base(const void *key, const void *e)
{
    return strcmp(key, ((const entry *)e)->base);
}

/* Removes the stale temporary files in dir of outputs named in e[0..n). */
static size_t sweep_dir(const entry *e, size_t n)
{
    DIR *d = opendir(e[0].dir);
    struct dirent *de;
    size_t removed = 0;
    char base[256];
    if (!d)
        return 0;
    while ((de = readdir(d))) {
        size_t len = strlen(de->d_name);
        const entry *hit;
        if (de->d_name[0] != '.' || len <= TMP_EXTRA || len - TMP_EXTRA >= sizeof base)
            continue;
        memcpy(base, de->d_name + 1, len - TMP_EXTRA);
        base[len - TMP_EXTRA] = '\0';
        hit = bsearch(base, e, n, sizeof *e, by_base);
        if (hit && output_is_temporary(de->d_name, hit->base))
            removed += (size_t)output_remove_stale(dirfd(d), de->d_name);
    }
    closedir(d);
    return removed;
}

size_t sweep_temporaries(const manifest_job *jobs, const size_t *todo, size_t ntodo)
{
    entry *e = calloc(ntodo ? ntodo : 1, sizeof *e);
    size_t n = 0, removed = 0;
    if (!e)
        return 0;
    for (size_t i = 0; i < ntodo; i++) {
        const char *out = jobs[todo[i]].output, *slash = strrchr(out, '/');
        e[n].base = slash ? slash + 1 : out;
        e[n].dir = dirs_parent(out);
        if (e[n].dir && e[n].base[0])
            n++;
        else
            free(e[n].dir);
    }
    qsort(e, n, sizeof *e, by_place);
    for (size_t i = 0, j; i < n; i = j) {
        for (j = i + 1; j < n && !strcmp(e[j].dir, e[i].dir);)
            j++;
        removed += sweep_dir(e + i, j - i);
    }
    for (size_t i = 0; i < n; i++)
        free(e[i].dir);
    free(e);
    return removed;
}
