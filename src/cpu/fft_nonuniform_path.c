/*
 * fft_nonuniform_path.c - the zero-latency FFT engine's work on one path
 * (fft_nonuniform.c's opening comment): a call's segments, the levels'
 * blocks and their units spread over the calls, and the start of a swap.
 */
#include "cpu/fft_nonuniform_state.h"
#include "cpu/fft_sliced.h"
#include "cpu/frames.h"

#include <string.h>

/* ---- one path's blocks ------------------------------------------------------------- */

/* Sizes are powers of two: frame % n is frame & (n - 1). */
static size_t ring_index(const nu_state *st, size_t frame, size_t back)
{
    return (frame - back) & (st->ring_len - 1);
}

static void unit_forward(const nu_state *st, nu_path *path, size_t l, const nu_unit *u)
{
    const nu_level *lv = &st->level[l];
    const size_t bs = lv->bstride;
    const float *window = path->in->ring + ring_index(st, path->start[l], 2 * lv->part);
    float *re = path->in->fdl[l] + path->in->newest[l] * 2 * bs;
    gf_sliced_forward(&lv->fft, u->slice, window, path->in->work[l], path->scratch, re, re + bs);
}

/* A multiply-accumulate unit of the block whose newest window is in slot
 * `newest`, with tap set flt, into acc. */
static void unit_mac(const nu_state *st, const nu_path *path, size_t l, const nu_unit *u,
                     const nu_filter *flt, size_t newest, float *acc)
{
    const nu_level *lv = &st->level[l];
    const size_t bs = lv->bstride;
    float *ar = acc, *ai = ar + bs;
    /* Partitions j0.. use the slots from newest + j0 on, which wrap around
     * the delay line once at most: two runs. */
    const size_t len = u->k1 - u->k0, first = (newest + u->j0) % lv->nslots;
    const size_t count = u->j1 - u->j0;
    const size_t before_wrap = lv->nslots - first < count ? lv->nslots - first : count;
    const float *h = flt->spectra[l] + u->j0 * 2 * bs + u->k0;
    const float *x = path->in->fdl[l] + u->k0;
    if (u->j0 == 0) {
        memset(ar + u->k0, 0, len * sizeof *ar);
        memset(ai + u->k0, 0, len * sizeof *ai);
    }
    st->mac(ar + u->k0, ai + u->k0, h, x + first * 2 * bs, bs, 2 * bs, before_wrap, len);
    if (count > before_wrap)
        st->mac(ar + u->k0, ai + u->k0, h + before_wrap * 2 * bs, x, bs, 2 * bs,
                count - before_wrap, len);
}

static void unit_inverse(const nu_state *st, nu_path *path, size_t l, const nu_unit *u,
                         const float *acc, float *block)
{
    const size_t bs = st->level[l].bstride;
    gf_sliced_inverse(&st->level[l].fft, u->slice, acc, acc + bs, path->scratch, block);
}

/* Which filters the block in flight of level l is made for: the path's
 * unless a swap's fade ends before the block is read, the incoming one where
 * it is read within the fade or after it (gf_nu_path_swap). */
enum { FOR_CURRENT = 1, FOR_INCOMING = 2, FOR_BOTH = 3 };

static int block_filters(const nu_path *path, size_t l)
{
    if (!path->incoming)
        return FOR_CURRENT;
    return (path->start[l] < path->until[l] ? FOR_CURRENT : 0) |
           (path->start[l] >= path->since[l] ? FOR_INCOMING : 0);
}

/* A unit of the block in flight, for the filters in `which`. */
static void run_unit(const nu_state *st, nu_path *path, size_t l, const nu_unit *u, int which)
{
    nu_output *out = path->out;
    const size_t newest = path->in->newest[l];
    const int next = !out->cur[l];
    switch (u->kind) {
    case UNIT_FORWARD:
        unit_forward(st, path, l, u);
        break;
    case UNIT_MAC:
        if (which & FOR_CURRENT)
            unit_mac(st, path, l, u, path->filter, newest, out->acc[l]);
        if (which & FOR_INCOMING)
            unit_mac(st, path, l, u, path->incoming, newest, out->acc_new[l]);
        break;
    case UNIT_INVERSE:
        if (which & FOR_CURRENT)
            unit_inverse(st, path, l, u, out->acc[l], out->block[l][next]);
        if (which & FOR_INCOMING)
            unit_inverse(st, path, l, u, out->acc_new[l], out->block_new[l][next]);
        break;
    }
}

