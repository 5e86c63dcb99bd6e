#!/usr/bin/python3
"""End-to-end tests of routing: how an impulse response's channels meet the
signal's (mono to stereo, true stereo in both orders, one file per output, a
preset's [route] of N inputs to M outputs), the IR conditioning options
(--ir-trim, --min-phase, --normalize peak|energy and the default with an
IR), and --describe and --response for routed filters.

    test_routing.py GFIR GROUP      GROUP: layouts, matrix, conditioning,
                                     reverb, inspect

Every output is checked against NumPy/SciPy float64: each output channel is
the sum over its paths of numpy.convolve(input channel, IR channel) times the
path's gain, relative L2 below 1e-5 (float taps and float arithmetic in a few
hundred taps, as in test_cli.py).

The backend comes from the environment: GFIR_TEST_BACKEND (cpu, the default
here, or cuda), and the kernels the matrix group runs from GFIR_TEST_KERNELS
(space-separated; default gold direct fft auto on the CPU, auto direct fft
basic on CUDA). On a GPU machine:

    GFIR_TEST_BACKEND=cuda ctest --test-dir build -R cli_routing
"""
import os
import re
import shutil
import sys
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_cli as cli  # noqa: E402  (the harness: exits 77 without NumPy)
from test_cli import GFIR, PRESET_DIR, RATE, fails, np, one_line, read, test  # noqa: E402

import scipy.signal as signal  # noqa: E402  (test_cli has checked it is there)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from response_peak import peak_of_sums  # noqa: E402

REL_L2 = 1e-5
BACKEND = os.environ.get("GFIR_TEST_BACKEND", "cpu")
KERNELS = os.environ.get("GFIR_TEST_KERNELS", "gold direct fft auto" if BACKEND == "cpu"
                         else "auto direct fft basic").split()
ENGINE = ["--backend", BACKEND]


def rel_l2(got, want):
    assert got.shape == want.shape, f"shape {got.shape}, wanted {want.shape}"
    return np.linalg.norm(got - want) / np.linalg.norm(want)


def room(d, frames, channels=1, delay=0, decay=None):
    """Noise under an exponential decay after `delay` frames of silence: an
    impulse response with a room's shape."""
    decay = decay or frames / 6
    env = np.exp(-np.arange(frames - delay) / decay)
    h = np.zeros((frames, channels))
    h[delay:] = d.rng.standard_normal((frames - delay, channels)) * env[:, None] * 0.3
    return h[:, 0] if channels == 1 else h


def routed(x, paths, align="full"):
    """The contract for routed filters in float64: output o is the sum of
    gain * numpy.convolve(x[:, input], h) over its paths (input, output, h,
    gain); 'full' keeps every tail."""
    x = x[:, None] if x.ndim == 1 else x
    n = max(len(h) for _, _, h, _ in paths)
    outputs = max(o for _, o, _, _ in paths) + 1
    y = np.zeros((len(x) + n - 1, outputs))
    for i, o, h, g in paths:
        full = np.convolve(x[:, i], np.asarray(h, dtype=np.float64))
        y[:len(full), o] += g * full
    return y if align == "full" else y[:len(x)]


def loudest_peak(paths):
    """--normalize peak's measure: the largest over outputs of the largest
    over frequency of the sum of the paths' magnitudes (response_peak.py)."""
    outs = {}
    for _, o, h, g in paths:
        outs.setdefault(o, []).append((h, g))
    return peak_of_sums(list(outs.values()))


def loudest_energy(paths):
    outs = {}
    for _, o, h, g in paths:
        outs[o] = outs.get(o, 0) + g * g * np.sum(np.asarray(h) ** 2)
    return np.sqrt(max(outs.values()))


def run(d, *args, **kw):
    return d.run(*args, *ENGINE, **kw)


def check(d, args, x, paths, what, align="full"):
    """gfir with args writes y.wav: the routed reference, raw (--normalize
    none unless args say otherwise)."""
    if "--normalize" not in args:
        args = [*args, "--normalize", "none"]
    run(d, *args)
    _, y = read(d.p("y.wav"))
    y = y[:, None] if y.ndim == 1 else y
    err = rel_l2(y, routed(x, paths, align))
    assert err < REL_L2, f"{what}: rel L2 {err}"
    return y


def wav(d, name, data):
    """Writes float samples and returns them as the file holds them."""
    d.wav(name, data)
    return read(d.p(name))[1]


# ---- layouts: an IR's channels on the signal's --------------------------------------

@test("layouts")
def mono_to_stereo(d):
    x = wav(d, "x.wav", d.noise(6000))
    h = wav(d, "st.wav", room(d, 700, 2))
    y = check(d, ["x.wav", "y.wav", "--ir", "st.wav"], x,
              [(0, 0, h[:, 0], 1), (0, 1, h[:, 1], 1)], "2-channel IR on mono")
    assert y.shape[1] == 2
    # any count: a 5-channel IR on mono makes 5 outputs
    h5 = wav(d, "five.wav", room(d, 300, 5))
    check(d, ["x.wav", "y.wav", "--ir", "five.wav"], x,
          [(0, c, h5[:, c], 1) for c in range(5)], "5-channel IR on mono")


