/*
 * file.c - the offline job: INPUT through the filter into OUTPUT with
 * libsndfile, block by block so memory stays bounded by the block size and the
 * filter, whatever the file's length.
 *
 * Nothing is lost: OUTPUT is written to a temporary file beside it and renamed
 * over it only when everything succeeded; INPUT is only ever opened for reading.
 */
#include "filter.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <sndfile.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/stat.h>
#include <unistd.h>

#define PATH_LEN 4096
/* Blocks in flight on each side of the filter: the reader can be one ahead
 * and the writer one behind while a third is filtered. */
#define PIPE_DEPTH 3

typedef struct job {
    const cli_options *o;
    SNDFILE *in, *out;
    SF_INFO in_info, out_info;
    cli_chain chain;
    float *bufs[2 * PIPE_DEPTH];    /* blocks for the pipeline, block x channels each */
    size_t block;
    unsigned channels;
    /* alignment: frames dropped from the front, frames written, frames wanted */
    size_t skip_left;
    uint64_t written;
    int dither, count_clips;
    float steps;                /* 8- and 16-bit output: quantisation steps per 1.0, else 0 */
    short *pcm;                 /* 16-bit output: a block of integer samples, else NULL */
    uint64_t rng;
    uint64_t clipped;
    float peak;
} job;

/* The temporary file, for removal on a signal (unlink is async-signal-safe). */
static char tmp_path[PATH_LEN];

static void on_signal(int sig)
{
    if (tmp_path[0])
        unlink(tmp_path);
    signal(sig, SIG_DFL);
    raise(sig);
}

static void catch_signals(void)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        sigaction(sigs[i], &sa, NULL);
}

static int open_input(const char *path, SNDFILE **sf, SF_INFO *info)
{
    struct stat sb;
    if (stat(path, &sb) != 0)
        return cli_error("cannot open INPUT '%s': %s", path, strerror(errno));
    if (S_ISDIR(sb.st_mode))
        return cli_error("INPUT '%s' is a directory", path);
    if (S_ISREG(sb.st_mode) && sb.st_size == 0)
        return cli_error("INPUT '%s' is empty (0 bytes)", path);
    memset(info, 0, sizeof *info);
    *sf = sf_open(path, SFM_READ, info);
    if (!*sf)
        return cli_error("cannot read INPUT '%s' as sound: %s", path, sf_strerror(NULL));
    if (info->frames == 0) {
        sf_close(*sf);
        *sf = NULL;
        return cli_error("INPUT '%s' has no audio frames", path);
    }
    return 0;
}

int cli_input_shape(const char *path, double *rate_hz, unsigned *channels)
{
    SNDFILE *sf;
    SF_INFO info;
    if (open_input(path, &sf, &info))
        return 1;
    *rate_hz = info.samplerate;
    *channels = (unsigned)info.channels;
    sf_close(sf);
    return 0;
}

/* ---- the output's format -------------------------------------------------- */

static const struct {
    const char *name;
    int subtype;
} subtypes[] = {
    {"pcm8", SF_FORMAT_PCM_S8}, {"pcm8", SF_FORMAT_PCM_U8}, {"pcm16", SF_FORMAT_PCM_16},
    {"pcm24", SF_FORMAT_PCM_24}, {"pcm32", SF_FORMAT_PCM_32}, {"float", SF_FORMAT_FLOAT},
    {"double", SF_FORMAT_DOUBLE}, {"ulaw", SF_FORMAT_ULAW}, {"alaw", SF_FORMAT_ALAW},
    {"vorbis", SF_FORMAT_VORBIS}, {"opus", SF_FORMAT_OPUS},
};

static const char *subtype_name(int subtype)
{
    for (size_t i = 0; i < sizeof subtypes / sizeof subtypes[0]; i++)
        if (subtypes[i].subtype == subtype)
            return subtypes[i].name;
    return "the input's encoding";
}