void gf_nu_path_unit(const nu_state *st, nu_path *path, size_t l, size_t i)
{
    run_unit(st, path, l, &st->level[l].units[i], FOR_CURRENT);
}

/*
 * One step of the block in flight: its next unit, or, in a block made for
 * both filters, half of a multiply-accumulate or inverse unit (the current
 * filter's, then the incoming one's), so that no call runs both halves of
 * a long transform slice unless its share of the time asks for it: at 2^20
 * taps an inverse slice of the 65536-frame level is a normal call's time.
 */
static void step(const nu_state *st, nu_path *path, size_t l)
{
    const nu_unit *u = &st->level[l].units[path->done[l]];
    const int which = block_filters(path, l);
    if (which == FOR_BOTH && u->kind != UNIT_FORWARD) {
        run_unit(st, path, l, u, path->half[l] ? FOR_INCOMING : FOR_CURRENT);
        path->half[l] = !path->half[l];
        if (path->half[l])
            return;
    } else
        run_unit(st, path, l, u, which);
    path->done[l]++;
}

/* The block whose input completes at frame b: its spectrum goes in the slot
 * of the oldest. */
static void start_block(const nu_state *st, nu_path *path, size_t l, size_t b)
{
    const nu_level *lv = &st->level[l];
    size_t *newest = &path->in->newest[l];
    *newest = *newest == 0 ? lv->nslots - 1 : *newest - 1;
    path->done[l] = 0;
    path->half[l] = 0;
    path->start[l] = b;
}

static void finish_block(const nu_state *st, nu_path *path, size_t l)
{
    const nu_level *lv = &st->level[l];
    while (path->done[l] < lv->nunits)
        step(st, path, l);
    path->out->cur[l] = !path->out->cur[l];
}

/* The cost of level l's units before unit i, counting the multiply-
 * accumulates and inverse slices twice in a block made for both filters. */
static double cost_to(const nu_level *lv, const nu_path *path, size_t l, size_t i)
{
    const double c = i < lv->nunits ? lv->units[i].cost_before : lv->total;
    const double fwd = lv->units[lv->first_mac].cost_before;
    return block_filters(path, l) == FOR_BOTH && c > fwd ? 2.0 * c - fwd : c;
}

/*
 * Frames by which a spread level's block [s, e) lags its even pace at frame
 * t because of the last fade [a, b): a fade's calls make the first level's
 * blocks and the heads for both filters and mix, so a block that goes on
 * for twice the fade's length after it does half its share in the fade and
 * makes it up at a quarter more over those frames. A block always ends on
 * time: the lag is at most half the frames it has left.
 */
static double fade_lag(const nu_path *path, size_t s, size_t e, size_t t)
{
    const size_t a = path->fade_from > s ? path->fade_from : s;
    const size_t b = path->fade_to < t ? path->fade_to : t;
    double lag;
    if (b <= a || path->fade_to >= e || e - path->fade_to < 2 * (path->fade_to - a))
        return 0.0;
    lag = 0.5 * (double)(b - a) - (t > b ? 0.25 * (double)(t - b) : 0.0);
    if (lag > 0.5 * (double)(e - t))
        lag = 0.5 * (double)(e - t);
    return lag > 0.0 ? lag : 0.0;
}

/*
 * The cost a spread level's block should have done by frame t, less what
 * it has done: its share of the level's slack (P frames) that has passed.
 * A block made for both filters ends the next smaller level's block early
 * (P of level l - 1): the blocks for both filters of every level end where
 * the fade begins, and the smaller levels' come last; the larger level's
 * work is done before them rather than beside them.
 */
