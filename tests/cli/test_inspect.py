#!/usr/bin/python3
"""End-to-end tests of --describe and --response: one design of the filter for
the description, the plot and the file's plans (issue 14's review, M4), a
response read off FFT grids (M10), failures that say so (L1), and a plot
written only when everything succeeded (L2).

    test_inspect.py GFIR GROUP      GROUP: inspect_once, inspect_failures,
                                     inspect_grid, inspect_routed

inspect_once: taps and impulse responses from FIFOs (which can be read only
once) and from regular files (opened once, counted with strace), with
--describe, --response and OUTPUT in one run. inspect_failures: a plan that
cannot be made, a standard output that cannot be written, and requests
refused after the plot was computed, each one line on stderr, a non-zero
exit and no plot left (an existing one untouched). inspect_grid: the plot's
curves against the float64 envelope of the response (the largest magnitude
in each pixel column), the measured bands against the float64 response on
the same grid, and filters of 1.44 million taps described and plotted within
a bound on CPU time that the old direct sums exceeded by several times.
inspect_routed: every path of a 2-in/5-out [route] and of a true-stereo IR,
with its level and polarity, and the bands of the designed stages measured
apart from an IR.
"""
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_cli as cli  # noqa: E402  (the harness: exits 77 without NumPy)
from test_cli import GFIR, RATE, conv, fails, leftovers, np, one_line, read, rel_l2, \
    test  # noqa: E402
from test_usage import Plot  # noqa: E402

import scipy.signal as signal_  # noqa: E402  (test_cli has checked it is there)

REL_L2 = 1e-5


def env_for(d):
    """What Dir.run gives gfir: no presets or config of the user's."""
    env = dict(os.environ)
    env.pop("GFIR_PRESET_PATH", None)
    env.pop("XDG_CONFIG_HOME", None)
    env["HOME"] = d.path
    return env


def run_bounded(d, args, timeout=120, cpu_s=None, stdout=subprocess.PIPE):
    """gfir with a wall-clock timeout (a run past it fails the test) and, with
    cpu_s, a limit on its CPU time (SIGXCPU ends it there)."""
    def limit():
        if cpu_s:
            resource.setrlimit(resource.RLIMIT_CPU, (cpu_s, cpu_s))
    try:
        return subprocess.run([GFIR, *args], cwd=d.path, env=env_for(d), stdout=stdout,
                              stderr=subprocess.PIPE, text=True, timeout=timeout,
                              preexec_fn=limit)
    except subprocess.TimeoutExpired:
        raise AssertionError(f"gfir {' '.join(args)}: still running after {timeout} s")


def feed_fifo(d, name, data):
    """A FIFO that gives data to one reader, once, from a thread; returns a
    function that unblocks the writer if nobody opened it."""
    os.mkfifo(d.p(name))

    def writer():
        with open(d.p(name), "wb") as f:
            f.write(data)
    t = threading.Thread(target=writer, daemon=True)
    t.start()

    def release():
        if t.is_alive():
            try:
                os.close(os.open(d.p(name), os.O_RDONLY | os.O_NONBLOCK))
            except OSError:
                pass
    return release


def svg_ok(path):
    p = Plot(path)
    assert p.curves and all(len(c) > 100 for c in p.curves), path
    return p


# ---- inspect_once: one design, one read of every filter file ---------------------------

@test("inspect_once")
def taps_from_a_fifo(d):
    x = d.noise(3000)
    d.wav("x.wav", x)
    h = d.noise(31, scale=0.1)
    text = " ".join(f"{v:.8f}" for v in h).encode()
    h = np.array([float(v) for v in text.split()])
    # describe and plot alone, then with OUTPUT: describe, plot and the job
    # used to read the taps once each, and the FIFO had only one reading
    for args in (["--describe", "--response", "p.svg"],
                 ["x.wav", "y.wav", "--describe", "--response", "q.svg"]):
        release = feed_fifo(d, "t.fifo", text)
        try:
            r = run_bounded(d, [*args, "--taps", "t.fifo"], timeout=60)
        finally:
            release()
        os.unlink(d.p("t.fifo"))
        assert r.returncode == 0, r.stderr
        assert "taps from 't.fifo': 31 taps" in r.stdout, r.stdout
        svg_ok(d.p(args[-1]))
    assert rel_l2(read(d.p("y.wav"))[1], conv(x, h, "same")) < REL_L2


