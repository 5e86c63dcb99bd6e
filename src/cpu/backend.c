/*
 * backend.c - the CPU backend: always there, nothing to start. Its engines
 * (engine.h) each fill their own table; this is what they share.
 */
#include "cpu/engine.h"

static int cpu_available(void)
{
    return 1;
}

const gf_backend gf_cpu_backend = {
    .name = "cpu",
    .id = GFIR_BACKEND_CPU,
    .available = cpu_available,
    .startup_s = NULL,
    .min_call_samples = 0,
};