@test("layouts")
def true_stereo_both_orders(d):
    x = wav(d, "x.wav", d.noise(5000, 2))
    h = wav(d, "ts.wav", room(d, 600, 4))
    # LL, LR, RL, RR: from input (first letter) into output (second)
    in_major = [(0, 0, h[:, 0], 1), (0, 1, h[:, 1], 1), (1, 0, h[:, 2], 1), (1, 1, h[:, 3], 1)]
    out_major = [(0, 0, h[:, 0], 1), (1, 0, h[:, 1], 1), (0, 1, h[:, 2], 1), (1, 1, h[:, 3], 1)]
    check(d, ["x.wav", "y.wav", "--ir", "ts.wav"], x, in_major, "true stereo, default order")
    check(d, ["x.wav", "y.wav", "--ir", "ts.wav", "--true-stereo", "ll,lr,rl,rr"], x, in_major,
          "true stereo, ll,lr,rl,rr")
    check(d, ["x.wav", "y.wav", "--ir", "ts.wav", "--true-stereo", "ll,rl,lr,rr"], x, out_major,
          "true stereo, ll,rl,lr,rr")
    # the order matters: the two differ
    assert rel_l2(routed(x, in_major), routed(x, out_major)) > 0.1
    fails(d, ["x.wav", "y.wav", "--ir", "ts.wav", "--true-stereo", "lr,ll,rr,rl"], 2,
          "--true-stereo")
    wav(d, "st.wav", room(d, 100, 2))
    fails(d, ["x.wav", "y.wav", "--ir", "st.wav", "--true-stereo", "ll,rl,lr,rr"], 1,
          "--true-stereo", "4-channel")


@test("layouts")
def shared_and_one_to_one(d):
    x = wav(d, "x.wav", d.noise(4000, 3))
    h1 = wav(d, "one.wav", room(d, 250))
    h3 = wav(d, "three.wav", room(d, 250, 3))
    check(d, ["x.wav", "y.wav", "--ir", "one.wav"], x, [(c, c, h1, 1) for c in range(3)],
          "1 channel on 3")
    check(d, ["x.wav", "y.wav", "--ir", "three.wav"], x, [(c, c, h3[:, c], 1) for c in range(3)],
          "3 channels on 3")


@test("layouts")
def one_file_per_output(d):
    x1 = wav(d, "mono.wav", d.noise(3000))
    x2 = wav(d, "stereo.wav", d.noise(3000, 2))
    left = wav(d, "left.wav", room(d, 400))
    right = wav(d, "right.wav", room(d, 300))
    sl = wav(d, "sl.wav", room(d, 350, 2))
    sr = wav(d, "sr.wav", room(d, 350, 2))
    # mono files: input k to output k on stereo; the mono input to each on mono
    check(d, ["stereo.wav", "y.wav", "--ir", "left.wav,right.wav"], x2,
          [(0, 0, left, 1), (1, 1, right, 1)], "left.wav,right.wav on stereo")
    check(d, ["mono.wav", "y.wav", "--ir", "left.wav,right.wav,left.wav"], x1,
          [(0, 0, left, 1), (0, 1, right, 1), (0, 2, left, 1)], "three files on mono")
    # a channel per input: every input into the file's output (ffmpeg's true stereo)
    check(d, ["stereo.wav", "y.wav", "--ir", "sl.wav,sr.wav"], x2,
          [(0, 0, sl[:, 0], 1), (1, 0, sl[:, 1], 1), (0, 1, sr[:, 0], 1), (1, 1, sr[:, 1], 1)],
          "sl.wav,sr.wav on stereo")
    # two --ir are still a chain of two stages
    check(d, ["mono.wav", "y.wav", "--ir", "left.wav", "--ir", "right.wav"], x1,
          [(0, 0, np.convolve(left, right), 1)], "--ir a --ir b")
    # a file whose name holds a comma is that file
    shutil.copy(d.p("left.wav"), d.p("a,b.wav"))
    check(d, ["mono.wav", "y.wav", "--ir", "a,b.wav"], x1, [(0, 0, left, 1)], "a,b.wav")
    # mixed: a mono file takes its input, a stereo one both
    check(d, ["stereo.wav", "y.wav", "--ir", "left.wav,sr.wav"], x2,
          [(0, 0, left, 1), (0, 1, sr[:, 0], 1), (1, 1, sr[:, 1], 1)], "left.wav,sr.wav")
    wav(d, "three.wav", room(d, 50, 3))
    line = fails(d, ["stereo.wav", "y.wav", "--ir", "left.wav,three.wav"], 1, "three.wav")
    assert "3 channels" in line and "needs 2" in line, line
    line = fails(d, ["stereo.wav", "y.wav", "--ir", "left.wav,sl.wav,right.wav"], 1, "left.wav")
    assert "output 1 of the list" in line, line
    fails(d, ["stereo.wav", "y.wav", "--ir", "left.wav,,right.wav"], 1, "empty")


