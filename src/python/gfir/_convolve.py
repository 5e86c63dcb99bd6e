"""gfir.convolve and gfir.convolve_batch: whole signals through plans.

A mode asks for a window of the full convolution: [start, start + length).
On the GPU that is one gfir_plan_convolve_device per plan. On the CPU a
signal is one pass through a plan that accepts any latency: the plan's
output frame i is the causal convolution's frame i - latency, so the
window is the plan's frames from latency + start on, pulled by executing
the signal and then flushing silence, the frames before it going to a
scratch buffer. Plans are kept (a few per thread, by shape) so that
repeated calls pay for the FFT plans and device buffers once; a kept plan
is reset, or given its new taps on the device, before each use.
"""
from __future__ import annotations

import collections
import threading
from typing import Any, Callable, Optional, Tuple

import numpy as np

from . import _arrays, _lib
from .plan import CPlan, host_taps

MODES = ("full", "same", "valid")
# plans kept per thread; each holds buffers for its block
CACHE_SIZE = 8
# blocks of the kept plans: powers of two, so signals of nearby lengths
# share a plan; host plans, and scratch buffers for the frames a window
# drops, stop at HOST_BLOCK_MAX (larger calls are split)
MIN_BLOCK = 4096
HOST_BLOCK_MAX = 1 << 20


def window(t: int, m: int, mode: str) -> Tuple[int, int]:
    """(start, length) of a mode's output within the full convolution of
    signals of t and m samples: SciPy's (scipy.signal.convolve), which is
    NumPy's (numpy.convolve) except 'same' with m > t, where NumPy returns
    m samples and SciPy t."""
    if mode == "full":
        return 0, t + m - 1
    if mode == "same":
        return (m - 1) // 2, t
    if mode == "valid":
        return min(t, m) - 1, abs(t - m) + 1
    raise ValueError(f"gfir: mode must be one of {MODES}, not {mode!r}")


def _block(frames: int, cap: int) -> int:
    b = MIN_BLOCK
    while b < frames and b < cap:
        b *= 2
    return min(b, cap)


class _Kept:
    """A kept plan and the host taps it holds (None: set on the device)."""

    def __init__(self, plan: CPlan, taps: Optional[np.ndarray]):
        self.plan = plan
        self.taps = taps


class _Cache(threading.local):
    def __init__(self) -> None:
        self.plans: "collections.OrderedDict[tuple, _Kept]" = collections.OrderedDict()


_cache = _Cache()


def _kept(key: tuple, make: Callable[[], _Kept]) -> _Kept:
    plans = _cache.plans
    kept = plans.get(key)
    if kept is not None:
        plans.move_to_end(key)
        return kept
    kept = plans[key] = make()
    while len(plans) > CACHE_SIZE:
        plans.popitem(last=False)[1].plan.close()
    return kept


def clear_cache() -> None:
    """Frees the plans convolve and convolve_batch keep on this thread."""
    while _cache.plans:
        _cache.plans.popitem()[1].plan.close()


def _pull(run: Callable[[int, int, int], None], flush: Callable[[int, int], None],
          t: int, pos: int, count: int) -> None:
    """Frames pos .. pos + count of a plan fed the signal (t frames) and
    then silence: run(pos, frames, at) executes input frames pos .. into
    the destination from frame `at`, flush(frames, at) pulls silence."""
    k = min(max(t - pos, 0), count)
    if k:
        run(pos, k, 0)
    if count > k:
        flush(count - k, k)


def _config(channels: int, filter_channels: int, backend: str, kernel: str, block: int,
            device: int, frames: int) -> _lib.Config:
    return _lib.new_config(channels, filter_channels, backend, kernel, block, None, 0, device,
                           frames)


# ---- host ------------------------------------------------------------------

