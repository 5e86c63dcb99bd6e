#!/usr/bin/python3
"""--rate HZ when filtering a file: INPUT resampled by libsoxr before the
filter, the filter designed and run at HZ.

    test_rate.py GFIR rate

The reference is libsoxr's own one-shot resampler (through ctypes, the
library gfir links) at the same "very high quality" setting but in float64,
then numpy's float64 convolution with the taps or the design at HZ. gfir
resamples in float32, streaming, block by block: libsoxr's float32 path is
accurate to about 2^-24 times the signal (its VHQ filter computes in double
and has 175 dB of stopband), so against the float64 one-shot the relative L2
error is float32 rounding: 1.2e-7 measured here. 1e-5 leaves that two orders
of margin and still fails a resampler that drops or repeats a block, a filter
designed at INPUT's rate, a shift by one frame, a wrong length, or libsoxr's
20-bit "high quality" instead (8e-3).
"""
import ctypes
import ctypes.util
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_cli as cli  # noqa: E402  (the harness: exits 77 without NumPy)
from test_cli import conv, fails, np, read, rel_l2, test  # noqa: E402

REL_L2 = 1e-5

_soxr = ctypes.CDLL(ctypes.util.find_library("soxr") or "libsoxr.so.0")


class _IoSpec(ctypes.Structure):
    _fields_ = [("itype", ctypes.c_int), ("otype", ctypes.c_int), ("scale", ctypes.c_double),
                ("e", ctypes.c_void_p), ("flags", ctypes.c_ulong)]


class _QualitySpec(ctypes.Structure):
    _fields_ = [("precision", ctypes.c_double), ("phase_response", ctypes.c_double),
                ("passband_end", ctypes.c_double), ("stopband_begin", ctypes.c_double),
                ("e", ctypes.c_void_p), ("flags", ctypes.c_ulong)]


SOXR_FLOAT64_I, SOXR_VHQ = 1, 6  # soxr.h: SOXR_VHQ is SOXR_28_BITQ
_soxr.soxr_io_spec.restype = _IoSpec
_soxr.soxr_io_spec.argtypes = [ctypes.c_int, ctypes.c_int]
_soxr.soxr_quality_spec.restype = _QualitySpec
_soxr.soxr_quality_spec.argtypes = [ctypes.c_ulong, ctypes.c_ulong]
_soxr.soxr_oneshot.restype = ctypes.c_char_p
_soxr.soxr_oneshot.argtypes = [
    ctypes.c_double, ctypes.c_double, ctypes.c_uint, ctypes.c_void_p, ctypes.c_size_t,
    ctypes.POINTER(ctypes.c_size_t), ctypes.c_void_p, ctypes.c_size_t,
    ctypes.POINTER(ctypes.c_size_t), ctypes.POINTER(_IoSpec), ctypes.POINTER(_QualitySpec),
    ctypes.c_void_p]


def soxr_float64(x, rate_in, rate_out):
    """x (frames x channels) resampled by libsoxr VHQ in float64, one shot."""
    x = np.ascontiguousarray(x if x.ndim == 2 else x[:, None], dtype=np.float64)
    cap = int(len(x) * rate_out / rate_in) + 16
    y = np.zeros((cap, x.shape[1]))
    io = _soxr.soxr_io_spec(SOXR_FLOAT64_I, SOXR_FLOAT64_I)
    q = _soxr.soxr_quality_spec(SOXR_VHQ, 0)
    done = ctypes.c_size_t()
    err = _soxr.soxr_oneshot(rate_in, rate_out, x.shape[1], x.ctypes.data, len(x), None,
                             y.ctypes.data, cap, ctypes.byref(done), ctypes.byref(io),
                             ctypes.byref(q), None)
    assert err is None, err
    return y[: done.value]


