/*
 * lanes_device.c - a lane plan's calls on device memory (gfir.h, "Device
 * memory"); the delay-line engine has its own (fdl_device.c).
 *
 * A call is ordered after the caller's stream by an event both lanes wait
 * for, and hands back through the lanes' events, which the caller's stream
 * waits for: the host never waits. Its samples take one of two routes.
 *
 * Staged, as host calls are: sub-blocks alternate between the lanes, each
 * staged planar behind its halo (the stage kernel reads the caller's
 * strides directly) and convolved into the caller's output.
 *
 * In place, for input with stride 1, which is planar already: outputs from
 * ntaps - 1 on need only the call's own input, so lane 0 convolves them
 * straight from the caller's rows in one run (its FFT engine takes whole
 * blocks), and only the first ntaps - 1 outputs, which need the history,
 * are staged. The call's last ntaps - 1 inputs are then copied into the
 * newest lane's buffer, where the next call's staging looks for its halo.
 * Direct kernels write planar rows, so they take this route only towards
 * output of stride 1; the FFT engine writes any layout.
 *
 * A whole signal (convolve) has no history: every output window is
 * computed from the caller's rows where they lie, the zeros before and
 * after the signal being the FFT engine's own (gf_fft_run_window), in runs
 * as long as lane 0's engine takes, or our direct kernel's (one launch for
 * the whole window, planar output); the textbook kernels read the rows in
 * place wherever a window's inputs all lie in the signal, and the windows
 * at its ends (or of other layouts) are staged with their zeros.
 *
 * During a crossfade the streaming calls convolve through gf_cuda_convolve,
 * which mixes the incoming filter in; a whole signal and new taps end a
 * fade first (core/device.c), so they use the plan's filter alone.
 */
#include "cuda/cuda_plan.h"
#include "cuda_status.h"

#include <cuda_runtime_api.h>
#include <string.h>

#define TRY(call) GF_CUDA_TRY(call, plan->detail, sizeof plan->detail)

/* Both lanes start after what the caller's stream holds so far, and after
 * what the other lane still has queued: a call on another stream than the
 * last one's (new taps, say) must not overtake work that reads the filter. */
static gfir_status after_caller(gfir_plan *plan, gf_cuda_state *st, cudaStream_t stream)
{
    TRY(cudaEventRecord(st->caller, stream));
    for (int i = 0; i < 2; i++)
        TRY(cudaEventRecord(st->lane[i].done, st->lane[i].stream));
    for (int i = 0; i < 2; i++) {
        TRY(cudaStreamWaitEvent(st->lane[i].stream, st->caller, 0));
        TRY(cudaStreamWaitEvent(st->lane[i].stream, st->lane[1 - i].done, 0));
    }
    return GFIR_OK;
}

/* The caller's stream continues after everything both lanes were given. */
static gfir_status hand_back(gfir_plan *plan, gf_cuda_state *st, cudaStream_t stream)
{
    for (int i = 0; i < 2; i++) {
        TRY(cudaEventRecord(st->lane[i].done, st->lane[i].stream));
        TRY(cudaStreamWaitEvent(stream, st->lane[i].done, 0));
    }
    return GFIR_OK;
}

/* A call that failed part-way still hands back what it queued, so the
 * caller's stream waits for kernels reading and writing its buffers before
 * the caller frees them; where even that fails, the lanes are waited for. */
static gfir_status failed(gfir_plan *plan, gf_cuda_state *st, cudaStream_t stream,
                          gfir_status status)
{
    char why[sizeof plan->detail];
    memcpy(why, plan->detail, sizeof why);
    if (hand_back(plan, st, stream) != GFIR_OK)
        for (int i = 0; i < 2; i++)
            cudaStreamSynchronize(st->lane[i].stream);
    cudaGetLastError();
    memcpy(plan->detail, why, sizeof why);
    return status;
}

/* Frames from .. to of the call, staged through the lanes in sub-blocks. */
static gfir_status staged(gfir_plan *plan, gf_cuda_state *st, const gf_device_io *io,
                          size_t from, size_t to)
{
    for (size_t done = from, m; done < to; done += m) {
        gf_cuda_lane *me = &st->lane[1 - st->last], *prev = &st->lane[st->last];
        m = to - done < st->sub_frames ? to - done : st->sub_frames;
        TRY(cudaStreamWaitEvent(me->stream, prev->staged, 0));
        st->zeroed = 0;
        TRY(gf_launch_stage(prev->d_x, prev->n, me->d_x, st->x_stride, st->halo,
                            io->in ? io->in + done * io->in_stride : NULL, io->in_stride,
                            io->in_dist, m, plan->channels, me->stream));
        TRY(cudaEventRecord(me->staged, me->stream));
        me->n = m;
        st->last = 1 - st->last;
        gfir_status status = gf_cuda_convolve(plan, st, me, me->d_x, st->x_stride, m,
                                              io->out + done * io->out_stride, io->out_stride,
                                              io->out_dist, done);
        if (status != GFIR_OK)
            return status;
    }
    return GFIR_OK;
}

