/*
 * preset.h - named filter chains in INI files (presets/NAME.ini), parsed with inih.
 */
#ifndef GFIR_CLI_PRESET_H
#define GFIR_CLI_PRESET_H

#include "filter/stage.h"

#include <stddef.h>

typedef struct preset_override {
    const char *section;        /* NULL: every section that has key */
    const char *key;
    const char *value;
} preset_override;

/* Appends the stages of preset `name` (a name on the search path, or a path
 * to an .ini file) with overrides applied. One line and 1 on failure. */
int preset_load(stage_list *list, const char *name, const preset_override *ov, size_t nov);
/* A file named by a bare name (no '/') that is not in the current
 * directory, found beside the presets on the search path (the first
 * directory that has it): 1 with its path in path (len bytes), else 0. */
int preset_find_beside(const char *name, char *path, size_t len);
/* Prints every preset on the search path with its description; the exit code. */
int preset_list(void);

#endif