@test("rate")
def resampled_then_filtered(d):
    """Up and down, mono and stereo, odd lengths and blocks smaller than the
    file: taps convolved after libsoxr, every align."""
    h = d.rng.standard_normal(37) * 0.2
    d.text("h.txt", " ".join(repr(float(v)) for v in h))
    for rate_in, rate_out, frames, channels, block in [
            (44100, 48000, 20011, 2, "997"), (48000, 16000, 30001, 1, "4096"),
            (22050, 44100, 9999, 1, "65536"), (48000, 44100, 12345, 2, "1000")]:
        x = d.noise(frames, channels)
        d.wav("x.wav", x, rate=rate_in)
        ref = soxr_float64(np.asarray(x, dtype=np.float32).astype(np.float64),
                           rate_in, rate_out)
        assert len(ref) == round(frames * rate_out / rate_in), len(ref)
        for align, mode in [("causal", "causal"), ("full", "full"), ("same", "same")]:
            d.run("x.wav", "y.wav", "--taps", "h.txt", "--rate", str(rate_out), "--align",
                  align, "--format", "wav:float", "--block", block)
            rate, y = read(d.p("y.wav"))
            assert rate == rate_out, rate
            want = conv(ref, h, mode)
            want = want if channels > 1 else want.reshape(y.shape)
            err = rel_l2(y, want)
            assert err < REL_L2, f"{rate_in}->{rate_out} {align}: rel L2 {err}"


@test("rate")
def designed_at_the_output_rate(d):
    """A preset's cutoff is in Hz of OUTPUT: lowpass at 4 kHz written at
    16 kHz is the same design as the 16 kHz preset run on 16 kHz input."""
    x = d.noise(16001)
    d.wav("x.wav", x, rate=48000)
    d.run("x.wav", "y.wav", "--preset", "lowpass", "--rate", "16000", "--format", "wav:float")
    ref = soxr_float64(np.asarray(x, dtype=np.float32).astype(np.float64), 48000, 16000)
    d.wav("r.wav", ref[:, 0], rate=16000)
    d.run("r.wav", "z.wav", "--preset", "lowpass", "--format", "wav:float")
    _, y = read(d.p("y.wav"))
    _, z = read(d.p("z.wav"))
    err = rel_l2(y, z)
    assert err < REL_L2, f"rel L2 {err}"


@test("rate")
def ir_and_stream_at_the_output_rate(d):
    """An IR is resampled to OUTPUT's rate, not INPUT's; and a WAV written to a
    pipe says in its header as many frames as follow (the resampled count)."""
    x = d.noise(8001)
    h = d.noise(301, scale=0.1)
    d.wav("x.wav", x, rate=44100)
    d.wav("ir.wav", h, rate=48000)
    r = subprocess.run([cli.GFIR, "x.wav", "-", "--ir", "ir.wav", "--rate", "48000",
                        "--normalize", "none", "--format", "wav:float", "-v"], cwd=d.path,
                       env=cli.env_for(d), capture_output=True, check=True)
    with open(d.p("y.wav"), "wb") as f:
        f.write(r.stdout)
    r.stderr = r.stderr.decode()
    assert "resampling IR" not in r.stderr, r.stderr
    rate, y = read(d.p("y.wav"))
    ref = soxr_float64(np.asarray(x, dtype=np.float32).astype(np.float64), 44100, 48000)
    want = conv(ref[:, 0], np.asarray(h, dtype=np.float32).astype(np.float64), "full")
    assert rate == 48000 and len(y) == len(want), (rate, len(y), len(want))
    err = rel_l2(y, want)
    assert err < REL_L2, f"rel L2 {err}"


@test("rate")
def rate_usage(d):
    d.wav("x.wav", d.noise(1000))
    fails(d, ["x.wav", "out.wav", "--preset", "lowpass", "--rate", "44100.5"], 2,
          "whole number")
    fails(d, ["x.wav", "out.wav", "--preset", "lowpass", "--rate", "500"], 2, "1000 to 768000")
    fails(d, ["x.wav", "--play", "--preset", "lowpass", "--rate", "44100"], 2, "--rate")
    # a format that cannot hold the rate says so, as for INPUT's own rate
    fails(d, ["x.wav", "out.mp3", "--preset", "lowpass", "--rate", "96000"], 1, "96000")


if __name__ == "__main__":
    sys.exit(cli.main())