/* Outputs ntaps - 1 .. n straight from the caller's rows, then the next
 * call's halo (n > ntaps - 1, the first outputs staged already). */
static gfir_status in_place(gfir_plan *plan, gf_cuda_state *st, const gf_device_io *io,
                            size_t n)
{
    const size_t halo = st->halo;
    /* one channel has no dist of its own: its row is the call */
    const size_t pitch = plan->channels == 1 ? n : io->in_dist;
    gf_cuda_lane *l = &st->lane[st->last];
    gfir_status status =
        gf_cuda_convolve(plan, st, &st->lane[0], io->in, pitch, n - halo,
                         io->out + halo * io->out_stride, io->out_stride, io->out_dist, halo);
    if (status != GFIR_OK || halo == 0)
        return status;
    st->zeroed = 0;
    TRY(cudaMemcpy2DAsync(l->d_x, st->x_stride * sizeof(float), io->in + (n - halo),
                          pitch * sizeof(float), halo * sizeof(float), plan->channels,
                          cudaMemcpyDeviceToDevice, l->stream));
    TRY(cudaEventRecord(l->staged, l->stream));
    l->n = 0;
    return GFIR_OK;
}

gfir_status gf_cuda_execute_device(gfir_plan *plan, const gf_device_io *io, size_t n)
{
    gf_cuda_state *st = plan->impl;
    const cudaStream_t stream = (cudaStream_t)io->stream;
    /* rows that overlap would not fit the kernels' pitch (x_stride >= halo + n) */
    const int planar = io->in && io->in_stride == 1 && (plan->channels == 1 || io->in_dist >= n);
    const int writes_any = plan->kernel == GFIR_KERNEL_FFT || io->out_stride == 1;
    const int direct = planar && writes_any && n > st->halo;
    gfir_status status = after_caller(plan, st, stream);
    if (status == GFIR_OK)
        status = staged(plan, st, io, 0, direct ? st->halo : n);
    if (status == GFIR_OK && direct)
        status = in_place(plan, st, io, n);
    return status == GFIR_OK ? hand_back(plan, st, stream) : failed(plan, st, stream, status);
}

/* Outputs a .. a + m of a whole signal of `frames` frames through the next
 * lane: the window of inputs they need, zeros outside the signal, staged
 * as the streaming path stages a block (after the other lane's staging,
 * which may still be reading this lane's buffer). */
static gfir_status window_staged(gfir_plan *plan, gf_cuda_state *st, const gf_device_io *io,
                                 size_t frames, size_t a, size_t m)
{
    gf_cuda_lane *me = &st->lane[1 - st->last], *other = &st->lane[st->last];
    const size_t halo = st->halo;
    const size_t lead = a < halo ? halo - a : 0, base = a < halo ? 0 : a - halo;
    TRY(cudaStreamWaitEvent(me->stream, other->staged, 0));
    st->zeroed = 0;
    TRY(gf_launch_window(io->in, io->in_stride, io->in_dist, frames, lead, base, me->d_x,
                         st->x_stride, halo + m, plan->channels, me->stream));
    TRY(cudaEventRecord(me->staged, me->stream));
    me->n = m;
    st->last = 1 - st->last;
    return st->step(plan, st, me, plan->filter->impl, me->d_x, st->x_stride, m, io->out,
                    io->out_stride, io->out_dist);
}

/* Outputs start .. start + length of the whole signal's convolution into
 * io->out, window by window (the opening comment's last paragraph). */
