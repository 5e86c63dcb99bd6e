/*
 * lv2_bench.c - times an LV2 convolver's run() in the tests' liblilv host
 * (tests/lv2/host.h), once it has shown that it filters with the IR.
 *
 * The IR is set by patch:Set of the plugin's path property, or with
 * --restore as the plugin's state (state:state with the property set to the
 * file, restored with a worker schedule as Ardour restores a session and
 * jalv a preset: for plugins whose patch:Set does not load a file), while
 * three seconds of silence run in blocks of a fixed size on every audio
 * port (64 a side for gfir convolver-64).
 *
 * Then a unit impulse enters every input, and each output's next latency +
 * ntaps frames must be the IR's channel (c modulo the file's channels)
 * times one gain, delayed by the latency the plugin reports (with --kept N:
 * the IR's first N taps and silence after them, for a plugin that keeps no
 * more of a file). The latency, the gain and the worst relative error are
 * printed; an error over 1e-3 (silence, the dry input, a cut or a wrong IR)
 * ends the run.
 *
 * Then seconds of random audio: the plugin's status note, if any, the
 * median, 99.9th percentile and worst time of run() (with the work
 * responses it takes in) against the block's period, the mean as a share of
 * it (the CPU load of one core), and the CPU time the process's other
 * threads took meanwhile as a share of the audio's duration (a convolver
 * that hands its long partitions to threads of its own does that work
 * there).
 *   lv2_bench [--restore] [--kept N] URI PROPERTY IR_FILE BLOCK SECONDS [SYMBOL=VALUE ...]
 * tools/bench/lv2.sh runs it for gfir convolver and its Debian peers.
 */
#include "host.h"

#include <lilv/lilv.h>
#include <sndfile.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define RATE 48000.0
#define MAX_ERROR 1e-3

