"""gfir.filter_file: a sound file through the gfir command line, which
does what a file needs beyond the filter (every libsndfile format, tags,
dither, a temporary file renamed over the output only on success)."""
from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import tempfile
from typing import Any, Optional, Sequence, Union

import numpy as np

from . import _lib

PathLike = Union[str, "os.PathLike[str]"]


class FilterFileError(RuntimeError):
    """The gfir command failed: ``message`` is its explanation (its error
    lines), ``returncode`` its exit status (1 failure, 2 wrong usage)."""

    def __init__(self, returncode: int, message: str):
        self.returncode = returncode
        self.message = message
        super().__init__(message)


def command() -> str:
    """The gfir executable filter_file runs: $GFIR_CLI, else the one beside
    the libgfir loaded (a build tree's, or <prefix>/bin of an installed
    one), else the first on PATH."""
    named = os.environ.get("GFIR_CLI")
    if named:
        return named
    lib_dir = pathlib.Path(_lib.library_path).resolve().parent
    for candidate in (lib_dir / "gfir", lib_dir.parent / "bin" / "gfir"):
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    found = shutil.which("gfir")
    if not found:
        raise FileNotFoundError("gfir: the gfir command is not installed (bash tools/setup.sh) "
                                "and GFIR_CLI is not set")
    return found


def _file_name(path: PathLike) -> str:
    """A path as the command takes it as a file: "-" alone means a pipe there."""
    name = os.fspath(path)
    return os.path.join(".", name) if name == "-" else name


def filter_file(input: PathLike, output: PathLike, *,
                preset: Union[None, str, Sequence[str]] = None, taps: Any = None,
                ir: Optional[PathLike] = None, gain_db: Optional[float] = None,
                normalize: Optional[str] = None, align: Optional[str] = None,
                format: Optional[str] = None, backend: Optional[str] = None,
                kernel: Optional[str] = None, block: Optional[int] = None,
                device: Optional[int] = None, extra_args: Sequence[str] = ()) -> None:
    """Filters the sound file `input` into `output` with ``gfir input output
    ...``: presets (a name, ``"name:key=value"``, or a list of them, run as
    one chain), taps (an array of coefficients), an impulse response file
    `ir`, and the command's other options by name (``gfir --help``;
    `device` is ``--gpu``, the GPU to filter on, which implies ``backend=
    "cuda"`` unless `backend` says otherwise). The
    output is complete or untouched: the command writes a temporary file
    and renames it only on success. Raises FilterFileError with the
    command's message when it fails.

    `input` and `output` are always file names: they follow ``--``, so a
    name such as ``-x.wav`` or ``--help`` is a file, and ``-`` means a
    file named ``-``, not standard input or output."""
    args = [command(), "--quiet"]
    for p in [preset] if isinstance(preset, str) else (preset or ()):
        args += ["--preset", p]
    if ir is not None:
        args += ["--ir", os.fspath(ir)]
    for flag, value in (("--gain", gain_db), ("--normalize", normalize), ("--align", align),
                        ("--format", format), ("--backend", backend), ("--kernel", kernel),
                        ("--block", block), ("--gpu", device)):
        if value is not None:
            args += [flag, str(value)]
    args += list(extra_args)
    with tempfile.TemporaryDirectory(prefix="gfir-") as tmp:
        if taps is not None:
            from .plan import host_taps
            t = host_taps(taps).ravel()
            path = os.path.join(tmp, "taps.txt")
            np.savetxt(path, t.astype(np.float64), fmt="%.9g")
            args += ["--taps", path]
        args += ["--", _file_name(input), _file_name(output)]
        done = subprocess.run(args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        message = done.stderr.strip() or f"gfir exited with status {done.returncode}"
        raise FilterFileError(done.returncode, message)
