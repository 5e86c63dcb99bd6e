/*
 * condition.c - clipping, dither and rounding for file output (condition.h).
 *
 * libsndfile's clipping conversion truncates toward minus infinity, which
 * would bias every sample by half a step, so 8- and 16-bit output is rounded
 * here. 16-bit output leaves as integers (sf_writef_short), so libsndfile
 * does not convert it a second time; other formats stay float.
 *
 * Separate loops over locals, so the compiler vectorises all but the
 * dither's: on a 10-minute stereo file this pass and libsndfile's float
 * conversion were a quarter of the CPU time of a 15-tap run. No branches in
 * them: the clip count's peak is an integer maximum (non-negative floats
 * order as their bit patterns do) and the rounding's clamps are selects,
 * which GCC vectorises where it left the branchy forms scalar (a third of
 * the writer's time on a 4095-tap file, perf, 2026-11-26).
 */
#include "file/condition.h"

#include <float.h>
#include <math.h>
#include <sndfile.h>
#include <string.h>

/* The passes below are inlined into each instruction set's copy of the
 * tile (condition_tile_*), so each compiles for that set. */
#ifdef __GNUC__
#define PASS static inline __attribute__((always_inline))
#else
#define PASS static inline
#endif

void condition_init(conditioner *c, int subtype, int no_dither)
{
    c->count_clips = subtype != SF_FORMAT_FLOAT && subtype != SF_FORMAT_DOUBLE &&
                     subtype != SF_FORMAT_VORBIS && subtype != SF_FORMAT_OPUS;
    c->steps = subtype == SF_FORMAT_PCM_16                                ? 32768.0f
               : subtype == SF_FORMAT_PCM_S8 || subtype == SF_FORMAT_PCM_U8 ? 128.0f
                                                                          : 0.0f;
    /* the grid reaches -1 but stops a step short of +1, which at 8 bits
     * clips a sample of 0.996 by more than a rounding would */
    c->hi = c->steps > 0 ? (c->steps - 0.5f) / c->steps : 1.0f;
    c->lo = c->steps > 0 ? -(c->steps + 0.5f) / c->steps : -1.0f;
    c->dither = !no_dither && c->steps > 0;
    c->rng = 0x9E3779B97F4A7C15ULL;
    c->clipped = 0;
    c->peak = 0.0f;
    c->level = 0.0f;
    c->seen = 0;
    c->nonfinite = 0;
    c->first_nonfinite = 0;
}

/* xorshift64*: fast, and the same dither on every run. */
PASS float uniform(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return (float)((*s * 0x2545F4914F6CDD1DULL) >> 40) * (1.0f / 16777216.0f);
}

/* NaN and infinities: counted, the first one's place kept for the report. */
PASS void count_nonfinite(conditioner *c, const float *buf, size_t n)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; i++)
        bad += !(fabsf(buf[i]) <= FLT_MAX);
    if (bad && !c->nonfinite)
        for (size_t i = 0; i < n; i++)
            if (!(fabsf(buf[i]) <= FLT_MAX)) {
                c->first_nonfinite = c->seen + i;
                break;
            }
    c->nonfinite += bad;
    c->seen += n;
}

/* Samples conditioned at a time: every pass over a tile finds it in the L1
 * cache, where passes over a whole block (512 KiB for stereo) each read it
 * from memory. Small enough for count_clips' 32-bit count. */
#define TILE ((size_t)2048)

/* The largest magnitude in buf and c->level. Non-negative floats order as
 * their bit patterns do, so this is an integer maximum, which vectorises
 * where a float one (NaN's rules) does not; a NaN counts as infinity. */
PASS void track_level(conditioner *c, const float *restrict buf, size_t n)
{
    uint32_t top, bits;
    memcpy(&top, &c->level, sizeof top);
    for (size_t i = 0; i < n; i++) {
        memcpy(&bits, &buf[i], sizeof bits);
        bits &= 0x7FFFFFFFu;
        top = bits > top ? bits : top;
    }
    top = top > 0x7F800000u ? 0x7F800000u : top;
    memcpy(&c->level, &top, sizeof top);
}

