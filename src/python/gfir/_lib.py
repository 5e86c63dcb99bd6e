"""libgfir through ctypes: finding the library, its prototypes, and its
statuses as exceptions.

Nothing here is compiled against Python: the package is the C library's
public header (include/gfir.h) spelled in ctypes, so it works with any
libgfir of the same major version and any Python 3.9 or later.
"""
from __future__ import annotations

import ctypes
import operator
import os
import pathlib
from typing import Any, Iterator, Optional

import numpy as np

# the shared library's soname: before 1.0 it carries the minor version (CMakeLists.txt)
SONAME = "libgfir.so.0.2"

# gfir_status (gfir.h)
OK = 0
ERR_NULL = -1
ERR_CHANNELS = -2
ERR_TAPS = -3
ERR_ARG = -4
ERR_NOMEM = -5
ERR_UNAVAILABLE = -6
ERR_UNSUPPORTED = -7
ERR_DEVICE = -8
ERR_BUSY = -9
ERR_TOO_LARGE = -10

MAX_CHANNELS = 1024
MAX_TAPS = 1 << 26
MAX_PATHS = 1048576
MAX_DEVICES = 64
MAX_PLAN_TAPS = 1 << 30
LATENCY_ANY = ctypes.c_size_t(-1).value

# the ranges of the C types that integer arguments reach: ctypes would wrap
# anything outside them silently (2**32 + 2 channels as 2)
UINT_MAX = ctypes.c_uint(-1).value
SIZE_MAX = ctypes.c_size_t(-1).value
INT_MAX = UINT_MAX >> 1
INT_MIN = -INT_MAX - 1

BACKENDS = {"auto": 0, "cpu": 1, "cuda": 2}
KERNELS = {"auto": 0, "gold": 1, "direct": 2, "basic": 3, "constant": 4, "tiled": 5,
           "cached": 6, "fft": 7}
FILTER_TYPES = {"lowpass": 0, "highpass": 1, "bandpass": 2, "bandstop": 3}


class GfirError(RuntimeError):
    """A libgfir call failed. ``status`` is the negative gfir_status,
    ``name`` its symbolic name (``"GFIR_ERR_ARG"``) and ``detail`` the
    library's sentence on what went wrong (gfir_plan_error_detail).

    A status this package does not know (a newer libgfir's) raises
    GfirError itself, named ``"status -N"``, with the library's sentence:
    never lost, never mistaken for another. To give a new status its
    name and class: its value beside the others below, its name in
    _STATUS_NAMES and, where a subclass fits, its class in _ERROR_CLASSES
    (tests/python/test_lib.py holds them to include/gfir.h)."""

    def __init__(self, status: int, detail: str, call: str = ""):
        self.status = status
        self.name = _STATUS_NAMES.get(status, f"status {status}")
        self.detail = detail or strerror(status)
        self.call = call
        where = f"{call}: " if call else ""
        super().__init__(f"{where}{self.detail} ({self.name})")


class ArgumentError(GfirError, ValueError):
    """An argument the library refused: NULL, channels, taps or a value out
    of range (GFIR_ERR_NULL, _CHANNELS, _TAPS, _ARG)."""


class UnavailableError(GfirError):
    """The backend or kernel asked for is not built, has no device, or
    cannot do this (GFIR_ERR_UNAVAILABLE, GFIR_ERR_UNSUPPORTED)."""


class OutOfMemoryError(GfirError, MemoryError):
    """Host or device memory ran out (GFIR_ERR_NOMEM)."""


class DeviceError(GfirError):
    """The GPU failed while running (GFIR_ERR_DEVICE)."""


_STATUS_NAMES = {
    ERR_NULL: "GFIR_ERR_NULL", ERR_CHANNELS: "GFIR_ERR_CHANNELS", ERR_TAPS: "GFIR_ERR_TAPS",
    ERR_ARG: "GFIR_ERR_ARG", ERR_NOMEM: "GFIR_ERR_NOMEM",
    ERR_UNAVAILABLE: "GFIR_ERR_UNAVAILABLE", ERR_UNSUPPORTED: "GFIR_ERR_UNSUPPORTED",
    ERR_DEVICE: "GFIR_ERR_DEVICE", ERR_BUSY: "GFIR_ERR_BUSY",
    ERR_TOO_LARGE: "GFIR_ERR_TOO_LARGE",
}
_ERROR_CLASSES = {
    ERR_NULL: ArgumentError, ERR_CHANNELS: ArgumentError, ERR_TAPS: ArgumentError,
    ERR_ARG: ArgumentError, ERR_NOMEM: OutOfMemoryError, ERR_UNAVAILABLE: UnavailableError,
    ERR_UNSUPPORTED: UnavailableError, ERR_DEVICE: DeviceError,
    # refused before anything is allocated: the caller asked for too much
    ERR_TOO_LARGE: ArgumentError,
}


