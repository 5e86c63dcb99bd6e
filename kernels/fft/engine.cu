/*
 * engine.cu - the GPU FFT kernel's host objects: the filter (spectra made
 * once) and the engine (one stream's plans and buffers), and the run that
 * queues either smfft's transforms or cuFFT's between the passes of passes.cu.
 *
 * A block's planar input (channel c: ntaps - 1 halo samples, then n new ones)
 * is exactly what overlap-save reads. With FFT size N and hop L = N - (ntaps - 1),
 * segment s of channel c is x_c[sL .. sL + N); its circular convolution with
 * the taps equals the linear one at indices ntaps - 1 .. N - 1, which hold
 * the outputs sL .. sL + L - 1. Everything stays on the engine's stream:
 *
 *   gather    segments into rows of N + 2 floats, zeros past the input, so an
 *             in-place R2C can fill each row with its N/2 + 1 bins (cuFFT
 *             can read overlapping segments straight from the input, with
 *             the hop as batch distance, but on an H100 that R2C took 1.6 to
 *             2.4 times as long as this copy and an in-place one together);
 *   R2C       in place, one batch over segments x channels;
 *   multiply  by the filter's spectrum, made once at create from taps already
 *             scaled by 1/N (exact: N is a power of two), so no later pass
 *             has to undo cuFFT's unnormalised inverse;
 *   C2R       in place;
 *   extract   the L valid samples of each row to the output, planar or
 *             interleaved: dropping the wrapped samples rides on the pass that
 *             writes the caller's layout, which is needed anyway.
 *
 * Long filters over long blocks are partitioned instead (src/cuda/tuning.c): the
 * same passes, with a multiply-accumulate over the partitions in place of
 * the multiply. Whole filters of up to GF_SMFFT_MAX points skip all of this
 * for smfft's transforms in shared memory (smfft.h: one-pass up to
 * GF_SMFFT_ONEPASS_MAX points, four-step above), unless the engine is made
 * with GF_FFT_CUFFT_ONLY.
 *
 * Rows are segment-major (row = s * channels + c), so the first S segments of
 * every channel are one contiguous prefix: an engine holds plans for batches
 * of 1, 2, 4, ... rows and for its maximum, and S rows run the smallest that
 * covers S (nobody reads the extra rows' output). So a short call costs at
 * most twice its need, and every transform is a single cuFFT call.
 *
 * No cuFFT callbacks. Commit 31479aa had them: the gather as the R2C's load
 * callback, the multiply as its store callback and the extract as the C2R's
 * store callback, compiled to LTO-IR and linked by cufftXtSetJITCallback,
 * which would leave two passes over the data instead of five. On an H100
 * with CUDA 13.0 (gfir-bench --kernels fft,fft-cb-gmx,fft-cb-g,fft-cb-m,
 * fft-cb-x --taps 1023,65535 --no-host at that commit, 2 x 2^24 samples)
 * every callback made the engine slower: 1023 taps 0.624 ms with the passes,
 * 0.72 with all three callbacks, 0.70 with the multiply alone (which saves a
 * whole pass); 65535 taps (P = 8192) 0.99 ms, 1.47 with gather and extract.
 * A plan with any callback runs other, slower kernels, and took 0.7 to 7.8 s
 * to make instead of about 15 ms. So the passes stay.
 */

#include "cuda_status.h"
#include "fft/cufft_loader.h"
#include "fft/fft.h"
#include "fft/passes.h"
#include "kernels.h"

#include <stdio.h>
#include <stdlib.h>

/* Plans an engine may hold: batches of 1, 2, 4, ... rows up to its maximum,
 * which engine_init keeps under 2^40 floats, so fewer than 2^38 rows and 40
 * plans at most. */
#define FFT_MAX_PLANS 40

struct gf_fft_filter {
    size_t fft_size;
    size_t ntaps;
    size_t part;     /* taps per partition, fft_size / 2; 0 when the filter is whole */
    size_t parts;    /* partitions per tap set (1 when whole) */
    size_t front;    /* zeros before each row's halo in segment 0 (partitioned only) */
    unsigned filters;
    float2 *d_spec;  /* filters * parts rows of fft_size / 2 + 1 bins */
    float2 *d_smfft_spec, *d_smfft_tw; /* smfft's spectra and twiddles, or NULL */
    cufftHandle spec_plan; /* the rows' R2C, kept for gf_fft_filter_set_taps */
    int has_spec_plan;
};

