#!/usr/bin/python3
"""End-to-end tests of how gfir meets its user: options given for a mode they
do not apply to, gfir run alone, --version, -v's figures, the response
plot, and the progress bar on a narrow terminal.

    test_usage.py GFIR GROUP     GROUP: scope, usage, plot, progress
"""
import ctypes
import ctypes.util
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_cli as cli  # noqa: E402  (the harness: exits 77 without NumPy)
import sndfile  # noqa: E402
from test_cli import GFIR, fails, np, test  # noqa: E402


# ---- scope: an option that does not apply is wrong usage, never ignored ------------

# (arguments, the option the message must name, the mode it must name)
OUT_OF_SCOPE = [
    (["x.wav", "out.wav", "-p", "lowpass", "--channels", "1"], "--channels", "filtering a file"),
    (["x.wav", "out.wav", "-p", "lowpass", "--duration", "0.5"], "--duration",
     "filtering a file"),
    (["x.wav", "out.wav", "-p", "lowpass", "--period", "128"], "--period", "filtering a file"),
    (["x.wav", "out.wav", "-p", "lowpass", "--device", "0"], "--device", "filtering a file"),
    (["x.wav", "out.wav", "-p", "lowpass", "--input-device", "0"], "--input-device",
     "filtering a file"),
    (["--describe", "x.wav", "-p", "lowpass", "--rate", "44100"], "--rate",
     "--describe with INPUT"),
    (["--describe", "-p", "lowpass", "--format", "wav"], "--format", "--describe"),
    (["--describe", "-p", "lowpass", "--align", "full"], "--align", "--describe"),
    (["--describe", "-p", "lowpass", "--no-dither"], "--no-dither", "--describe"),
    (["--response", "r.svg", "-p", "lowpass", "--no-fold"], "--no-fold", "--response"),
    (["x.wav", "--play", "-p", "lowpass", "--no-fold"], "--no-fold", "--play"),
    (["--describe", "-p", "lowpass", "--period", "64"], "--period", "--describe"),
    (["--response", "r.svg", "-p", "lowpass", "--backend", "cpu"], "--backend", "--response"),
    (["--response", "r.svg", "-p", "lowpass", "--block", "1024"], "--block", "--response"),
    (["x.wav", "--play", "-p", "lowpass", "--format", "wav"], "--format", "--play"),
    (["x.wav", "--play", "-p", "lowpass", "--align", "causal"], "--align", "--play"),
    (["x.wav", "--play", "-p", "lowpass", "--block", "512"], "--block", "--play"),
    (["x.wav", "--play", "-p", "lowpass", "--rate", "44100"], "--rate", "--play"),
    (["x.wav", "--play", "-p", "lowpass", "--channels", "1"], "--channels", "--play"),
    (["x.wav", "--play", "-p", "lowpass", "--input-device", "0"], "--input-device", "--play"),
    (["--monitor", "-p", "lowpass", "--no-dither"], "--no-dither", "--monitor"),
    (["--monitor", "-p", "lowpass", "--rate", "44100"], "--rate", "--monitor"),
]


@test("scope")
def options_out_of_scope_are_usage_errors(d):
    d.wav("x.wav", d.noise(1000))
    for args, opt, mode in OUT_OF_SCOPE:
        line = fails(d, args, 2, opt, "applies only to", f"not to {mode}")
        assert line.count("--") >= 2, f"{args}: the message should say where {opt} applies"
    assert not os.path.exists(d.p("r.svg"))
    # why, where INPUT settles it
    fails(d, ["--describe", "x.wav", "-p", "lowpass", "--rate", "48000"], 2, "INPUT's own rate")
    fails(d, ["x.wav", "out.wav", "-p", "lowpass", "--channels", "2"], 2, "its own channels")


@test("scope")
def modes_that_exclude_each_other(d):
    d.wav("x.wav", d.noise(1000))
    fails(d, ["--list-presets", "--preset", "lowpass"], 2, "--list-presets", "--preset")
    fails(d, ["--list-presets", "x.wav"], 2, "--list-presets", "x.wav")
    fails(d, ["--list-presets", "--list-devices"], 2, "--list-presets", "--list-devices")
    fails(d, ["--list-devices", "--duration", "3"], 2, "--list-devices", "--duration")
    fails(d, ["x.wav", "--play", "--monitor", "-p", "lowpass"], 2, "--play", "--monitor")
    fails(d, ["x.wav", "--play", "--describe", "-p", "lowpass"], 2, "--play", "--describe")