static double behind(const nu_state *st, const nu_path *path, size_t l, size_t t)
{
    const nu_level *lv = &st->level[l];
    const size_t i = path->done[l], s = path->start[l];
    size_t span = lv->part;
    double done, part;
    if (i >= lv->nunits)
        return 0.0;
    if (block_filters(path, l) == FOR_BOTH && l > 0 && !st->level[l - 1].sync)
        span -= st->level[l - 1].part;
    done = cost_to(lv, path, l, i);
    if (path->half[l])
        done += 0.5 * (cost_to(lv, path, l, i + 1) - done);
    part = ((double)(t - s) - fade_lag(path, s, s + lv->part, t)) / (double)span;
    return cost_to(lv, path, l, lv->nunits) * (part < 1.0 ? part : 1.0) - done;
}

/* ---- the first level, at the start of a segment ---------------------------------- */

/* The first level's spectrum of the window ending at frame `end`, into the
 * slot of the oldest. */
static void sync_forward(const nu_state *st, nu_path *path, size_t end)
{
    const nu_level *lv = &st->level[0];
    const size_t bs = lv->bstride;
    size_t *newest = &path->in->newest[0];
    float *re;
    *newest = *newest == 0 ? lv->nslots - 1 : *newest - 1;
    re = path->in->fdl[0] + *newest * 2 * bs;
    gf_sliced_forward(&lv->fft, 0, path->in->ring + ring_index(st, end, 2 * lv->part),
                      path->in->work[0], path->scratch, re, re + bs);
    path->sync_made = end;
}

/* acc += sum over partitions j in [j0, j1) of flt's partition j times the
 * first level's spectrum of the window ending at frame end - j N: the
 * grid block whose outputs end at frame `end`. */
static void sync_mac(const nu_state *st, const nu_path *path, const nu_filter *flt, size_t j0,
                     size_t j1, size_t end, float *acc)
{
    const nu_level *lv = &st->level[0];
    const size_t bs = lv->bstride, count = j1 - j0;
    /* windows are made in order, one slot back each: the newest is sync_made's */
    const size_t first =
        (path->in->newest[0] + (path->sync_made + j0 * st->grid - end) / st->grid) % lv->nslots;
    const size_t before_wrap = lv->nslots - first < count ? lv->nslots - first : count;
    const float *h = flt->spectra[0] + j0 * 2 * bs, *x = path->in->fdl[0];
    if (count == 0)
        return;
    st->mac(acc, acc + bs, h, x + first * 2 * bs, bs, 2 * bs, before_wrap, bs);
    if (count > before_wrap)
        st->mac(acc, acc + bs, h + before_wrap * 2 * bs, x, bs, 2 * bs, count - before_wrap, bs);
}

/*
 * The first level's partitions from 2 on read windows that end a block or
 * more before the grid block they are for, so their share of the next
 * block's accumulator is made during this one, at the ends of its
 * segments, in proportion to the frames passed (t is such an end, b the
 * block): a 64-frame call then carries half of a 128-frame block's
 * multiply-accumulate rather than all or none of it. For both filters
 * where the next block is one made for both (after a swap).
 */
static void sync_ahead(const nu_state *st, nu_path *path, size_t b, size_t t)
{
    const nu_level *lv = &st->level[0];
    const size_t N = st->grid, ahead = lv->nparts > 2 ? lv->nparts - 2 : 0;
    const size_t want = (ahead * (t - b) + N - 1) / N;
    if (want <= path->sync_ahead)
        return;
    sync_mac(st, path, path->filter, 2 + path->sync_ahead, 2 + want, b + 2 * N,
             path->out->acc[0]);
    if (path->incoming && b + N >= path->since[0])
        sync_mac(st, path, path->incoming, 2 + path->sync_ahead, 2 + want, b + 2 * N,
                 path->out->acc_new[0]);
    path->sync_ahead = want;
}

