"""gfir.Plan: a streaming filter over a libgfir plan."""
from __future__ import annotations

import ctypes
import math
import threading
from typing import Any, Optional

import numpy as np

from . import _arrays, _lib

# a plan's default largest call before splitting, as the C library's
DEFAULT_BLOCK_FRAMES = 4096


def host_taps(taps: Any) -> np.ndarray:
    """Taps as contiguous, aligned, native float32 host memory, from any
    array (device arrays are copied back once: taps are small and made
    into plans on the host; '>f4' and '>f8' taps are converted)."""
    b, t = _arrays.backend_of(taps)
    if b.on_device:
        t = b.to_host(t)
    t = np.asarray(t)
    if t.dtype.kind not in "fiu":
        raise TypeError(f"gfir: taps must be real numbers, not {t.dtype}")
    return np.require(t, np.float32, ["C_CONTIGUOUS", "ALIGNED"])


class CPlan:
    """One gfir_plan: created from host taps, destroyed with the object.

    The C library lets one thread at a time use a plan, and ctypes lets
    other threads run while one is inside a call. So every call holds the
    plan's lock, the reading of its error detail included: calls from
    several threads take turns, and close() waits for the call in flight
    and then frees the plan (a finaliser or a ``with`` block's end cannot
    usefully raise, and raising would leave the plan alive); a call that
    comes after raises ValueError."""

    def __init__(self, taps: np.ndarray, ntaps: int, cfg: _lib.Config):
        self._lock = threading.Lock()
        self.handle: Optional[int] = None
        handle = ctypes.c_void_p()
        status = _lib.lib.gfir_plan_create(ctypes.byref(handle), taps.ctypes.data, ntaps,
                                           ctypes.byref(cfg))
        _lib.check(status, "gfir_plan_create")
        self.handle = handle.value
        self.channels = cfg.channels
        self.ntaps = ntaps

    @property
    def live(self) -> int:
        """The handle, or ValueError once the plan is closed (under the lock)."""
        if self.handle is None:
            raise ValueError("gfir: the plan is closed")
        return self.handle

    def _run(self, name: str, *args: Any) -> None:
        """The library's function `name` on the plan and args, its failure
        raised with the plan's detail."""
        with self._lock:
            handle = self.live
            _lib.check(getattr(_lib.lib, name)(handle, *args), name, handle)

    def _ask(self, name: str) -> Any:
        with self._lock:
            return getattr(_lib.lib, name)(self.live)

    def execute(self, x_ptr: int, y_ptr: int, frames: int) -> None:
        self._run("gfir_plan_execute", x_ptr, y_ptr, frames)

    def flush(self, y_ptr: int, frames: int) -> None:
        self._run("gfir_plan_flush", y_ptr, frames)

    def execute_device(self, x_ptr: int, x_stride: int, x_dist: int, y_ptr: int,
                       y_stride: int, y_dist: int, frames: int, stream: int) -> None:
        self._run("gfir_plan_execute_device", x_ptr, x_stride, x_dist, y_ptr, y_stride, y_dist,
                  frames, stream or None)

    def flush_device(self, y_ptr: int, y_stride: int, y_dist: int, frames: int,
                     stream: int) -> None:
        self._run("gfir_plan_flush_device", y_ptr, y_stride, y_dist, frames, stream or None)

    def convolve_device(self, x_ptr: int, x_stride: int, x_dist: int, frames: int, y_ptr: int,
                        y_stride: int, y_dist: int, start: int, length: int,
                        stream: int) -> None:
        self._run("gfir_plan_convolve_device", x_ptr, x_stride, x_dist, frames, y_ptr,
                  y_stride, y_dist, start, length, stream or None)

    def set_taps_device(self, taps_ptr: int, stream: int) -> None:
        self._run("gfir_plan_set_taps_device", taps_ptr, stream or None)

    def reset(self) -> None:
        self._run("gfir_plan_reset")

    @property
    def latency(self) -> int:
        return self._ask("gfir_plan_latency")

    @property
    def backend(self) -> str:
        return _name(_lib.BACKENDS, self._ask("gfir_plan_backend"))

    @property
    def kernel(self) -> str:
        return _name(_lib.KERNELS, self._ask("gfir_plan_kernel"))

    def close(self) -> None:
        with self._lock:
            if self.handle is not None:
                _lib.lib.gfir_plan_destroy(self.handle)
                self.handle = None

    def __del__(self) -> None:
        if getattr(self, "_lock", None) is not None:  # not when __init__ never ran
            self.close()


