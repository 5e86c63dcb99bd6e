/*
 * startup.c - CUDA started ahead of the first plan (startup.h).
 *
 * What a process's first CUDA plan pays before any work: the driver's
 * initialisation (cuInit, in the first runtime call) and the device's
 * primary context (the first call that needs one). Both are once per
 * process and device, and neither depends on the plan, so a caller that
 * knows it may use the device (the command line, once it has parsed its
 * options) starts them, and reads the device's name that AUTO looks its
 * calibration up by, on a thread of their own while it opens its input and
 * designs its filter. Module loading is lazy (CUDA 12.2 on), so each kernel
 * still loads at its first launch; cuFFT is opened by the first FFT plan
 * only, since a direct plan never needs its hundreds of megabytes.
 *
 * A process that ends while a start-up runs waits for it at exit: the
 * runtime's teardown and a context being made must not meet. The handler
 * is registered with atexit after the runtime's own handlers (those of the
 * kernels' fatbinaries, registered when the library loaded, and whatever
 * the runtime registers at its first call), so it runs before them; it
 * also runs when libgfir is unloaded.
 *
 * A create that finds a start-up under way waits for it (rather than race
 * it: the runtime would serialise the two anyway, and the wait says so); a
 * failure is not recorded as the create's, which makes the same calls again
 * and reports what it meets, as it would have without the start-up.
 */
#include "cuda/startup.h"
#include "cuda/guard.h"
#include "cuda/tuning.h"

#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

/* Devices this process tracks; beyond the array a device is started by its
 * first create and counts as not started, which only errs towards the CPU. */
#define TRACKED_DEVICES 64

enum { IDLE, RUNNING, DONE };

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t finished = PTHREAD_COND_INITIALIZER;
static struct {
    int state;
    gfir_status outcome;        /* DONE: how it ended */
    double began_s;             /* RUNNING: when, on the monotonic clock */
} devices[TRACKED_DEVICES];
/* Whether wait_all is registered with atexit (under lock): before the first
 * thread, and again once the runtime has started. */
static int waits_at_exit[2];
/* Devices with a plan made on them in this process. */
static atomic_int started[TRACKED_DEVICES];

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int tracked(int device)
{
    return device >= 0 && device < TRACKED_DEVICES;
}

/* At exit: every start-up has finished. */
static void wait_all(void)
{
    pthread_mutex_lock(&lock);
    for (int d = 0; d < TRACKED_DEVICES; d++)
        while (devices[d].state == RUNNING)
            pthread_cond_wait(&finished, &lock);
    pthread_mutex_unlock(&lock);
}

/* Once the runtime is up (its first call made): wait_all again, now after
 * whatever teardown the runtime registered at that call, so that it runs
 * before it. Registering twice is harmless: wait_all only waits. */
static void wait_at_exit_after_runtime(void)
{
    pthread_mutex_lock(&lock);
    if (!waits_at_exit[1] && atexit(wait_all) == 0)
        waits_at_exit[1] = 1;
    pthread_mutex_unlock(&lock);
}

/* The driver, then the device's primary context (cudaFree(NULL) is the
 * runtime's idiom for "make the context now"). Errors stay on this thread. */
static gfir_status start_device(int device)
{
    int count = 0, theirs;
    cudaError_t e = cudaGetDeviceCount(&count);
    wait_at_exit_after_runtime();
    if (e != cudaSuccess || count == 0) {
        cudaGetLastError();
        return GFIR_ERR_UNAVAILABLE;
    }
    if (device >= count)
        return GFIR_ERR_ARG;
    e = gf_cuda_enter(device, &theirs);
    if (e == cudaSuccess)
        e = cudaFree(NULL);
    /* what AUTO asks of the device at every create: its name, read once */
    (void)gf_cuda_fft_min_taps(device);
    gf_cuda_leave(theirs);
    cudaGetLastError();
    if (e == cudaSuccess)
        return GFIR_OK;
    return e == cudaErrorMemoryAllocation ? GFIR_ERR_NOMEM : GFIR_ERR_DEVICE;
}

static void *start_thread(void *arg)
{
    const int device = (int)(intptr_t)arg;
    const gfir_status outcome = start_device(device);
    pthread_mutex_lock(&lock);
    devices[device].outcome = outcome;
    devices[device].state = DONE;
    pthread_cond_broadcast(&finished);
    pthread_mutex_unlock(&lock);
    return NULL;
}

/* Detached: nobody joins it; wait_all holds an exit back while it runs. */
static gfir_status spawn(int device)
{
    pthread_t thread;
    pthread_attr_t attr;
    int failed;
    if (pthread_attr_init(&attr) != 0)
        return GFIR_ERR_NOMEM;
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    failed = pthread_create(&thread, &attr, start_thread, (void *)(intptr_t)device);
    pthread_attr_destroy(&attr);
    return failed ? GFIR_ERR_NOMEM : GFIR_OK;
}

gfir_status gf_cuda_prepare(int device)
{
    gfir_status status = GFIR_OK;
    if (!tracked(device))
        return device < 0 ? GFIR_ERR_ARG : GFIR_OK;
    pthread_mutex_lock(&lock);
    if (devices[device].state == DONE)
        status = devices[device].outcome;
    if (devices[device].state != IDLE) {
        pthread_mutex_unlock(&lock);
        return status;
    }
    /* no thread that an exit could not wait for */
    if (!waits_at_exit[0] && atexit(wait_all) == 0)
        waits_at_exit[0] = 1;
    status = waits_at_exit[0] ? GFIR_OK : GFIR_ERR_NOMEM;
    devices[device].state = status == GFIR_OK ? RUNNING : IDLE;
    devices[device].began_s = now_s();
    pthread_mutex_unlock(&lock);
    if (status == GFIR_OK && (status = spawn(device)) != GFIR_OK) {
        /* no thread: the first create starts the device, as without prepare */
        pthread_mutex_lock(&lock);
        devices[device].state = IDLE;
        pthread_cond_broadcast(&finished);
        pthread_mutex_unlock(&lock);
    }
    return status;
}

void gf_cuda_prepare_wait(int device)
{
    if (!tracked(device))
        return;
    pthread_mutex_lock(&lock);
    while (devices[device].state == RUNNING)
        pthread_cond_wait(&finished, &lock);
    pthread_mutex_unlock(&lock);
}

double gf_cuda_startup_s(int device)
{
    double left = GF_CUDA_STARTUP_S;
    if (!tracked(device))
        return left;
    if (atomic_load(&started[device]))
        return 0.0;
    pthread_mutex_lock(&lock);
    if (devices[device].state == DONE && devices[device].outcome == GFIR_OK)
        left = 0.0;
    else if (devices[device].state == RUNNING)
        left -= now_s() - devices[device].began_s;
    pthread_mutex_unlock(&lock);
    return left > 0.0 ? left : 0.0;
}

void gf_cuda_mark_started(int device)
{
    if (tracked(device))
        atomic_store(&started[device], 1);
}
