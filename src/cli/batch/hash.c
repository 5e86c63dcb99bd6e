/*
 * hash.c - FNV-1a and splitmix64's finaliser (hash.h).
 */
#include "batch/hash.h"

uint64_t hash_fnv1a(const char *s, uint64_t basis)
{
    uint64_t h = basis;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        h = (h ^ *p) * 0x100000001b3ULL;
    return h;
}

uint64_t hash_finish(uint64_t h)
{
    h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ULL;
    h = (h ^ (h >> 27)) * 0x94d049bb133111ebULL;
    return h ^ (h >> 31);
}

uint64_t hash_string(const char *s, uint64_t basis)
{
    return hash_finish(hash_fnv1a(s, basis));
}
