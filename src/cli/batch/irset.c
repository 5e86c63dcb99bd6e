/*
 * irset.c - many impulse responses behind one `ir` value (irset.h).
 */
#define _GNU_SOURCE /* getline */
#include "batch/irset.h"
#include "batch/hash.h"
#include "message.h"

#include <dirent.h>
#include <errno.h>
#include <sndfile.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

/* Directory levels searched below the named one: room-impulse corpora nest a
 * few deep (RIRS_NOISES/simulated_rirs/smallroom/Room001/...). */
#define MAX_DEPTH 8

static const char *extension(const char *path)
{
    const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
    return dot && (!slash || dot > slash) ? dot + 1 : "";
}

int irset_is_set(const char *spec)
{
    static const char *const lists[] = {"txt", "list", "lst", "scp"};
    struct stat sb;
    if (stat(spec, &sb) == 0 && S_ISDIR(sb.st_mode))
        return 1;
    for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++)
        if (!strcasecmp(extension(spec), lists[i]))
            return 1;
    return 0;
}

/* Whether libsndfile reads files with this name's extension. */
static int sound_name(const char *name)
{
    static const char *const aliases[] = {"aif", "aifc", "ogg", "opus", "snd", "wave"};
    const char *ext = extension(name);
    SF_FORMAT_INFO fi;
    int count = 0;
    if (!ext[0])
        return 0;
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (!strcasecmp(ext, aliases[i]))
            return 1;
    sf_command(NULL, SFC_GET_FORMAT_MAJOR_COUNT, &count, sizeof count);
    for (int i = 0; i < count; i++) {
        fi.format = i;
        if (sf_command(NULL, SFC_GET_FORMAT_MAJOR, &fi, sizeof fi) == 0 && fi.extension &&
            !strcasecmp(ext, fi.extension))
            return 1;
    }
    return 0;
}

static int add_path(ir_set *set, size_t *cap, char *path)
{
    if (!path)
        return cli_error("out of memory listing IRs in '%s'", set->spec);
    if (set->npaths == *cap) {
        size_t n = *cap ? 2 * *cap : 64;
        char **p = realloc(set->paths, n * sizeof *p);
        if (!p) {
            free(path);
            return cli_error("out of memory listing IRs in '%s'", set->spec);
        }
        set->paths = p;
        *cap = n;
    }
    set->paths[set->npaths++] = path;
    return 0;
}

static char *join(const char *dir, const char *name)
{
    size_t a = strlen(dir), b = strlen(name);
    char *p = malloc(a + b + 2);
    if (p) {
        memcpy(p, dir, a);
        p[a] = '/';
        memcpy(p + a + 1, name, b + 1);
        if (a && dir[a - 1] == '/')
            memmove(p + a, p + a + 1, b + 1);
    }
    return p;
}

/* Sound files under dir, into set. Symbolic links to files count; links to
 * directories are not followed, so a link cannot make a loop. */
static int walk(ir_set *set, size_t *cap, const char *dir, int depth)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int rc = 0;
    if (!d)
        return cli_error("cannot list IRs in '%s': %s", dir, strerror(errno));
    while (!rc && (errno = 0, e = readdir(d))) {
        struct stat lsb, sb;
        char *path;
        if (e->d_name[0] == '.')
            continue;
        path = join(dir, e->d_name);
        if (!path) {
            rc = cli_error("out of memory listing IRs in '%s'", set->spec);
            break;
        }
        if (lstat(path, &lsb) == 0 && S_ISDIR(lsb.st_mode)) {
            if (depth < MAX_DEPTH)
                rc = walk(set, cap, path, depth + 1);
            free(path);
        } else if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode) && sound_name(path)) {
            rc = add_path(set, cap, path);
        } else {
            free(path);
        }
    }
    if (!rc && errno)
        rc = cli_error("cannot list IRs in '%s': %s", dir, strerror(errno));
    closedir(d);
    return rc;
}

static char *trim(char *s)
{
    char *end;
    s += strspn(s, " \t");
    end = s + strlen(s);
    while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r' ||
                       end[-1] == '\n'))
        *--end = '\0';
    return s;
}

static int read_list(ir_set *set, size_t *cap)
{
    FILE *f = fopen(set->spec, "r");
    const char *slash = strrchr(set->spec, '/');
    char *dir, *line = NULL;
    size_t linecap = 0;
    int rc = 0;
    if (!f)
        return cli_error("cannot read the IR list '%s': %s", set->spec, strerror(errno));
    dir = slash ? strndup(set->spec, (size_t)(slash - set->spec)) : NULL;
    while (!rc && getline(&line, &linecap, f) >= 0) {
        char *hash = strchr(line, '#'), *p;
        if (hash)
            *hash = '\0';
        p = trim(line);
        if (!*p)
            continue;
        rc = add_path(set, cap, p[0] == '/' || !dir ? strdup(p) : join(dir, p));
    }
    if (!rc && ferror(f))
        rc = cli_error("cannot read the IR list '%s': %s", set->spec, strerror(errno));
    free(line);
    free(dir);
    fclose(f);
    return rc;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int irset_load(const char *spec, ir_set *set)
{
    struct stat sb;
    size_t cap = 0;
    int rc, is_dir = stat(spec, &sb) == 0 && S_ISDIR(sb.st_mode);

    memset(set, 0, sizeof *set);
    set->spec = strdup(spec);
    if (!set->spec)
        return cli_error("out of memory");
    rc = is_dir ? walk(set, &cap, spec, 0) : read_list(set, &cap);
    if (!rc && set->npaths == 0)
        rc = cli_error("'%s' lists no IRs%s", spec,
                       is_dir ? " (no sound files in it or below it)" : "");
    if (rc) {
        irset_free(set);
        return 1;
    }
    qsort(set->paths, set->npaths, sizeof *set->paths, by_name);
    return 0;
}

/* Neighbouring ids and seeds land far apart. The arithmetic must stay as it
 * is: the same seed and id must give the same room in every version. */
static uint64_t mix(uint64_t seed, const char *id)
{
    return hash_finish(hash_fnv1a(id, HASH_FNV_BASIS) ^ (seed + 0x9e3779b97f4a7c15ULL));
}

const char *irset_pick(const ir_set *set, uint64_t seed, const char *id)
{
    return set->paths[mix(seed, id) % set->npaths];
}

void irset_free(ir_set *set)
{
    for (size_t i = 0; i < set->npaths; i++)
        free(set->paths[i]);
    free(set->paths);
    free(set->spec);
    memset(set, 0, sizeof *set);
}
