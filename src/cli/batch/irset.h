/*
 * irset.h - an `ir` that names many impulse responses: a directory (searched
 * with its subdirectories for sound files) or a list (a text file ending in
 * .txt, .list, .lst or .scp: one path a line, relative to the list's
 * directory, '#' starting a comment). A job takes one of them, chosen from a
 * seed and the job's id alone, so the same manifest and seed give every job
 * the same room whichever shard, process or order runs it.
 */
#ifndef GFIR_CLI_BATCH_IRSET_H
#define GFIR_CLI_BATCH_IRSET_H

#include <stddef.h>
#include <stdint.h>

typedef struct ir_set {
    char *spec;                 /* as the manifest gave it */
    char **paths;               /* sorted by name (bytewise), so the choice is stable */
    size_t npaths;
} ir_set;

/* Whether spec names a set rather than one IR file. */
int irset_is_set(const char *spec);
/* Lists the set. 0, or 1 after one line on stderr. */
int irset_load(const char *spec, ir_set *set);
/* The IR for a job: the same for the same seed and id, spread evenly. */
const char *irset_pick(const ir_set *set, uint64_t seed, const char *id);
void irset_free(ir_set *set);

#endif