@test("layouts")
def refused_layouts_say_what_works(d):
    wav(d, "x2.wav", d.noise(1000, 2))
    wav(d, "x3.wav", d.noise(1000, 3))
    wav(d, "ir3.wav", room(d, 50, 3))
    wav(d, "ir4.wav", room(d, 50, 4))
    for x, ir in (("x2.wav", "ir3.wav"), ("x3.wav", "ir4.wav")):
        line = fails(d, [x, "out.wav", "--ir", ir], 1, ir, "channels")
        for hint in ("1 channel", "one to one", "mono", "true stereo", "--ir a.wav,b.wav",
                     "[route]"):
            assert hint in line, f"'{hint}' not in: {line}"
    assert not os.path.exists(d.p("out.wav"))


@test("layouts")
def chains_around_a_routed_stage(d):
    x = wav(d, "x.wav", d.noise(4000))
    a = d.rng.standard_normal(31) * 0.2
    b = d.rng.standard_normal(17) * 0.2
    d.text("a.txt", " ".join(f"{v:.9g}" for v in a))
    d.text("b.txt", " ".join(f"{v:.9g}" for v in b))
    a, b = np.loadtxt(d.p("a.txt")), np.loadtxt(d.p("b.txt"))
    h = wav(d, "st.wav", room(d, 300, 2))
    paths = [(0, c, np.convolve(np.convolve(a, h[:, c]), b), 1) for c in range(2)]
    for extra in ([], ["--no-fold"], ["--no-fold", "--block", "997"]):
        check(d, ["x.wav", "y.wav", "--taps", "a.txt", "--ir", "st.wav", "--taps", "b.txt",
                  *extra], x, paths, f"taps, mono to stereo, taps {extra}")
    # a second IR after the first widened the signal meets two channels
    h2 = wav(d, "st2.wav", room(d, 200, 2))
    paths = [(0, c, np.convolve(h[:, c], h2[:, c]), 1) for c in range(2)]
    for extra in ([], ["--no-fold"]):
        check(d, ["x.wav", "y.wav", "--ir", "st.wav", "--ir", "st2.wav", *extra], x, paths,
              f"mono to stereo, then one to one {extra}")


@test("layouts")
def output_formats_follow_the_routing(d):
    import sndfile
    x = wav(d, "x.wav", d.noise(3000))
    h = wav(d, "st.wav", room(d, 200, 2))
    for out in ("y.flac", "y.wav"):
        run(d, "x.wav", out, "--ir", "st.wav", "-q")
        assert sndfile.Sound(d.p(out)).data.shape == (3199, 2), out
    # a pipe too
    r = cli.subprocess.run([GFIR, "x.wav", "-", "--ir", "st.wav", "--normalize", "none", *ENGINE],
                           cwd=d.path, capture_output=True)
    assert r.returncode == 0, r.stderr
    with open(d.p("piped.wav"), "wb") as f:
        f.write(r.stdout)
    _, y = read(d.p("piped.wav"))
    assert rel_l2(y, routed(x, [(0, 0, h[:, 0], 1), (0, 1, h[:, 1], 1)])) < REL_L2


# ---- matrix: N inputs to M outputs ----------------------------------------------------

def random_route(d, inputs, outputs, nfiles):
    """A [route] of random paths: each output 1 to 3 terms, each a random input
    through a random file channel (or a plain wire), a random gain in dB or
    as a factor, some inverted. The preset's text and its paths."""
    files = []
    for k in range(nfiles):
        ch = 1 + k % 2
        files.append((f"r{k}.wav", wav(d, f"r{k}.wav", room(d, 150 + 60 * k, ch))))
    lines, paths = [], []
    for o in range(outputs):
        terms = []
        for t in range(1 + d.rng.integers(3)):
            i = int(d.rng.integers(inputs))
            sign = -1 if d.rng.random() < 0.3 else 1
            db = float(np.round(d.rng.uniform(-12, 3), 1))
            factor = float(np.round(d.rng.uniform(0.2, 1.5), 2))
            name, h = files[int(d.rng.integers(nfiles))]
            if d.rng.random() < 0.15:
                text, taps = f"in{i + 1}", np.ones(1)
            elif h.ndim == 1:
                text, taps = f"in{i + 1} * {name}", h
            else:
                c = int(d.rng.integers(h.shape[1]))
                text, taps = f"in{i + 1} * {name}[{c + 1}]", h[:, c]
            text += f" * {factor}"
            gain = sign * factor * 10 ** (db / 20)
            text += f" {'-' if db < 0 else '+'} {abs(db)} dB"
            terms.append(("- " if sign < 0 else "+ ") + text)
            paths.append((i, o, taps, gain))
        line = " ".join(terms)
        lines.append(f"out{o + 1} = {line[2:] if line.startswith('+') else line}")
    # every input named at least once, so the route reads them all
    ini = "[route]\ndescription = random\ninputs = %d\n%s\n" % (inputs, "\n".join(lines))
    return ini, paths