/* A batched transform, in place, of `count` rows of every channel. */
struct fft_plan {
    size_t count;
    cufftHandle h;
};

struct gf_fft_engine {
    const gf_fft_filter *f;
    unsigned channels;
    size_t hop;       /* new samples per segment */
    size_t max_n;
    size_t max_segs;  /* input segments per channel for max_n frames */
    size_t max_rows;  /* output rows per channel for max_n frames */
    cudaStream_t stream;
    int smfft;        /* smfft's transforms: no cuFFT plans or buffers */
    float2 *d_smfft_work; /* their work area, four-step only */
    float *d_in;      /* partitioned: max_segs * channels rows of fft_size + 2 floats */
    float *d_buf;     /* max_rows * channels rows of fft_size + 2 floats */
    void *d_work;     /* cuFFT's work area, shared by this engine's plans */
    int n_r2c, n_c2r;
    fft_plan r2c[FFT_MAX_PLANS], c2r[FFT_MAX_PLANS];
};

/* ---- the filter ---------------------------------------------------------- */

extern "C" void gf_fft_filter_destroy(gf_fft_filter *f)
{
    if (!f)
        return;
    if (f->has_spec_plan)
        gf_cufft().destroy(f->spec_plan);
    cudaFree(f->d_spec);
    cudaFree(f->d_smfft_spec);
    cudaFree(f->d_smfft_tw);
    free(f);
}

extern "C" size_t gf_fft_filter_size(const gf_fft_filter *f)
{
    return f ? f->fft_size : 0;
}

/* Uploads the scaled, zero-padded taps (partition p of tap set t in row
 * t * parts + p) into rows of n + 2 floats and transforms them in place
 * with cuFFT, on the stream; waits for it. The plan stays with the filter
 * for new taps later (gf_fft_filter_set_taps). */
static gfir_status cufft_spectrum(gf_fft_filter *f, const float *taps, cudaStream_t stream,
                                  char *why, size_t why_len)
{
    const size_t n = f->fft_size, row = n + 2, rows = f->filters * f->parts;
    const size_t width = f->part ? f->part : n;
    const float scale = 1.0f / (float)n;
    float *h = (float *)calloc(rows * row, sizeof *h);
    if (!h)
        return gf_detail(why, why_len, GFIR_ERR_NOMEM,
                         "out of host memory for %zu x %zu filter bins", rows, n / 2 + 1);
    for (size_t t = 0; t < f->filters; t++)
        for (size_t k = 0; k < f->ntaps; k++) {
            h[(t * f->parts + k / width) * row + k % width] = taps[t * f->ntaps + k] * scale;
        }
    cudaError_t e = gf_cuda_malloc((void **)&f->d_spec, rows * row * sizeof(float));
    if (e == cudaSuccess)
        e = cudaMemcpyAsync(f->d_spec, h, rows * row * sizeof(float), cudaMemcpyHostToDevice,
                            stream);
    if (e != cudaSuccess) {
        free(h);
        return gf_cuda_fail(e, "uploading the taps for their spectrum", why, why_len);
    }

    size_t work = 0;
    const char *call = "cufftCreate (filter spectrum)";
    cufftResult r = gf_cufft().create(&f->spec_plan);
    f->has_spec_plan = r == CUFFT_SUCCESS;
    if (r == CUFFT_SUCCESS) {
        call = "cufftMakePlanMany64 (filter spectrum)";
        r = gf_cufft_plan_many(f->spec_plan, CUFFT_R2C, n, rows, row, n / 2 + 1, 1, &work);
    }
    if (r == CUFFT_SUCCESS) {
        call = "cufftSetStream (filter spectrum)";
        r = gf_cufft().set_stream(f->spec_plan, stream);
    }
    if (r == CUFFT_SUCCESS) {
        call = "cufftExecR2C (filter spectrum)";
        r = gf_cufft().exec_r2c(f->spec_plan, (cufftReal *)f->d_spec, (cufftComplex *)f->d_spec);
    }
    /* h feeds the upload */
    e = cudaStreamSynchronize(stream);
    free(h);
    if (r != CUFFT_SUCCESS)
        return gf_cufft_fail(r, call, why, why_len);
    if (e != cudaSuccess)
        return gf_cuda_fail(e, "cudaStreamSynchronize (filter spectrum)", why, why_len);
    return GFIR_OK;
}

/* smfft's spectra of the taps, for engines that run its transforms; none
 * (and GFIR_OK) where the device's shared memory cannot hold them. */
