/*
 * lv2_realtime_test.c - the plugins' run() (and work_response, which runs in
 * the audio thread too) allocates, frees, locks, sleeps and does I/O never,
 * also while filters and plans are swapped in and a new plan catches up on
 * the input it missed, and with an IR long enough for the zero-latency
 * engine's largest partitions (whose FFTW plans allocated inside
 * fftwf_execute until src/cpu/fftw.c turned buffering off): tests/core/realtime_test's
 * interposition, extended to the system calls an audio thread must not make
 * and moved from link-time wrapping to the executable's own exported
 * definitions, which the dlopen'ed plugin module binds to. The host
 * (host.h) arms the counters around the real-time part of each cycle only;
 * the worker's work is done between cycles, unarmed.
 */
#define _GNU_SOURCE
#include "host.h"
#include "ir_file.h"
#include "test_util.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

static int armed;
static int forbidden;
static const char *first_forbidden;

static void count(const char *what)
{
    if (armed) {
        if (!forbidden++)
            first_forbidden = what;
    }
}

void *__libc_malloc(size_t n);
void *__libc_calloc(size_t n, size_t size);
void *__libc_realloc(void *p, size_t n);
void __libc_free(void *p);
void *__libc_memalign(size_t align, size_t n);

void *malloc(size_t n) { count("malloc"); return __libc_malloc(n); }
void *calloc(size_t n, size_t size) { count("calloc"); return __libc_calloc(n, size); }
void *realloc(void *p, size_t n) { count("realloc"); return __libc_realloc(p, n); }
void free(void *p) { if (p) count("free"); __libc_free(p); }
int posix_memalign(void **p, size_t align, size_t n)
{
    count("posix_memalign");
    *p = __libc_memalign(align, n);
    return *p ? 0 : 12;
}
/* FFTW's own allocator (fftwf_malloc, and its solvers' buffers) calls memalign */
void *memalign(size_t align, size_t n) { count("memalign"); return __libc_memalign(align, n); }
void *aligned_alloc(size_t align, size_t n)
{
    count("aligned_alloc");
    return __libc_memalign(align, n);
}

static int (*real_lock)(pthread_mutex_t *);
static int (*real_wait)(pthread_cond_t *, pthread_mutex_t *);
static ssize_t (*real_write)(int, const void *, size_t);
static ssize_t (*real_read)(int, void *, size_t);
static int (*real_nanosleep)(const struct timespec *, struct timespec *);
static int (*real_yield)(void);
static int (*real_openat)(int, const char *, int, ...);

int pthread_mutex_lock(pthread_mutex_t *m) { count("pthread_mutex_lock"); return real_lock(m); }
int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
    count("pthread_cond_wait");
    return real_wait(c, m);
}
ssize_t write(int fd, const void *b, size_t n) { count("write"); return real_write(fd, b, n); }
ssize_t read(int fd, void *b, size_t n) { count("read"); return real_read(fd, b, n); }
int nanosleep(const struct timespec *t, struct timespec *r)
{
    count("nanosleep");
    return real_nanosleep(t, r);
}
int sched_yield(void) { count("sched_yield"); return real_yield(); }
int openat(int dir, const char *path, int flags, ...)
{
    va_list ap;
    va_start(ap, flags);
    const int mode = (flags & O_CREAT) ? va_arg(ap, int) : 0;
    va_end(ap);
    count("openat");
    return real_openat(dir, path, flags, mode);
}

static void arm(int on)
{
    armed = on;
}

