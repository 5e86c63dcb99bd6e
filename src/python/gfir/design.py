"""Filter design: Kaiser-window windowed-sinc filters, as
``scipy.signal.firwin(..., window=('kaiser', beta), scale=True)`` with the
length and beta of ``scipy.signal.kaiserord`` (gfir.h's design functions).

Frequencies are in Hz at `rate_hz`. A cutoff is the -6 dB point in the
middle of a transition band `transition_hz` wide; `attenuation_db` is the
stopband attenuation (8 to 1000 dB; 80 by default, as the presets' and
the command's). Band filters pass or stop
``low_hz < f < high_hz``. The taps are float32 NumPy arrays, linear phase,
delayed by ``(len(taps) - 1) / 2`` frames.
"""
from __future__ import annotations

import ctypes
from typing import Any, Tuple, Union

import numpy as np

from . import _lib

# the command's default for a preset stage without attenuation_db
# (docs/cli.md), so that a filter designed here is the preset's
DEFAULT_ATTENUATION_DB = 80.0

__all__ = ["lowpass", "highpass", "bandpass", "bandstop", "kaiserord", "fold", "magnitude",
           "peak", "magnitudes", "minimum_phase"]


def _fail(status: int, call: str, what: str) -> None:
    if status != _lib.OK:
        raise _lib._ERROR_CLASSES.get(status, _lib.GfirError)(
            status, f"{what}: {_lib.strerror(status)}", call)


def kaiserord(attenuation_db: float, transition_hz: float, rate_hz: float) -> Tuple[int, float]:
    """(ntaps, beta) of a Kaiser window, as scipy.signal.kaiserord(
    attenuation_db, transition_hz / (rate_hz / 2))."""
    n = ctypes.c_size_t()
    beta = ctypes.c_double()
    _fail(_lib.lib.gfir_kaiserord(attenuation_db, transition_hz, rate_hz, ctypes.byref(n),
                                  ctypes.byref(beta)),
          "gfir_kaiserord",
          f"{attenuation_db} dB over {transition_hz} Hz at {rate_hz} Hz")
    return n.value, beta.value


def _design(kind: str, rate_hz: float, f1: float, f2: float, transition_hz: float,
            attenuation_db: float) -> np.ndarray:
    t = _lib.FILTER_TYPES[kind]
    what = (f"{kind} at {f1:g}{'' if kind in ('lowpass', 'highpass') else f' to {f2:g}'} Hz, "
            f"rate {rate_hz:g} Hz, transition {transition_hz:g} Hz, {attenuation_db:g} dB "
            f"(cutoffs in (0, rate / 2), transition > 0, attenuation 8 to 1000 dB)")
    n = ctypes.c_size_t()
    _fail(_lib.lib.gfir_design_length(t, rate_hz, transition_hz, attenuation_db,
                                      ctypes.byref(n)), "gfir_design_length", what)
    taps = np.empty(n.value, np.float32)
    _fail(_lib.lib.gfir_design_kaiser(t, rate_hz, f1, f2, transition_hz, attenuation_db,
                                      taps.ctypes.data, n.value), "gfir_design_kaiser", what)
    return taps


def lowpass(cutoff_hz: float, rate_hz: float, *, transition_hz: float,
            attenuation_db: float = DEFAULT_ATTENUATION_DB) -> np.ndarray:
    """Passes below cutoff_hz."""
    return _design("lowpass", rate_hz, cutoff_hz, 0.0, transition_hz, attenuation_db)


def highpass(cutoff_hz: float, rate_hz: float, *, transition_hz: float,
             attenuation_db: float = DEFAULT_ATTENUATION_DB) -> np.ndarray:
    """Passes above cutoff_hz (an odd length, for gain at Nyquist)."""
    return _design("highpass", rate_hz, cutoff_hz, 0.0, transition_hz, attenuation_db)