@test("scope")
def options_in_scope_still_work(d):
    d.wav("x.wav", d.noise(2000, 2))
    d.run("--describe", "-p", "lowpass", "--rate", "44100", "--block", "1024", "--backend",
          "cpu", "--kernel", "direct")
    d.run("--response", "r.svg", "-p", "lowpass", "--rate", "32000")
    d.run("--describe", "x.wav", "-p", "telephone", "--block", "4096", "--no-fold")
    d.run("x.wav", "out.wav", "-p", "lowpass", "--align", "causal", "--format", "wav:pcm24",
          "--no-dither", "--no-fold", "--block", "997", "--backend", "cpu", "-q")
    d.run("x.wav", "out2.wav", "-p", "lowpass", "--describe", "--response", "r2.svg",
          "--block", "4096")
    assert os.path.exists(d.p("out2.wav")) and os.path.exists(d.p("r2.svg"))
    d.run("--list-presets", "-q")


# ---- usage: gfir alone, --version, -v's figures ---------------------------------------

@test("usage")
def alone_prints_usage(d):
    for args in ([], ["-v"], ["-q"]):
        r = d.run(*args, expect=2)
        assert r.stderr.startswith("usage: gfir"), f"gfir {args}: {r.stderr!r}"
        assert "--help" in r.stderr and "filter given" not in r.stderr, r.stderr
        assert "gfir in.wav out.wav --preset lowpass" in r.stderr, r.stderr
    # something asked, the filter missing: then that is the message
    fails(d, ["--describe"], 2, "no filter")


@test("usage")
def gpus_are_checked(d):
    # --gpus: the list's form first, then the GPUs this machine shows, each one line
    for bad in ("0,x", "-1", "1,,2", "", "1.5"):
        fails(d, ["--monitor", "-p", "lowpass", "--gpus", bad], 2, f"--gpus {bad}:",
              "GPU numbers separated by commas")
    fails(d, ["--monitor", "-p", "lowpass", "--gpus", "0,0"], 2, "GPU 0 is named twice")
    fails(d, ["--monitor", "-p", "lowpass", "--gpus", "0,1", "--gpu", "0"], 2,
          "--gpu and --gpus")
    # then the GPUs this host shows: none, or fewer than 64 (not the library
    # through ctypes: an ASan build's library cannot load into Python)
    line = fails(d, ["--monitor", "-p", "lowpass", "--gpus", "63"], 1, "--gpus 63:")
    assert ("no GPU is visible" in line or
            re.search(r"this host has \d+ visible GPU", line)), line
    fails(d, ["--monitor", "-p", "lowpass", "--gpus", "0", "-b", "cpu"], 2,
          "--gpus 0 and --backend cpu")
    d.wav("x.wav", d.noise(100))
    fails(d, ["x.wav", "out.wav", "-p", "lowpass", "--gpus", "0"], 2, "--gpus",
          "applies only to --play and --monitor")


def sndfile_version():
    lib = ctypes.CDLL(ctypes.util.find_library("sndfile") or "libsndfile.so.1")
    lib.sf_version_string.restype = ctypes.c_char_p
    return lib.sf_version_string().decode()


@test("usage")
def version_lists_what_is_built_in(d):
    out = d.run("--version").stdout
    lines = out.splitlines()
    assert lines[0].startswith("gfir 0."), lines[0]
    text = "\n".join(lines[1:])
    for needle in ("backends:", "cpu (FFTW 3.", "live audio:", "files:", sndfile_version(),
                   "FLAC", "Ogg Vorbis", "Opus", "MP3", "IR resampling: libsoxr-"):
        assert needle in text, f"--version lacks {needle!r}:\n{out}"
    assert ("cuda (CUDA " in text) != ("cuda not built in" in text), out
    # live audio is built whenever PortAudio was found (CI installs it)
    assert "PortAudio V19" in text or "not built in (no PortAudio)" in text, out
    # the codecs named are the ones this libsndfile writes
    d.text("one.txt", "1")
    d.wav("x.wav", d.noise(4800, 2))
    for ext in ("flac", "ogg", "opus", "mp3"):
        d.run("x.wav", "x." + ext, "--taps", "one.txt")


