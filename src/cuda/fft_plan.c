/*
 * fft_plan.c - the FFT kernel's part of a lane plan (the "cuda-fft" engine,
 * fft_engine.c): a filter's spectra, an FFT engine per lane on the lane's
 * stream, and the step that runs it on a lane's staged block (it writes
 * interleaved frames itself). The lanes read the plan's filter; a crossfade
 * points them at the incoming one for its runs.
 */
#include "cuda/cuda_plan.h"
#include "cuda/tuning.h"

/* An FFT sub-block recomputes its halo's worth of overlap: sub-blocks of at
 * least this many halos keep that under a quarter of the work. */
#define FFT_SUB_HALOS 4

size_t gf_cuda_fft_sub_frames(const gfir_plan *plan, size_t sub_frames)
{
    const size_t halo = plan->ntaps - 1;
    const size_t fft_min =
        halo < plan->block_frames / FFT_SUB_HALOS ? FFT_SUB_HALOS * halo : plan->block_frames;
    return sub_frames > fft_min ? sub_frames : fft_min;
}

/* Lane 0's engine takes whole blocks: device calls convolve most of a call
 * in one run from the caller's memory (lanes_device.c), where sub-blocks would
 * only add their overlap. */
static gfir_status fft_lane(gfir_plan *plan, gf_cuda_state *st, gf_cuda_lane *l)
{
    const gf_cuda_filter *f = plan->filter->impl;
    const size_t max_n = l == &st->lane[0] ? plan->block_frames : st->sub_frames;
    return gf_fft_engine_create(&l->fft, f->fft, plan->channels, max_n, l->stream, 0,
                                plan->detail, sizeof plan->detail);
}

gfir_status gf_cuda_fft_use(gfir_plan *plan, gf_cuda_state *st, const gf_cuda_filter *f)
{
    for (int i = 0; i < 2; i++) {
        gfir_status status =
            gf_fft_engine_use(st->lane[i].fft, f->fft, plan->detail, sizeof plan->detail);
        if (status != GFIR_OK)
            return status;
    }
    return GFIR_OK;
}

/* The engine runs the plan's filter; another one (a crossfade's incoming)
 * for this run only. */
static gfir_status fft_step(gfir_plan *plan, gf_cuda_state *st, gf_cuda_lane *me,
                            const gf_cuda_filter *f, const float *x, size_t x_stride, size_t n,
                            float *out, size_t out_stride, size_t out_dist)
{
    const gf_cuda_filter *mine = plan->filter->impl;
    gfir_status status = GFIR_OK;
    (void)st;
    if (f != mine)
        status = gf_fft_engine_use(me->fft, f->fft, plan->detail, sizeof plan->detail);
    if (status == GFIR_OK)
        status = gf_fft_run(me->fft, x, x_stride, n, out, out_stride, out_dist, plan->detail,
                            sizeof plan->detail);
    if (f != mine) {
        const gfir_status back =
            gf_fft_engine_use(me->fft, mine->fft, plan->detail, sizeof plan->detail);
        status = status == GFIR_OK ? back : status;
    }
    return status;
}

void gf_cuda_fft_setup(gfir_plan *plan, gf_cuda_state *st)
{
    (void)plan;
    st->lane_setup = fft_lane;
    st->step = fft_step;
}

gfir_status gf_cuda_fft_prepare(const gfir_plan *plan, const gf_cuda_state *st,
                                const float *taps, gf_cuda_filter *f, cudaStream_t stream,
                                char *why, size_t why_len)
{
    const size_t part = gf_fft_part(plan->ntaps, st->sub_frames);
    return gf_fft_filter_create(&f->fft, taps, plan->ntaps, plan->filter_channels,
                                part ? 2 * part : gf_fft_size(plan->ntaps, st->sub_frames), part,
                                stream, why, why_len);
}