static gfir_status smfft_spectrum(gf_fft_filter *f, const float *taps, cudaStream_t stream,
                                  char *why, size_t why_len)
{
    float *d_taps;
    const size_t bytes = f->filters * f->ntaps * sizeof(float);
    GF_CUDA_TRY(gf_cuda_malloc((void **)&d_taps, bytes), why, why_len);
    cudaError_t e = cudaMemcpyAsync(d_taps, taps, bytes, cudaMemcpyHostToDevice, stream);
    const char *call = "uploading the taps for their smfft spectrum";
    if (e == cudaSuccess) {
        call = "gf_smfft_spectrum";
        e = gf_smfft_spectrum(d_taps, f->ntaps, f->filters, f->fft_size, stream,
                              &f->d_smfft_tw, &f->d_smfft_spec);
    }
    /* the upload may still be reading taps and writing d_taps */
    const cudaError_t waited = cudaStreamSynchronize(stream);
    cudaFree(d_taps);
    if (e == cudaErrorNotSupported) /* too little shared memory: cuFFT only */
        return GFIR_OK;
    if (e != cudaSuccess)
        return gf_cuda_fail(e, call, why, why_len);
    if (waited != cudaSuccess)
        return gf_cuda_fail(waited, "cudaStreamSynchronize (smfft spectrum)", why, why_len);
    return GFIR_OK;
}

extern "C" gfir_status gf_fft_filter_create(gf_fft_filter **out, const float *taps,
                                            size_t ntaps, unsigned filters, size_t fft_size,
                                            size_t part, cudaStream_t stream, char *why,
                                            size_t why_len)
{
    if (!out || !taps)
        return gf_detail(why, why_len, GFIR_ERR_NULL, "gf_fft_filter_create: NULL argument");
    *out = NULL;
    if (ntaps == 0 || filters == 0 || fft_size < 4 || (fft_size & (fft_size - 1)) ||
        (part ? fft_size != 2 * part : fft_size < ntaps))
        return gf_detail(why, why_len, GFIR_ERR_ARG, "FFT size %zu%s cannot filter %u x %zu taps",
                         fft_size, part ? " in partitions" : "", filters, ntaps);
    if (!gf_cufft().ok)
        return gf_detail(why, why_len, GFIR_ERR_UNAVAILABLE, "%s", gf_cufft().error);
    gf_fft_filter *f = (gf_fft_filter *)calloc(1, sizeof *f);
    if (!f)
        return gf_detail(why, why_len, GFIR_ERR_NOMEM, "out of host memory");
    f->fft_size = fft_size;
    f->ntaps = ntaps;
    f->filters = filters;
    f->part = part;
    f->parts = 1;
    if (part) {
        f->parts = (ntaps + part - 1) / part;
        f->front = f->parts * part - (ntaps - 1);
    }
    gfir_status st = cufft_spectrum(f, taps, stream, why, why_len);
    if (st == GFIR_OK && !part && gf_smfft_fits(fft_size))
        st = smfft_spectrum(f, taps, stream, why, why_len);
    if (st != GFIR_OK) {
        gf_fft_filter_destroy(f);
        return st;
    }
    *out = f;
    return GFIR_OK;
}

extern "C" gfir_status gf_fft_filter_set_taps(gf_fft_filter *f, const float *d_taps,
                                              int with_cufft, cudaStream_t stream, char *why,
                                              size_t why_len)
{
    if (!f || !d_taps)
        return gf_detail(why, why_len, GFIR_ERR_NULL, "gf_fft_filter_set_taps: NULL argument");
    const size_t n = f->fft_size;
    cudaError_t e;
    if (with_cufft || !f->d_smfft_spec) {
        e = gf_fft_load_taps(d_taps, f->ntaps, f->filters, f->parts, f->part ? f->part : n,
                             1.0f / (float)n, (float *)f->d_spec, n, stream);
        if (e != cudaSuccess)
            return gf_cuda_fail(e, "loading new taps for their spectrum", why, why_len);
        GF_CUFFT_TRY(gf_cufft().set_stream(f->spec_plan, stream), "cufftSetStream (new taps)",
                     why, why_len);
        GF_CUFFT_TRY(gf_cufft().exec_r2c(f->spec_plan, (cufftReal *)f->d_spec,
                                         (cufftComplex *)f->d_spec),
                     "cufftExecR2C (new taps)", why, why_len);
    }
    if (f->d_smfft_spec) {
        e = gf_smfft_spectrum_into(d_taps, f->ntaps, f->filters, n, f->d_smfft_tw,
                                   f->d_smfft_spec, stream);
        if (e != cudaSuccess)
            return gf_cuda_fail(e, "gf_smfft_spectrum_into (new taps)", why, why_len);
    }
    return GFIR_OK;
}