@test("usage")
def verbose_speed_only_where_it_means_something(d):
    d.text("one.txt", "1")
    d.wav("one.wav", np.ones(1) * 0.5)
    r = d.run("one.wav", "o.wav", "--taps", "one.txt", "-v")
    last = r.stderr.splitlines()[-1]
    assert "wrote 1 frame (0.0208 ms of audio)" in last, last
    assert "realtime" not in last and "0.0x" not in r.stderr, last
    d.wav("long.wav", d.noise(48000, 2))
    r = d.run("long.wav", "o.wav", "--taps", "one.txt", "-v")
    last = r.stderr.splitlines()[-1]
    assert "wrote 48000 frames (1.00 s of audio)" in last and "x realtime" in last, last
    speed = float(last.split(": ")[-1].split("x realtime")[0])
    assert speed > 0.1, last


@test("usage")
def response_refuses_what_it_does_not_write(d):
    for name in ("out.png", "out.pdf", "out", "out.svg.png", "dir.svg/out"):
        fails(d, ["--response", name, "-p", "lowpass"], 2, "--response", name, "SVG",
              output=name)
    d.run("--response", "OUT.SVG", "-p", "lowpass")
    assert ET.parse(d.p("OUT.SVG")).getroot().tag.endswith("svg")


# ---- plot: the 0 dB line, a legend, everything in the frame -----------------------------

NS = "{http://www.w3.org/2000/svg}"


class Plot:
    """The parts of gfir's SVG the tests look at."""

    def __init__(self, path):
        root = ET.parse(path).getroot()
        self.height = float(root.get("height"))
        frame = [r for r in root.iter(NS + "rect") if r.get("fill") == "none"][0]
        self.left, self.top = float(frame.get("x")), float(frame.get("y"))
        self.right = self.left + float(frame.get("width"))
        self.bottom = self.top + float(frame.get("height"))
        self.curves = [np.array([[float(v) for v in p.split(",")]
                                 for p in line.get("points").split()])
                       for line in root.iter(NS + "polyline")]
        self.colors = [line.get("stroke") + (line.get("stroke-dasharray") or "")
                       for line in root.iter(NS + "polyline")]
        # dB ticks: right-aligned numbers left of the frame, 4 px under their line
        ticks = [(float(t.text), float(t.get("y")) - 4) for t in root.iter(NS + "text")
                 if t.get("text-anchor") == "end" and float(t.get("x")) < self.left]
        (db0, y0), (db1, y1) = ticks[0], ticks[-1]
        self.y_of_db = lambda db: y0 + (db - db0) * (y1 - y0) / (db1 - db0)
        self.db_of_y = lambda y: db0 + (y - y0) * (db1 - db0) / (y1 - y0)
        self.top_db = self.db_of_y(self.top)
        self.zero = [float(l.get("y1")) for l in root.iter(NS + "line")
                     if l.get("class") == "zero-db"]
        self.legend = [(t.text, float(t.get("y"))) for t in root.iter(NS + "text")
                       if t.get("class") == "legend"]


def peak_db(ir, rate, f_lo=10.0):
    """The largest magnitude of each channel's response from f_lo to Nyquist."""
    spec = np.abs(np.fft.rfft(ir, 1 << 18, axis=0))
    freqs = np.fft.rfftfreq(1 << 18, 1 / rate)
    return 20 * np.log10(spec[freqs >= f_lo].max())