@test("matrix")
def three_inputs_to_five_outputs(d):
    ini, paths = random_route(d, 3, 5, 4)
    d.text("route.ini", ini)
    x = wav(d, "x.wav", d.noise(5000, 3))
    for kernel in KERNELS:
        for block in ("1", "7", "997", "4096", "65536"):
            if block == "1" and kernel == "gold":
                continue    # one frame a call through the reference loop: minutes, not news
            y = check(d, ["x.wav", "y.wav", "--preset", "route.ini", "--kernel", kernel,
                          "--block", block], x, paths, f"--kernel {kernel} --block {block}\n{ini}")
            assert y.shape[1] == 5
    check(d, ["x.wav", "y.wav", "--preset", "route.ini", "--no-fold"], x, paths, "--no-fold")


@test("matrix")
def route_syntax(d):
    x = wav(d, "x.wav", d.noise(3000, 2))
    a = wav(d, "a.wav", room(d, 120))
    s = wav(d, "s.wav", room(d, 90, 2))
    d.text("xf.ini", "# cross-feed\n[route]\n"
           "out1 = in1 + in2*a.wav -6dB\n"
           "out2 = in2 - in1 * s.wav[2] * 0.5 + 3 dB\n"
           "out3 = -in1 * -6 dB\n")
    g = lambda db: 10 ** (db / 20)  # noqa: E731
    check(d, ["x.wav", "y.wav", "--preset", "xf.ini"], x,
          [(0, 0, [1.0], 1), (1, 0, a, g(-6)), (1, 1, [1.0], 1), (0, 1, s[:, 1], -0.5 * g(3)),
           (0, 2, [1.0], -g(-6))], "cross-feed")
    # inputs = 3: a 3-channel signal whose third channel no line takes
    x3 = wav(d, "x3.wav", d.noise(3000, 3))
    d.text("three.ini", "[route]\ninputs = 3\nout1 = in1 * a.wav\nout2 = in2\n")
    check(d, ["x3.wav", "y.wav", "--preset", "three.ini"], x3, [(0, 0, a, 1), (1, 1, [1.0], 1)],
          "inputs = 3")
    # a route between designed stages: the stages before filter its inputs
    d.text("t.txt", "0.5 0.25 -0.125")
    t = np.loadtxt(d.p("t.txt"))
    check(d, ["x.wav", "y.wav", "--taps", "t.txt", "--preset", "xf.ini"], x,
          [(0, 0, t, 1), (1, 0, np.convolve(t, a), g(-6)), (1, 1, t, 1),
           (0, 1, np.convolve(t, s[:, 1]), -0.5 * g(3)), (0, 2, t, -g(-6))], "taps then route")
    # a line goes on, indented; an override replaces it
    d.text("long.ini", "[route]\nout1 = in1 * a.wav\n    - in2 * s.wav[1] - 6 dB\n"
           "out2 = in2\n")
    check(d, ["x.wav", "y.wav", "--preset", "long.ini"], x,
          [(0, 0, a, 1), (1, 0, s[:, 0], -g(-6)), (1, 1, [1.0], 1)], "continued line")
    check(d, ["x.wav", "y.wav", "--preset", "long.ini:route.out1=in2 * a.wav"], x,
          [(1, 0, a, 1), (1, 1, [1.0], 1)], "override")
    d.text("toolong.ini", "[route]\nout1 = " + " + ".join(["in1 * a.wav"] * 30) + "\n")
    fails(d, ["x.wav", "y.wav", "--preset", "toolong.ini"], 1, "line 2 is longer", "indented")
    for text, needle in (("out1 = in1 * s.wav", "name one"), ("out1 = in3", "routes 3"),
                         ("out1 = a.wav", "needs an input"), ("out1 = in1 in2", "joined by"),
                         ("out1 = in1\nout3 = in2", "no out2"),
                         ("out1 = in1 * a.wav * s.wav[1]", "one IR file"),
                         ("out1 = in1 * s.wav[3]", "no channel 3"),
                         ("out1 = in0", "in1 to in"), ("out1 =  ", "empty"),
                         ("inputs = 1\nout1 = in2", "inputs = 1"),
                         ("out1 = in1 * nosuch.wav", "nosuch.wav")):
        d.text("bad.ini", "[route]\n" + text + "\n")
        fails(d, ["x.wav", "y.wav", "--preset", "bad.ini"], 1, needle)