@test("inspect_once")
def impulse_response_from_a_fifo(d):
    x = d.noise(4000)
    d.wav("x.wav", x)
    h = d.noise(900, 2, 0.1)
    d.wav("ir.wav", h)
    h = read(d.p("ir.wav"))[1]
    data = open(d.p("ir.wav"), "rb").read()
    release = feed_fifo(d, "ir.fifo", data)
    try:
        r = run_bounded(d, ["x.wav", "y.wav", "--ir", "ir.fifo", "--normalize", "none",
                            "--describe", "--response", "p.svg"], timeout=60)
    finally:
        release()
    assert r.returncode == 0, r.stderr
    assert "mono to stereo" in r.stdout and "ir.fifo channel 2" in r.stdout, r.stdout
    assert len(svg_ok(d.p("p.svg")).curves) == 2
    y = read(d.p("y.wav"))[1]
    want = np.stack([np.convolve(x, h[:, c]) for c in range(2)], axis=1)
    assert rel_l2(y, want) < REL_L2


@test("inspect_once")
def route_file_from_a_fifo(d):
    x = d.noise(3000, 2)
    d.wav("x.wav", x)
    near = d.noise(300, scale=0.1)
    d.wav("near.wav", near)
    near = read(d.p("near.wav"))[1]
    d.text("cross.ini", "[route]\nout1 = in1 * near.fifo\nout2 = in2 * near.fifo - 6 dB\n"
                        "out3 = in1 + in2\n")
    release = feed_fifo(d, "near.fifo", open(d.p("near.wav"), "rb").read())
    try:
        r = run_bounded(d, ["x.wav", "y.wav", "--preset", "./cross.ini", "--normalize", "none",
                            "--describe", "--response", "p.svg"], timeout=60)
    finally:
        release()
    assert r.returncode == 0, r.stderr
    assert "2 channels in and 3 out" in r.stdout, r.stdout
    y = read(d.p("y.wav"))[1]
    g = 10 ** (-6 / 20)
    n = len(x) + len(near) - 1
    want = np.zeros((n, 3))
    want[:, 0] = np.convolve(x[:, 0], near)
    want[:, 1] = g * np.convolve(x[:, 1], near)
    want[:len(x), 2] = x[:, 0] + x[:, 1]
    assert rel_l2(y, want) < REL_L2


@test("inspect_once")
def filter_files_opened_once(d):
    assert shutil.which("strace"), "strace is needed (tools/setup.sh installs it)"
    d.wav("x.wav", d.noise(2000, 2))
    d.wav("room.wav", d.noise(500, 4, 0.1))
    d.wav("near.wav", d.noise(200, 1, 0.1))
    d.text("h.txt", " ".join(f"{v:.6f}" for v in d.noise(21, scale=0.1)))
    d.text("mix.ini", "[route]\nout1 = in1 * near.wav + in2\nout2 = in2 * near.wav\n")
    env = dict(env_for(d), ASAN_OPTIONS=os.environ.get("ASAN_OPTIONS", "") + ":detect_leaks=0")
    for files, args in ((("room.wav", "h.txt"), ["--ir", "room.wav", "--taps", "h.txt"]),
                        (("mix.ini", "near.wav"), ["--preset", "./mix.ini"])):
        for extra in (["x.wav", "y.wav"], ["x.wav"], []):
            trace = d.p("trace.txt")
            r = subprocess.run(["strace", "-f", "-o", trace, "-e", "trace=open,openat", GFIR,
                                *extra, *args, "--describe", "--response", "p.svg",
                                *([] if extra else ["--channels", "2"])],
                               cwd=d.path, capture_output=True, text=True, timeout=120,
                               env=env)
            assert r.returncode == 0, r.stderr
            calls = [line for line in open(trace) if "open" in line and "= -1" not in line]
            for name in files:
                opened = [c for c in calls if re.search(r'"(\./)?' + re.escape(name) + '"', c)]
                assert len(opened) == 1, f"{args} {extra}: {name} opened {len(opened)} times"


# ---- inspect_failures: one line, non-zero, nothing left --------------------------------

@test("inspect_failures")
def plan_error_fails(d):
    # the description used to say "engine: none can be made here" and exit 0
    for extra in ([], ["--response", "p.svg"]):
        r = d.run("--describe", "-p", "lowpass", "--backend", "cpu", "--kernel", "tiled",
                  *extra, expect=1)
        one_line(r.stderr, "gfir: ", "tiled")
        assert r.stdout == "", r.stdout
        assert not os.path.exists(d.p("p.svg")) and not leftovers(d)
    fails(d, ["--describe", "-p", "lowpass", "--backend", "cpu", "--kernel", "tiled"], 1,
          "tiled", output="p.svg")