class Path(ctypes.Structure):
    """gfir_path."""
    _fields_ = [("input", ctypes.c_uint), ("output", ctypes.c_uint), ("taps", ctypes.c_uint),
                ("gain", ctypes.c_float)]


class Config(ctypes.Structure):
    """gfir_config, field for field: the library learns this struct's size
    from gfir_config_init_size and reads it accordingly."""
    _fields_ = [
        ("struct_size", ctypes.c_size_t),
        ("channels", ctypes.c_uint),
        ("filter_channels", ctypes.c_uint),
        ("max_block_frames", ctypes.c_size_t),
        ("backend", ctypes.c_int),
        ("kernel", ctypes.c_int),
        ("threads", ctypes.c_uint),
        ("device", ctypes.c_int),
        ("max_latency_frames", ctypes.c_size_t),
        ("expected_frames", ctypes.c_size_t),
        ("out_channels", ctypes.c_uint),
        ("reserved", ctypes.c_uint),
        ("paths", ctypes.POINTER(Path)),
        ("npaths", ctypes.c_size_t),
        ("devices", ctypes.POINTER(ctypes.c_int)),
        ("ndevices", ctypes.c_uint),
        ("reserved2", ctypes.c_uint),
    ]


def _candidates() -> Iterator[str]:
    """Where libgfir may be, best first. GFIR_LIBRARY, when set, is the only
    one: a test or a build tree names its library exactly."""
    named = os.environ.get("GFIR_LIBRARY")
    if named:
        yield named
        return
    here = pathlib.Path(__file__).resolve().parent
    # installed: <prefix>/lib/pythonX.Y/site-packages/gfir beside <prefix>/lib/libgfir.so.0.2
    for up in here.parents[:4]:
        yield str(up / SONAME)
    # the source tree: src/python/gfir, with the README's build in build/
    yield str(here.parents[2] / "build" / "libgfir.so")
    yield SONAME  # the loader's own search (ldconfig's cache, LD_LIBRARY_PATH)


def _load() -> ctypes.CDLL:
    tried = []
    for path in _candidates():
        if os.sep in path and not os.path.exists(path):
            tried.append(f"{path} (absent)")
            continue
        try:
            return ctypes.CDLL(path)
        except OSError as e:
            tried.append(f"{path} ({e})")
    raise ImportError("gfir: cannot load libgfir; set GFIR_LIBRARY to its path, or install "
                      "it (bash tools/setup.sh). Tried: " + "; ".join(tried))


lib = _load()
library_path: str = getattr(lib, "_name", SONAME)

_size_t = ctypes.c_size_t
_fp = ctypes.POINTER(ctypes.c_float)
_vp = ctypes.c_void_p
_plan = ctypes.c_void_p


def _proto(name: str, restype, *argtypes) -> None:
    fn = getattr(lib, name)
    fn.restype = restype
    fn.argtypes = list(argtypes)


_int = ctypes.c_int
_proto("gfir_version_string", ctypes.c_char_p)
_proto("gfir_strerror", ctypes.c_char_p, _int)
_proto("gfir_backend_available", _int, _int)
_proto("gfir_backend_devices", _int, _int)
_proto("gfir_config_init_size", None, ctypes.POINTER(Config), _size_t)
_proto("gfir_plan_create", _int, ctypes.POINTER(_plan), _vp, _size_t, ctypes.POINTER(Config))
_proto("gfir_plan_execute", _int, _plan, _vp, _vp, _size_t)
_proto("gfir_plan_flush", _int, _plan, _vp, _size_t)
_proto("gfir_plan_execute_device", _int, _plan, _vp, _size_t, _size_t, _vp, _size_t, _size_t,
       _size_t, _vp)
_proto("gfir_plan_flush_device", _int, _plan, _vp, _size_t, _size_t, _size_t, _vp)
_proto("gfir_plan_convolve_device", _int, _plan, _vp, _size_t, _size_t, _size_t, _vp, _size_t,
       _size_t, _size_t, _size_t, _vp)
_proto("gfir_plan_set_taps_device", _int, _plan, _vp, _vp)
_proto("gfir_plan_latency", _size_t, _plan)
_proto("gfir_plan_reset", _int, _plan)
_proto("gfir_plan_backend", _int, _plan)
_proto("gfir_plan_kernel", _int, _plan)
_proto("gfir_plan_ntaps", _size_t, _plan)
_proto("gfir_plan_channels", ctypes.c_uint, _plan)
_proto("gfir_plan_error_detail", ctypes.c_char_p, _plan)
_proto("gfir_plan_destroy", None, _plan)
_proto("gfir_kaiserord", _int, ctypes.c_double, ctypes.c_double, ctypes.c_double,
       ctypes.POINTER(_size_t), ctypes.POINTER(ctypes.c_double))