/* ---- the engine ---------------------------------------------------------- */

extern "C" int gf_fft_engine_smfft(const gf_fft_engine *e)
{
    return e ? e->smfft : 0;
}

extern "C" gfir_status gf_fft_engine_use(gf_fft_engine *e, const gf_fft_filter *f, char *why,
                                         size_t why_len)
{
    if (!e || !f)
        return gf_detail(why, why_len, GFIR_ERR_NULL, "gf_fft_engine_use: NULL argument");
    const gf_fft_filter *g = e->f;
    if (f->fft_size != g->fft_size || f->ntaps != g->ntaps || f->part != g->part ||
        f->filters != g->filters || (e->smfft && !f->d_smfft_spec))
        return gf_detail(why, why_len, GFIR_ERR_ARG,
                         "a filter of %u x %zu taps at FFT size %zu cannot replace one of "
                         "%u x %zu at %zu",
                         f->filters, f->ntaps, f->fft_size, g->filters, g->ntaps, g->fft_size);
    e->f = f;
    return GFIR_OK;
}

extern "C" size_t gf_fft_engine_max_n(const gf_fft_engine *e)
{
    return e ? e->max_n : 0;
}

extern "C" void gf_fft_engine_destroy(gf_fft_engine *e)
{
    if (!e)
        return;
    if (e->d_buf || e->d_in || e->d_work || e->d_smfft_work)
        cudaStreamSynchronize(e->stream); /* nothing in flight reads what is freed */
    for (int k = 0; k < e->n_r2c; k++)
        gf_cufft().destroy(e->r2c[k].h);
    for (int k = 0; k < e->n_c2r; k++)
        gf_cufft().destroy(e->c2r[k].h);
    cudaFree(e->d_buf);
    cudaFree(e->d_in);
    cudaFree(e->d_work);
    cudaFree(e->d_smfft_work);
    free(e);
}

/* In-place plans over 1, 2, 4, ... rows per channel below max, then max. */
static gfir_status add_plans(gf_fft_engine *e, cufftType type, size_t max, fft_plan *list,
                             int *count, size_t *work_max, char *why, size_t why_len)
{
    const size_t n = e->f->fft_size, bins = n / 2 + 1;
    const int r2c = type == CUFFT_R2C;
    for (size_t k = 1;; k *= 2) {
        if (k > max)
            k = max;
        if (*count == FFT_MAX_PLANS)
            return gf_detail(why, why_len, GFIR_ERR_ARG, "too many segments per block (%zu)",
                             max);
        fft_plan *p = &list[*count];
        const size_t batch = k * e->channels;
        size_t work = 0;
        char name[96];
        snprintf(name, sizeof name, "cufftMakePlanMany64 (%s, %zu points, batch %zu)",
                 r2c ? "R2C" : "C2R", n, batch);
        GF_CUFFT_TRY(gf_cufft().create(&p->h), "cufftCreate", why, why_len);
        ++*count;
        p->count = k;
        GF_CUFFT_TRY(gf_cufft_plan_many(p->h, type, n, batch, r2c ? n + 2 : bins,
                                        r2c ? bins : n + 2, 0, &work),
                     name, why, why_len);
        GF_CUFFT_TRY(gf_cufft().set_stream(p->h, e->stream), "cufftSetStream", why, why_len);
        *work_max = work > *work_max ? work : *work_max;
        if (k == max)
            return GFIR_OK;
    }
}

static gfir_status make_plans(gf_fft_engine *e, char *why, size_t why_len)
{
    size_t work_max = 0;
    gfir_status st = add_plans(e, CUFFT_R2C, e->max_segs, e->r2c, &e->n_r2c, &work_max, why,
                               why_len);
    if (st == GFIR_OK)
        st = add_plans(e, CUFFT_C2R, e->max_rows, e->c2r, &e->n_c2r, &work_max, why, why_len);
    if (st != GFIR_OK)
        return st;
    /* never a zero-byte area: a plan without one refuses to run */
    GF_CUDA_TRY(gf_cuda_malloc((void **)&e->d_work, work_max > 256 ? work_max : 256), why,
                why_len);
    for (int k = 0; k < e->n_r2c; k++)
        GF_CUFFT_TRY(gf_cufft().set_work_area(e->r2c[k].h, e->d_work), "cufftSetWorkArea", why,
                     why_len);
    for (int k = 0; k < e->n_c2r; k++)
        GF_CUFFT_TRY(gf_cufft().set_work_area(e->c2r[k].h, e->d_work), "cufftSetWorkArea", why,
                     why_len);
    return GFIR_OK;
}