@test("inspect_failures")
def unwritable_standard_output_fails(d):
    with open("/dev/full", "w") as full:
        r = run_bounded(d, ["--describe", "-p", "telephone"], stdout=full)
    assert r.returncode == 1, r.returncode
    one_line(r.stderr, "standard output")


@test("inspect_failures")
def unreadable_filter_fails(d):
    d.wav("x.wav", d.noise(1000))
    os.makedirs(d.p("dir.wav"))
    d.text("bad.wav", "not a sound")
    for ir in ("missing.wav", "dir.wav", "bad.wav"):
        fails(d, ["--describe", "--response", "p.svg", "--ir", ir], 1, ir, output="p.svg")
        fails(d, ["x.wav", "y.wav", "--describe", "--response", "p.svg", "--ir", ir], 1, ir,
              output="p.svg")
        assert not os.path.exists(d.p("y.wav"))


@test("inspect_failures")
def plot_only_when_all_succeeded(d):
    d.wav("x.wav", d.noise(1000))
    d.wav("five.wav", d.noise(100, 5, 0.1))
    bad = [(["x.wav", "y.xyz", "-p", "lowpass"], "xyz"),
           (["x.wav", "y.wav", "-p", "lowpass", "--format", "mp3:pcm_16"], "pcm_16"),
           (["x.wav", "y.wav", "-p", "lowpass", "--backend", "cpu", "--kernel", "tiled"],
            "tiled"),
           (["x.wav", "y.mp3", "--ir", "five.wav"], "5 channels")]
    for args, needle in bad:
        fails(d, [*args, "--response", "p.svg"], 1, needle, output="p.svg")
        fails(d, [*args, "--response", "p.svg", "--describe"], 1, needle, output="p.svg")
    # an existing plot is not clobbered by a failed run
    d.run("--response", "p.svg", "-p", "telephone")
    before = open(d.p("p.svg"), "rb").read()
    for args, needle in bad:
        fails(d, [*args, "--response", "p.svg"], 1, needle, output="y.wav")
        assert open(d.p("p.svg"), "rb").read() == before, args
    assert not [f for f in os.listdir(d.path) if f.startswith("y.")]


