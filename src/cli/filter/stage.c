/*
 * stage.c - the growable list of stages (stage.h).
 */
#include "filter/stage.h"

#include <stdlib.h>
#include <string.h>

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
}