/* Segments and output rows per channel for n frames. */
static void shape(const gf_fft_engine *e, size_t n, size_t *segs, size_t *rows)
{
    *rows = (n + e->hop - 1) / e->hop;
    *segs = *rows + e->f->parts - 1;
}

/* The smallest plan of list that covers count rows (the last covers the most). */
static const fft_plan *covering(const fft_plan *list, size_t count)
{
    while (list->count < count)
        list++;
    return list;
}

/* The cuFFT passes' buffers and plans. */
static gfir_status engine_init(gf_fft_engine *e, char *why, size_t why_len)
{
    const size_t n = e->f->fft_size;
    shape(e, e->max_n, &e->max_segs, &e->max_rows);
    /* 2^40 floats (4 TiB) is more than any device holds, and far from where
     * the byte counts below could overflow */
    if (e->max_segs * e->channels > ((size_t)1 << 40) / (n + 2))
        return gf_detail(why, why_len, GFIR_ERR_NOMEM,
                         "%zu FFT rows of %zu points do not fit in memory",
                         e->max_segs * e->channels, n);
    GF_CUDA_TRY(gf_cuda_malloc((void **)&e->d_buf,
                           e->max_rows * e->channels * (n + 2) * sizeof(float)),
                why, why_len);
    if (e->f->part)
        GF_CUDA_TRY(gf_cuda_malloc((void **)&e->d_in,
                               e->max_segs * e->channels * (n + 2) * sizeof(float)),
                    why, why_len);
    return make_plans(e, why, why_len);
}

extern "C" gfir_status gf_fft_engine_create(gf_fft_engine **out, const gf_fft_filter *f,
                                            unsigned channels, size_t max_n,
                                            cudaStream_t stream, unsigned flags, char *why,
                                            size_t why_len)
{
    if (!out || !f)
        return gf_detail(why, why_len, GFIR_ERR_NULL, "gf_fft_engine_create: NULL argument");
    *out = NULL;
    if (channels == 0 || channels > GF_GRID_Y_MAX || max_n == 0 ||
        (f->filters != 1 && f->filters != channels))
        return gf_detail(why, why_len, GFIR_ERR_ARG,
                         "an FFT engine of %u x %zu frames cannot use %u tap sets", channels,
                         max_n, f->filters);
    gf_fft_engine *e = (gf_fft_engine *)calloc(1, sizeof *e);
    if (!e)
        return gf_detail(why, why_len, GFIR_ERR_NOMEM, "out of host memory");
    e->f = f;
    e->channels = channels;
    e->max_n = max_n;
    e->stream = stream;
    e->hop = f->part ? f->part : f->fft_size - (f->ntaps - 1);
    /* smfft's four-step grid holds up to GF_GRID_Y_MAX segment pairs per
     * channel; one limit for both shapes */
    const size_t max_rows = (max_n + e->hop - 1) / e->hop;
    e->smfft = f->d_smfft_spec && !(flags & GF_FFT_CUFFT_ONLY) &&
               (max_rows + 1) / 2 <= GF_GRID_Y_MAX;
    const size_t smfft_work = e->smfft ? gf_smfft_work(f->fft_size, max_rows, channels) : 0;
    gfir_status st = GFIR_OK;
    if (!e->smfft)
        st = engine_init(e, why, why_len);
    else if (smfft_work) {
        const cudaError_t ce = gf_cuda_malloc((void **)&e->d_smfft_work, smfft_work);
        if (ce != cudaSuccess)
            st = gf_cuda_fail(ce, "cudaMalloc (FFT work area)", why, why_len);
    }
    if (st != GFIR_OK) {
        gf_fft_engine_destroy(e);
        return st;
    }
    *out = e;
    return GFIR_OK;
}