# ---- conditioning: trim, minimum phase, gain ---------------------------------------------

def impulse_through(d, *args):
    """The filter gfir applies: an impulse filtered with --align full."""
    d.wav("impulse.wav", np.ones(1))
    run(d, "impulse.wav", "h.wav", "--align", "full", *args)
    return read(d.p("h.wav"))[1]


@test("conditioning")
def ir_trim_cuts_leading_silence(d):
    h = room(d, 3000, 2, delay=1234)
    h[:1234] = d.rng.standard_normal((1234, 2)) * 1e-5     # noise 90 dB below the peak
    h[1234 + 40:, 1] = h[1234:-40, 1]                      # the right channel arrives later
    h[1234:1234 + 40, 1] = 0
    h = wav(d, "late.wav", h)
    x = wav(d, "x.wav", d.noise(3000, 2))
    r = run(d, "x.wav", "y.wav", "--ir", "late.wav", "--ir-trim", "-60", "--normalize", "none")
    one_line(r.stderr, "--ir-trim", "1234 frames", "late.wav")
    _, y = read(d.p("y.wav"))
    assert rel_l2(y, routed(x, [(0, 0, h[1234:, 0], 1), (1, 1, h[1234:, 1], 1)])) < REL_L2
    # the same cut from both channels: the later one keeps its 40 frames
    assert "--ir-trim -60 cut 1234 frames" in run(d, "--describe", "x.wav", "--ir", "late.wav",
                                                  "--ir-trim", "-60").stdout
    r = run(d, "x.wav", "y.wav", "--ir", "late.wav", "--ir-trim", "-60", "-q")
    assert r.stderr == "", "-q silences the note"
    for bad in ("0", "6", "-400", "loud"):
        fails(d, ["x.wav", "y.wav", "--ir", "late.wav", "--ir-trim", bad], 2, "--ir-trim")
    fails(d, ["x.wav", "y.wav", "--preset", "lowpass", "--ir-trim", "-60"], 1, "--ir-trim",
          "impulse responses")


def magnitude_db(h, grid):
    return 20 * np.log10(np.maximum(np.abs(np.fft.rfft(h, grid)), 1e-300))


def centre(h):
    return np.sum(np.arange(len(h)) * h ** 2) / np.sum(h ** 2)


@test("conditioning")
def min_phase_against_scipy(d):
    """The same magnitude to 0.1 dB wherever it is within 80 dB of its peak,
    the energy's centre moved to the front, and the taps those of SciPy's
    homomorphic method (scipy.signal.minimum_phase, given the filter's
    autocorrelation, whose magnitude is the square of the filter's: SciPy
    1.10 returns the square root's minimum-phase filter)."""
    small_room = room(d, 2400, 1, delay=300, decay=300)
    d.wav("room.wav", small_room)
    cases = [("room", ["--ir", "room.wav"], read(d.p("room.wav"))[1]),
             ("lowpass", ["--preset", "lowpass"], None)]
    for name, args, h in cases:
        if h is None:   # the design, as gfir makes it
            h = impulse_through(d, *args, "--normalize", "none")
        hm = impulse_through(d, *args, "--normalize", "none", "--min-phase")
        assert len(hm) == len(h), (name, len(hm), len(h))
        grid = 1 << int(np.ceil(np.log2(8 * len(h))))
        want, got = magnitude_db(h, grid), magnitude_db(hm, grid)
        judged = want > want.max() - 80
        worst = np.max(np.abs(got - want)[judged])
        assert worst < 0.1, f"{name}: magnitude off by {worst:.3f} dB"
        assert centre(hm) < centre(h) / 4, (name, centre(hm), centre(h))
        ref = signal.minimum_phase(np.convolve(h, h[::-1]), method="homomorphic")
        assert len(ref) == len(h)
        assert np.max(np.abs(magnitude_db(ref, grid) - want)[judged]) < 0.01, "SciPy's own"
        # the minimum-phase filter of a magnitude is unique: gfir aims at 0.05 dB
        # of it, SciPy's longer grid at far less, so the taps differ by what
        # 0.05 dB is (0.6 %), and by no more than that
        err = rel_l2(hm, ref)
        assert err < 1e-2, f"{name}: rel L2 {err} from SciPy's"
    # a designed filter made minimum phase has no delay to remove: causal by default
    x = wav(d, "x.wav", d.noise(3000))
    run(d, "x.wav", "y.wav", "--preset", "lowpass", "--min-phase")
    _, y = read(d.p("y.wav"))
    assert rel_l2(y, np.convolve(x, hm)[:len(x)]) < REL_L2


