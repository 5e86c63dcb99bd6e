"""Arrays as the C API takes them: NumPy arrays (and PyTorch CPU tensors)
in host memory, CuPy arrays and PyTorch CUDA tensors in device memory, and
other CUDA arrays through ``__cuda_array_interface__`` or DLPack.

Each kind has a small adapter (``Backend``) with the handful of operations
the package needs: allocate like an array, change dtype, move an axis,
reshape, and name the stream that the array's library is queueing work on.
A device array is never copied to the host: its pointer, shape and strides
go to the library as they are. CuPy and PyTorch are imported only when an
array of theirs arrives.
"""
from __future__ import annotations

import math
import operator
import sys
from typing import Any, Optional, Tuple

import numpy as np

FLOAT_DTYPES = ("float32", "float64")


class Backend:
    """What the package needs of an array library (this one: NumPy)."""
    name = "numpy"
    on_device = False

    def asarray(self, x: Any) -> Any:
        return np.asarray(x)

    def dtype_name(self, x: Any) -> str:
        return np.dtype(x.dtype).name

    def readable(self, x: Any) -> bool:
        """Whether C can read x's elements as they lie: in this machine's
        byte order ('>f4' is named float32 too) and aligned to them."""
        return x.dtype.isnative and x.flags.aligned

    def ptr(self, x: Any) -> int:
        return x.ctypes.data

    def strides(self, x: Any) -> Tuple[int, ...]:
        """In elements; may be negative or zero."""
        return tuple(s // x.itemsize for s in x.strides)

    def empty(self, shape: Tuple[int, ...], like: Any) -> Any:
        return np.empty(shape, np.float32)

    def astype(self, x: Any, dtype: str) -> Any:
        return x.astype(dtype)

    def contiguous(self, x: Any) -> Any:
        return np.ascontiguousarray(x)

    def moveaxis(self, x: Any, src: int, dst: int) -> Any:
        return np.moveaxis(x, src, dst)

    def reshape(self, x: Any, shape: Tuple[int, ...]) -> Any:
        return x.reshape(shape)

    def transpose(self, x: Any) -> Any:
        return x.T

    def to_host(self, x: Any) -> np.ndarray:
        return np.asarray(x)

    def from_host(self, h: np.ndarray, like: Any) -> Any:
        return h

    def device_id(self, x: Any) -> int:
        return 0

    def stream(self, x: Any) -> int:
        return 0

    def on(self, x: Any) -> Any:
        """A context in which allocations land on x's device."""
        return _Nothing()

    def wrap_result(self, y: Any, original: Any) -> Any:
        return y


class _Nothing:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: Any) -> None:
        return None


class TorchCpu(Backend):
    """PyTorch tensors in host memory, through NumPy views of them."""
    name = "torch-cpu"

    def asarray(self, x: Any) -> Any:
        return x.detach().numpy()

    def wrap_result(self, y: Any, original: Any) -> Any:
        import torch
        return torch.from_numpy(np.ascontiguousarray(y) if y.strides and min(y.strides) < 0
                                else y)


class Cupy(Backend):
    name = "cupy"
    on_device = True

    def __init__(self) -> None:
        import cupy
        self.cp = cupy

    def asarray(self, x: Any) -> Any:
        return self.cp.asarray(x)

    def readable(self, x: Any) -> bool:
        return True  # CuPy keeps device arrays in native order (cupy/cupy#9014)

    def ptr(self, x: Any) -> int:
        return x.data.ptr

    def empty(self, shape: Tuple[int, ...], like: Any) -> Any:
        return self.cp.empty(shape, self.cp.float32)

    def contiguous(self, x: Any) -> Any:
        return self.cp.ascontiguousarray(x)

    def moveaxis(self, x: Any, src: int, dst: int) -> Any:
        return self.cp.moveaxis(x, src, dst)

    def to_host(self, x: Any) -> np.ndarray:
        return self.cp.asnumpy(x)

    def from_host(self, h: np.ndarray, like: Any) -> Any:
        return self.cp.asarray(h)

    def device_id(self, x: Any) -> int:
        return x.device.id

    def stream(self, x: Any) -> int:
        # the stream CuPy queues on now: 0 is the legacy default stream, which
        # the runtime takes as NULL
        return self.cp.cuda.get_current_stream().ptr

    def on(self, x: Any) -> Any:
        return self.cp.cuda.Device(x.device.id)


