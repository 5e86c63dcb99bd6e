"""Runs test_gpu.py for ctest: exits 77 (skipped) where it cannot run (no
GPU, gfir without CUDA, neither CuPy nor PyTorch with CUDA), else pytest's
status."""
import os
import sys

import pytest


def usable() -> str:
    import gfir
    if not gfir.backend_available("cuda"):
        return "no usable CUDA device, or gfir built without CUDA"
    for name in ("cupy", "torch"):
        try:
            module = __import__(name)
        except ImportError:
            continue
        if name == "cupy" or module.cuda.is_available():
            return ""
    return "neither CuPy nor PyTorch with CUDA is installed"


if __name__ == "__main__":
    why = usable()
    if why:
        print(f"python_gpu: {why}: skipped")
        sys.exit(77)
    here = os.path.dirname(os.path.abspath(__file__))
    sys.exit(pytest.main(["-q", "-p", "no:cacheprovider", "-rs", os.path.join(here, "test_gpu.py")]
                         + sys.argv[1:]))