@test("plot")
def zero_db_line(d):
    d.run("--response", "tel.svg", "--preset", "telephone")
    p = Plot(d.p("tel.svg"))
    assert len(p.zero) == 1, "one 0 dB line"
    assert abs(p.zero[0] - p.y_of_db(0)) < 0.6, f"0 dB line at y={p.zero[0]}, not {p.y_of_db(0)}"
    assert p.legend == [], "one filter channel needs no legend"
    # the passband (about 0 dB) lies on it
    mid = p.curves[0][len(p.curves[0]) // 2]
    assert abs(mid[1] - p.zero[0]) < 1.0, f"passband at y={mid[1]}, 0 dB at {p.zero[0]}"


@test("plot")
def multichannel_legend_and_frame(d):
    rng = np.random.default_rng(7)
    decay = np.exp(-np.arange(3000) / 400)[:, None]
    for channels, gain in ((6, 30.0), (10, 1.0), (2, 0.001)):
        ir = rng.standard_normal((3000, channels)) * decay * gain
        sndfile.write(d.p("ir.wav"), ir, cli.RATE, "wav", "float")
        d.run("--response", "ir.svg", "--ir", "ir.wav", "--normalize", "none")
        p = Plot(d.p("ir.svg"))
        assert len(p.curves) == channels, f"{channels} channels, {len(p.curves)} curves"
        assert len(set(p.colors)) == channels, f"curves look alike: {p.colors}"
        assert [t for t, _ in p.legend] == [f"channel {c + 1}" for c in range(channels)], \
            p.legend
        assert all(p.bottom + 40 < y <= p.height for _, y in p.legend), "legend below the plot"
        for c, curve in enumerate(p.curves):
            assert curve[:, 0].min() >= p.left and curve[:, 0].max() <= p.right
            assert curve[:, 1].min() >= p.top and curve[:, 1].max() <= p.bottom, \
                f"{channels} ch x {gain}: channel {c + 1} leaves the frame"
        # the loudest point is drawn where it is, not clamped to the top
        want = max(peak_db(ir[:, c], cli.RATE) for c in range(channels))
        drawn = p.db_of_y(min(curve[:, 1].min() for curve in p.curves))
        assert drawn < p.top_db - 0.5 and abs(drawn - want) < 3, \
            f"{channels} ch x {gain}: peak {want:.1f} dB drawn at {drawn:.1f} (top {p.top_db:.0f})"


# ---- progress: the bar on a 40-column terminal ------------------------------------

def tmux(sock, *args):
    return subprocess.run(["tmux", "-S", sock, "-f", "/dev/null", *args], capture_output=True,
                          text=True, check=True).stdout


@test("progress")
def progress_bar_in_a_narrow_terminal(d):
    if not shutil.which("tmux"):
        raise AssertionError("tmux is missing (tools/setup.sh installs it)")
    # a job of several seconds: the gold kernel over 20 s of stereo on one
    # core, as in test_cli.py's progress_bar_on_a_terminal
    d.wav("x.wav", d.noise(48000 * 20, 2))
    cpu = min(os.sched_getaffinity(0))
    cmd = (f"cd {shlex.quote(d.path)} && taskset -c {cpu} {shlex.quote(GFIR)} x.wav y.wav "
           f"--preset telephone --backend cpu --kernel gold; echo EXIT=$?; sleep 60")
    sock = d.p("tmux.sock")
    tmux(sock, "new-session", "-d", "-x", "40", "-y", "12", "sh", "-c", cmd)
    screens = []
    try:
        deadline = time.time() + 240
        while time.time() < deadline:
            # -J joins lines the terminal wrapped: a wrapped bar shows as one
            # line over 40 columns
            screens.append(tmux(sock, "capture-pane", "-p", "-J"))
            if "EXIT=" in screens[-1]:
                break
            time.sleep(0.05)
    finally:
        subprocess.run(["tmux", "-S", sock, "kill-server"], capture_output=True)
    final = [l.rstrip() for l in screens[-1].splitlines() if l.strip()]
    assert final[-1] == "EXIT=0", f"gfir did not finish well: {final}"
    bars = [s for s in screens if "%" in s]
    assert len(bars) >= 3, f"the bar was seen {len(bars)} times in {len(screens)} screens"
    for s in screens:
        lines = [l.rstrip() for l in s.splitlines() if l.strip()]
        assert all(len(l) < 40 for l in lines), f"a line wrapped at 40 columns: {lines}"
        assert len(lines) <= 2, f"the bar left lines behind: {lines}"
    states = {s.strip() for s in bars}
    assert len(states) >= 2, "the bar never moved"
    assert any("[" in s and "]" in s for s in bars), f"no bar drawn in 40 columns: {bars[-1]}"
    # what stays: one summary line, then the shell's EXIT line
    assert len(final) == 2 and final[0].startswith("gfir: ") and "%" not in final[0], final
    assert "20.0 s of audio" in final[0] or "done in" in final[0], final


if __name__ == "__main__":
    sys.exit(cli.main())