/* A container by extension or name ("wav", "flac", "aif", ...), or 0. */
static int container_for(const char *name)
{
    static const struct {
        const char *alias, *ext;
    } aliases[] = {{"aif", "aiff"}, {"aifc", "aiff"}, {"ogg", "oga"}, {"opus", "oga"},
                   {"snd", "au"},   {"wave", "wav"}};
    SF_FORMAT_INFO fi;
    int count = 0;
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (!strcasecmp(name, aliases[i].alias))
            name = aliases[i].ext;
    sf_command(NULL, SFC_GET_FORMAT_MAJOR_COUNT, &count, sizeof count);
    for (int i = 0; i < count; i++) {
        fi.format = i;
        if (sf_command(NULL, SFC_GET_FORMAT_MAJOR, &fi, sizeof fi) == 0 && fi.extension &&
            !strcasecmp(name, fi.extension))
            return fi.format & SF_FORMAT_TYPEMASK;
    }
    return 0;
}

static int valid_format(SF_INFO *info, int container, int subtype)
{
    info->format = container | subtype;
    return sf_format_check(info);
}

/* --format CONTAINER[:SAMPLES], or OUTPUT's extension and INPUT's samples. */
static int choose_format(const cli_options *o, const SF_INFO *in, SF_INFO *out)
{
    char container_name[32] = "";
    const char *samples = NULL, *dot;
    int container, fallback[] = {SF_FORMAT_PCM_24, SF_FORMAT_PCM_16, SF_FORMAT_FLOAT,
                                 SF_FORMAT_VORBIS};

    memset(out, 0, sizeof *out);
    out->samplerate = in->samplerate;
    out->channels = in->channels;
    if (o->format) {
        size_t len = strcspn(o->format, ":");
        snprintf(container_name, sizeof container_name, "%.*s", (int)len, o->format);
        samples = o->format[len] ? o->format + len + 1 : NULL;
    } else if ((dot = strrchr(o->output, '.')) && !strchr(dot, '/')) {
        snprintf(container_name, sizeof container_name, "%s", dot + 1);
    }
    if (!container_name[0])
        return cli_error("OUTPUT '%s' has no extension to tell its format; add one or use "
                         "--format (e.g. --format wav:pcm16)", o->output);
    container = container_for(container_name);
    if (!container)
        return cli_error("unknown output format '%s' (use wav, flac, aiff, ogg, caf, w64, "
                         "au, rf64, ...)", container_name);
    if (samples) {
        for (size_t i = 0; i < sizeof subtypes / sizeof subtypes[0]; i++)
            if (!strcmp(samples, subtypes[i].name) &&
                valid_format(out, container, subtypes[i].subtype))
                return 0;
        return cli_error("--format %s: '%s' samples are unknown or cannot go in a %s file",
                         o->format, samples, container_name);
    }
    if (valid_format(out, container, in->format & SF_FORMAT_SUBMASK))
        return 0;
    for (size_t i = 0; i < sizeof fallback / sizeof fallback[0]; i++) {
        if (valid_format(out, container, fallback[i])) {
            cli_note(o->quiet, "note: a %s file cannot hold %s samples; writing %s",
                     container_name, subtype_name(in->format & SF_FORMAT_SUBMASK),
                     subtype_name(fallback[i]));
            return 0;
        }
    }
    return cli_error("a %s file cannot hold %d channels at %d Hz", container_name,
                     in->channels, in->samplerate);
}

/* ---- the temporary file and OUTPUT ---------------------------------------- */

