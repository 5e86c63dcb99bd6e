/*
 * hash.h - the one string hash of gfir batch: FNV-1a, then splitmix64's
 * finaliser, so that strings differing in one letter land far apart. It
 * picks a job's room from an IR set (irset.c: the pick must never change,
 * or a rerun would choose other rooms) and places paths in the manifest's
 * and the receipts' tables.
 */
#ifndef GFIR_CLI_BATCH_HASH_H
#define GFIR_CLI_BATCH_HASH_H

#include <stdint.h>

/* FNV-1a's offset basis: the usual start of hash_fnv1a. */
#define HASH_FNV_BASIS 0xcbf29ce484222325ULL

/* FNV-1a of s (without its terminating zero), from basis. */
uint64_t hash_fnv1a(const char *s, uint64_t basis);
/* splitmix64's finaliser: every bit of h moves about half of the result's. */
uint64_t hash_finish(uint64_t h);
/* hash_finish(hash_fnv1a(s, basis)): another basis, an independent hash. */
uint64_t hash_string(const char *s, uint64_t basis);

#endif
