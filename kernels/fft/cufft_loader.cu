/*
 * cufft_loader.cu - cuFFT through dlopen (see cufft_loader.h for why).
 */
#include "fft/cufft_loader.h"
#include "cuda_status.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#define STRINGIFY_(x) #x
#define STRINGIFY(x) STRINGIFY_(x)
/* The soname of the cuFFT these headers describe: through the loader's
 * search path first, then where the CUDA toolkit installs it. */
static const char *const cufft_paths[] = {
    "libcufft.so." STRINGIFY(CUFFT_VER_MAJOR),
    "/usr/local/cuda/lib64/libcufft.so." STRINGIFY(CUFFT_VER_MAJOR),
};

static gf_cufft_api load_cufft(void)
{
    gf_cufft_api a;
    memset(&a, 0, sizeof a);
    void *lib = NULL;
    for (size_t i = 0; !lib && i < sizeof cufft_paths / sizeof cufft_paths[0]; i++)
        lib = dlopen(cufft_paths[i], RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *err = dlerror();
        snprintf(a.error, sizeof a.error, "cannot load cuFFT (%s): %s", cufft_paths[0],
                 err ? err : "not found");
        return a;
    }
    struct {
        void **slot;
        const char *name;
    } syms[] = {
        {(void **)&a.create, "cufftCreate"},
        {(void **)&a.destroy, "cufftDestroy"},
        {(void **)&a.set_auto_allocation, "cufftSetAutoAllocation"},
        {(void **)&a.make_plan_many64, "cufftMakePlanMany64"},
        {(void **)&a.set_stream, "cufftSetStream"},
        {(void **)&a.set_work_area, "cufftSetWorkArea"},
        {(void **)&a.exec_r2c, "cufftExecR2C"},
        {(void **)&a.exec_c2r, "cufftExecC2R"},
    };
    for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
        *syms[i].slot = dlsym(lib, syms[i].name);
        if (!*syms[i].slot) {
            snprintf(a.error, sizeof a.error, "%s has no %s", cufft_paths[0], syms[i].name);
            return a;
        }
    }
    a.ok = 1;
    return a;
}

/* C++ initialises a function's static exactly once, whichever thread gets
 * here first. */
const gf_cufft_api &gf_cufft(void)
{
    static const gf_cufft_api api = load_cufft();
    return api;
}

static const char *cufft_name(cufftResult r)
{
    switch (r) {
    case CUFFT_SUCCESS: return "CUFFT_SUCCESS";
    case CUFFT_INVALID_PLAN: return "CUFFT_INVALID_PLAN";
    case CUFFT_ALLOC_FAILED: return "CUFFT_ALLOC_FAILED";
    case CUFFT_INVALID_TYPE: return "CUFFT_INVALID_TYPE";
    case CUFFT_INVALID_VALUE: return "CUFFT_INVALID_VALUE";
    case CUFFT_INTERNAL_ERROR: return "CUFFT_INTERNAL_ERROR";
    case CUFFT_EXEC_FAILED: return "CUFFT_EXEC_FAILED";
    case CUFFT_SETUP_FAILED: return "CUFFT_SETUP_FAILED";
    case CUFFT_INVALID_SIZE: return "CUFFT_INVALID_SIZE";
    case CUFFT_UNALIGNED_DATA: return "CUFFT_UNALIGNED_DATA";
    case CUFFT_INVALID_DEVICE: return "CUFFT_INVALID_DEVICE";
    case CUFFT_NO_WORKSPACE: return "CUFFT_NO_WORKSPACE";
    case CUFFT_NOT_IMPLEMENTED: return "CUFFT_NOT_IMPLEMENTED";
    case CUFFT_NOT_SUPPORTED: return "CUFFT_NOT_SUPPORTED";
    default: return "cuFFT error";
    }
}

gfir_status gf_cufft_fail(cufftResult r, const char *call, char *why, size_t why_len)
{
    cudaGetLastError();
    return gf_detail(why, why_len, r == CUFFT_ALLOC_FAILED ? GFIR_ERR_NOMEM : GFIR_ERR_DEVICE,
                     "%s: %s (%d)", call, cufft_name(r), (int)r);
}

cufftResult gf_cufft_plan_many(cufftHandle h, cufftType type, size_t n, size_t batch,
                               size_t idist, size_t odist, int auto_alloc, size_t *work)
{
    long long size[1] = {(long long)n};
    long long in_embed[1] = {(long long)(type == CUFFT_R2C ? n : n / 2 + 1)};
    long long out_embed[1] = {(long long)(type == CUFFT_R2C ? n / 2 + 1 : n)};
    cufftResult r = gf_cufft().set_auto_allocation(h, auto_alloc);
    if (r != CUFFT_SUCCESS)
        return r;
    return gf_cufft().make_plan_many64(h, 1, size, in_embed, 1, (long long)idist, out_embed, 1,
                                       (long long)odist, type, (long long)batch, work);
}

extern "C" const char *gf_fft_cufft_missing(void)
{
    return gf_cufft().ok ? NULL : gf_cufft().error;
}
