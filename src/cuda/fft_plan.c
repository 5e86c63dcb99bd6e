/*
 * fft_plan.c - a CUDA plan's FFT kernel: one filter's spectra, an engine per
 * lane on the lane's stream, and the step that runs it on a lane's staged
 * block (the engine writes interleaved frames itself).
 */
#include "cuda/cuda_plan.h"

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
 * in one run from the caller's memory (device.c), where sub-blocks would
 * only add their overlap. */
static gfir_status fft_lane(gfir_plan *plan, gf_cuda_state *st, gf_cuda_lane *l)
{
    const size_t max_n = l == &st->lane[0] ? plan->block_frames : st->sub_frames;
    return gf_fft_engine_create(&l->fft, st->fft_filter, plan->channels, max_n, l->stream, 0,
                                plan->detail, sizeof plan->detail);
}

static gfir_status fft_step(gfir_plan *plan, gf_cuda_state *st, gf_cuda_lane *me,
                            const float *x, size_t x_stride, size_t n, float *out,
                            size_t out_stride, size_t out_dist)
{
    (void)st;
    return gf_fft_run(me->fft, x, x_stride, n, out, out_stride, out_dist, plan->detail,
                      sizeof plan->detail);
}

gfir_status gf_cuda_fft_create(gfir_plan *plan, gf_cuda_state *st, const float *taps,
                               cudaStream_t stream)
{
    const size_t part = gf_fft_part(plan->ntaps, st->sub_frames);
    st->lane_setup = fft_lane;
    st->step = fft_step;
    return gf_fft_filter_create(&st->fft_filter, taps, plan->ntaps, plan->filter_channels,
                                part ? 2 * part : gf_fft_size(plan->ntaps, st->sub_frames), part,
                                stream, plan->detail, sizeof plan->detail);
}
