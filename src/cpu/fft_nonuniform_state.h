/*
 * fft_nonuniform_state.h - the zero-latency FFT engine's state, shared by
 * its set-up (fft_nonuniform.c) and its paths' work (fft_nonuniform_path.c).
 */
#ifndef GF_CPU_FFT_NONUNIFORM_STATE_H
#define GF_CPU_FFT_NONUNIFORM_STATE_H

#include "core/plan.h"
#include "cpu/cmac.h"
#include "cpu/direct.h"
#include "cpu/fft_sliced.h"
#include "cpu/pool.h"
#include "cpu/tuning.h"

#include <stddef.h>

enum unit_kind { UNIT_FORWARD, UNIT_MAC, UNIT_INVERSE };

typedef struct nu_unit {
    enum unit_kind kind;
    size_t slice;          /* forward or inverse slice */
    size_t k0, k1;         /* bins [k0, k1) of the multiply-accumulate */
    size_t j0, j1;         /* partitions [j0, j1) */
    double cost;           /* its weight: nanoseconds measured here */
    double cost_before;    /* of the units before this one */
} nu_unit;

/* One level's shape and the work of one of its blocks, shared by every path.
 * The first level (sync) starts at tap 0: its partition 0 is the head's
 * taps, which a segment of a whole grid block takes in the frequency domain
 * and a shorter one from the direct head. */
typedef struct nu_level {
    size_t part;           /* P */
    size_t offset;         /* first tap */
    size_t nparts;
    size_t nslots;         /* the delay line's: nparts + 1 */
    size_t bstride;        /* P + 1 rounded up to ALIGN_FLOATS */
    int sync;              /* the first level: a block's work all at once */
    gf_sliced_fft fft;
    nu_unit *units;
    size_t nunits;
    size_t first_mac;      /* the forward slices come before it */
    double total;          /* cost of every unit */
} nu_level;

typedef struct nu_filter {
    float *head;                            /* the first taps, reversed */
    float *spectra[GF_NU_MAX_LEVELS + 1];   /* nparts x (re, im) x bstride, scaled 1 / 2P */
} nu_filter;

/* A prepared filter (gfir_filter.impl): every tap set's. */
typedef struct nu_prepared {
    unsigned sets;
    size_t nlevels;
    nu_filter *set;
} nu_prepared;

typedef struct nu_input {
    float *ring;                            /* ring_len, then mirror_len copied again */
    float *fdl[GF_NU_MAX_LEVELS + 1];       /* nslots x (re, im) x bstride */
    size_t newest[GF_NU_MAX_LEVELS + 1];    /* slot of the newest spectrum */
    float *work[GF_NU_MAX_LEVELS + 1];      /* a forward transform between slices */
} nu_input;

typedef struct nu_output {
    float *y;                               /* one segment of outputs */
    float *acc[GF_NU_MAX_LEVELS + 1];       /* (re, im) x bstride */
    float *block[GF_NU_MAX_LEVELS + 1][2];  /* 2P each; the upper half is the block */
    int cur[GF_NU_MAX_LEVELS + 1];          /* the block being read */
    /* The incoming filter's, during a crossfade. */
    float *y_new;
    float *acc_new[GF_NU_MAX_LEVELS + 1];
    float *block_new[GF_NU_MAX_LEVELS + 1][2];
} nu_output;

typedef struct nu_path {
    nu_input *in;
    const nu_filter *filter;
    const nu_filter *incoming;              /* from a swap to the fade's end, else NULL */
    nu_output *out;
    unsigned channel;
    float *scratch;                         /* for one slice at a time */
    size_t done[GF_NU_MAX_LEVELS + 1];      /* units of the block in flight */
    size_t start[GF_NU_MAX_LEVELS + 1];     /* frame at which it started */
    /* The first level works at the start of a segment: the frame its
     * newest spectrum's window ends at, and the grid block whose output
     * it has made (SIZE_MAX: none since the reset). */
    size_t sync_made, sync_done;
    size_t sync_ahead;                      /* of the next block's partitions from 2 on */
    /* After a swap, per level: the first block made for the incoming
     * filter (the first read at or after the fade's first frame), and the
     * first made for it alone (read from the fade's end on). Only the
     * blocks between run both filters. */
    size_t since[GF_NU_MAX_LEVELS + 1];
    size_t until[GF_NU_MAX_LEVELS + 1];
    /* In a block made for both filters: the current filter's half of unit
     * `done` is made, the incoming one's is next. */
    int half[GF_NU_MAX_LEVELS + 1];
    /* After a swap, per level: the output block that the first block made
     * for the incoming filter writes; floats of the incoming filter's output
     * blocks cleared so far (gf_nu_path_run). */
    int warm_first[GF_NU_MAX_LEVELS + 1];
    size_t warmed;
    /* The last swap's fade, [fade_from, fade_to); empty since the reset. */
    size_t fade_from, fade_to;
} nu_path;

typedef struct nu_state {
    size_t grid;           /* N: the head's length in the scheme, the segments' bound */
    size_t head_taps;      /* min(N, ntaps) */
    size_t nlevels;
    nu_level level[GF_NU_MAX_LEVELS + 1];
    size_t ring_len;       /* a power of two, at least 4 max(P, N) */
    size_t mirror_len;     /* max(P, N): windows and the head's history never wrap */
    size_t now;            /* frames since the last reset */
    gf_cpu_conv_fn conv;
    gf_cmac_run_fn mac;
    const gfir_plan *plan;  /* for the crossfade's weights */
    float *w;              /* a call's crossfade weights, block_frames of them */
    int mixing;            /* the call is within a crossfade: w holds its weights */
    nu_input *inputs;
    nu_output *outputs;
    nu_path *paths;
    unsigned channels;
    gf_pool *pool;         /* NULL: every call on the calling thread */
    const float *task_in;  /* the call the pool's paths work on */
    float *task_out;
    size_t task_n;
} nu_state;

/* One call of n frames for one path, from frame st->now on. Each segment's
 * input is read before its output is written, which makes in == out safe. */
void gf_nu_path_run(const nu_state *st, nu_path *path, unsigned channels, const float *in,
                    float *out, size_t n);
/* A swap's first call, at frame st->now: the first frame from which the
 * path could read the incoming filter's blocks of every level, made from
 * the next block of each on (the fade's first frame: the latest of every
 * path's). */
size_t gf_nu_path_fade_from(const nu_state *st, const nu_path *path);
/* The swap, with its fade over frames [from, to): the path makes the
 * incoming filter's share of the blocks read within or after it, and the
 * current filter's of those read before its end. */
void gf_nu_path_swap(const nu_state *st, nu_path *path, const nu_filter *incoming, size_t from,
                     size_t to);

/* Unit i of spread level l's block in flight, for the path's filter alone. */
void gf_nu_path_unit(const nu_state *st, nu_path *path, size_t l, size_t i);

/* A monotonic clock in nanoseconds (fft_nonuniform_weigh.c). */
double gf_nu_clock_ns(void);
/* Weighs every spread level's units by their time: runs each level's block
 * `passes` times on path 0 (its buffers are left to a reset), gives each
 * unit the least time the clock measured, and sets the levels' sums. */
void gf_nu_weigh_units(nu_state *st, double (*clock_ns)(void), int passes);

#endif