@test("conditioning")
def normalize_modes(d):
    x = wav(d, "x.wav", d.noise(4000))
    h = wav(d, "st.wav", room(d, 500, 2) * 8)
    paths = [(0, 0, h[:, 0], 1), (0, 1, h[:, 1], 1)]
    peak = loudest_peak(paths)
    r = run(d, "x.wav", "y.wav", "--ir", "st.wav", "-v")
    assert "the default with an impulse response" in r.stderr, r.stderr
    assert f"{-20 * np.log10(peak):+.2f} dB" in r.stderr, (peak, r.stderr)
    _, y = read(d.p("y.wav"))
    assert rel_l2(y, routed(x, paths) / peak) < REL_L2, "default: peak"
    for mode, scale in (("peak", peak), ("energy", loudest_energy(paths)), ("none", 1)):
        run(d, "x.wav", "y.wav", "--ir", "st.wav", "--normalize", mode, "--gain", "-2")
        _, y = read(d.p("y.wav"))
        err = rel_l2(y, routed(x, paths) / scale * 10 ** (-2 / 20))
        assert err < REL_L2, f"--normalize {mode}: {err}"
    # several paths into an output: the sum of their magnitudes; energy adds
    xs = wav(d, "xs.wav", d.noise(4000, 2))
    t = wav(d, "ts.wav", room(d, 400, 4))
    ts = [(0, 0, t[:, 0], 1), (0, 1, t[:, 1], 1), (1, 0, t[:, 2], 1), (1, 1, t[:, 3], 1)]
    for mode, scale in (("peak", loudest_peak(ts)), ("energy", loudest_energy(ts))):
        run(d, "xs.wav", "y.wav", "--ir", "ts.wav", "--normalize", mode)
        _, y = read(d.p("y.wav"))
        assert rel_l2(y, routed(xs, ts) / scale) < REL_L2, f"true stereo --normalize {mode}"
    # designed filters and taps keep their own gain by default
    d.text("three.txt", "3")
    run(d, "x.wav", "y.wav", "--taps", "three.txt")
    assert rel_l2(read(d.p("y.wav"))[1], 3 * x) < REL_L2


@test("conditioning")
def normalize_long_while_planning(d):
    """Beyond 16384 taps --normalize is measured on a thread of its own while
    the plans are made from the unscaled taps, and the scale joins the output
    (src/cli/filter/measure.h): the output is still the float64 routed
    reference over the float64 loudness, to the 1e-5 of every check here."""
    n = 20011
    x = wav(d, "x.wav", d.noise(3001))
    h = wav(d, "st.wav", room(d, n, 2, decay=n / 4) * 5)
    paths = [(0, 0, h[:, 0], 1), (0, 1, h[:, 1], 1)]
    peak = loudest_peak(paths)
    r = run(d, "x.wav", "y.wav", "--ir", "st.wav", "-v")
    _, y = read(d.p("y.wav"))
    assert rel_l2(y, routed(x, paths) / peak) < REL_L2, "default: peak"
    # the gain's line before the plan's, as without the thread
    lines = r.stderr.splitlines()
    said = [i for i, l in enumerate(lines) if f"{-20 * np.log10(peak):+.2f} dB" in l]
    plan = [i for i, l in enumerate(lines) if "backend " in l]
    assert said and plan and said[0] < plan[0], r.stderr
    r = run(d, "--describe", "--ir", "st.wav")
    assert f"scaled by {-20 * np.log10(peak):+.2f} dB" in r.stdout, (peak, r.stdout)
    # energy with --gain, true stereo (two paths into each output), --no-fold
    run(d, "x.wav", "y.wav", "--ir", "st.wav", "--normalize", "energy", "--gain", "-2")
    err = rel_l2(read(d.p("y.wav"))[1], routed(x, paths) / loudest_energy(paths) * 10 ** -0.1)
    assert err < REL_L2, f"--normalize energy: {err}"
    xs = wav(d, "xs.wav", d.noise(2001, 2))
    t = wav(d, "ts.wav", room(d, n, 4, decay=n / 4))
    ts = [(0, 0, t[:, 0], 1), (0, 1, t[:, 1], 1), (1, 0, t[:, 2], 1), (1, 1, t[:, 3], 1)]
    for extra in ([], ["--no-fold"]):
        run(d, "xs.wav", "y.wav", "--ir", "ts.wav", *extra)
        err = rel_l2(read(d.p("y.wav"))[1], routed(xs, ts) / loudest_peak(ts))
        assert err < REL_L2, f"true stereo {extra}: {err}"
    # a scale past the largest float (a quiet room, a large --gain) whose
    # scaled taps and output are floats: the output's gain is a double
    q = wav(d, "quiet.wav", h / np.abs(h).max() * 1e-10)
    qp = [(0, 0, q[:, 0], 1), (0, 1, q[:, 1], 1)]
    assert 10 ** 35 / loudest_peak(qp) > np.finfo(np.float32).max
    run(d, "x.wav", "y.wav", "--ir", "quiet.wav", "--gain", "700", "--format", "wav:float")
    err = rel_l2(read(d.p("y.wav"))[1], routed(x, qp) / loudest_peak(qp) * 10 ** 35)
    assert err < REL_L2, f"a scale of {10 ** 35 / loudest_peak(qp):g}: {err}"
    # what the measurement finds fails the run as before, with no OUTPUT
    wav(d, "silent.wav", np.zeros((n, 2)))
    fails(d, ["x.wav", "out.wav", "--ir", "silent.wav", *ENGINE], 1, "--normalize peak",
          "silent at every output")
    fails(d, ["x.wav", "out.wav", "--ir", "st.wav", "--gain", "1e9", *ENGINE], 1, "--gain",
          "overflow")
    fails(d, ["--describe", "--ir", "silent.wav"], 1, "silent at every output", output="-")


