"""gfir: FIR filtering of audio on the CPU and NVIDIA GPUs.

A thin layer over libgfir's C API (through ctypes; nothing is compiled
against Python):

- :class:`Plan`: a streaming filter, any chunking giving one pass's samples;
- :func:`convolve`: ``scipy.signal.convolve``'s modes along any axis, on
  NumPy arrays on the CPU and on CuPy arrays or PyTorch CUDA tensors on
  their GPU without copies;
- :func:`convolve_batch`: rows of signals, each through its own filter;
- :mod:`gfir.design`: Kaiser-window low-, high-, band-pass and band-stop
  filters, as ``scipy.signal.firwin`` and ``kaiserord``;
- :func:`filter_file`: a sound file through the gfir command.

Errors of the library raise :class:`GfirError` (subclasses by kind) with
the library's explanation. libgfir is looked for in ``$GFIR_LIBRARY``,
beside the installed package, in the source tree's ``build/``, then on the
loader's path.
"""
from __future__ import annotations

from . import design
from ._convolve import clear_cache, convolve, convolve_batch
from ._files import FilterFileError, filter_file
from ._lib import (ArgumentError, DeviceError, GfirError, OutOfMemoryError, UnavailableError,
                   backend_available, backend_devices, library_path, version as library_version)
from ._version import __version__
from .plan import Plan

__all__ = [
    "Plan", "convolve", "convolve_batch", "design", "filter_file", "clear_cache",
    "GfirError", "ArgumentError", "UnavailableError", "OutOfMemoryError", "DeviceError",
    "FilterFileError", "backend_available", "backend_devices", "library_version", "library_path",
]
