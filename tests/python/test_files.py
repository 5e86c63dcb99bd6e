"""gfir.filter_file: sound files through the gfir command."""
import numpy as np
import pytest
import scipy.io.wavfile

import gfir
from conftest import rel_l2, signal


# the command's WAVE files carry chunks (PEAK, tags) that SciPy's reader skips
@pytest.mark.filterwarnings("ignore::scipy.io.wavfile.WavFileWarning")
def test_taps_through_the_command(tmp_path, rng):
    x = signal(rng, 24000, 2) * 0.5
    src, dst = tmp_path / "in.wav", tmp_path / "out.wav"
    scipy.io.wavfile.write(src, 48000, x)
    h = signal(rng, 101) * 0.1
    gfir.filter_file(src, dst, taps=h, format="wav:float")
    rate, y = scipy.io.wavfile.read(dst)
    assert rate == 48000 and y.dtype == np.float32 and y.shape == x.shape
    # --taps aligns 'same', as numpy.convolve(x, h, 'same') per channel
    assert rel_l2(y, gfir.convolve(x, h, "same", axis=0)) < 1e-6


def test_presets_chain(tmp_path, rng):
    src, dst = tmp_path / "in.wav", tmp_path / "out.flac"
    scipy.io.wavfile.write(src, 44100, (signal(rng, 44100) * 8000).astype(np.int16))
    gfir.filter_file(src, dst, preset=["rumble", "lowpass:cutoff_hz=3000"])
    assert dst.stat().st_size > 0


def test_failures_raise_with_the_message(tmp_path):
    with pytest.raises(gfir.FilterFileError, match="missing.wav") as e:
        gfir.filter_file(tmp_path / "missing.wav", tmp_path / "out.wav", preset="lowpass")
    assert e.value.returncode == 1
    assert not (tmp_path / "out.wav").exists()


def test_device_is_the_commands_gpu(tmp_path, rng):
    # device=N is --gpu N: a GPU this host lacks fails in the command's words
    src = tmp_path / "in.wav"
    scipy.io.wavfile.write(src, 48000, signal(rng, 4800))
    n = gfir.backend_devices("cuda")
    with pytest.raises(gfir.FilterFileError, match=f"--gpu {n}: ") as e:
        gfir.filter_file(src, tmp_path / "out.wav", preset="lowpass", device=n)
    assert e.value.returncode == 1 and not (tmp_path / "out.wav").exists()


@pytest.mark.filterwarnings("ignore::scipy.io.wavfile.WavFileWarning")
def test_names_that_look_like_options_are_files(tmp_path, rng, monkeypatch):
    # INPUT and OUTPUT follow "--": "--help" was taken as the option (exit
    # 0, nothing written), "-x.wav" as an unknown option, "-" as a pipe
    monkeypatch.chdir(tmp_path)
    x = signal(rng, 4800) * 0.5
    scipy.io.wavfile.write("-x.wav", 48000, x)
    h = signal(rng, 31) * 0.1
    ref = gfir.convolve(x, h, "same")
    for output in ("--help", "-", "-y.wav"):
        gfir.filter_file("-x.wav", output, taps=h, format="wav:float")
        rate, y = scipy.io.wavfile.read(output)
        assert rate == 48000 and rel_l2(y, ref) < 1e-6
    assert sorted(p.name for p in tmp_path.iterdir()) == ["-", "--help", "-x.wav", "-y.wav"]