@test("inspect_failures")
def interrupted_run_leaves_no_plot(d):
    # the plot is made final with OUTPUT, after the whole file: a run cut
    # short leaves neither (it used to leave the plot, written first)
    d.wav("x.wav", d.noise(48000 * 60, 2))
    d.wav("ir.wav", d.noise(48000, 2, 0.01))
    p = subprocess.Popen([GFIR, "x.wav", "y.wav", "--ir", "ir.wav", "--response", "p.svg",
                          "--kernel", "direct", "-q"], cwd=d.path, env=env_for(d),
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and len(leftovers(d)) < 2 and p.poll() is None:
        time.sleep(0.01)
    assert p.poll() is None, "the run ended before it could be interrupted"
    assert len(leftovers(d)) == 2, leftovers(d)
    p.send_signal(signal.SIGINT)
    p.wait(timeout=60)
    assert p.returncode == -signal.SIGINT, p.returncode
    assert not os.path.exists(d.p("p.svg")) and not os.path.exists(d.p("y.wav"))
    assert not leftovers(d), leftovers(d)


# ---- inspect_grid: the response off FFT grids -------------------------------------------

def taps_of(d, preset):
    """A preset's folded taps, exactly: an impulse through the gold kernel."""
    x = np.zeros(60000)
    x[0] = 1
    d.wav("imp.wav", x)
    d.run("imp.wav", "imp_out.wav", "--preset", preset, "--align", "causal", "--kernel",
          "gold", "--format", "wav:float", "-q")
    h = read(d.p("imp_out.wav"))[1]
    return h[:np.flatnonzero(h)[-1] + 1]


def envelope_db(h, rate=RATE, columns=700):
    """The float64 truth the plot draws: in each pixel column of the log axis
    (10 Hz to Nyquist), the largest magnitude anywhere within it, from 33
    points across the column and every bin of a 2^23-point FFT inside it."""
    nyq = rate / 2
    f_lo = min(10.0, nyq / 2000)
    k = np.arange(columns + 1)
    t = np.clip((k[:, None] + np.linspace(-0.5, 0.5, 33)[None, :]) / columns, 0, 1)
    freqs = f_lo * (nyq / f_lo) ** t
    _, resp = signal_.freqz(h, worN=freqs.ravel(), fs=rate)
    mag = np.abs(resp).reshape(freqs.shape).max(axis=1)
    n = 1 << 22
    spec = np.abs(np.fft.rfft(h, 2 * n))
    bins = np.arange(n + 1) * nyq / n
    first = np.searchsorted(bins, freqs[:, 0])
    last = np.searchsorted(bins, freqs[:, -1], side="right")
    for c in range(columns + 1):
        if last[c] > first[c]:
            mag[c] = max(mag[c], spec[first[c]:last[c]].max())
    return 20 * np.log10(np.maximum(mag, 1e-15))


@test("inspect_grid")
def plot_is_the_envelope(d):
    """Every stopband lobe drawn at its peak (within 1.5 dB, half a pixel is
    0.17 dB) and none drawn above it by more than 3 dB (a line between grid
    points over a zero); the direct sums at a few points per column missed
    lobes by up to 18 dB here."""
    for preset in ("lowpass", "telephone", "highpass:cutoff_hz=50,transition_hz=20",
                   "bandstop:low_hz=200,high_hz=300,transition_hz=30"):
        h = taps_of(d, preset)
        d.run("--response", "p.svg", "--preset", preset)
        p = Plot(d.p("p.svg"))
        drawn = p.db_of_y(p.curves[0][:, 1])
        truth = envelope_db(h)
        bottom = p.db_of_y(p.bottom)
        seen = truth > bottom + 1
        low = (truth - drawn)[seen].max()
        high = (drawn - np.clip(truth, bottom, None))[seen].max()
        assert low < 1.5 and high < 3, f"{preset}: {low:.2f} dB under, {high:.2f} dB over"


def measured(text):
    gain = float(re.search(r"passband .*: gain ([-+0-9.]+) dB", text).group(1))
    ripple = float(re.search(r"ripple ([0-9.]+) dB", text).group(1))
    atten = float(re.search(r"attenuation ([0-9.]+) dB", text).group(1))
    return gain, ripple, atten


def bands_on_grid(h, passbands, stopbands, rate=RATE, points=4096):
    """What --describe measures, in float64: on 4097 points from 0 to Nyquist,
    the passband's mean gain and ripple and the stopband's attenuation below
    the passband's top."""
    freqs = np.arange(points + 1) * (rate / 2) / points
    db = 20 * np.log10(np.maximum(np.abs(np.fft.rfft(h, 2 * points)), 1e-300))
    inside = lambda bands: np.any([(freqs >= lo) & (freqs <= hi) for lo, hi in bands], axis=0)
    p, s = db[inside(passbands)], db[inside(stopbands) & ~inside(passbands)]
    return (p.max() + p.min()) / 2, p.max() - p.min(), p.max() - s.max()


@test("inspect_grid")
def bands_measured_on_the_grid(d):
    for preset, passbands, stopbands in (
            ("lowpass", [(0, 3800)], [(4200, 24000)]),
            ("telephone", [(350, 3200)], [(0, 250), (3600, 24000)]),
            ("bandpass:low_hz=1000,high_hz=2000,transition_hz=100", [(1050, 1950)],
             [(0, 950), (2050, 24000)])):
        got = measured(d.run("--describe", "--preset", preset).stdout)
        want = bands_on_grid(taps_of(d, preset), passbands, stopbands)
        assert abs(got[0] - want[0]) < 2e-4 and abs(got[1] - want[1]) < 2e-4 and \
            abs(got[2] - want[2]) < 0.06, f"{preset}: {got}, want {want}"


@test("inspect_grid")
def long_filters_in_bounded_work(d):
    """A 30 s room at 48 kHz is 1.44 million taps a channel. Described as
    true stereo with a low-pass after it, or plotted, it took from most of a
    minute to several of direct sums (one per tap and frequency); off FFT
    grids a second or two (tools/bench/inspect.sh). 30 s of CPU time for
    each is the bound."""
    frames = 30 * RATE
    decay = np.exp(-np.arange(frames) / (2.0 * RATE))[:, None]
    d.wav("st.wav", d.noise(4800, 2))
    d.wav("room.wav", d.rng.standard_normal((frames, 4)) * decay * 0.3)
    del decay
    for args, needle in ((["--describe", "st.wav", "--ir", "room.wav", "--preset", "lowpass"],
                          "stopband"),
                         (["--describe", "--response", "p.svg", "st.wav", "--ir", "room.wav"],
                          "true stereo")):
        r = run_bounded(d, args, timeout=300, cpu_s=30)
        assert r.returncode == 0, f"{args}: exit {r.returncode} {r.stderr}"
        assert "1440000 taps" in r.stdout and needle in r.stdout, r.stdout
    assert len(svg_ok(d.p("p.svg")).curves) == 4


# ---- inspect_routed: paths that read well -----------------------------------------------

PATH_LINE = re.compile(r"^  in (\d+) -> out (\d+): (.*); starts at (\d+) frames \([0-9.]+ ms\), "
                       r"peaks at (\d+) \([0-9.]+ ms\); level ([-+0-9.]+) dB(, inverted)?$", re.M)


def paths(text):
    return [(int(i), int(o), src, int(start), int(peak), float(level), bool(inv))
            for i, o, src, start, peak, level, inv in PATH_LINE.findall(text)]


@test("inspect_routed")
def two_in_five_out_route(d):
    d.wav("x.wav", d.noise(4800, 2))
    a = np.zeros(400)
    a[10:] = d.noise(390, scale=0.1)
    a[50] = 0.9
    b = np.zeros((600, 2))
    b[120:] = d.noise(480, 2, 0.1)
    b[200] = [0.8, -0.8]
    a = read(d.wav("a.wav", a))[1]
    b = read(d.wav("b.wav", b))[1]
    d.text("r25.ini", "[route]\ndescription = Stereo to five\nout1 = in1 * a.wav\n"
                      "out2 = in2 * a.wav\n"
                      "out3 = in1 * b.wav[1] - 3 dB + in2 * b.wav[2] - 3 dB\n"
                      "out4 = in1 * b.wav[2] - 6 dB\nout5 = in2 * -0.5 + in1\n")
    out = d.run("--describe", "x.wav", "--preset", "./r25.ini", "--normalize", "none").stdout
    assert "route of 2 inputs to 5 outputs" in out and "2 channels in and 5 out" in out, out
    g3, g6 = 10 ** (-3 / 20), 10 ** (-6 / 20)
    want = [(1, 1, "a.wav", a), (2, 2, "a.wav", a), (1, 3, "b.wav channel 1", g3 * b[:, 0]),
            (2, 3, "b.wav channel 2", g3 * b[:, 1]), (1, 4, "b.wav channel 2", g6 * b[:, 1]),
            (1, 5, "a plain wire", np.ones(1)), (2, 5, "a plain wire", -0.5 * np.ones(1))]
    got = paths(out)
    assert len(got) == len(want), out
    for (i, o, src, start, peak, level, inv), (wi, wo, wsrc, h) in zip(got, want):
        top = int(np.argmax(np.abs(h)))
        onset = int(np.argmax(np.abs(h) >= np.abs(h[top]) * 1e-3))
        assert (i, o, src) == (wi, wo, wsrc), (i, o, src)
        assert (start, peak) == (onset, top), (i, o, start, peak, onset, top)
        assert abs(level - 20 * np.log10(np.linalg.norm(h))) < 0.06, (i, o, level)
        assert inv == (h[top] < 0), (i, o, inv)


@test("inspect_routed")
def true_stereo_paths_and_designed_bands(d):
    d.wav("x.wav", d.noise(4800, 2))
    h = np.zeros((800, 4))
    h[30:] = d.noise(770, 4, 0.05)
    h[40 + 20 * np.arange(4), np.arange(4)] = [0.9, -0.7, 0.6, -0.5]
    h = read(d.wav("ts.wav", h))[1]
    out = d.run("--describe", "x.wav", "--ir", "ts.wav", "--normalize", "none").stdout
    got = paths(out)
    order = (0, 2, 1, 3)  # LL, RL into out 1, LR, RR into out 2
    assert [(i, o, s) for i, o, s, *_ in got] == \
        [(1, 1, "ts.wav channel 1"), (2, 1, "ts.wav channel 3"), (1, 2, "ts.wav channel 2"),
         (2, 2, "ts.wav channel 4")], out
    for (*_, peak, level, inv), c in zip(got, order):
        assert peak == 40 + 20 * c and inv == (h[peak, c] < 0), (c, peak, inv)
        assert abs(level - 20 * np.log10(np.linalg.norm(h[:, c]))) < 0.06, (c, level)
    # a low-pass after the room: its bands are measured on it alone, not on
    # the room's colouring of them
    alone = measured(d.run("--describe", "--preset", "lowpass").stdout)
    out = d.run("--describe", "x.wav", "--ir", "ts.wav", "--preset", "lowpass").stdout
    assert "designed stages' passband" in out, out
    assert measured(out) == alone, (measured(out), alone)


if __name__ == "__main__":
    sys.exit(cli.main())