/* The first level's output block for grid block b with tap set flt, into
 * block; acc holds partitions 2 on already: partition 1 (the window ending
 * at b) joins them, and partition 0 (the head's taps, with the window of
 * the block's own input) when the segment is the whole block. acc is
 * cleared for the next block's partitions. */
static void sync_block(const nu_state *st, const nu_path *path, const nu_filter *flt, size_t b,
                       int whole, float *acc, float *block)
{
    const nu_level *lv = &st->level[0];
    sync_mac(st, path, flt, whole ? 0 : 1, 2, b + st->grid, acc);
    gf_sliced_inverse(&lv->fft, 0, acc, acc + lv->bstride, path->scratch, block);
    memset(acc, 0, 2 * lv->bstride * sizeof *acc);
}

/* A segment starts at frame t, m frames of its input in the ring: the first
 * level makes the output block of the grid block t lies in, once. A whole
 * block's segment transforms its own input too and takes the head's taps
 * in the frequency domain; a shorter one leaves them to the direct head. */
static void sync_begin(const nu_state *st, nu_path *path, size_t t, int whole)
{
    const size_t N = st->grid, b = t & ~(N - 1);
    nu_output *out = path->out;
    if (path->sync_done == b)
        return;
    if (path->sync_made != b)
        sync_forward(st, path, b);
    if (whole)
        sync_forward(st, path, b + N);
    sync_block(st, path, path->filter, b, whole, out->acc[0], out->block[0][0]);
    if (path->incoming && b >= path->since[0])
        sync_block(st, path, path->incoming, b, whole, out->acc_new[0], out->block_new[0][0]);
    else
        memset(out->acc_new[0], 0, 2 * st->level[0].bstride * sizeof *out->acc_new[0]);
    path->sync_done = b;
    path->sync_ahead = 0;
}

/*
 * Frame t ends a segment: blocks complete, and the levels' work catches up
 * with the time that has passed. The catching up is shared between the
 * levels: the unit of whichever level is furthest behind runs, until the
 * levels together have done what they owe. Each level alone could overrun
 * its share by up to a unit in every segment; together they overrun by one.
 */
static void advance(const nu_state *st, nu_path *path, size_t t)
{
    for (size_t l = 0; l < st->nlevels; l++) {
        const nu_level *lv = &st->level[l];
        if (!lv->sync && (t & (lv->part - 1)) == 0) {
            finish_block(st, path, l);
            start_block(st, path, l, t);
        }
    }
    for (;;) {
        double owed = 0.0, most = 0.0;
        size_t pick = 0;
        for (size_t l = 0; l < st->nlevels; l++) {
            const nu_level *lv = &st->level[l];
            double b;
            if (lv->sync)
                continue;
            b = behind(st, path, l, t);
            owed += b;
            if (b > most) {
                most = b;
                pick = l;
            }
        }
        if (owed <= 0.0 || most <= 0.0)
            return;
        step(st, path, pick);
    }
}

/* A segment's m outputs from frame t into y: flt's head over the history
 * ending at h + head_taps - 1 (unless the first level took it: whole),
 * plus every level's block being read. */
static void segment_output(const nu_state *st, const nu_path *path, const nu_filter *flt,
                           float *const block[][2], const float *h, size_t t, size_t m,
                           int whole, float *y)
{
    if (whole)
        memset(y, 0, m * sizeof *y);
    else
        st->conv(h, flt->head, st->head_taps, y, m);
    for (size_t l = 0; l < st->nlevels; l++) {
        const size_t P = st->level[l].part;
        const float *b = block[l][path->out->cur[l]] + P + (t & (P - 1));
        for (size_t i = 0; i < m; i++)
            y[i] += b[i];
    }
}

/* Floats of the incoming filter's output blocks cleared per frame of a
 * swap's wait: a quarter of a cache line. */
#define WARM_FLOATS_PER_FRAME ((size_t)4)
/* Plans whose blocks are cleared ahead: those with a level of 8192 frames
 * or more, whose spectra stream from memory (tuning.c's cost model) and
 * push every level's blocks out of the caches; a smaller plan's stay in
 * them, and clearing them only cost its calls time (16384 taps, 64-frame
 * calls: the worst swap call 2.55 times the mean call, 2.7 with it). */