@test("conditioning")
def normalize_peak_is_the_true_peak(d):
    """A resonance's peak is as narrow as its length allows; a grid four to
    eight times as fine as the IR read it up to 1% low (0.1 dB), and
    --normalize peak now finds the peak itself: the output matches the
    float64 true peak's scaling to the 1e-5 of every other check here."""
    n = 6007
    t = np.arange(n)
    tone = np.exp(-t / 3000.0) * np.cos(2 * np.pi * 0.1234567 * t)
    x = wav(d, "x.wav", d.noise(3000))
    h = wav(d, "res.wav", 0.5 * tone)
    paths = [(0, 0, h, 1)]
    peak = loudest_peak(paths)
    grid = np.abs(np.fft.rfft(h, 8 * 8192)).max()
    assert peak / grid - 1 > 10 * REL_L2, (peak, grid)     # the old reading would fail
    run(d, "x.wav", "y.wav", "--ir", "res.wav")
    _, y = read(d.p("y.wav"))
    assert rel_l2(y, routed(x, paths)[:, 0] / peak) < REL_L2


# ---- reverb: the hall on a voice, IRs beside the presets, batch rows ---------------------

def program(d):
    """Ordinary program material at full scale: a sound from ALSA's test set
    where the system has one, else a tone burst with harmonics; peak -0.1 dBFS."""
    path = "/usr/share/sounds/alsa/Front_Center.wav"
    if os.path.exists(path):
        rate, x = read(path)
        x = x[:, 0] if x.ndim > 1 else x
        if rate != RATE:
            x = signal.resample_poly(x, RATE, rate)
    else:
        t = np.arange(RATE) / RATE
        x = sum(np.sin(2 * np.pi * 220 * k * t) / k for k in range(1, 8)) * np.hanning(RATE)
    return x / np.max(np.abs(x)) * 10 ** (-0.1 / 20)


@test("reverb")
def hall_on_a_mono_voice(d):
    x = wav(d, "voice.wav", program(d))
    r = run(d, "voice.wav", "wet.wav", "--preset", "hall")
    assert "clipped" not in r.stderr, r.stderr
    _, ir = read(os.path.join(PRESET_DIR, "hall.wav"))
    paths = [(0, 0, ir[:, 0], 1), (0, 1, ir[:, 1], 1)]
    _, y = read(d.p("wet.wav"))
    assert y.shape == (len(x) + len(ir) - 1, 2)
    assert rel_l2(y, routed(x, paths) / loudest_peak(paths)) < REL_L2
    # the raw IR is 14 dB hotter, and clips
    r = run(d, "voice.wav", "raw.wav", "--preset", "hall", "--normalize", "none",
            "--format", "wav:pcm16")
    assert "clipped" in r.stderr, r.stderr


@test("reverb")
def ir_names_found_beside_the_presets(d):
    x = wav(d, "x.wav", d.noise(2000))
    _, ir = read(os.path.join(PRESET_DIR, "hall.wav"))
    paths = [(0, 0, ir[:, 0], 1), (0, 1, ir[:, 1], 1)]
    # README: gfir dry.wav wet.wav --ir hall.wav, from a directory without hall.wav
    check(d, ["x.wav", "y.wav", "--ir", "hall.wav"], x, paths, "hall.wav beside the presets")
    # one of the user's presets directories is searched first
    os.makedirs(d.p("mine"))
    mine = wav(d, "mine/hall.wav", room(d, 100))
    run(d, "x.wav", "y.wav", "--ir", "hall.wav", "--normalize", "none",
        env={"GFIR_PRESET_PATH": d.p("mine")})
    assert rel_l2(read(d.p("y.wav"))[1], routed(x, [(0, 0, mine, 1)])[:, 0]) < REL_L2
    # and a file of that name here comes first of all
    here = wav(d, "hall.wav", room(d, 80))
    check(d, ["x.wav", "y.wav", "--ir", "hall.wav"], x, [(0, 0, here, 1)], "./hall.wav")
    fails(d, ["x.wav", "y.wav", "--ir", "nosuch.wav"], 1, "nosuch.wav")
    fails(d, ["x.wav", "y.wav", "--ir", "sub/hall.wav"], 1, "sub/hall.wav")


