/*
 * fdl_device.c - the delay-line engine's calls on device memory (gfir.h,
 * "Device memory"): the caller's samples restrided into and out of the
 * engine's own interleaved buffers on the device, everything ordered on
 * the caller's stream by events, and the next block's tail work left
 * running after the output is handed back, as for host calls (fdl.c).
 */
#include "cuda/fdl_state.h"
#include "kernels.h"

#include <cuda_runtime_api.h>

/* Device calls: on the plan's stream after the caller's, which then waits
 * for out_ready only, not for the tail work behind it. */
gfir_status gf_fdl_execute_device(gfir_plan *plan, fdl_state *st, const gf_device_io *io,
                                  size_t n)
{
    const cudaStream_t stream = (cudaStream_t)io->stream;
    gfir_status s;
    TRY(cudaEventRecord(st->caller, stream));
    TRY(cudaStreamWaitEvent(st->stream, st->caller, 0));
    if (io->in)
        TRY(gf_launch_restride(io->in, io->in_stride, io->in_dist, st->d_in, st->inputs, 1, n,
                               st->inputs, st->stream));
    if ((s = gf_fdl_run(plan, st, !io->in, io, n, 0)) != GFIR_OK) {
        /* what was queued reads and writes the caller's buffers: the
         * caller's stream waits for it before it can free them */
        if (cudaEventRecord(st->caller, st->stream) != cudaSuccess ||
            cudaStreamWaitEvent(stream, st->caller, 0) != cudaSuccess)
            cudaStreamSynchronize(st->stream);
        cudaGetLastError();
        return s;
    }
    TRY(cudaStreamWaitEvent(stream, st->out_ready, 0));
    return GFIR_OK;
}

/* A whole signal: the engine streams, so from a cleared history the
 * signal and then silence go through it block by block, the outputs
 * before `start` staying in d_out; cleared again after. */
gfir_status gf_fdl_convolve_device(gfir_plan *plan, fdl_state *st, const gf_device_io *io,
                                   size_t frames, size_t start, size_t length)
{
    const cudaStream_t stream = (cudaStream_t)io->stream;
    const size_t end = start + length, block = plan->block_frames;
    gfir_status s;
    TRY(cudaEventRecord(st->caller, stream));
    TRY(cudaStreamWaitEvent(st->stream, st->caller, 0));
    if ((s = gf_fdl_clear(plan, st)) != GFIR_OK)
        return s;
    for (size_t pos = 0, n; pos < end; pos += n) {
        n = end - pos < block ? end - pos : block;
        const size_t k = pos < frames ? (frames - pos < n ? frames - pos : n) : 0;
        const size_t skip = pos < start ? (start - pos < n ? start - pos : n) : 0;
        if (k)
            TRY(gf_launch_restride(io->in + pos * io->in_stride, io->in_stride, io->in_dist,
                                   st->d_in, st->inputs, 1, k, st->inputs, st->stream));
        if (k && k < n)
            TRY(cudaMemsetAsync(st->d_in + k * st->inputs, 0, (n - k) * st->inputs * sizeof(float),
                                st->stream));
        gf_device_io piece = *io;
        if (n > skip)
            piece.out = io->out + (pos + skip - start) * io->out_stride;
        if ((s = gf_fdl_run(plan, st, k == 0, &piece, n, skip)) != GFIR_OK)
            return s;
    }
    if ((s = gf_fdl_clear(plan, st)) != GFIR_OK)
        return s;
    TRY(cudaStreamWaitEvent(stream, st->out_ready, 0));
    return GFIR_OK;
}

/* The head taps and the partitions' spectra from device taps, into the
 * plan's filter, then the history cleared, as create makes them. */
gfir_status gf_fdl_set_taps_device(gfir_plan *plan, fdl_state *st, const float *taps,
                                   cudaStream_t stream)
{
    const size_t B = st->part, ntaps = plan->ntaps;
    fdl_filter *f = plan->filter->impl;
    TRY(cudaEventRecord(st->caller, stream));
    TRY(cudaStreamWaitEvent(st->stream, st->caller, 0));
    TRY(cudaMemcpy2DAsync(f->d_head, B * sizeof(float), taps, ntaps * sizeof(float),
                          st->head_len * sizeof(float), st->sets, cudaMemcpyDeviceToDevice,
                          st->stream));
    if (st->tparts)
        TRY(gf_launch_fdl_spectra(taps, ntaps, 0, st->near_taps, st->sets, B, st->tparts,
                                  st->d_tw, f->d_h, st->stream));
    if (st->far)
        TRY(gf_fdl_far_spectra(st->far, taps, f->d_far, st->stream));
    gfir_status s = gf_fdl_clear(plan, st);
    if (s != GFIR_OK)
        return s;
    TRY(cudaEventRecord(st->out_ready, st->stream));
    TRY(cudaStreamWaitEvent(stream, st->out_ready, 0));
    return GFIR_OK;
}