def _host_stream(plan: CPlan, x: np.ndarray, t: int, start: int, y: np.ndarray) -> None:
    """Output frames start .. of the full convolution into y, from x: both
    contiguous, (frames,) or (frames, channels) interleaved."""
    frame = 4 * plan.channels
    skip = plan.latency + start
    xp, yp = x.ctypes.data, y.ctypes.data
    if skip:
        room = min(skip, HOST_BLOCK_MAX)
        scratch = np.empty((room, plan.channels), np.float32)
        sp = scratch.ctypes.data

        def run_s(pos: int, n: int, at: int) -> None:
            for i in range(0, n, room):
                plan.execute(xp + (pos + i) * frame, sp, min(room, n - i))

        def flush_s(n: int, at: int) -> None:
            for i in range(0, n, room):
                plan.flush(sp, min(room, n - i))
        _pull(run_s, flush_s, t, 0, skip)

    def run(pos: int, n: int, at: int) -> None:
        plan.execute(xp + pos * frame, yp + at * frame, n)

    def flush(n: int, at: int) -> None:
        plan.flush(yp + at * frame, n)
    _pull(run, flush, t, skip, len(y))


def _host_rows(x2: np.ndarray, taps: np.ndarray, per_row: bool, start: int, length: int,
               backend: str, kernel: str, device: int) -> np.ndarray:
    """(C, length) rows of output for (C, T) rows x2, through the host API."""
    rows_n, t = x2.shape
    m = taps.shape[-1]
    block = _block(start + length, HOST_BLOCK_MAX)
    dist, stride = _arrays._get(_arrays.Backend).strides(x2)
    if not per_row and 1 < rows_n <= _lib.MAX_CHANNELS and stride == rows_n and dist == 1:
        # interleaved frames already: one plan for every channel, no copies
        key = ("host", rows_n, m, block, backend, kernel, device, taps.tobytes())
        kept = _kept(key, lambda: _Kept(CPlan(taps, m, _config(rows_n, 1, backend, kernel,
                                                              block, device, t)), None))
        kept.plan.reset()
        y = np.empty((length, rows_n), np.float32)
        _host_stream(kept.plan, x2.T, t, start, y)
        return y.T
    if stride != 1:
        x2 = np.ascontiguousarray(x2)
    y2 = np.empty((rows_n, length), np.float32)
    for r in range(rows_n):
        if per_row:
            plan = CPlan(taps[r], m, _config(1, 1, backend, kernel, block, device, t))
        else:
            key = ("host", 1, m, block, backend, kernel, device, taps.tobytes())
            plan = _kept(key, lambda: _Kept(CPlan(taps, m, _config(1, 1, backend, kernel,
                                                                   block, device, t)), None)).plan
            plan.reset()
        try:
            _host_stream(plan, x2[r], t, start, y2[r])
        finally:
            if per_row:
                plan.close()
    return y2


# ---- device ----------------------------------------------------------------