@test("reverb")
def batch_rows_route_too(d):
    wav(d, "mono.wav", d.noise(3000))
    x = read(d.p("mono.wav"))[1]
    h = wav(d, "st.wav", room(d, 300, 2))
    l1 = wav(d, "l.wav", room(d, 200))
    r1 = wav(d, "r.wav", room(d, 250))
    d.text("jobs.tsv", "input\toutput\tir\nmono.wav\tst_out.wav\tst.wav\n"
                       "mono.wav\tlist_out.wav\tl.wav,r.wav\n")
    r = cli.subprocess.run([GFIR, "batch", "--manifest", "jobs.tsv", "--normalize", "none", "-q",
                            *ENGINE], cwd=d.path, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    for out, paths in (("st_out.wav", [(0, 0, h[:, 0], 1), (0, 1, h[:, 1], 1)]),
                       ("list_out.wav", [(0, 0, l1, 1), (0, 1, r1, 1)])):
        _, y = read(d.p(out))
        assert rel_l2(y, routed(x, paths)) < REL_L2, out


# ---- inspect: every path, its source and latency -----------------------------------------

def path_lines(text):
    return re.findall(r"^  in (\d+) -> out (\d+): (.*); starts at (\d+) frames .*, peaks at "
                      r"(\d+) ", text, re.M)


@test("inspect")
def describe_every_path(d):
    wav(d, "mono.wav", d.noise(1000))
    wav(d, "stereo.wav", d.noise(1000, 2))
    h = room(d, 400, 4, delay=25)
    h[60:, 2] = h[:-60, 2].copy()     # RL arrives 60 frames later
    h[:60, 2] = 0
    h = wav(d, "ts.wav", h)
    out = run(d, "--describe", "stereo.wav", "--ir", "ts.wav").stdout
    assert "true stereo: LL, LR, RL, RR" in out, out
    lines = path_lines(out)
    # one line a path, in order of output: in1->out1 (LL), in2->out1 (RL), ...
    assert [(int(i), int(o)) for i, o, _, _, _ in lines] == [(1, 1), (2, 1), (1, 2), (2, 2)], out
    assert [s for _, _, s, _, _ in lines] == [f"ts.wav channel {c}" for c in (1, 3, 2, 4)], out
    order = (0, 2, 1, 3)
    peaks = [int(np.argmax(np.abs(h[:, c]))) for c in order]
    onsets = [int(np.argmax(np.abs(h[:, c]) >= np.abs(h[p, c]) * 1e-3))
              for c, p in zip(order, peaks)]
    assert [int(p) for _, _, _, _, p in lines] == peaks, (lines, peaks)
    assert [int(a) for _, _, _, a, _ in lines] == onsets, (lines, onsets)
    assert onsets[1] >= 85 > onsets[0] >= 25, onsets
    assert "(a file of 2 channels" in out
    # mono to stereo says its output count, and -v names the same plan
    out = run(d, "--describe", "mono.wav", "--preset", "hall").stdout
    assert "mono to stereo" in out and "1 channel in and 2 out" in out, out
    assert len(path_lines(out)) == 2
    described = cli.plan_lines(out, "engine")
    ran = cli.plan_lines(run(d, "mono.wav", "y.wav", "--preset", "hall", "-v").stderr, "gfir: ")
    assert described and described == ran, (described, ran)
    # without INPUT, --channels says what signal to assume
    out = run(d, "--describe", "--ir", "ts.wav", "--channels", "2").stdout
    assert "true stereo" in out, out
    out = run(d, "--describe", "--ir", "ts.wav").stdout
    assert "one to one" in out, out
    fails(d, ["--describe", "stereo.wav", "--ir", "ts.wav", "--channels", "2"], 2, "--channels")


@test("inspect")
def response_legend_names_paths(d):
    wav(d, "ts.wav", room(d, 400, 4))
    d.run("--response", "ts.svg", "--ir", "ts.wav", "--channels", "2")
    root = ET.parse(d.p("ts.svg")).getroot()
    ns = "{http://www.w3.org/2000/svg}"
    assert len(root.findall(f"{ns}polyline")) == 4
    legend = [t.text for t in root.iter(f"{ns}text") if t.get("class") == "legend"]
    assert legend == ["in 1 \u2192 out 1: ts.wav channel 1", "in 2 \u2192 out 1: ts.wav channel 3",
                      "in 1 \u2192 out 2: ts.wav channel 2", "in 2 \u2192 out 2: ts.wav channel 4"], \
        legend


if __name__ == "__main__":
    sys.exit(cli.main())
