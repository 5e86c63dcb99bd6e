/*
 * dirs.c - making directories (dirs.h).
 */
#include "batch/dirs.h"
#include "message.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int dirs_make(const char *dir, const char *what)
{
    struct stat sb;
    char *p;
    int rc = 0;
    if (stat(dir, &sb) == 0 && S_ISDIR(sb.st_mode))
        return 0;
    p = strdup(dir);
    if (!p)
        return cli_error("out of memory");
    for (char *s = p + 1;; s++) {
        if (*s != '/' && *s != '\0')
            continue;
        char c = *s;
        *s = '\0';
        if (mkdir(p, 0777) != 0 && errno != EEXIST) {
            rc = cli_error("cannot make %s '%s': %s", what, p, strerror(errno));
            break;
        }
        *s = c;
        if (!c)
            break;
    }
    if (!rc && (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode)))
        rc = cli_error("cannot make %s '%s': a file of that name is in the way", what, dir);
    free(p);
    return rc;
}

char *dirs_parent(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return strdup(".");
    return slash == path ? strdup("/") : strndup(path, (size_t)(slash - path));
}