gfir_status gf_cuda_convolve_device(gfir_plan *plan, const gf_device_io *io, size_t frames,
                                    size_t start, size_t length)
{
    gf_cuda_state *st = plan->impl;
    gf_cuda_lane *l0 = &st->lane[0];
    const size_t halo = st->halo, end = start + length;
    const int planar = io->in_stride == 1 && (plan->channels == 1 || io->in_dist >= frames);
    const size_t pitch = plan->channels == 1 ? frames : io->in_dist;
    gfir_status status = after_caller(plan, st, (cudaStream_t)io->stream);
    for (size_t a = start, m; a < end && status == GFIR_OK; a += m) {
        gf_device_io w = *io;
        w.out = io->out + (a - start) * io->out_stride;
        const int fft = plan->kernel == GFIR_KERNEL_FFT;
        if (planar && (fft || (plan->kernel == GFIR_KERNEL_DIRECT && io->out_stride == 1))) {
            /* the window's inputs: lead zeros, then avail of the caller's
             * samples from base, then zeros; the FFT engine in runs as long
             * as it takes, our direct kernel in one launch */
            m = fft && end - a > gf_fft_engine_max_n(l0->fft) ? gf_fft_engine_max_n(l0->fft)
                                                               : end - a;
            const size_t lead = a < halo ? halo - a : 0, base = a < halo ? 0 : a - halo;
            size_t avail = frames > base ? frames - base : 0;
            avail = avail < halo + m - lead ? avail : halo + m - lead;
            const float *x = avail ? io->in + base : io->in;
            status = fft ? gf_fft_run_window(l0->fft, x, pitch, lead, avail, m, w.out,
                                             io->out_stride, io->out_dist, plan->detail,
                                             sizeof plan->detail)
                         : gf_cuda_direct_window(plan, st, l0, x, pitch, lead, avail, m, w.out,
                                                 io->out_dist);
        } else if (planar && io->out_stride == 1 && a >= halo && a < frames) {
            m = (end < frames ? end : frames) - a; /* every input in the caller's rows */
            status = st->step(plan, st, l0, plan->filter->impl, io->in + (a - halo), pitch, m,
                              w.out, 1, io->out_dist);
        } else {
            m = end - a < st->sub_frames ? end - a : st->sub_frames;
            if (planar && io->out_stride == 1 && a < halo && halo - a < m)
                m = halo - a; /* the rest goes in place */
            status = window_staged(plan, st, &w, frames, a, m);
        }
    }
    /* the staging used the lanes' buffers: the next streaming call starts anew */
    if (status == GFIR_OK)
        status = gf_cuda_clear(plan, st);
    return status == GFIR_OK ? hand_back(plan, st, (cudaStream_t)io->stream)
                             : failed(plan, st, (cudaStream_t)io->stream, status);
}

/* New taps into the plan's filter on lane 0, the history cleared on the
 * newest lane; lane 1 and the caller wait for both. */
gfir_status gf_cuda_set_taps_device(gfir_plan *plan, const float *taps, cudaStream_t stream)
{
    gf_cuda_state *st = plan->impl;
    gf_cuda_filter *f = plan->filter->impl;
    gf_cuda_lane *l0 = &st->lane[0], *l1 = &st->lane[1];
    gfir_status status = after_caller(plan, st, stream);
    if (status == GFIR_OK && plan->kernel == GFIR_KERNEL_FFT) {
        const int cufft = !gf_fft_engine_smfft(st->lane[0].fft) ||
                          !gf_fft_engine_smfft(st->lane[1].fft);
        status = gf_fft_filter_set_taps(f->fft, taps, cufft, l0->stream, plan->detail,
                                        sizeof plan->detail);
    } else if (status == GFIR_OK) {
        const cudaError_t e = gf_launch_reverse_taps(taps, plan->ntaps, plan->filter_channels,
                                                     f->d_taps, st->taps_stride, l0->stream);
        if (e != cudaSuccess)
            status = gf_cuda_fail(e, "gf_launch_reverse_taps", plan->detail, sizeof plan->detail);
    }
    if (status == GFIR_OK) {
        const cudaError_t e = cudaEventRecord(l0->done, l0->stream);
        status = e == cudaSuccess ? GFIR_OK : gf_cuda_fail(e, "cudaEventRecord", plan->detail,
                                                           sizeof plan->detail);
    }
    if (status == GFIR_OK) {
        const cudaError_t e = cudaStreamWaitEvent(l1->stream, l0->done, 0);
        status = e == cudaSuccess ? GFIR_OK : gf_cuda_fail(e, "cudaStreamWaitEvent",
                                                           plan->detail, sizeof plan->detail);
    }
    if (status == GFIR_OK)
        status = gf_cuda_clear(plan, st);
    return status == GFIR_OK ? hand_back(plan, st, stream) : failed(plan, st, stream, status);
}