/* The cuFFT path: gather, R2C, multiply or multiply-accumulate, C2R, extract. */
static gfir_status run_cufft(gf_fft_engine *e, const float *d_x, size_t x_stride, size_t lead,
                             size_t avail, size_t n, float *d_out, size_t frame_stride,
                             size_t channel_stride, char *why, size_t why_len)
{
    const gf_fft_filter *f = e->f;
    const size_t n_fft = f->fft_size, halo = f->ntaps - 1, bins = n_fft / 2 + 1;
    size_t segs, rows;
    shape(e, n, &segs, &rows);
    const fft_plan *fwd = covering(e->r2c, segs), *inv = covering(e->c2r, rows);
    float *in = f->part ? e->d_in : e->d_buf; /* partitioned: spectra kept apart */
    cudaError_t ce = gf_fft_gather(d_x, x_stride, avail, f->front + lead, in, n_fft, e->hop,
                                   fwd->count, e->channels, e->stream);
    if (ce != cudaSuccess)
        return gf_cuda_fail(ce, "the gather pass", why, why_len);
    GF_CUFFT_TRY(gf_cufft().exec_r2c(fwd->h, (cufftReal *)in, (cufftComplex *)in),
                 "cufftExecR2C", why, why_len);
    if (f->part)
        ce = gf_fft_mac((const float2 *)in, segs, f->d_spec, f->parts, bins, rows, e->channels,
                        f->filters == 1, (float2 *)e->d_buf, e->stream);
    else
        ce = gf_fft_multiply((float2 *)e->d_buf, f->d_spec, bins, rows, e->channels,
                             f->filters == 1, e->stream);
    if (ce != cudaSuccess)
        return gf_cuda_fail(ce, f->part ? "the multiply-accumulate pass" : "the multiply pass",
                            why, why_len);
    GF_CUFFT_TRY(gf_cufft().exec_c2r(inv->h, (cufftComplex *)e->d_buf, (cufftReal *)e->d_buf),
                 "cufftExecC2R", why, why_len);
    /* partitioned: block j's outputs sit at columns part ..; whole: at halo .. */
    ce = gf_fft_extract(e->d_buf, n_fft, e->hop, f->part ? f->part : halo, n, rows, e->channels,
                        d_out, frame_stride, channel_stride, e->stream);
    if (ce != cudaSuccess)
        return gf_cuda_fail(ce, "the extract pass", why, why_len);
    return GFIR_OK;
}

extern "C" gfir_status gf_fft_run_window(gf_fft_engine *e, const float *d_x, size_t x_stride,
                                         size_t lead, size_t avail, size_t n, float *d_out,
                                         size_t frame_stride, size_t channel_stride, char *why,
                                         size_t why_len)
{
    if (!e || !d_x || !d_out)
        return gf_detail(why, why_len, GFIR_ERR_NULL, "gf_fft_run: NULL argument");
    const gf_fft_filter *f = e->f;
    const size_t n_fft = f->fft_size, halo = f->ntaps - 1;
    if (n > e->max_n || (e->channels > 1 && x_stride < avail))
        return gf_detail(why, why_len, GFIR_ERR_ARG,
                         "gf_fft_run: %zu frames, %zu samples at pitch %zu (engine of %zu)", n,
                         avail, x_stride, e->max_n);
    if (n == 0)
        return GFIR_OK;
    if (!e->smfft)
        return run_cufft(e, d_x, x_stride, lead, avail, n, d_out, frame_stride, channel_stride,
                         why, why_len);
    size_t segs, rows;
    shape(e, n, &segs, &rows);
    unsigned log_n = 0;
    while (((size_t)1 << log_n) < n_fft)
        log_n++;
    const gf_smfft_args a = {d_x,          x_stride,        avail,          lead,
                             f->d_smfft_spec, f->d_smfft_tw, f->filters == 1, log_n,
                             e->hop,       halo,            rows,           n,
                             d_out,        frame_stride,    channel_stride, e->channels,
                             e->d_smfft_work};
    const cudaError_t ce = gf_smfft_run(&a, e->stream);
    if (ce != cudaSuccess)
        return gf_cuda_fail(ce, "gf_smfft_run", why, why_len);
    return GFIR_OK;
}

extern "C" gfir_status gf_fft_run(gf_fft_engine *e, const float *d_x, size_t x_stride,
                                  size_t n, float *d_out, size_t frame_stride,
                                  size_t channel_stride, char *why, size_t why_len)
{
    const size_t halo = e ? e->f->ntaps - 1 : 0;
    if (e && x_stride < halo + n)
        return gf_detail(why, why_len, GFIR_ERR_ARG,
                         "gf_fft_run: %zu frames with input pitch %zu (engine of %zu)", n,
                         x_stride, e->max_n);
    return gf_fft_run_window(e, d_x, x_stride, 0, halo + n, n, d_out, frame_stride,
                             channel_stride, why, why_len);
}
