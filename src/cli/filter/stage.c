/*
 * stage.c - the growable list of stages (stage.h).
 */
#include "filter/stage.h"
#include "message.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

cli_stage *stage_append(stage_list *list)
{
    cli_stage *s = realloc(list->stages, (list->nstages + 1) * sizeof *s);
    if (!s)
        return NULL;
    list->stages = s;
    s = &list->stages[list->nstages++];
    memset(s, 0, sizeof *s);
    return s;
}

void stage_drop_last(stage_list *list)
{
    cli_stage *s = &list->stages[--list->nstages];
    free(s->name);
    free(s->description);
    free(s->path);
    free(s->preset_path);
    for (size_t i = 0; i < s->nfiles; i++)
        free(s->files[i]);
    free(s->files);
    for (size_t i = 0; i < s->nterms; i++)
        free(s->terms[i].file);
    free(s->terms);
}

static int is_file(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

static int push_file(cli_stage *s, char *path)
{
    char **grown = path ? realloc(s->files, (s->nfiles + 1) * sizeof *grown) : NULL;
    if (!grown) {
        free(path);
        return cli_error("out of memory");
    }
    s->files = grown;
    s->files[s->nfiles++] = path;
    return 0;
}

int stage_set_files(cli_stage *s, const char *spec, char *(*resolve)(const char *name, void *ctx),
                    void *ctx)
{
    char *whole = resolve(spec, ctx), *copy;
    const char *p;
    if (!whole)
        return cli_error("out of memory");
    if (is_file(whole) || !strchr(spec, ','))
        return push_file(s, whole);
    free(whole);
    /* a list: "a.wav,b.wav"; an empty item is a mistake, not a file */
    for (p = spec;; p += strcspn(p, ",") + 1) {
        const size_t len = strcspn(p, ",");
        if (len == 0)
            return cli_error("IR list '%s' has an empty item", spec);
        if (!(copy = strndup(p, len)))
            return cli_error("out of memory");
        if (push_file(s, resolve(copy, ctx))) {
            free(copy);
            return 1;
        }
        free(copy);
        if (!p[len])
            return 0;
    }
}
