#!/usr/bin/python3
"""--wet DB and --dry DB: an impulse response's output mixed with the signal it
was given, in each IR layout, against float64 references.

    test_mix.py GFIR mix

The reference is numpy's float64 convolution of INPUT with the IR times the
wet gain, plus INPUT times the dry gain at the IR's time zero, routed as the
layout routes: mono IR on every channel, one to one, mono to stereo (the dry
mono signal in both outputs), true stereo (left dry into left, right into
right), and behind a --taps stage (which filters the dry signal too). gfir
filters in float32 and writes float WAV: 1e-5 relative L2 (the harness's
REL_L2) is two orders above that rounding for these lengths, and a dry path
that is missing, late by one frame, on the wrong output or at the wrong level
gives 1e-2 or more.

--normalize peak (the default with an IR) is checked with IRs of positive
taps, whose loudest frequency is 0 Hz: its gain is exactly the sum of the
taps, on any grid, so the reference needs no estimate of a peak; the wet
sound is normalised and the dry signal is not.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_cli as cli  # noqa: E402  (the harness: exits 77 without NumPy)
from test_cli import REL_L2, conv, fails, np, read, rel_l2, test  # noqa: E402


def db(v):
    return 10 ** (v / 20)


def padded(x, n):
    """x (frames x channels) followed by silence up to n frames."""
    out = np.zeros((n,) + x.shape[1:])
    out[: len(x)] = x
    return out


def inputs(d, frames, channels):
    d.wav("x.wav", d.noise(frames, channels))
    x = read(d.p("x.wav"))[1]
    return x if x.ndim == 2 else x[:, None]


def ir(d, name, frames, channels, positive=False):
    h = d.noise(frames, channels, 0.1)
    if positive:
        h = np.abs(h) * np.exp(-np.arange(frames) / (frames / 4))[:, None if channels > 1 else
                                                                     slice(None)]
    d.wav(name, h)
    h = read(d.p(name))[1]
    return h if h.ndim == 2 else h[:, None]


def check(d, args, want, what):
    d.run("x.wav", "y.wav", *args, "--format", "wav:float")
    y = read(d.p("y.wav"))[1]
    y = y if y.ndim == 2 else y[:, None]
    err = rel_l2(y, want)
    assert err < REL_L2, f"{what}: rel L2 {err}"


@test("mix")
def layouts(d):
    wet, dry = -3.5, -7.25
    mix = ["--wet", str(wet), "--dry", str(dry), "--normalize", "none"]
    # one to one, and one IR channel shared by both
    x = inputs(d, 20011, 2)
    h = ir(d, "h2.wav", 777, 2)
    n = len(x) + len(h) - 1
    want = db(wet) * conv(x, h, "full") + db(dry) * padded(x, n)
    check(d, ["--ir", "h2.wav", *mix], want, "one to one")
    h1 = ir(d, "h1.wav", 501, 1)
    want = db(wet) * conv(x, np.repeat(h1, 2, axis=1), "full") + \
        db(dry) * padded(x, len(x) + len(h1) - 1)
    check(d, ["--ir", "h1.wav", *mix], want, "shared")
    # true stereo, LL LR RL RR: each output hears both inputs wet, its own dry
    h4 = ir(d, "h4.wav", 333, 4)
    ll, lr, rl, rr = (h4[:, k] for k in range(4))
    n = len(x) + len(h4) - 1
    left = conv(x[:, 0], ll, "full") + conv(x[:, 1], rl, "full")
    right = conv(x[:, 0], lr, "full") + conv(x[:, 1], rr, "full")
    want = db(wet) * np.stack([left, right], axis=1) + db(dry) * padded(x, n)
    check(d, ["--ir", "h4.wav", *mix], want, "true stereo")
    # mono to stereo: the mono signal dry in both outputs
    xm = inputs(d, 15013, 1)
    n = len(xm) + len(h) - 1
    want = db(wet) * conv(np.repeat(xm, 2, axis=1), h, "full") + \
        db(dry) * padded(np.repeat(xm, 2, axis=1), n)
    check(d, ["--ir", "h2.wav", *mix], want, "mono to stereo")


@test("mix")
def dry_only_and_wet_only(d):
    x = inputs(d, 9001, 2)
    h = ir(d, "h2.wav", 400, 2)
    n = len(x) + len(h) - 1
    # --dry alone keeps the wet sound at 0 dB; --wet alone adds no dry signal
    check(d, ["--ir", "h2.wav", "--dry", "-6", "--normalize", "none"],
          conv(x, h, "full") + db(-6) * padded(x, n), "--dry alone")
    check(d, ["--ir", "h2.wav", "--wet", "-6", "--normalize", "none"],
          db(-6) * conv(x, h, "full"), "--wet alone")
    r = d.run("--describe", "x.wav", "--ir", "h2.wav", "--dry", "-6", "--wet", "-1")
    assert "mix: the IR's output at -1.00 dB (scaled), the signal it is given at -6.00 dB" \
        in r.stdout, r.stdout


@test("mix")
def behind_another_stage(d):
    """--taps before the IR filters the dry signal too, and --gain scales both."""
    x = inputs(d, 12007, 1)
    t = d.rng.standard_normal(61) * 0.2
    d.text("t.txt", " ".join(repr(float(v)) for v in t))
    h = ir(d, "h1.wav", 301, 1)[:, 0]
    both = np.convolve(t, db(-2) * h + db(-9) * np.eye(1, len(h))[0])
    want = db(1.5) * conv(x[:, 0], both, "full")
    for fold in ([], ["--no-fold"]):     # the stages folded, or run one after another
        check(d, ["--taps", "t.txt", "--ir", "h1.wav", "--wet", "-2", "--dry", "-9", "--gain",
                  "1.5", "--normalize", "none", *fold], want[:, None], f"behind --taps {fold}")


@test("mix")
def normalized_wet_not_dry(d):
    x = inputs(d, 10007, 1)
    h = ir(d, "h2.wav", 600, 2, positive=True)
    loudest = h.sum(axis=0).max()       # positive taps: the peak is at 0 Hz
    n = len(x) + len(h) - 1
    xs = np.repeat(x, 2, axis=1)
    want = db(-1) * (db(-4) * conv(xs, h, "full") / loudest + db(-10) * padded(xs, n))
    check(d, ["--ir", "h2.wav", "--wet", "-4", "--dry", "-10", "--gain", "-1"], want,
          "normalized")


@test("mix")
def refused(d):
    inputs(d, 1000, 2)
    ir(d, "h2.wav", 100, 2)
    d.text("t.txt", "0.5 0.25")
    fails(d, ["x.wav", "out.wav", "--taps", "t.txt", "--dry", "-6"], 1,
          "--wet and --dry apply to one impulse response", "has 0")
    fails(d, ["x.wav", "out.wav", "--ir", "h2.wav", "--ir", "h2.wav", "--dry", "-6"], 1, "has 2")
    # stereo in, three outputs: the third has no input of its own
    fails(d, ["x.wav", "out.wav", "--ir", "h2.wav,h2.wav,h2.wav", "--dry", "-6"], 1,
          "3 outputs of 2 inputs")
    fails(d, ["x.wav", "out.wav", "--ir", "h2.wav", "--dry", "-200"], 2, "-120 to 24 dB")
    fails(d, ["x.wav", "out.wav", "--ir", "h2.wav", "--wet", "loud"], 2, "--wet")


if __name__ == "__main__":
    sys.exit(cli.main())
