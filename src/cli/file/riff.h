/*
 * riff.h - the 32-bit lengths in the chunk headers of RIFF (WAV, little
 * endian) and IFF (AIFF, big endian) files, which gfir reads to tell an
 * INPUT cut short (input.c) and writes into a WAV header for a pipe
 * (stream.c).
 */
#ifndef GFIR_CLI_RIFF_H
#define GFIR_CLI_RIFF_H

#include <stdint.h>

static inline uint32_t riff_get32(const unsigned char *p, int little)
{
    if (little)
        return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static inline void riff_put32le(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16);
    p[3] = (unsigned char)(v >> 24);
}

#endif