static int same_file(const char *input, const char *output)
{
    struct stat a, b;
    if (stat(output, &b) != 0)
        return 0;
    return stat(input, &a) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* Creates the temporary file beside OUTPUT with OUTPUT's future permissions. */
static int create_temp(const char *output, int *fd)
{
    const char *slash = strrchr(output, '/');
    const char *base = slash ? slash + 1 : output;
    int dirlen = slash ? (int)(slash - output) + 1 : 0;
    struct stat sb;
    mode_t mode, mask;

    if (snprintf(tmp_path, sizeof tmp_path, "%.*s.%s.gfir-XXXXXX", dirlen, output, base) >=
        (int)sizeof tmp_path)
        return cli_error("OUTPUT path '%s' is too long", output);
    *fd = mkstemp(tmp_path);
    if (*fd < 0) {
        int err = errno;
        tmp_path[0] = '\0';
        return cli_error("cannot write in OUTPUT's directory '%.*s': %s",
                         dirlen > 1 ? dirlen - 1 : 1, dirlen ? output : ".", strerror(err));
    }
    if (stat(output, &sb) == 0) {
        mode = sb.st_mode & 07777;
    } else {
        mask = umask(0);
        umask(mask);
        mode = 0666 & ~mask;
    }
    fchmod(*fd, mode);
    return 0;
}

static int check_output(const cli_options *o)
{
    struct stat sb;
    if (same_file(o->input, o->output))
        return cli_error("OUTPUT '%s' is the same file as INPUT '%s'; gfir never overwrites "
                         "its input", o->output, o->input);
    if (stat(o->output, &sb) == 0 && S_ISDIR(sb.st_mode))
        return cli_error("OUTPUT '%s' is a directory", o->output);
    return 0;
}

/* ---- filtering ------------------------------------------------------------- */

/* xorshift64*: fast, and the same dither on every run. */
static float uniform(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return (float)((*s * 0x2545F4914F6CDD1DULL) >> 40) * (1.0f / 16777216.0f);
}

/*
 * Counts what would clip, clips so integer output never wraps, and for 8- and
 * 16-bit output adds TPDF dither (two uniforms, +-1 LSB) and rounds to the
 * output's grid here: libsndfile's clipping conversion truncates toward minus
 * infinity, which would bias every sample by half a step. 16-bit output
 * leaves as integers in pcm (sf_writef_short), so libsndfile does not
 * convert it a second time; other formats stay float in buf.
 *
 * Separate loops over locals, so the compiler vectorises all but the
 * dither's: on a 10-minute stereo file this pass and libsndfile's float
 * conversion were a quarter of the CPU time of a 15-tap run.
 */
static void condition(job *j, float *restrict buf, size_t n, short *restrict pcm)
{
    const float steps = j->steps;
    if (j->count_clips) {
        size_t clipped = 0;
        float top = 0.0f;
        for (size_t i = 0; i < n; i++) {
            const float a = fabsf(buf[i]);
            clipped += a > 1.0f;
            top = a > top ? a : top;
        }
        j->clipped += clipped;
        if (top > 1.0f && top > j->peak)
            j->peak = top;
    }
    if (j->dither) {
        uint64_t rng = j->rng;
        for (size_t i = 0; i < n; i++)
            buf[i] += (uniform(&rng) - uniform(&rng)) / steps;
        j->rng = rng;
    }
    if (steps > 0) {
        /* clamped to the grid's ends, then rounded to even by the 1.5 * 2^23
         * trick: both ends are integers, so the order does not matter */
        const float lo = -steps, hi = steps - 1.0f, magic = 12582912.0f;
        for (size_t i = 0; i < n; i++) {
            float v = buf[i] * steps;
            v = v > hi ? hi : v < lo ? lo : v == v ? v : 0.0f; /* NaN: silence */
            v = (v + magic) - magic;
            if (pcm)
                pcm[i] = (short)v;
            else
                buf[i] = v / steps;
        }
    } else if (j->count_clips) {
        for (size_t i = 0; i < n; i++)
            buf[i] = buf[i] > 1.0f ? 1.0f : buf[i] < -1.0f ? -1.0f : buf[i];
    }
}

/* Writes frames of filtered output, dropping the alignment's first frames and
 * anything past `limit` frames. */
static int emit(job *j, float *buf, size_t frames, uint64_t limit)
{
    size_t drop = frames < j->skip_left ? frames : j->skip_left;
    sf_count_t done;
    j->skip_left -= drop;
    buf += drop * j->channels;
    frames -= drop;
    if (frames > limit - j->written)
        frames = (size_t)(limit - j->written);
    if (frames == 0)
        return 0;
    condition(j, buf, frames * j->channels, j->pcm);
    done = j->pcm ? sf_writef_short(j->out, j->pcm, (sf_count_t)frames)
                  : sf_writef_float(j->out, buf, (sf_count_t)frames);
    if (done != (sf_count_t)frames)
        return cli_error("cannot write OUTPUT '%s': %s", j->o->output, sf_strerror(j->out));
    j->written += frames;
    return 0;
}

static int plan_error(const job *j, gfir_status st)
{
    return cli_error("filtering failed: %s", cli_chain_error(&j->chain, st));
}

/*
 * Reading, filtering and writing run on three threads, handing blocks along
 * through small queues, so a file takes about as long as the slowest of the
 * three rather than their sum. Only the writer touches the job's output state
 * (alignment, dither, clipping counts), and only in order.
 */
typedef struct slot {
    float *buf;
    size_t frames;
    uint64_t limit;             /* frames of output wanted in all */
} slot;

typedef struct queue {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    slot items[PIPE_DEPTH];
    size_t head, count;
    int closed;
} queue;

static void q_init(queue *q)
{
    memset(q, 0, sizeof *q);
    pthread_mutex_init(&q->mu, NULL);
    pthread_cond_init(&q->cv, NULL);
}

static void q_destroy(queue *q)
{
    pthread_mutex_destroy(&q->mu);
    pthread_cond_destroy(&q->cv);
}

/* Never full: each queue serves PIPE_DEPTH buffers. */
static void q_push(queue *q, slot s)
{
    pthread_mutex_lock(&q->mu);
    q->items[(q->head + q->count++) % PIPE_DEPTH] = s;
    pthread_cond_signal(&q->cv);
    pthread_mutex_unlock(&q->mu);
}

/* 0 once the queue is closed and empty. */
static int q_pop(queue *q, slot *s)
{
    pthread_mutex_lock(&q->mu);
    while (!q->count && !q->closed)
        pthread_cond_wait(&q->cv, &q->mu);
    int got = q->count > 0;
    if (got) {
        *s = q->items[q->head];
        q->head = (q->head + 1) % PIPE_DEPTH;
        q->count--;
    }
    pthread_mutex_unlock(&q->mu);
    return got;
}

static void q_close(queue *q)
{
    pthread_mutex_lock(&q->mu);
    q->closed = 1;
    pthread_cond_broadcast(&q->cv);
    pthread_mutex_unlock(&q->mu);
}

typedef struct pipeline {
    job *j;
    queue free_in, full_in, free_out, full_out;
    atomic_int stop;            /* the filter gave up: the reader stops too */
    atomic_int read_failed, write_failed;
} pipeline;

static void *reader_main(void *arg)
{
    pipeline *p = arg;
    slot s;
    while (!atomic_load(&p->stop) && q_pop(&p->free_in, &s)) {
        sf_count_t got = sf_readf_float(p->j->in, s.buf, (sf_count_t)p->j->block);
        if (got <= 0) {
            atomic_store(&p->read_failed, sf_error(p->j->in) != 0);
            break;
        }
        s.frames = (size_t)got;
        q_push(&p->full_in, s);
    }
    q_close(&p->full_in);
    return NULL;
}

static void *writer_main(void *arg)
{
    pipeline *p = arg;
    slot s;
    /* after a failure it keeps taking blocks, unwritten, so the filter never waits */
    while (q_pop(&p->full_out, &s)) {
        if (!atomic_load(&p->write_failed) && emit(p->j, s.buf, s.frames, s.limit))
            atomic_store(&p->write_failed, 1);
        q_push(&p->free_out, s);
    }
    return NULL;
}

/* Filters one block from in (NULL: the tail, silence) into a free output
 * block and hands it to the writer. */
static int filter_block(job *j, pipeline *p, const float *in, size_t n, uint64_t limit)
{
    slot out;
    gfir_status st;
    if (!q_pop(&p->free_out, &out))
        return 1;
    st = in ? cli_chain_execute(&j->chain, in, out.buf, n) : cli_chain_flush(&j->chain, out.buf, n);
    if (st != GFIR_OK) {
        q_push(&p->free_out, out);
        return plan_error(j, st);
    }
    out.frames = n;
    out.limit = limit;
    q_push(&p->full_out, out);
    return atomic_load(&p->write_failed);
}

static int run_pipeline(job *j, pipeline *p, progress *pg)
{
    const cli_align align = j->o->align != CLI_ALIGN_DEFAULT ? j->o->align
                            : cli_filter_has_ir(j->o->filter) ? CLI_ALIGN_FULL
                                                              : CLI_ALIGN_SAME;
    const size_t ntaps = j->chain.ntaps;
    /* the writer drops these first: the engine's latency, and for `same` the
     * filter's delay; the tail below owes them back */
    const uint64_t skip = j->chain.latency_frames + (align == CLI_ALIGN_SAME ? (ntaps - 1) / 2 : 0);
    uint64_t frames_in = 0, total, owed;
    slot in;
    int rc = 0;

    j->skip_left = (size_t)skip;
    while (!rc && q_pop(&p->full_in, &in)) {
        rc = filter_block(j, p, in.buf, in.frames, UINT64_MAX);
        frames_in += in.frames;
        q_push(&p->free_in, in);
        progress_update(pg, (double)frames_in);
    }
    if (rc)
        return rc;
    if (atomic_load(&p->read_failed))
        return cli_error("cannot read INPUT '%s': %s", j->o->input, sf_strerror(j->in));
    if (frames_in == 0)
        return cli_error("INPUT '%s' has no audio frames", j->o->input);
    /* The tail: what the skipped frames and --align full still owe. */
    total = frames_in + (align == CLI_ALIGN_FULL ? ntaps - 1 : 0);
    for (owed = total + skip - frames_in; !rc && owed > 0;) {
        size_t n = owed < j->block ? (size_t)owed : j->block;
        rc = filter_block(j, p, NULL, n, total);
        owed -= n;
    }
    return rc;
}

static int filter_all(job *j, progress *pg)
{
    pipeline p;
    pthread_t reader, writer;
    int rc;

    memset(&p, 0, sizeof p);
    p.j = j;
    q_init(&p.free_in);
    q_init(&p.full_in);
    q_init(&p.free_out);
    q_init(&p.full_out);
    for (int i = 0; i < PIPE_DEPTH; i++) {
        q_push(&p.free_in, (slot){j->bufs[i], 0, 0});
        q_push(&p.free_out, (slot){j->bufs[PIPE_DEPTH + i], 0, 0});
    }
    if (pthread_create(&reader, NULL, reader_main, &p) != 0) {
        rc = cli_error("cannot start a reader thread");
        goto done;
    }
    if (pthread_create(&writer, NULL, writer_main, &p) != 0) {
        atomic_store(&p.stop, 1);
        q_close(&p.free_in);
        pthread_join(reader, NULL);
        rc = cli_error("cannot start a writer thread");
        goto done;
    }
    rc = run_pipeline(j, &p, pg);
    /* stop the reader (it may be waiting for a free block), drain the writer */
    atomic_store(&p.stop, 1);
    q_close(&p.free_in);
    pthread_join(reader, NULL);
    q_close(&p.full_out);
    pthread_join(writer, NULL);
    if (!rc && atomic_load(&p.write_failed))
        rc = 1; /* emit said why */
done:
    q_destroy(&p.free_in);
    q_destroy(&p.full_in);
    q_destroy(&p.free_out);
    q_destroy(&p.full_out);
    return rc;
}

static void setup_conditioning(job *j)
{
    const int sub = j->out_info.format & SF_FORMAT_SUBMASK;
    j->count_clips = sub != SF_FORMAT_FLOAT && sub != SF_FORMAT_DOUBLE &&
                     sub != SF_FORMAT_VORBIS && sub != SF_FORMAT_OPUS;
    j->steps = sub == SF_FORMAT_PCM_16                              ? 32768.0f
               : sub == SF_FORMAT_PCM_S8 || sub == SF_FORMAT_PCM_U8 ? 128.0f
                                                                    : 0.0f;
    j->dither = !j->o->no_dither && j->steps > 0;
    j->rng = 0x9E3779B97F4A7C15ULL;
    /* libsndfile clips instead of wrapping integers that overflow. */
    sf_command(j->out, SFC_SET_CLIPPING, NULL, SF_TRUE);
}

static void report(const job *j, double seconds)
{
    if (j->clipped) {
        double over_db = 20 * log10(j->peak);
        /* the hint is the whole --gain to use, this run's gain included */
        fprintf(stderr, "gfir: %llu samples clipped (peak %.1f dB over full scale); try "
                "--gain %g\n", (unsigned long long)j->clipped, over_db,
                floor(j->o->filter->gain_db - over_db - 0.05));
    }
    if (j->o->verbose) {
        double audio_s = (double)j->written / j->out_info.samplerate;
        fprintf(stderr, "gfir: wrote %llu frames (%.2f s of audio) in %.3f s: %.1fx realtime\n",
                (unsigned long long)j->written, audio_s, seconds,
                seconds > 0 ? audio_s / seconds : 0.0);
    }
}

int cli_run_file(const cli_options *o)
{
    job j;
    progress pg;
    int fd = -1, rc = 1;
    double t0;

    memset(&j, 0, sizeof j);
    j.o = o;
    j.block = o->block_frames ? o->block_frames : CLI_FILE_BLOCK_FRAMES;
    if (check_output(o) || open_input(o->input, &j.in, &j.in_info))
        goto done;
    j.channels = (unsigned)j.in_info.channels;
    if (choose_format(o, &j.in_info, &j.out_info))
        goto done;
    if (cli_chain_create(o, j.in_info.samplerate, j.channels, j.block, &j.chain))
        goto done;
    for (int i = 0; i < 2 * PIPE_DEPTH; i++) {
        j.bufs[i] = malloc(j.block * j.channels * sizeof *j.bufs[i]);
        if (!j.bufs[i]) {
            cli_error("out of memory for blocks of %zu frames", j.block);
            goto done;
        }
    }
    catch_signals();
    if (create_temp(o->output, &fd))
        goto done;
    j.out = sf_open_fd(fd, SFM_WRITE, &j.out_info, SF_FALSE);
    if (!j.out) {
        cli_error("cannot write OUTPUT '%s': %s", o->output, sf_strerror(NULL));
        goto done;
    }
    setup_conditioning(&j);
    if ((j.out_info.format & SF_FORMAT_SUBMASK) == SF_FORMAT_PCM_16) {
        j.pcm = malloc(j.block * j.channels * sizeof *j.pcm);
        if (!j.pcm) {
            cli_error("out of memory for blocks of %zu frames", j.block);
            goto done;
        }
    }
    progress_start(&pg, !o->quiet, (double)j.in_info.frames, j.in_info.samplerate);
    t0 = progress_now();
    rc = filter_all(&j, &pg);
    progress_end(&pg);
    if (sf_close(j.out) != 0 && !rc)
        rc = cli_error("cannot finish OUTPUT '%s': %s", o->output, sf_strerror(NULL));
    j.out = NULL;
    /* on disk before the rename, so a crash cannot leave OUTPUT empty */
    if (!rc && fsync(fd) != 0)
        rc = cli_error("cannot write OUTPUT '%s': %s", o->output, strerror(errno));
    if (!rc && rename(tmp_path, o->output) != 0)
        rc = cli_error("cannot rename the finished output to '%s': %s", o->output,
                       strerror(errno));
    if (!rc) {
        tmp_path[0] = '\0';
        report(&j, progress_now() - t0);
    }
done:
    if (j.out)
        sf_close(j.out);
    if (fd >= 0)
        close(fd);
    if (tmp_path[0]) {
        unlink(tmp_path);
        tmp_path[0] = '\0';
    }
    if (j.in)
        sf_close(j.in);
    cli_chain_destroy(&j.chain);
    for (int i = 0; i < 2 * PIPE_DEPTH; i++)
        free(j.bufs[i]);
    free(j.pcm);
    return rc;
}