#define WARM_MIN_PART ((size_t)8192)

/* Whether output block x of level l holds, or is being made into, a block
 * for the incoming filter: from its first inverse slice on. */
static int warm_taken(const nu_state *st, const nu_path *path, size_t l, int x)
{
    const nu_level *lv = &st->level[l];
    const int cur = path->out->cur[l];
    if (x == cur)
        return path->start[l] >= path->since[l] + lv->part;
    return (block_filters(path, l) & FOR_INCOMING) &&
           path->done[l] >= lv->nunits - gf_sliced_count(&lv->fft);
}

/*
 * The incoming filter's output blocks were last written by an earlier swap
 * and have left the caches: its first blocks would fetch them from memory
 * in their first inverse slices, at 2^20 taps three times the current
 * filter's (thread time, 64-frame calls, 2026-11-27), in the calls that run
 * both filters' slices already. From the swap on, each segment of m frames
 * clears 4 m floats of them (clearing, not reading: clean lines left the
 * caches first and gained nothing), the block that each level's first
 * incoming block makes, largest level first, then the other block of
 * each; a block already taken is left alone. The first blocks of 2^20 taps
 * (150000 floats) are done in 37000 frames, before the longest level's
 * first block for both filters reaches its inverse slices (from about 49000
 * frames after a swap at the worst).
 */
static void warm_incoming(const nu_state *st, nu_path *path, size_t m)
{
    size_t skip = path->warmed, want = m * WARM_FLOATS_PER_FRAME;
    if (st->nlevels == 0 || st->level[st->nlevels - 1].part < WARM_MIN_PART)
        return;
    for (int pass = 0; pass < 2 && want > 0; pass++)
        for (size_t l = st->nlevels; l-- > 0 && want > 0;) {
            const size_t len = 2 * st->level[l].part;
            const int x = path->warm_first[l] ^ pass;
            size_t n;
            if (st->level[l].sync)
                continue;
            if (skip >= len) {
                skip -= len;
                continue;
            }
            n = len - skip < want ? len - skip : want;
            if (!warm_taken(st, path, l, x))
                memset(path->out->block_new[l][x] + skip, 0, n * sizeof(float));
            path->warmed += n;
            want -= n;
            skip = 0;
        }
}

/* One call for one path, from frame st->now on. Each segment's input is read
 * before its output is written, which makes in == out safe. */
void gf_nu_path_run(const nu_state *st, nu_path *path, unsigned channels, const float *in,
                    float *out, size_t n)
{
    const size_t c = path->channel, hist = st->head_taps - 1;
    float *ring = path->in->ring, *y = path->out->y;
    size_t t = st->now;
    while (n > 0) {
        const size_t left = st->grid - (t & (st->grid - 1)), m = left < n ? left : n;
        const size_t idx = t & (st->ring_len - 1);
        float *x = ring + idx;
        gf_frames_take(x, in, channels, (unsigned)c, m);
        if (idx < st->mirror_len)
            memcpy(ring + st->ring_len + idx, x, m * sizeof *x);
        const float *h = idx >= hist ? x - hist : ring + st->ring_len + idx - hist;
        const int whole = st->nlevels > 0 && m == st->grid;
        if (st->nlevels > 0)
            sync_begin(st, path, t, whole);
        segment_output(st, path, path->filter, path->out->block, h, t, m, whole, y);
        if (st->mixing)
            segment_output(st, path, path->incoming, path->out->block_new, h, t, m, whole,
                           path->out->y_new);
        gf_frames_give(out, channels, (unsigned)c, y, st->mixing ? path->out->y_new : NULL,
                       st->w + (t - st->now), m);
        t += m;
        if (in)
            in += m * channels;
        out += m * channels;
        n -= m;
        if (st->nlevels > 0)
            sync_ahead(st, path, path->sync_done, t);
        advance(st, path, t);
        if (path->incoming && !st->mixing)
            warm_incoming(st, path, m);
    }
}