_TORCH_DTYPES = {"torch.float32": "float32", "torch.float64": "float64"}


class Torch(Backend):
    name = "torch"
    on_device = True

    def __init__(self) -> None:
        import torch
        self.torch = torch

    def asarray(self, x: Any) -> Any:
        return x.detach()

    def dtype_name(self, x: Any) -> str:
        return _TORCH_DTYPES.get(str(x.dtype), str(x.dtype).replace("torch.", ""))

    def readable(self, x: Any) -> bool:
        return True  # tensors have no byte order but the machine's

    def ptr(self, x: Any) -> int:
        return x.data_ptr()

    def strides(self, x: Any) -> Tuple[int, ...]:
        return tuple(x.stride())

    def empty(self, shape: Tuple[int, ...], like: Any) -> Any:
        return self.torch.empty(shape, dtype=self.torch.float32, device=like.device)

    def astype(self, x: Any, dtype: str) -> Any:
        return x.to(getattr(self.torch, dtype))

    def contiguous(self, x: Any) -> Any:
        return x.contiguous()

    def moveaxis(self, x: Any, src: int, dst: int) -> Any:
        return self.torch.movedim(x, src, dst)

    def reshape(self, x: Any, shape: Tuple[int, ...]) -> Any:
        return x.reshape(shape)

    def transpose(self, x: Any) -> Any:
        return x.t()

    def to_host(self, x: Any) -> np.ndarray:
        return x.detach().cpu().numpy()

    def from_host(self, h: np.ndarray, like: Any) -> Any:
        return self.torch.as_tensor(h, device=like.device)

    def device_id(self, x: Any) -> int:
        return x.device.index if x.device.index is not None else self.torch.cuda.current_device()

    def stream(self, x: Any) -> int:
        return self.torch.cuda.current_stream(x.device).cuda_stream

    def on(self, x: Any) -> Any:
        return self.torch.cuda.device(x.device)


_backends: dict = {}


def _get(cls: type) -> Backend:
    if cls not in _backends:
        _backends[cls] = cls()
    return _backends[cls]


def backend_of(x: Any) -> Tuple[Backend, Any]:
    """The adapter for x and x as that adapter's array (a zero-copy view:
    CUDA arrays of other libraries become CuPy arrays or PyTorch tensors
    through their __cuda_array_interface__ or DLPack)."""
    module = type(x).__module__.split(".")[0]
    if module == "torch":
        b = _get(Torch) if x.is_cuda else _get(TorchCpu)
        return b, b.asarray(x)
    if module == "cupy":
        return _get(Cupy), x
    if isinstance(x, np.ndarray):
        return _get(Backend), x
    if hasattr(x, "__cuda_array_interface__") or (
            hasattr(x, "__dlpack_device__") and x.__dlpack_device__()[0] == 2):  # kDLCUDA
        _native_interface(x)
        if "cupy" in sys.modules or _importable("cupy"):
            b = _get(Cupy)
            return b, (b.asarray(x) if hasattr(x, "__cuda_array_interface__")
                       else b.cp.from_dlpack(x))
        if "torch" in sys.modules or _importable("torch"):
            b = _get(Torch)
            return b, (b.torch.as_tensor(x, device="cuda")
                       if hasattr(x, "__cuda_array_interface__") else b.torch.from_dlpack(x))
        raise TypeError("gfir: a CUDA array reaches gfir through CuPy or PyTorch, and "
                        "neither is installed")
    b = _get(Backend)
    a = np.asarray(x)
    if a.dtype.kind in "iub" and not hasattr(x, "dtype"):
        a = a.astype(np.float64)  # a list of integers: numbers, as NumPy takes them
    return b, a


