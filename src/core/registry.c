/*
 * registry.c - the engines this build has (PortAudio's NULL-terminated table
 * of host APIs, FFTW's list of solvers), and backends by id. An engine joins
 * the library by one line here; its file fills core/engine.h's table.
 */
#include "core/registry.h"

#include <stddef.h>

#ifdef GFIR_HAVE_CUDA
#define CUDA_ENGINES(X) X(gf_cuda_fdl_engine) X(gf_cuda_fft_engine) X(gf_cuda_direct_engine)
#else
#define CUDA_ENGINES(X)
#endif

#define ENGINES(X)                                                                             \
    CUDA_ENGINES(X)                                                                            \
    X(gf_cpu_fft_uniform_engine)                                                               \
    X(gf_cpu_fft_zero_latency_engine)                                                          \
    X(gf_cpu_direct_engine)

#define DECLARE(engine) extern const gf_engine engine;
#define LIST(engine) &engine,

ENGINES(DECLARE)

const gf_engine *const gf_engines[] = {ENGINES(LIST) NULL};

const gf_backend *gf_find_backend(gfir_backend id)
{
    for (size_t i = 0; gf_engines[i]; i++)
        if (gf_engines[i]->backend->id == id)
            return gf_engines[i]->backend;
    return NULL;
}

int gfir_backend_available(gfir_backend backend)
{
    const gf_backend *b = gf_find_backend(backend);
    return b && b->available();
}

int gfir_backend_devices(gfir_backend backend)
{
    const gf_backend *b = gf_find_backend(backend);
    if (!b || !b->available())
        return 0;
    return b->devices ? b->devices() : 1;
}

gfir_status gfir_backend_prepare(gfir_backend backend, int device)
{
    const gf_backend *b = NULL;
    if (!gfir_backend_name(backend) || device < 0)
        return GFIR_ERR_ARG;
    if (backend == GFIR_BACKEND_AUTO) {
        /* every device AUTO might pick (a backend's engines are listed
         * together); a failure is the CPU's turn */
        for (size_t i = 0; gf_engines[i]; i++)
            if (gf_engines[i]->backend != b && (b = gf_engines[i]->backend)->prepare)
                (void)b->prepare(device);
        return GFIR_OK;
    }
    b = gf_find_backend(backend);
    if (!b)
        return GFIR_ERR_UNAVAILABLE;
    return b->prepare ? b->prepare(device) : GFIR_OK;
}