/* ---- crossfades ----------------------------------------------------------------------- */

/* The first level's share of a swap, made at once: it is one block's work
 * (what a call that starts a block does anyway). Inside a block, the
 * incoming filter's block being read and as much of the next block's
 * partitions from 2 on as the current filter has made; at a boundary, all
 * of the next block's partitions from 2 on. */
static void sync_swap(const nu_state *st, nu_path *path)
{
    const nu_level *lv = &st->level[0];
    const size_t N = st->grid, now = st->now, b = now & ~(N - 1);
    float *acc = path->out->acc_new[0];
    memset(acc, 0, 2 * lv->bstride * sizeof *acc);
    if (now != b) {
        sync_mac(st, path, path->incoming, 1, lv->nparts, b + N, acc);
        gf_sliced_inverse(&lv->fft, 0, acc, acc + lv->bstride, path->scratch,
                          path->out->block_new[0][0]);
        memset(acc, 0, 2 * lv->bstride * sizeof *acc);
        sync_mac(st, path, path->incoming, 2, 2 + path->sync_ahead, b + 2 * N, acc);
    } else
        sync_mac(st, path, path->incoming, 2, lv->nparts, b + N, acc);
}

/* The first block of level l that starts at or after now and has done no
 * unit yet. */
static size_t next_block(const nu_state *st, const nu_path *path, size_t l)
{
    const size_t now = st->now, P = st->level[l].part;
    const size_t s = (now + P - 1) & ~(P - 1);
    return s == now && path->start[l] == now && path->done[l] > 0 ? s + P : s;
}

/*
 * Rather than make the incoming filter's share of the blocks in flight at
 * once (at 2^20 taps a thousand normal calls' work in one), a swap makes its
 * output for blocks from the next of each level on, in the calls' own time,
 * and the fade begins once those are the blocks being read: a larger
 * level's next block is read from one partition after it starts. The first
 * level's share is one block's work, made at once when needed (sync_swap),
 * so a plan with no larger level fades from now.
 */
size_t gf_nu_path_fade_from(const nu_state *st, const nu_path *path)
{
    size_t from = st->now;
    for (size_t l = 0; l < st->nlevels; l++)
        if (!st->level[l].sync) {
            const size_t read = next_block(st, path, l) + st->level[l].part;
            from = read > from ? read : from;
        }
    return from;
}

/*
 * Blocks of P frames that start at b are read over [b + P, b + 2P) (the
 * first level's over [b, b + P)): only those read within the fade [from,
 * to) need both filters; those read before it the current one, those read
 * after it the incoming one. At 2^20 taps a fade of 2400 frames so needs
 * both only in one block of each level from 8192 frames on, where the
 * levels of 1024 frames and the first would otherwise have made both for
 * the whole wait, up to two partitions of 65536.
 */
void gf_nu_path_swap(const nu_state *st, nu_path *path, const nu_filter *incoming, size_t from,
                     size_t to)
{
    path->incoming = incoming;
    path->warmed = 0;
    path->fade_from = from;
    path->fade_to = to;
    for (size_t l = 0; l < st->nlevels; l++) {
        const size_t P = st->level[l].part, grid = from & ~(P - 1);
        if (st->level[l].sync) {
            const size_t b = st->now & ~(P - 1);
            path->since[l] = grid;
            /* the next block's partitions from 2 on are made in this one */
            if (grid <= b + P) {
                sync_swap(st, path);
                path->since[l] = b;
            }
        } else {
            const size_t s = next_block(st, path, l), first = grid >= P ? grid - P : 0;
            const size_t left = to > P ? to - P : 0;
            path->since[l] = first > s ? first : s;
            path->until[l] = left / P * P + (left % P ? P : 0);
            /* the block in flight makes block !cur, the next one cur, ... */
            path->warm_first[l] =
                !path->out->cur[l] ^ (int)(((path->since[l] - path->start[l]) / P) & 1);
        }
    }
}
