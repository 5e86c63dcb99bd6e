/*
 * claims.c - the files a manifest's rows write and read (claims.h).
 */
#include "batch/claims.h"
#include "batch/hash.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *const role_names[] = {"output", "input", "ir", "taps"};

/* A basis for the second hash unrelated to FNV's usual one. */
#define SECOND_BASIS 0x84222325cbf29ce4ULL

static int seen_grow(seen_set *s)
{
    size_t cap = s->cap ? 2 * s->cap : 1024;
    seen_entry *slots = calloc(cap, sizeof *slots);
    if (!slots)
        return 1;
    for (size_t i = 0; i < s->cap; i++) {
        if (!s->slots[i].used)
            continue;
        size_t j = s->slots[i].h1 & (cap - 1);
        while (slots[j].used)
            j = (j + 1) & (cap - 1);
        slots[j] = s->slots[i];
    }
    free(s->slots);
    s->slots = slots;
    s->cap = cap;
    return 0;
}

static const seen_entry *seen_find(const seen_set *s, const char *key)
{
    const uint64_t h1 = hash_string(key, HASH_FNV_BASIS), h2 = hash_string(key, SECOND_BASIS);
    if (!s->cap)
        return NULL;
    for (size_t j = h1 & (s->cap - 1); s->slots[j].used; j = (j + 1) & (s->cap - 1))
        if (s->slots[j].h1 == h1 && s->slots[j].h2 == h2)
            return &s->slots[j];
    return NULL;
}

/* Records key (if new) as named first by line in role; 1 without memory. */
static int seen_add(seen_set *s, const char *key, size_t line, file_role role)
{
    const uint64_t h1 = hash_string(key, HASH_FNV_BASIS), h2 = hash_string(key, SECOND_BASIS);
    size_t j;
    if (4 * (s->count + 1) > 3 * s->cap && seen_grow(s))
        return 1;
    for (j = h1 & (s->cap - 1); s->slots[j].used; j = (j + 1) & (s->cap - 1))
        if (s->slots[j].h1 == h1 && s->slots[j].h2 == h2)
            return 0;
    s->slots[j] = (seen_entry){h1, h2, line, role, 1};
    s->count++;
    return 0;
}

/* why gets the line's fault; returns 1. */
static int say(char *why, size_t len, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static int say(char *why, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, len, fmt, ap);
    va_end(ap);
    return 1;
}

/* What a file that is not a regular one is, for messages. */
static const char *file_kind(mode_t mode)
{
    return S_ISDIR(mode)    ? "a directory"
           : S_ISFIFO(mode) ? "a FIFO"
           : S_ISCHR(mode)  ? "a character device"
           : S_ISBLK(mode)  ? "a block device"
           : S_ISSOCK(mode) ? "a socket"
                            : "not a regular file";
}

static int said_read(const char *output, const seen_entry *e, char *why, size_t len)
{
    if (e->line == 0)
        return say(why, len, "output '%s' is the command line's --%s; gfir never overwrites a "
                   "file that a job reads", output, role_names[e->role]);
    return say(why, len, "output '%s' is line %zu's %s; gfir never overwrites a file that a "
               "job reads", output, e->line, role_names[e->role]);
}

/* The output first, then the input (shards run in any order). */
int claims_row(claims *c, size_t line, const char *input, const char *output, char *why,
               size_t len)
{
    char canonical[OUTPUT_PATH_LEN];
    const seen_entry *e;
    struct stat sb;
    const int exists = output_identity(output, c->out_key, &sb);

    if (!strcmp(output, "-"))
        return say(why, len, "output '-': gfir batch writes each output to a file and renames "
                   "it into place, never to standard output");
    if (exists && !S_ISREG(sb.st_mode))
        return say(why, len, "output '%s' is %s; gfir batch writes regular files, renamed "
                   "into place", output, file_kind(sb.st_mode));
    if (!strcmp(c->out_key, c->manifest_key))
        return say(why, len, "output '%s' is the manifest", output);
    if (exists)
        output_canonical(output, canonical);
    if (output_within(exists ? canonical : c->out_key, c->receipts))
        return say(why, len, "output '%s' is in the receipts directory '%s'", output,
                   c->receipts_given);
    output_identity(input, c->key, NULL);
    if (!strcmp(c->key, c->out_key))
        return say(why, len, "output '%s' is the input; gfir never overwrites its input",
                   output);
    if ((e = seen_find(&c->outputs, c->out_key)))
        return say(why, len, "output '%s' is line %zu's output too; each output must appear "
                   "once", output, e->line);
    if ((e = seen_find(&c->reads, c->out_key)))
        return said_read(output, e, why, len);
    if ((e = seen_find(&c->outputs, c->key)))
        return say(why, len, "input '%s' is line %zu's output; a job never reads another's "
                   "output (shards run in any order)", input, e->line);
    if (seen_add(&c->reads, c->key, line, ROLE_INPUT) ||
        seen_add(&c->outputs, c->out_key, line, ROLE_OUTPUT))
        return say(why, len, "out of memory");
    return 0;
}

/* Recorded, so that no later output is it. */
int claims_read(claims *c, size_t line, const char *path, file_role role, const char *output,
                char *why, size_t len)
{
    const seen_entry *e;
    if (!path)
        return 0;
    if (!c->last_read || strcmp(c->last_read, path)) {
        free(c->last_read);
        free(c->last_read_key);
        output_identity(path, c->key, NULL);
        c->last_read = strdup(path);
        c->last_read_key = strdup(c->key);
        if (!c->last_read || !c->last_read_key)
            return say(why, len, "out of memory");
    }
    if (!strcmp(c->last_read_key, c->out_key))
        return say(why, len, "output '%s' is the row's %s; gfir never overwrites a file that a "
                   "job reads", output, role_names[role]);
    if ((e = seen_find(&c->outputs, c->last_read_key)))
        return say(why, len, "%s '%s' is line %zu's output; a job never reads another's "
                   "output (shards run in any order)", role_names[role], path, e->line);
    return seen_add(&c->reads, c->last_read_key, line, role) ? say(why, len, "out of memory")
                                                             : 0;
}

void claims_init(claims *c, const char *manifest, const char *receipts)
{
    memset(c, 0, sizeof *c);
    c->receipts_given = receipts;
    output_identity(manifest, c->manifest_key, NULL);
    output_canonical(receipts, c->receipts);
}

int claims_add_read(claims *c, const char *path, file_role role)
{
    output_identity(path, c->key, NULL);
    return seen_add(&c->reads, c->key, 0, role);
}

void claims_free(claims *c)
{
    free(c->outputs.slots);
    free(c->reads.slots);
    free(c->last_read);
    free(c->last_read_key);
    memset(c, 0, sizeof *c);
}
