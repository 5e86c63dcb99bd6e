/* cache.c - the user's cache directory and its tables of numbers: cache.h. */
#include "core/cache.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define LINE_MAX_BYTES 512

int gf_cache_path(char *path, size_t len, const char *name, int mkdirs)
{
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    size_t used;
    int n;
    if (xdg && xdg[0] == '/')
        n = snprintf(path, len, "%s/gfir", xdg);
    else if (home && home[0] == '/')
        n = snprintf(path, len, "%s/.cache/gfir", home);
    else
        return 0;
    if (n < 0 || (size_t)n >= len)
        return 0;
    used = (size_t)n;
    if (mkdirs) {
        char *slash = strrchr(path, '/');
        *slash = '\0';
        if (mkdir(path, 0700) != 0 && errno != EEXIST)
            return 0;
        *slash = '/';
        if (mkdir(path, 0700) != 0 && errno != EEXIST)
            return 0;
    }
    n = snprintf(path + used, len - used, "/%s", name);
    return n > 0 && (size_t)n < len - used;
}

/* Splits "VALUE KEY\n" in place: the value (0 if not a positive number) and
 * the key, without its newline. */
static size_t parse_line(char *line, const char **key)
{
    char *end;
    line[strcspn(line, "\n")] = '\0';
    errno = 0;
    unsigned long long v = strtoull(line, &end, 10);
    if (end == line || *end != ' ' || errno || line[0] == '-')
        return 0;
    *key = end + 1;
    return (size_t)v;
}

size_t gf_cache_lookup(const char *name, const char *key)
{
    char path[4096], line[LINE_MAX_BYTES];
    size_t found = 0;
    if (!gf_cache_path(path, sizeof path, name, 0))
        return 0;
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    while (fgets(line, sizeof line, f)) {
        const char *k = NULL;
        const size_t v = parse_line(line, &k);
        if (v && strcmp(k, key) == 0)
            found = v; /* the last line for a key wins */
    }
    fclose(f);
    return found;
}

int gf_cache_store(const char *name, const char *key, size_t value)
{
    char path[4096], tmp[4200], line[LINE_MAX_BYTES];
    if (!gf_cache_path(path, sizeof path, name, 1) || strchr(key, '\n'))
        return -1;
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
    FILE *out = fopen(tmp, "w");
    if (!out)
        return -1;
    FILE *in = fopen(path, "r");
    if (in) {
        while (fgets(line, sizeof line, in)) {
            char copy[LINE_MAX_BYTES];
            const char *k = NULL;
            memcpy(copy, line, sizeof copy);
            if (parse_line(copy, &k) && strcmp(k, key) != 0)
                fputs(line, out);
        }
        fclose(in);
    }
    fprintf(out, "%zu %s\n", value, key);
    if (fclose(out) != 0 || rename(tmp, path) != 0) {
        remove(tmp);
        return -1;
    }
    return 0;
}