static void resolve(void)
{
    real_lock = (int (*)(pthread_mutex_t *))dlsym(RTLD_NEXT, "pthread_mutex_lock");
    real_wait = (int (*)(pthread_cond_t *, pthread_mutex_t *))dlsym(RTLD_NEXT, "pthread_cond_wait");
    real_write = (ssize_t(*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
    real_read = (ssize_t(*)(int, void *, size_t))dlsym(RTLD_NEXT, "read");
    real_nanosleep = (int (*)(const struct timespec *, struct timespec *))dlsym(RTLD_NEXT,
                                                                              "nanosleep");
    real_yield = (int (*)(void))dlsym(RTLD_NEXT, "sched_yield");
    real_openat = (int (*)(int, const char *, int, ...))dlsym(RTLD_NEXT, "openat");
    if (!(real_lock && real_wait && real_write && real_read && real_nanosleep && real_yield &&
          real_openat))
        abort();
}

static void write_ir(const char *path, unsigned channels, size_t ntaps, uint64_t *rng)
{
    float *t = __libc_malloc(ntaps * channels * sizeof *t);
    assert_non_null(t);
    test_fill(t, ntaps * channels, rng);
    assert_int_equal(ir_file_write(path, 48000, t, channels, ntaps, 0), 0);
    __libc_free(t);
}

/* frames of random audio on every port (up to 64 a side) through h in
 * blocks of 1 to 4096, then() between */
static void stream(host *h, size_t frames, uint64_t *rng, void (*between)(host *, size_t))
{
    static float x[HOST_MAX_AUDIO][4096], y[HOST_MAX_AUDIO][4096];
    float *in[HOST_MAX_AUDIO], *out[HOST_MAX_AUDIO];
    for (unsigned c = 0; c < HOST_MAX_AUDIO; c++) {
        test_fill(x[c], 4096, rng);
        in[c] = x[c];
        out[c] = y[c];
    }
    for (size_t done = 0, call = 0; done < frames; call++) {
        size_t n = 1 + (size_t)(test_uniform(rng) * (call % 2 ? 64 : 4096));
        n = n < frames - done ? n : frames - done;
        if (between)
            between(h, call);
        host_cycle(h, in, out, (uint32_t)n);
        done += n;
    }
}

/* Opens uri and streams seconds of audio through it armed, changing what
 * between() changes; fails on any forbidden call. */
static void run_armed(const char *uri, double seconds, uint64_t *rng,
                      void (*between)(host *, size_t))
{
    host h;
    int backend;
    assert_int_equal(host_open(&h, uri, 48000, 4096), 0);
    /* the convolver on the CPU, whose plans promise no locks or waits
     * (gfir.h): on a GPU machine auto may pick CUDA, which synchronises */
    if ((backend = host_port(&h, "backend")) >= 0)
        h.controls[backend] = 1;
    host_armed = arm;
    forbidden = 0;
    stream(&h, (size_t)(48000 * seconds), rng, between);
    host_armed = NULL;
    if (forbidden)
        fail_msg("%s: %d forbidden calls in run()/work_response, the first %s", uri, forbidden,
                 first_forbidden);
    /* every IR loaded and every design made: what ran is what was asked for */
    assert_int_equal(h.errors_logged, 0);
    host_close(&h);
}

static char files[3][64];

/* files[0] loaded at the first call; the load is done unarmed, between calls */
static void load_first(host *h, size_t call)
{
    if (call == 0)
        host_set_ir(h, files[0]);
}

/* a new IR every 40 calls, its response held back for a few calls now and
 * then, so that run() feeds a new plan the input it missed (runner.h) */
static void change_ir(host *h, size_t call)
{
    if (call % 40 == 0)
        host_set_ir(h, files[(call / 40) % 3]);
    h->hold_responses = call % 80 >= 1 && call % 80 <= 6;
}

/* Streams uri armed, its IR changed among three files of channels[i] x
 * ntaps[i] taps (change_ir). */
static void convolver_armed(const char *uri, const unsigned channels[3], const size_t ntaps[3],
                            double seconds, uint64_t seed)
{
    char dir[] = "/tmp/gfir_lv2rt_XXXXXX";
    uint64_t rng = seed;
    assert_non_null(mkdtemp(dir));
    for (int i = 0; i < 3; i++) {
        snprintf(files[i], sizeof files[i], "%s/%c.wav", dir, 'a' + i);
        write_ir(files[i], channels[i], ntaps[i], &rng);
    }
    run_armed(uri, seconds, &rng, change_ir);
}

/* stereo: b fits a's plan (a filter swap); c is true stereo and long (new
 * plans) */
static void test_convolver(void **state)
{
    static const unsigned channels[3] = {2, 2, 4};
    static const size_t ntaps[3] = {4000, 3900, 70000};
    (void)state;
    convolver_armed("urn:gfir:lv2:convolver-stereo", channels, ntaps, 12, 31);
}

/* gfir convolver-64 the same way, at IRs short enough for CI: 64 sets, 64
 * sets that fit the plan (a filter swap), one set for every channel (a new
 * plan) */
static void test_convolver_64(void **state)
{
    static const unsigned channels[3] = {64, 64, 1};
    static const size_t ntaps[3] = {1001, 977, 3001};
    (void)state;
    convolver_armed("urn:gfir:lv2:convolver-64", channels, ntaps, 4, 33);
}

/* The shortest IR whose zero-latency plan has partitions of 65536 (a level
 * of them once the filter passes 4 x 65536 taps: src/cpu/tuning.c), whose
 * four-step transforms' rows FFTW 3.3.10 ran through buffered solvers that
 * malloc inside fftwf_execute, under ESTIMATE and MEASURE alike; 262144
 * taps ran clean. Three seconds give that level's slices several turns. */
static void test_convolver_long_ir(void **state)
{
    char dir[] = "/tmp/gfir_lv2rt_XXXXXX";
    uint64_t rng = 33;
    (void)state;
    assert_non_null(mkdtemp(dir));
    snprintf(files[0], sizeof files[0], "%s/long.wav", dir);
    write_ir(files[0], 1, 4 * 65536 + 1, &rng);
    run_armed("urn:gfir:lv2:convolver-mono", 3, &rng, load_first);
}

static void change_controls(host *h, size_t call)
{
    static const float cutoffs[] = {1000, 2500, 6000, 3000};
    if (call % 30 == 0) {
        h->controls[host_port(h, "cutoff_hz")] = cutoffs[(call / 30) % 4];
        h->controls[host_port(h, "type")] = (float)((call / 60) % 2);
        h->controls[host_port(h, "transition_hz")] = (call / 90) % 2 ? 300.0f : 400.0f;
    }
}

static void test_filter(void **state)
{
    uint64_t rng = 32;
    (void)state;
    run_armed("urn:gfir:lv2:filter-stereo", 10, &rng, change_controls);
}

int main(void)
{
    /* before anything calls the interposed functions */
    resolve();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_convolver),
        cmocka_unit_test(test_convolver_long_ir),
        cmocka_unit_test(test_convolver_64),
        cmocka_unit_test(test_filter),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