def _device_rows(b: _arrays.Backend, x2: Any, h: Any, per_row: bool, start: int,
                 length: int, kernel: str) -> Any:
    """(C, length) rows of output for (C, T) device rows x2, groups of up to
    1024 rows per plan, each one gfir_plan_convolve_device on the array
    library's current stream."""
    rows_n, t = x2.shape
    dev = b.device_id(x2)
    stream = b.stream(x2)
    dist, stride = b.strides(x2)
    y2 = _arrays.empty_rows(b, x2, rows_n, length, rows_n > 1 and stride > dist)
    ydist, ystride = b.strides(y2)
    hb, ha = _arrays.backend_of(h)
    if hb.on_device:
        _arrays.device_check(hb, ha, dev, "h")
        ha, _ = _arrays.float32_of(hb, ha, "h")
        h_dev, h_host = hb.contiguous(ha), None
    else:
        h_host, h_dev = host_taps(ha), None
    m = ha.shape[-1]
    group_max = min(rows_n, _lib.MAX_CHANNELS)
    # one run of the FFT engine covers the whole output
    block = _block(max(t, length), (1 << 30) // group_max)
    xp, yp = b.ptr(x2), b.ptr(y2)
    for g0 in range(0, rows_n, _lib.MAX_CHANNELS):
        g = min(_lib.MAX_CHANNELS, rows_n - g0)
        fch = g if per_row else 1
        want = h_host[g0:g0 + fch] if per_row and h_host is not None else h_host
        kept = _kept(("cuda", dev, g, fch, m, block, kernel), lambda: _Kept(
            CPlan(want if want is not None else np.zeros((fch, m), np.float32), m,
                  _config(g, fch, "cuda", kernel, block, dev, t)),
            None if want is None else np.array(want)))
        plan = kept.plan
        if want is None or kept.taps is None or not np.array_equal(kept.taps, want):
            # new taps, transformed on the device: the batch's own, or host taps
            # uploaded once (freed in stream order after use)
            taps_dev = (b.from_host(np.ascontiguousarray(want), x2) if want is not None
                        else h_dev[g0:g0 + fch] if per_row else h_dev)
            plan.set_taps_device(b.ptr(taps_dev), stream)
            kept.taps = None if want is None else np.array(want)
        plan.convolve_device(xp + 4 * g0 * dist, stride, dist, t, yp + 4 * g0 * ydist, ystride,
                             ydist, start, length, stream)
    return y2


# ---- the public functions -------------------------------------------------

def _device_backend(backend: str) -> None:
    if backend not in ("auto", "cuda"):
        raise ValueError(f"gfir: device arrays are filtered on the GPU: backend must be "
                         f"'auto' or 'cuda', not {backend!r}")


def _device_of(b: _arrays.Backend, x: Any, device: Optional[int]) -> int:
    """The CUDA device to filter on: a device array's own (device, when
    given, must name it), else device (default 0)."""
    if device is not None:
        device = _lib.integer("device", device, _lib.INT_MIN, _lib.INT_MAX)
    if not b.on_device:
        return 0 if device is None else device
    dev = b.device_id(x)
    if device is not None and device != dev:
        raise ValueError(f"gfir: x is on device {dev}, not device={device}: a device array "
                         f"is filtered where it is")
    return dev


def _nonempty(n: int, refusal: str) -> int:
    """SciPy has no one answer for an empty signal or filter (convolve
    raises in 'full' and 'valid' but returns [] in 'same'; oaconvolve and
    fftconvolve return a 1-D [] whatever the shapes): gfir refuses it."""
    if n == 0:
        raise ValueError(f"gfir: {refusal}")
    return n


def _no_rows(b: _arrays.Backend, x: Any, length: int) -> Any:
    """The result for no signals at all (an empty batch): (0, length)."""
    with b.on(x) if b.on_device else _arrays._Nothing():
        return b.empty((0, length), x)


def convolve(x: Any, h: Any, mode: str = "full", axis: int = -1, *, backend: str = "auto",
             kernel: str = "auto", device: Optional[int] = None) -> Any:
    """Convolves every 1-D slice of `x` along `axis` with the filter `h`.

    The semantics of ``scipy.signal.convolve`` (and ``oaconvolve``) for a
    1-D filter: ``mode="full"`` gives ``T + M - 1`` samples, ``"same"`` the
    ``T`` centred ones, ``"valid"`` the ``|T - M| + 1`` that need no
    padding (T samples of x along axis, M of h). For 1-D x this is
    ``numpy.convolve(x, h, mode)``, but for ``"same"`` with ``M > T``
    (NumPy returns M samples, SciPy T).

    x may be a NumPy array (or a PyTorch CPU tensor), filtered on the CPU
    (or, with ``backend="cuda"``, through the GPU); or a CuPy array or
    PyTorch CUDA tensor, filtered on its device without any copy of the
    signal, on the array library's current stream, the call returning
    without waiting for the GPU; the result is of x's kind, device and
    stream. h may live anywhere: host taps of a device call are uploaded
    (and kept with the plan, so a filter used again is not), device taps
    of a host call copied back. float32 passes as it is; float64 is
    converted, computed in float32 (relative error about 1e-7 of the
    signal's scale, not 1e-16) and returned as float64; other dtypes raise
    TypeError. `device` is the CUDA device (an ordinal of those
    ``CUDA_VISIBLE_DEVICES`` leaves, :func:`gfir.backend_devices`) a host
    x is filtered on with ``backend="cuda"`` (default 0); a device array
    is filtered on its own device with its library's current stream
    there, and `device`, when given, must name that device (ValueError
    otherwise). Host samples in the other byte order (``'>f4'``,
    ``'>f8'``) or unaligned are converted first; a CUDA array whose
    ``__cuda_array_interface__`` names the other byte order is refused
    (TypeError).

    An empty signal (no samples along `axis`) or filter raises ValueError,
    where SciPy answers differently by function and mode; no signals at
    all (a zero-length other axis) give an empty result of the mode's
    length.

    Plans are kept between calls (per thread, by shape; :func:`clear_cache`
    frees them), so the first call of a shape pays for FFT plans and
    buffers. Errors of the library raise :class:`gfir.GfirError` (or a
    subclass) with its explanation.
    """
    b, xa = _arrays.backend_of(x)
    xa, dtype = _arrays.float32_of(b, xa, "x")
    hb, ha = _arrays.backend_of(h)
    if ha.ndim != 1:
        raise ValueError(f"gfir: h must be 1-D (use convolve_batch for a filter per row), "
                         f"not of shape {tuple(ha.shape)}")
    x2, lead, _, _, _ = _arrays.rows(b, xa, axis)
    t, m = x2.shape[1], ha.shape[0]
    start, length = window(_nonempty(t, "x must not be empty along axis"),
                           _nonempty(m, "h must not be empty"), mode)
    dev = _device_of(b, xa, device)
    if x2.shape[0] == 0:
        y2 = _no_rows(b, xa, length)
    elif b.on_device:
        _device_backend(backend)
        with b.on(xa):
            y2 = _device_rows(b, x2, ha, False, start, length, kernel)
    else:
        y2 = _host_rows(x2, host_taps(ha), False, start, length, backend, kernel, dev)
    y = _arrays.unrows(b, y2, lead, axis, xa.ndim)
    if dtype != "float32":
        y = b.astype(y, dtype)
    return b.wrap_result(y, x)


def convolve_batch(x: Any, h: Any, mode: str = "full", *, backend: str = "auto",
                   kernel: str = "auto", device: Optional[int] = None) -> Any:
    """Convolves row b of `x` (B, T) with row b of `h` (B, M): a batch of
    signals, each with its own filter, as data augmentation reverberates
    utterances with room impulse responses. Filters of different lengths
    are padded with zeros to a common M.

    On the GPU (CuPy arrays, PyTorch CUDA tensors) every group of up to 1024
    rows is one plan and one launch sequence: new filters are transformed
    on the device, nothing waits for the GPU, and a plan serves every later
    batch of the same shape. Modes, dtypes, `device`, empty arrays and
    errors as :func:`convolve` (B = 0 gives (0, length)); the result is
    (B, length) of x's kind.
    """
    b, xa = _arrays.backend_of(x)
    xa, dtype = _arrays.float32_of(b, xa, "x")
    hb, ha = _arrays.backend_of(h)
    if xa.ndim != 2 or ha.ndim != 2 or xa.shape[0] != ha.shape[0]:
        raise ValueError(f"gfir: x must be (B, T) and h (B, M), not {tuple(xa.shape)} and "
                         f"{tuple(ha.shape)}")
    t, m = xa.shape[1], ha.shape[1]
    start, length = window(_nonempty(t, "x's rows must not be empty"),
                           _nonempty(m, "h's rows must not be empty"), mode)
    x2, _, _, _, _ = _arrays.rows(b, xa, -1)
    dev = _device_of(b, xa, device)
    if x2.shape[0] == 0:
        y2 = _no_rows(b, xa, length)
    elif b.on_device:
        _device_backend(backend)
        with b.on(xa):
            y2 = _device_rows(b, x2, ha, True, start, length, kernel)
    else:
        y2 = _host_rows(x2, host_taps(ha), True, start, length, backend, kernel, dev)
    if dtype != "float32":
        y2 = b.astype(y2, dtype)
    return b.wrap_result(y2, x)
