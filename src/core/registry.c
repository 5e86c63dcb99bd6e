/*
 * registry.c - the backends this build has, in AUTO's order of preference
 * (PortAudio's NULL-terminated table of host APIs), and lookup by id.
 */
#include "core/registry.h"

#include <stddef.h>

const gf_backend_ops *const gf_backends[] = {
#ifdef GFIR_HAVE_CUDA
    &gf_cuda_backend,
#endif
    &gf_cpu_backend,
    NULL,
};

const gf_backend_ops *gf_find_backend(gfir_backend id)
{
    for (size_t i = 0; gf_backends[i]; i++)
        if (gf_backends[i]->id == id)
            return gf_backends[i];
    return NULL;
}

int gfir_backend_available(gfir_backend backend)
{
    const gf_backend_ops *ops = gf_find_backend(backend);
    return ops && ops->available();
}