static double clock_s(clockid_t id)
{
    struct timespec t;
    clock_gettime(id, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double started, *times;
static size_t ntimes;

static void stamp(int on)
{
    if (on)
        started = clock_s(CLOCK_MONOTONIC);
    else if (times)
        times[ntimes++] = clock_s(CLOCK_MONOTONIC) - started;
}

static int by_value(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The IR file's taps, planar (channel c at taps + c * frames). */
static float *read_ir(const char *path, unsigned *channels, size_t *frames)
{
    SF_INFO info = {0};
    SNDFILE *f = sf_open(path, SFM_READ, &info);
    float *frame = NULL, *taps = NULL;
    if (!f)
        return NULL;
    *channels = (unsigned)info.channels;
    *frames = (size_t)info.frames;
    frame = malloc(*channels * sizeof *frame);
    taps = malloc(*channels * *frames * sizeof *taps);
    for (size_t i = 0; frame && taps && i < *frames; i++) {
        if (sf_readf_float(f, frame, 1) != 1) {
            free(taps);
            taps = NULL;
            break;
        }
        for (unsigned c = 0; c < *channels; c++)
            taps[c * *frames + i] = frame[c];
    }
    free(frame);
    sf_close(f);
    return taps;
}

/* Appends path to out as a file URI, each byte outside [A-Za-z0-9/._~-]
 * percent-encoded. */
static void file_uri(char *out, size_t cap, const char *path)
{
    size_t n = (size_t)snprintf(out, cap, "file://");
    for (const unsigned char *p = (const unsigned char *)path; *p && n + 4 < cap; p++) {
        if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
            strchr("/._~-", *p))
            out[n++] = (char)*p;
        else
            n += (size_t)snprintf(out + n, cap - n, "%%%02X", *p);
    }
    out[n] = '\0';
}

/* The IR as the plugin's state: a preset naming the file as property,
 * written to a directory of its own and restored from there. 0 on success. */
static int restore_ir(host *h, const char *uri, const char *property, const char *ir)
{
    char dir[] = "/tmp/lv2_bench.XXXXXX", file[64], *abs = realpath(ir, NULL);
    char value[3 * 4096 + 16];
    FILE *ttl;
    int failed = 1;
    if (!abs || !mkdtemp(dir)) {
        free(abs);
        return 1;
    }
    file_uri(value, sizeof value, abs);
    snprintf(file, sizeof file, "%s/state.ttl", dir);
    if ((ttl = fopen(file, "w"))) {
        fprintf(ttl,
                "@prefix lv2: <http://lv2plug.in/ns/lv2core#> .\n"
                "@prefix pset: <http://lv2plug.in/ns/ext/presets#> .\n"
                "@prefix state: <http://lv2plug.in/ns/ext/state#> .\n"
                "<> a pset:Preset ;\n"
                "    lv2:appliesTo <%s> ;\n"
                "    state:state [ <%s> <%s> ] .\n",
                uri, property, value);
        failed = fclose(ttl) != 0 || host_restore(h, dir, 1);
        unlink(file);
    }
    rmdir(dir);
    free(abs);
    return failed;
}

/* The latency the plugin reports, in frames (0 where it reports none). */
static size_t latency_frames(const host *h)
{
    if (!lilv_plugin_has_latency(h->plugin))
        return 0;
    const float frames = h->controls[lilv_plugin_get_latency_port_index(h->plugin)];
    return frames > 0 ? (size_t)frames : 0;
}

/* Each output's answer to a unit impulse on every input against the IR's
 * channel, cut after kept taps (0: none cut), at the best gain (the same
 * for all outputs). 0, or 1 with the reason on stderr. */
static int check_response(host *h, const char *uri, const char *ir_path, size_t kept,
                          size_t block, float *const *x, float *const *y)
{
    unsigned nch = 1;
    size_t ntaps = 0;
    float *taps = read_ir(ir_path, &nch, &ntaps), *rec[HOST_MAX_AUDIO] = {0};
    double worst = 0, worst_dry = 0, heard = 0, gain = 0, gain_spread = 0;
    int failed = 1;
    const size_t latency = latency_frames(h);
    if (!taps || !ntaps || !nch) {
        fprintf(stderr, "lv2_bench: cannot read %s\n", ir_path);
        free(taps);
        return 1;
    }
    const size_t calls = (latency + ntaps + block - 1) / block;
    for (unsigned c = 0; c < h->outputs; c++)
        if (!(rec[c] = malloc(calls * block * sizeof *rec[c])))
            goto done;
    for (size_t k = 0; k < calls; k++) {
        for (unsigned c = 0; c < h->inputs; c++)
            x[c][0] = k == 0 ? 1.0f : 0.0f;
        host_cycle(h, x, y, (uint32_t)block);
        for (unsigned c = 0; c < h->outputs; c++)
            memcpy(rec[c] + k * block, y[c], block * sizeof *y[c]);
    }
    for (unsigned c = 0; c < h->inputs; c++)
        x[c][0] = 0.0f;
    for (unsigned c = 0; c < h->outputs; c++) {
        const float *t = taps + (c % nch) * ntaps, *r = rec[c] + latency;
        double th = 0, tt = 0, rr = 0, dry = 0;
        for (size_t i = 0; i < ntaps; i++) {
            const double tap = !kept || i < kept ? t[i] : 0;
            th += tap * r[i];
            tt += tap * tap;
            rr += (double)r[i] * r[i];
            dry += ((double)r[i] - (i == 0)) * ((double)r[i] - (i == 0));
        }
        const double g = th / tt, residual = rr - th * th / tt;
        if (c == 0)
            gain = g;
        gain_spread = fmax(gain_spread, fabs(g - gain) / fabs(gain));
        heard += rr;
        if (c == 0 || dry > worst_dry)
            worst_dry = dry;
        worst = g != 0 ? fmax(worst, sqrt(fmax(residual, 0) / (g * g * tt))) : INFINITY;
    }
    if (heard == 0)
        fprintf(stderr, "lv2_bench: %s gives silence: its IR did not load (%s)\n", uri,
                h->notified_status);
    else if (worst_dry < 1e-6)
        fprintf(stderr, "lv2_bench: %s gives its input unfiltered: its IR did not load (%s)\n",
                uri, h->notified_status);
    else if (!(worst <= MAX_ERROR))
        fprintf(stderr, "lv2_bench: %s does not answer an impulse with the IR: relative error "
                "%.2e after the best gain (%.4g) at latency %zu\n", uri, worst, gain, latency);
    else if (!(gain_spread <= MAX_ERROR))
        fprintf(stderr, "lv2_bench: %s answers an impulse with the IR at gains %.2e apart\n",
                uri, gain_spread);
    else
        failed = 0;
    if (!failed)
        printf("response: latency %zu frames, gain %.4f, relative error %.2e, IR of %zu taps%s\n",
               latency, gain, worst, ntaps, kept && kept < ntaps ? " cut after --kept" : "");
done:
    for (unsigned c = 0; c < h->outputs; c++)
        free(rec[c]);
    free(taps);
    return failed;
}

int main(int argc, char **argv)
{
    host h;
    float *x[HOST_MAX_AUDIO], *y[HOST_MAX_AUDIO];
    int restore = 0;
    size_t kept = 0;
    for (; argc > 1 && !strncmp(argv[1], "--", 2); argc--, argv++) {
        if (!strcmp(argv[1], "--restore"))
            restore = 1;
        else if (!strcmp(argv[1], "--kept") && argc > 2)
            kept = (size_t)atol((argc--, ++argv)[1]);
        else
            argc = 0;
    }
    if (argc < 6) {
        fprintf(stderr, "usage: lv2_bench [--restore] [--kept N] URI PROPERTY IR_FILE BLOCK "
                        "SECONDS [SYMBOL=VALUE ...]\n");
        return 2;
    }
    const size_t block = (size_t)atol(argv[4]);
    const size_t calls = (size_t)(atof(argv[5]) * RATE / (double)block);
    if (block == 0 || calls == 0 || host_open(&h, argv[1], RATE, (int32_t)block))
        return 1;
    for (int i = 6; i < argc; i++) {
        char *eq = strchr(argv[i], '=');
        int port;
        if (!eq)
            return 2;
        *eq = '\0';
        if ((port = host_port(&h, argv[i])) < 0) {
            fprintf(stderr, "lv2_bench: %s has no port %s\n", argv[1], argv[i]);
            return 1;
        }
        h.controls[port] = (float)atof(eq + 1);
    }
    /* every audio port of the plugin (64 a side for gfir convolver-64) */
    for (unsigned c = 0; c < HOST_MAX_AUDIO; c++) {
        x[c] = calloc(block, sizeof *x[c]);
        y[c] = calloc(block, sizeof *y[c]);
        if (!x[c] || !y[c])
            return 1;
    }
    times = malloc(calls * sizeof *times);
    /* the IR, then three seconds of silence for the worker and any crossfade */
    if (restore) {
        if (restore_ir(&h, argv[1], argv[2], argv[3])) {
            fprintf(stderr, "lv2_bench: %s did not restore a state with %s\n", argv[1], argv[3]);
            return 1;
        }
    } else {
        host_set_path(&h, argv[2], argv[3]);
    }
    for (size_t i = 0; i < (size_t)(3 * RATE) / block; i++)
        host_cycle(&h, x, y, (uint32_t)block);
    if (check_response(&h, argv[1], argv[3], kept, block, x, y))
        return 1;
    for (unsigned c = 0; c < HOST_MAX_AUDIO; c++)
        for (size_t i = 0; i < block; i++)
            x[c][i] = (float)(rand() / (double)RAND_MAX - 0.5);
    /* how it runs (a CUDA backend that fell back to the CPU says so) */
    if (h.notified_status[0])
        printf("status: %s\n", h.notified_status);
    const double process0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
    const double thread0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
    host_armed = stamp;
    for (size_t i = 0; i < calls; i++)
        host_cycle(&h, x, y, (uint32_t)block);
    host_armed = NULL;
    const double others = fmax(0, clock_s(CLOCK_PROCESS_CPUTIME_ID) - process0 -
                                      (clock_s(CLOCK_THREAD_CPUTIME_ID) - thread0));
    double sum = 0;
    for (size_t i = 0; i < ntimes; i++)
        sum += times[i];
    qsort(times, ntimes, sizeof *times, by_value);
    const double period = (double)block / RATE;
    printf("%s block %zu: median %.1f us, p99.9 %.1f us, worst %.1f us, period %.1f us; "
           "worst %.1f%% of the period, mean load %.2f%%, other threads %.2f%%\n", argv[1], block,
           times[ntimes / 2] * 1e6, times[(size_t)(ntimes * 0.999)] * 1e6,
           times[ntimes - 1] * 1e6, period * 1e6, 100 * times[ntimes - 1] / period,
           100 * sum / ntimes / period, 100 * others / ((double)calls * period));
    host_close(&h);
    return 0;
}
