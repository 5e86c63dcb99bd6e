/*
 * cufft_loader.h - cuFFT, opened at run time: the entry points the FFT
 * engine calls, the names of its results, and the one plan shape it makes.
 *
 * libcufft is opened when the first filter spectrum is made, not linked:
 * it is a library of some 280 MB, and loading it at start-up cost every run
 * of a program using libgfir, CPU-only ones included, about 8 MB of resident
 * memory and its load time.
 */
#ifndef GF_FFT_CUFFT_LOADER_H
#define GF_FFT_CUFFT_LOADER_H

#include "gfir.h"

#include <cufft.h>
#include <stddef.h>

typedef struct gf_cufft_api {
    int ok;           /* 0: error says why cuFFT cannot be used */
    char error[192];
    cufftResult (*create)(cufftHandle *);
    cufftResult (*destroy)(cufftHandle);
    cufftResult (*set_auto_allocation)(cufftHandle, int);
    cufftResult (*make_plan_many64)(cufftHandle, int, long long *, long long *, long long,
                                    long long, long long *, long long, long long, cufftType,
                                    long long, size_t *);
    cufftResult (*set_stream)(cufftHandle, cudaStream_t);
    cufftResult (*set_work_area)(cufftHandle, void *);
    cufftResult (*exec_r2c)(cufftHandle, cufftReal *, cufftComplex *);
    cufftResult (*exec_c2r)(cufftHandle, cufftComplex *, cufftReal *);
} gf_cufft_api;

/* The library, opened at the first call of the process (from any thread;
 * later calls wait for it) and never closed: plans and their kernels live
 * as long as any plan does. Check ok before the first use. */
const gf_cufft_api &gf_cufft(void);

/*
 * A failed cuFFT call, as gf_cuda_fail (cuda_status.h) does for CUDA's:
 * GFIR_ERR_NOMEM for CUFFT_ALLOC_FAILED, else GFIR_ERR_DEVICE, the sentence
 * "call: CUFFT_NAME (code)", and CUDA's last error cleared, since a failure
 * inside cuFFT may have left one there.
 */
gfir_status gf_cufft_fail(cufftResult r, const char *call, char *why, size_t why_len);

#define GF_CUFFT_TRY(call, name, why, why_len)                                             \
    do {                                                                                   \
        const cufftResult r_ = (call);                                                     \
        if (r_ != CUFFT_SUCCESS)                                                           \
            return gf_cufft_fail(r_, (name), (why), (why_len));                            \
    } while (0)

/*
 * Configures plan h as `batch` 1-D transforms of n points, in place or not:
 * batch b reads from idist * b and writes to odist * b (elements of its own
 * type, unit stride). With auto_alloc 0 it gets no work area: *work says how
 * many bytes to hand it.
 */
cufftResult gf_cufft_plan_many(cufftHandle h, cufftType type, size_t n, size_t batch,
                               size_t idist, size_t odist, int auto_alloc, size_t *work);

#endif
