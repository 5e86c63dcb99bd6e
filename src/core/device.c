/*
 * device.c - the plan layer's calls on device memory (gfir.h, "Device
 * memory"): checks the plan and the buffers, splits calls into blocks and
 * hands them to the engine's device operations.
 */
#include "core/plan.h"
#include "core/swap.h"

#include <stdint.h>

/* The plan can take device calls: its backend reads device memory and it
 * has no paths. */
static gfir_status device_plan(gfir_plan *plan)
{
    plan->detail[0] = '\0';
    if (!plan->engine->execute_device)
#ifdef GFIR_HAVE_CUDA
        return gf_fail(plan, GFIR_ERR_UNAVAILABLE,
                       "the plan runs on the '%s' backend, which cannot read device memory; "
                       "make it with backend cuda",
                       plan->engine->backend->name);
#else
        return gf_fail(plan, GFIR_ERR_UNAVAILABLE,
                       "this gfir was built without CUDA: no plan can read device memory");
#endif
    if (plan->route)
        return gf_fail(plan, GFIR_ERR_UNSUPPORTED, "device calls take plans without paths");
    return GFIR_OK;
}

/* One more than the largest offset of a strided buffer of n frames: the
 * floats it spans from its start. */
static size_t span(size_t n, unsigned channels, size_t stride, size_t dist)
{
    return (n - 1) * stride + (channels - 1) * dist + 1;
}

/* Whether two (frame, channel) pairs of a strided buffer share an address:
 * the conservative test that the smaller step's whole extent stays within
 * one larger step (rare layouts that interleave otherwise are refused). */
static int collides(size_t n, unsigned channels, size_t stride, size_t dist)
{
    if ((n > 1 && stride == 0) || (channels > 1 && dist == 0))
        return 1;
    if (n == 1 || channels == 1)
        return 0;
    if (stride <= dist) /* (n - 1) * stride >= dist, without overflow */
        return n - 1 > (dist - 1) / stride;
    return channels - 1 > (stride - 1) / dist;
}

/* The output of out_frames frames lies apart from itself and from the input
 * of in_frames frames. */
static gfir_status check_io(gfir_plan *plan, const gf_device_io *io, size_t in_frames,
                            size_t out_frames)
{
    const uintptr_t out = (uintptr_t)io->out;
    const size_t out_span = span(out_frames, plan->outputs, io->out_stride, io->out_dist);
    if (collides(out_frames, plan->outputs, io->out_stride, io->out_dist))
        return gf_fail(plan, GFIR_ERR_ARG,
                       "output stride %zu and dist %zu put two of its %zu x %u samples in one "
                       "place",
                       io->out_stride, io->out_dist, out_frames, plan->outputs);
    if (io->in && in_frames) {
        const uintptr_t in = (uintptr_t)io->in;
        const size_t in_span = span(in_frames, plan->inputs, io->in_stride, io->in_dist);
        if (in < out + out_span * sizeof(float) && out < in + in_span * sizeof(float))
            return gf_fail(plan, GFIR_ERR_ARG, "the output overlaps the input: device calls "
                                               "need separate buffers");
    }
    return GFIR_OK;
}

static gfir_status device_block(gfir_plan *plan, void *arg, size_t n)
{
    gf_device_io *io = arg;
    const gfir_status st = plan->engine->execute_device(plan, io, n);
    if (io->in)
        io->in += n * io->in_stride;
    io->out += n * io->out_stride;
    return st;
}

static gfir_status run_device(gfir_plan *plan, gf_device_io io, size_t frames)
{
    gfir_status st;
    if (frames == 0)
        return GFIR_OK;
    st = check_io(plan, &io, frames, frames);
    return st == GFIR_OK ? gf_fade_blocks(plan, frames, device_block, &io) : st;
}

gfir_status gfir_plan_execute_device(gfir_plan *plan, const float *in, size_t in_stride,
                                     size_t in_dist, float *out, size_t out_stride,
                                     size_t out_dist, size_t frames, void *stream)
{
    if (!plan)
        return GFIR_ERR_NULL;
    gfir_status st = device_plan(plan);
    if (st != GFIR_OK)
        return st;
    if (frames && (!in || !out))
        return gf_fail(plan, GFIR_ERR_NULL, "in or out is NULL");
    const gf_device_io io = {in, in_stride, in_dist, out, out_stride, out_dist, stream};
    return run_device(plan, io, frames);
}

gfir_status gfir_plan_flush_device(gfir_plan *plan, float *out, size_t out_stride,
                                   size_t out_dist, size_t frames, void *stream)
{
    if (!plan)
        return GFIR_ERR_NULL;
    gfir_status st = device_plan(plan);
    if (st != GFIR_OK)
        return st;
    if (frames && !out)
        return gf_fail(plan, GFIR_ERR_NULL, "out is NULL");
    const gf_device_io io = {NULL, 0, 0, out, out_stride, out_dist, stream};
    return run_device(plan, io, frames);
}

gfir_status gfir_plan_convolve_device(gfir_plan *plan, const float *in, size_t in_stride,
                                      size_t in_dist, size_t frames, float *out,
                                      size_t out_stride, size_t out_dist, size_t start,
                                      size_t length, void *stream)
{
    if (!plan)
        return GFIR_ERR_NULL;
    gfir_status st = device_plan(plan);
    if (st != GFIR_OK)
        return st;
    if (!in || !out)
        return gf_fail(plan, GFIR_ERR_NULL, "in or out is NULL");
    if (start > SIZE_MAX - length)
        return gf_fail(plan, GFIR_ERR_ARG, "start %zu and length %zu overflow", start, length);
    if (length == 0)
        return GFIR_OK;
    const gf_device_io io = {in, in_stride, in_dist, out, out_stride, out_dist, stream};
    st = check_io(plan, &io, frames, length);
    if (st != GFIR_OK)
        return st;
    gf_fade_finish(plan);
    return plan->engine->convolve_device(plan, &io, frames, start, length);
}

gfir_status gfir_plan_set_taps_device(gfir_plan *plan, const float *taps, void *stream)
{
    if (!plan)
        return GFIR_ERR_NULL;
    gfir_status st = device_plan(plan);
    if (st != GFIR_OK)
        return st;
    if (!taps)
        return gf_fail(plan, GFIR_ERR_NULL, "taps is NULL");
    gf_fade_finish(plan);
    return plan->engine->set_taps_device(plan, taps, stream);
}