def _name(table: dict, value: int) -> str:
    return next(k for k, v in table.items() if v == value)


class Plan:
    """A streaming FIR filter: ``y = plan(x)`` filters the next frames of a
    signal, carrying each channel's history (its last ``ntaps - 1`` inputs)
    from call to call, so any chunking of a signal gives the samples of one
    pass over it: ``y[i] = sum_k h[k] x[i - k]`` per channel (NumPy's
    convolution, causal), delayed by :attr:`latency` frames.

    Parameters
    ----------
    taps
        ``(ntaps,)`` for one filter on every channel, or ``(channels,
        ntaps)`` for one per channel. Copied; float64 taps are rounded to
        float32.
    channels
        Channels per frame, 1 to 1024.
    backend, kernel
        ``"auto"``, ``"cpu"`` or ``"cuda"``; ``"auto"``, ``"direct"``,
        ``"fft"``, ... (the C library's names). Device arrays (CuPy,
        PyTorch CUDA) need ``backend="cuda"``.
    max_latency
        Frames of latency the plan may add beyond the filter's own (default
        0: the exact causal convolution, output i at call i). ``None``
        accepts any: faster engines for offline work, whose first
        :attr:`latency` output frames the caller drops.
    max_block_frames
        The largest call that runs without being split (default 4096): the
        plan's buffers are sized for it. Larger calls are split, never
        refused.
    threads, device, expected_frames
        As ``gfir_config``: CPU worker threads (0: one per core), the CUDA
        device ordinal (of the GPUs ``CUDA_VISIBLE_DEVICES`` leaves,
        :func:`gfir.backend_devices`; device arrays given to the plan must
        be on it), the frames the plan will filter in all when known.

    Arrays have time along ``axis`` (default -1, as SciPy): a 1-D array for
    one channel, or 2-D with channels on the other axis. NumPy arrays (and
    PyTorch CPU tensors) are filtered through the host API, which takes
    interleaved frames: ``(frames, channels)`` C-ordered arrays with
    ``axis=0`` pass without a copy, other layouts are copied in and out.
    CuPy arrays and PyTorch CUDA tensors pass without a copy in any layout,
    on the array library's current stream, and the call returns without
    waiting for the GPU. float64 input is converted, filtered in float32,
    and returned as float64; other dtypes are refused.

    Calls from several threads take turns (a lock per plan), and
    :meth:`close` waits for a call another thread is inside, then frees
    the plan; later calls raise ValueError. Interleaving one stream's
    chunks from several threads is the caller's to order. ``with
    gfir.Plan(...) as p:`` frees it at the end of the block; otherwise it
    is freed with the object.
    """

    def __init__(self, taps: Any, channels: int = 1, *, backend: str = "auto",
                 kernel: str = "auto", max_latency: Optional[int] = 0,
                 max_block_frames: int = DEFAULT_BLOCK_FRAMES, threads: int = 0,
                 device: int = 0, expected_frames: int = 0):
        t = host_taps(taps)
        if t.ndim == 1:
            filter_channels = 1
        elif t.ndim == 2 and t.shape[0] == channels:
            filter_channels = channels
        else:
            raise ValueError(f"gfir: taps must be (ntaps,) or (channels, ntaps) = "
                             f"({channels}, ntaps), not {t.shape}")
        cfg = _lib.new_config(channels, filter_channels, backend, kernel, max_block_frames,
                              max_latency, threads, device, expected_frames)
        self._plan = CPlan(t, t.shape[-1], cfg)
        self._device = device

    # --- what the plan is ------------------------------------------------
    @property
    def latency(self) -> int:
        """Frames by which the output lags the input beyond the filter itself."""
        return self._plan.latency

    @property
    def ntaps(self) -> int:
        return self._plan.ntaps

    @property
    def channels(self) -> int:
        return self._plan.channels

    @property
    def backend(self) -> str:
        """The backend AUTO resolved to: ``"cpu"`` or ``"cuda"``."""
        return self._plan.backend

    @property
    def kernel(self) -> str:
        """The kernel AUTO resolved to, e.g. ``"direct"`` or ``"fft"``."""
        return self._plan.kernel

    # --- filtering -------------------------------------------------------
    def __call__(self, x: Any, out: Any = None, axis: int = -1) -> Any:
        return self.process(x, out, axis)

    def process(self, x: Any, out: Any = None, axis: int = -1) -> Any:
        """Filters the next frames of the signal and returns them (in `out`
        when given: float32, x's shape, on x's device)."""
        b, xa = _arrays.backend_of(x)
        xa, result_dtype = _arrays.float32_of(b, xa, "x")
        x2, frames = self._as_rows(b, xa, axis)
        y2, y = self._output(b, xa, x2, out, axis)
        if b.on_device:
            with b.on(xa):
                _arrays.device_check(b, xa, self._device, "x")
                dist, stride = b.strides(x2)
                ydist, ystride = b.strides(y2)
                self._plan.execute_device(b.ptr(x2), stride, dist, b.ptr(y2), ystride, ydist,
                                          frames, b.stream(xa))
        else:
            self._host(x2, y2, frames)
        return self._result(b, y, result_dtype, out)

    def flush(self, frames: int, *, out: Any = None, like: Any = None) -> Any:
        """The next `frames` frames of output for silence as input: what the
        filter's tail and the latency still hold. Returned as ``(channels,
        frames)`` (``(frames,)`` for one channel) like `like` (NumPy by
        default; a CuPy array or PyTorch CUDA tensor to get one of those),
        or written into `out`."""
        frames = _lib.integer("frames", frames, 0, _lib.SIZE_MAX)
        ref = out if out is not None else like
        b, ra = _arrays.backend_of(ref) if ref is not None else (_arrays._get(_arrays.Backend),
                                                                  None)
        c = self.channels
        shape = (frames,) if c == 1 else (c, frames)
        if out is None:
            with b.on(ra) if b.on_device else _arrays._Nothing():
                y = b.empty(shape, ra)
        else:
            y = ra
            if tuple(y.shape) != shape or not _arrays.is_float32(b, y):
                raise ValueError(f"gfir: out must be writable float32 (in this machine's "
                                 f"byte order) of shape {shape}")
        if frames == 0:
            return b.wrap_result(y, out)
        y2 = y if c > 1 else b.reshape(y, (1, frames))
        if b.on_device:
            with b.on(y):
                _arrays.device_check(b, y, self._device, "out" if out is not None else "like")
                ydist, ystride = b.strides(y2)
                self._plan.flush_device(b.ptr(y2), ystride, ydist, frames, b.stream(y))
        else:
            inter = np.empty((frames, c), np.float32)
            self._plan.flush(inter.ctypes.data, frames)
            y2[...] = inter.T
        return b.wrap_result(y, out) if out is None else out

    def set_taps(self, taps: Any) -> None:
        """New taps from device memory (a CuPy array or PyTorch CUDA tensor of
        the plan's shape), queued on their library's current stream without
        waiting; the history is cleared. Host taps: make a new plan."""
        b, t = _arrays.backend_of(taps)
        if not b.on_device:
            raise TypeError("gfir: set_taps takes device taps (CuPy or PyTorch CUDA); for "
                            "host taps make a new Plan")
        t, _ = _arrays.float32_of(b, t, "taps")
        t = b.contiguous(t)
        # the element count from the shape: PyTorch's .size is a method, CuPy's a number
        if math.prod(t.shape) != self._plan.ntaps * (1 if t.ndim == 1 else t.shape[0]) or (
                t.ndim == 2 and t.shape[0] not in (1, self.channels)):
            raise ValueError(f"gfir: taps must have the plan's shape (ntaps = {self.ntaps})")
        with b.on(t):
            _arrays.device_check(b, t, self._device, "taps")
            self._plan.set_taps_device(b.ptr(t), b.stream(t))

    def reset(self) -> None:
        """Forgets the history, as if the plan were new."""
        self._plan.reset()

    def close(self) -> None:
        """Frees the plan now (it is freed with the object otherwise)."""
        self._plan.close()

    def __enter__(self) -> "Plan":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        return (f"gfir.Plan(ntaps={self.ntaps}, channels={self.channels}, "
                f"backend={self.backend!r}, kernel={self.kernel!r}, latency={self.latency})")

    # --- layouts ---------------------------------------------------------
    def _as_rows(self, b: _arrays.Backend, x: Any, axis: int):
        c = self.channels
        if x.ndim == 1 and c == 1:
            return b.reshape(x, (1, x.shape[0])), x.shape[0]
        if x.ndim != 2 or axis not in (-2, -1, 0, 1) or x.shape[1 - axis % 2] != c:
            raise ValueError(f"gfir: the plan has {c} channel(s): give ({c}, frames) with "
                             f"axis=-1 or (frames, {c}) with axis=0, not {tuple(x.shape)}")
        x2 = b.moveaxis(x, axis, -1)
        dist, stride = b.strides(x2)
        if dist < 0 or stride < 0:
            x2 = b.contiguous(x2)
        return x2, x2.shape[1]

    def _output(self, b: _arrays.Backend, x: Any, x2: Any, out: Any, axis: int):
        """The (channels, frames) rows to write, and the array they belong to."""
        if out is not None:
            ob, oa = _arrays.backend_of(out)
            if ob.name != b.name or tuple(oa.shape) != tuple(x.shape) or \
                    not _arrays.is_float32(ob, oa):
                raise ValueError("gfir: out must be a writable float32 array (in this "
                                 "machine's byte order) of x's shape and kind")
            y = oa
        else:
            dist, stride = b.strides(x2)
            interleaved = x2.shape[0] > 1 and stride > dist
            with b.on(x) if b.on_device else _arrays._Nothing():
                y2 = _arrays.empty_rows(b, x, x2.shape[0], x2.shape[1], interleaved)
            y = b.moveaxis(y2, -1, axis) if x.ndim == 2 else b.reshape(y2, (x2.shape[1],))
        y2 = b.reshape(y, (1, y.shape[0])) if y.ndim == 1 else b.moveaxis(y, axis, -1)
        return y2, y

    def _host(self, x2: np.ndarray, y2: np.ndarray, frames: int) -> None:
        """The host API takes interleaved frames: (C, T) rows that are the
        transpose of a C-ordered (T, C) array pass as they are."""
        if frames == 0:
            return
        c = self.channels
        xi = x2.T if c > 1 else x2[0]
        xi = np.ascontiguousarray(xi)
        yi_direct = (c == 1 and y2[0].flags.c_contiguous) or (c > 1 and y2.T.flags.c_contiguous)
        yi = (y2.T if c > 1 else y2[0]) if yi_direct else np.empty((frames, c), np.float32)
        if np.may_share_memory(xi, yi) and (xi.ctypes.data, xi.strides) != \
                (yi.ctypes.data, yi.strides):
            # the library takes in == out, but an out= that overlaps x
            # otherwise would be read after it was written
            xi = xi.copy()
        self._plan.execute(xi.ctypes.data, yi.ctypes.data, frames)
        if not yi_direct:
            y2[...] = yi.T if c > 1 else yi.reshape(1, -1)

    @staticmethod
    def _result(b: _arrays.Backend, y: Any, dtype: str, out: Any) -> Any:
        if out is not None:
            return out
        if dtype != "float32":
            y = b.astype(y, dtype)
        return b.wrap_result(y, out)