def bandpass(low_hz: float, high_hz: float, rate_hz: float, *, transition_hz: float,
             attenuation_db: float = DEFAULT_ATTENUATION_DB) -> np.ndarray:
    """Passes low_hz < f < high_hz."""
    return _design("bandpass", rate_hz, low_hz, high_hz, transition_hz, attenuation_db)


def bandstop(low_hz: float, high_hz: float, rate_hz: float, *, transition_hz: float,
             attenuation_db: float = DEFAULT_ATTENUATION_DB) -> np.ndarray:
    """Stops low_hz < f < high_hz (an odd length)."""
    return _design("bandstop", rate_hz, low_hz, high_hz, transition_hz, attenuation_db)


def _taps(taps: Any) -> np.ndarray:
    from .plan import host_taps
    t = host_taps(taps)
    if t.ndim != 1 or t.size == 0:
        raise ValueError(f"gfir: taps must be a non-empty 1-D array, not of shape {t.shape}")
    return t


def fold(a: Any, b: Any) -> np.ndarray:
    """Two stages as one filter: their full convolution, accumulated in
    double (``len(a) + len(b) - 1`` taps)."""
    ta, tb = _taps(a), _taps(b)
    out = np.empty(ta.size + tb.size - 1, np.float32)
    _fail(_lib.lib.gfir_fold(ta.ctypes.data, ta.size, tb.ctypes.data, tb.size,
                             out.ctypes.data), "gfir_fold", f"{ta.size} and {tb.size} taps")
    return out


def magnitude(taps: Any, freq_hz: Union[float, Any], rate_hz: float) -> Union[float, np.ndarray]:
    """|H(f)| of the filter at freq_hz (a number or an array of them), in
    double."""
    t = _taps(taps)
    f = np.asarray(freq_hz, dtype=np.float64)
    out = np.empty(f.shape)
    for i, v in np.ndenumerate(f):
        m = _lib.lib.gfir_response_magnitude(t.ctypes.data, t.size, float(v), rate_hz)
        if m < 0:
            _fail(int(m), "gfir_response_magnitude", f"{v:g} Hz at rate {rate_hz:g} Hz")
        out[i] = m
    return float(out) if f.ndim == 0 else out


def peak(taps: Any) -> float:
    """The largest |H(f)| over all frequencies: what a peak normalisation
    divides by."""
    t = _taps(taps)
    m = _lib.lib.gfir_response_peak(t.ctypes.data, t.size)
    if m < 0:
        _fail(int(m), "gfir_response_peak", f"{t.size} taps")
    return m


def magnitudes(taps: Any, nfreqs: int) -> np.ndarray:
    """|H| at nfreqs frequencies evenly from 0 to half the sample rate
    inclusive, through one FFT in double (``scipy.signal.freqz(taps,
    worN=nfreqs, include_nyquist=True)``); nfreqs - 1 a power of two."""
    t = _taps(taps)
    out = np.empty(_lib.integer("nfreqs", nfreqs, 0, _lib.SIZE_MAX), np.float64)
    _fail(_lib.lib.gfir_response_magnitudes(t.ctypes.data, t.size, out.ctypes.data, out.size),
          "gfir_response_magnitudes", f"{t.size} taps on {nfreqs} frequencies")
    return out


def minimum_phase(taps: Any) -> Tuple[np.ndarray, float]:
    """The minimum-phase filter with the magnitude response of taps, as many
    taps long, by the real cepstrum in double; and how far its magnitude
    strays from the original's, in dB, wherever that is within 80 dB of its
    peak (0.05 dB or less unless the filter's zeros lie very near the unit
    circle)."""
    t = _taps(taps)
    out = np.empty(t.size, np.float32)
    err = ctypes.c_double()
    _fail(_lib.lib.gfir_design_minimum_phase(t.ctypes.data, t.size, out.ctypes.data,
                                             ctypes.byref(err)),
          "gfir_design_minimum_phase", f"{t.size} taps")
    return out, err.value
