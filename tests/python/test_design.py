"""gfir.design against scipy.signal's firwin and kaiserord, and fold and
the response against NumPy."""
import numpy as np
import pytest
import scipy.io.wavfile
import scipy.signal

import gfir
from conftest import rel_l2
from gfir import design


@pytest.mark.parametrize("kind,cutoffs,pass_zero", [
    ("lowpass", (4000.0,), True), ("highpass", (300.0,), False),
    ("bandpass", (300.0, 3400.0), False), ("bandstop", (1000.0, 2000.0), True)])
def test_kaiser_designs_match_firwin(kind, cutoffs, pass_zero):
    rate, width, atten = 48000.0, 400.0, 70.0
    taps = getattr(design, kind)(*cutoffs, rate, transition_hz=width, attenuation_db=atten)
    n, beta = scipy.signal.kaiserord(atten, width / (rate / 2))
    if kind in ("highpass", "bandstop"):
        n |= 1  # odd, for gain at Nyquist
    ref = scipy.signal.firwin(n, cutoffs, window=("kaiser", beta), pass_zero=pass_zero, fs=rate)
    assert taps.dtype == np.float32 and taps.shape == ref.shape
    assert np.max(np.abs(taps - ref)) < 1e-6


def test_kaiserord():
    n, beta = design.kaiserord(60.0, 500.0, 44100.0)
    ref_n, ref_beta = scipy.signal.kaiserord(60.0, 500.0 / 22050.0)
    assert n == ref_n and beta == pytest.approx(ref_beta, rel=1e-12)


def test_fold_magnitude_peak(rng):
    a, b = rng.uniform(-1, 1, 50).astype(np.float32), rng.uniform(-1, 1, 31).astype(np.float32)
    folded = design.fold(a, b)
    assert np.max(np.abs(folded - np.convolve(a.astype(np.float64), b))) < 1e-6
    f = np.array([0.0, 1000.0, 12000.0])
    _, resp = scipy.signal.freqz(a.astype(np.float64), worN=f, fs=48000.0)
    assert np.allclose(design.magnitude(a, f, 48000.0), np.abs(resp), rtol=1e-9)
    assert isinstance(design.magnitude(a, 100.0, 48000.0), float)
    _, dense = scipy.signal.freqz(a.astype(np.float64), worN=1 << 16)
    assert design.peak(a) == pytest.approx(np.max(np.abs(dense)), rel=1e-3)


def test_magnitudes_and_minimum_phase(rng):
    h = (rng.standard_normal(1500) * np.exp(-np.arange(1500) / 250)).astype(np.float32)
    _, ref = scipy.signal.freqz(h.astype(np.float64), worN=4097, include_nyquist=True)
    assert np.allclose(design.magnitudes(h, 4097), np.abs(ref), rtol=1e-9, atol=1e-12)
    hm, err = design.minimum_phase(h)
    assert hm.dtype == np.float32 and hm.shape == h.shape and 0 <= err <= 0.05
    # SciPy 1.10's homomorphic method returns the square root's: given the
    # autocorrelation (|H|^2) it gives the minimum phase of |H|
    ref = scipy.signal.minimum_phase(np.convolve(h, h[::-1]).astype(np.float64), "homomorphic")
    assert np.linalg.norm(hm - ref) / np.linalg.norm(ref) < 1e-2
    with pytest.raises(gfir.ArgumentError):
        design.magnitudes(h, 100)
    with pytest.raises(TypeError, match="nfreqs must be an integer"):
        design.magnitudes(h, 4097.9)  # int() made it 4097


def test_design_errors_explain():
    with pytest.raises(gfir.ArgumentError, match="lowpass at 30000 Hz") as e:
        design.lowpass(30000.0, 48000.0, transition_hz=100.0)
    assert e.value.name == "GFIR_ERR_ARG"
    with pytest.raises(gfir.ArgumentError):
        design.bandpass(3000.0, 1000.0, 48000.0, transition_hz=100.0)
    with pytest.raises(ValueError, match="1-D"):
        design.fold(np.ones((2, 2)), np.ones(3))


# the command's WAVE files carry chunks (PEAK, tags) that SciPy's reader skips
@pytest.mark.filterwarnings("ignore::scipy.io.wavfile.WavFileWarning")
def test_default_attenuation_is_the_presets(tmp_path):
    # a preset stage without attenuation_db and a design without the
    # argument are one filter: through the command, an impulse gives its taps
    (tmp_path / "mine.ini").write_text("[lowpass]\ntype = lowpass\ncutoff_hz = 4000\n"
                                       "transition_hz = 400\n")
    impulse = np.zeros(1000, np.float32)
    impulse[0] = 1.0
    scipy.io.wavfile.write(tmp_path / "in.wav", 48000, impulse)
    gfir.filter_file(tmp_path / "in.wav", tmp_path / "out.wav", preset=str(tmp_path / "mine.ini"),
                     align="causal", format="wav:float")
    _, from_preset = scipy.io.wavfile.read(tmp_path / "out.wav")
    taps = design.lowpass(4000.0, 48000.0, transition_hz=400.0)
    assert taps.size == scipy.signal.kaiserord(80.0, 400.0 / 24000.0)[0]
    # the command filters the impulse by FFT: float32 rounding, 1e-7 of the taps
    padded = np.concatenate([taps, np.zeros(impulse.size - taps.size, np.float32)])
    assert rel_l2(from_preset, padded) < 1e-6