_proto("gfir_design_length", _int, _int, ctypes.c_double, ctypes.c_double, ctypes.c_double,
       ctypes.POINTER(_size_t))
_proto("gfir_design_kaiser", _int, _int, ctypes.c_double, ctypes.c_double, ctypes.c_double,
       ctypes.c_double, ctypes.c_double, _vp, _size_t)
_proto("gfir_fold", _int, _vp, _size_t, _vp, _size_t, _vp)
_proto("gfir_response_magnitude", ctypes.c_double, _vp, _size_t, ctypes.c_double,
       ctypes.c_double)
_proto("gfir_response_peak", ctypes.c_double, _vp, _size_t)
_proto("gfir_response_magnitudes", _int, _vp, _size_t, _vp, _size_t)
_proto("gfir_design_minimum_phase", _int, _vp, _size_t, _vp, ctypes.POINTER(ctypes.c_double))


def strerror(status: int) -> str:
    return lib.gfir_strerror(status).decode()


def version() -> str:
    """The version of the libgfir loaded, e.g. ``"0.2.0"``."""
    return lib.gfir_version_string().decode()


def backend_available(backend: str) -> bool:
    """Whether a backend ("cpu", "cuda") is built and has a usable device."""
    return bool(lib.gfir_backend_available(BACKENDS[backend]))


def backend_devices(backend: str) -> int:
    """How many devices of a backend ("cpu", "cuda") this process may use:
    the ``device=`` ordinals are 0 to this minus 1. For CUDA these are the
    GPUs ``CUDA_VISIBLE_DEVICES`` leaves, renumbered from 0; 1 for the
    CPU; 0 where the backend is not built or has no device."""
    if backend not in BACKENDS or backend == "auto":
        raise ValueError(f"backend must be 'cpu' or 'cuda', not {backend!r}")
    return lib.gfir_backend_devices(BACKENDS[backend])


def check(status: int, call: str, plan: Optional[int] = None) -> None:
    """Raises the exception for a negative status, with the library's
    detail: the plan's when given, else this thread's last create's."""
    if status == OK:
        return
    detail = lib.gfir_plan_error_detail(plan).decode(errors="replace")
    raise _ERROR_CLASSES.get(status, GfirError)(status, detail, call)


def integer(name: str, value: Any, lo: int, hi: int) -> int:
    """value as a Python int within [lo, hi], the range of the C type it
    is bound for, else TypeError (not an integer: a float, a bool, a
    string) or ValueError; the library then judges what the type holds."""
    if isinstance(value, (bool, np.bool_)) or not hasattr(value, "__index__"):
        raise TypeError(f"gfir: {name} must be an integer, not {type(value).__name__} "
                        f"{value!r}")
    v = operator.index(value)
    if not lo <= v <= hi:
        raise ValueError(f"gfir: {name} must be {lo} to {hi}, not {v}")
    return v


def new_config(channels: int, filter_channels: int, backend: str, kernel: str,
               max_block_frames: int, max_latency: Optional[int], threads: int,
               device: int, expected_frames: int) -> Config:
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {sorted(BACKENDS)}, not {backend!r}")
    if kernel not in KERNELS:
        raise ValueError(f"kernel must be one of {sorted(KERNELS)}, not {kernel!r}")
    cfg = Config()
    lib.gfir_config_init_size(ctypes.byref(cfg), ctypes.sizeof(cfg))
    cfg.channels = integer("channels", channels, 0, UINT_MAX)
    cfg.filter_channels = integer("filter_channels", filter_channels, 0, UINT_MAX)
    cfg.backend = BACKENDS[backend]
    cfg.kernel = KERNELS[kernel]
    cfg.max_block_frames = integer("max_block_frames", max_block_frames, 0, SIZE_MAX)
    # None, not -1, is "any": a negative budget is a mistake, not a wish
    cfg.max_latency_frames = (LATENCY_ANY if max_latency is None else
                              integer("max_latency (None: any)", max_latency, 0, SIZE_MAX))
    cfg.threads = integer("threads", threads, 0, UINT_MAX)
    cfg.device = integer("device", device, INT_MIN, INT_MAX)
    cfg.expected_frames = integer("expected_frames", expected_frames, 0, SIZE_MAX)
    return cfg