/* Samples beyond the grid's ends and finite (NaN compares false): counted,
 * and the largest magnitude among them kept. 32-bit lanes throughout, which
 * GCC vectorises where a size_t count stayed scalar. */
PASS void count_clips(conditioner *c, const float *restrict buf, size_t n)
{
    const float hi = c->hi, lo = c->lo;
    uint32_t clipped = 0, top = 0;
    float peak;
    for (size_t i = 0; i < n; i++) {
        uint32_t bits, over;
        memcpy(&bits, &buf[i], sizeof bits);
        bits &= 0x7FFFFFFFu;
        over = (buf[i] > hi ? 1u : 0u) | (buf[i] < lo ? 1u : 0u);
        over &= bits < 0x7F800000u ? 1u : 0u;
        clipped += over;
        bits &= 0u - over;
        top = bits > top ? bits : top;
    }
    c->clipped += clipped;
    memcpy(&peak, &top, sizeof peak);
    if (peak > c->peak)
        c->peak = peak;
}

PASS void tile_body(conditioner *c, float *restrict buf, size_t n, short *restrict pcm)
{
    const float steps = c->steps;
    track_level(c, buf, n);
    count_nonfinite(c, buf, n);
    if (c->count_clips)
        count_clips(c, buf, n);
    if (c->dither) {
        uint64_t rng = c->rng;
        for (size_t i = 0; i < n; i++)
            buf[i] += (uniform(&rng) - uniform(&rng)) / steps;
        c->rng = rng;
    }
    if (steps > 0) {
        /* clamped to the grid's ends, then rounded to even by the 1.5 * 2^23
         * trick: both ends are integers, so the order does not matter */
        const float lo = -steps, hi = steps - 1.0f, magic = 12582912.0f;
        if (pcm)
            for (size_t i = 0; i < n; i++) {
                float v = buf[i] * steps;
                v = v == v ? v : 0.0f; /* NaN: silence */
                v = v > hi ? hi : v;
                v = v < lo ? lo : v;
                pcm[i] = (short)((v + magic) - magic);
            }
        else
            for (size_t i = 0; i < n; i++) {
                float v = buf[i] * steps;
                v = v == v ? v : 0.0f;
                v = v > hi ? hi : v;
                v = v < lo ? lo : v;
                buf[i] = ((v + magic) - magic) / steps;
            }
    } else if (c->count_clips) {
        for (size_t i = 0; i < n; i++)
            /* NaN: silence, as on the 8- and 16-bit grid above */
            buf[i] = buf[i] > 1.0f    ? 1.0f
                     : buf[i] < -1.0f ? -1.0f
                     : buf[i] == buf[i] ? buf[i]
                                        : 0.0f;
    }
}

static void tile_base(conditioner *c, float *restrict buf, size_t n, short *restrict pcm)
{
    tile_body(c, buf, n, pcm);
}

/* AVX2 doubles the lanes and has the unsigned maximum that SSE2 emulates
 * in three instructions: the passes ran 1.45 ns a sample with SSE2 on the
 * 2-core development machine. No FMA: a contracted multiply-add would
 * round differently from the plain build. */
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#define HAVE_X86_TARGETS 1
__attribute__((target("avx2"))) static void tile_avx2(conditioner *c, float *restrict buf,
                                                      size_t n, short *restrict pcm)
{
    tile_body(c, buf, n, pcm);
}
#endif

typedef void (*tile_fn)(conditioner *, float *restrict, size_t, short *restrict);

static tile_fn tile_select(void)
{
#ifdef HAVE_X86_TARGETS
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2"))
        return tile_avx2;
#endif
    return tile_base;
}

void condition_block(conditioner *c, float *restrict buf, size_t n, short *restrict pcm)
{
    const tile_fn tile = tile_select();
    for (size_t at = 0; at < n; at += TILE)
        tile(c, buf + at, n - at < TILE ? n - at : TILE, pcm ? pcm + at : NULL);
}