def _native_interface(x: Any) -> None:
    """Refuses a CUDA array whose interface names the other byte order
    ('>f4' here): CuPy and PyTorch would take its bytes as native floats,
    and no library at hand converts them on the device. DLPack has no
    byte order but the machine's."""
    cai = getattr(x, "__cuda_array_interface__", None)
    typestr = cai.get("typestr", "") if isinstance(cai, dict) else ""
    other = ">" if sys.byteorder == "little" else "<"
    if typestr.startswith(other):
        raise TypeError(f"gfir: this CUDA array's samples are in the other byte order "
                        f"({typestr}): convert them to native order first")


def _importable(name: str) -> bool:
    try:
        __import__(name)
        return True
    except ImportError:
        return False


def is_float32(b: Backend, x: Any) -> bool:
    """Whether the library can write float32 samples into x as it is (a
    read-only NumPy view, of a bytes object say, it must not)."""
    return b.dtype_name(x) == "float32" and b.readable(x) and (
        b.on_device or x.flags.writeable)


def float32_of(b: Backend, x: Any, what: str) -> Tuple[Any, str]:
    """x as float32 and the dtype the result should have: float32 passes
    as it is; float64 is converted (one copy) and computed in float32;
    anything else is refused. Arrays in the other byte order ('>f4',
    '>f8' on this machine) or unaligned are converted (one copy) first:
    the library reads native floats, never raw bytes."""
    name = b.dtype_name(x)
    if name == "float32":
        return (x if b.readable(x) else b.astype(x, "float32")), name
    if name == "float64":
        return b.astype(x, "float32"), name
    raise TypeError(f"gfir: {what} must be float32 (or float64, computed in float32), "
                    f"not {name}")


def rows(b: Backend, x: Any, axis: int) -> Tuple[Any, Tuple[int, ...], int, int, int]:
    """x with its `axis` last and every other axis folded into one, as (C, T)
    rows: the rows array (a view where the layout allows, else a copy), the
    folded axes' shape, and its (dist, stride) in elements, each >= 0."""
    if x.ndim == 0:
        raise ValueError("gfir: the signal must have at least one axis")
    axis = operator.index(axis)  # a float axis is refused, as moveaxis refuses it
    last = axis in (-1, x.ndim - 1)
    # (C, T) with time last already: no view to make (a few microseconds a
    # call in PyTorch, which a small device call would notice)
    moved = x if last else b.moveaxis(x, axis, -1)
    lead = tuple(moved.shape[:-1])
    r = moved if x.ndim == 2 and last else b.reshape(moved, (math.prod(lead), moved.shape[-1]))
    dist, stride = b.strides(r)
    if dist < 0 or stride < 0:
        r = b.contiguous(r)
        dist, stride = b.strides(r)
    return r, lead, dist, stride, r.shape[0]


def unrows(b: Backend, y: Any, lead: Tuple[int, ...], axis: int, ndim: int) -> Any:
    """The inverse of rows for a result of rows (C, N): shape lead + (N,)
    with the time axis moved back to `axis`."""
    if len(lead) != 1:
        y = b.reshape(y, lead + (y.shape[-1],))
    return y if axis in (-1, ndim - 1) else b.moveaxis(y, -1, axis if axis >= 0 else ndim + axis)


def empty_rows(b: Backend, like: Any, channels: int, frames: int, interleaved: bool) -> Any:
    """A (channels, frames) float32 result: planar rows, or the transpose of
    (frames, channels) interleaved frames, so results keep their inputs'
    memory order."""
    if interleaved:
        return b.transpose(b.empty((frames, channels), like))
    return b.empty((channels, frames), like)


def device_check(b: Backend, x: Any, device: Optional[int], what: str) -> int:
    dev = b.device_id(x)
    if device is not None and dev != device:
        raise ValueError(f"gfir: {what} is on device {dev}, the rest on device {device}")
    return dev
