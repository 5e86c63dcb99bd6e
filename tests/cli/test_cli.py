#!/usr/bin/python3
"""End-to-end tests of the gfir executable.

    test_cli.py GFIR GROUP     runs the tests of one group (options, convolve,
                               blocks, presets, formats, errors)

Every test runs the built executable on files made here with NumPy, and checks
its exit code, its stderr and its output against NumPy/SciPy float64.
Exit status 77 (skipped) when NumPy or SciPy is missing.
"""
import os
import shutil
import subprocess
import time
import sys
import tempfile
import warnings
import wave

try:
    import numpy as np
    import scipy.io.wavfile as wavfile
    import scipy.signal as signal
except ImportError:
    print("test_cli: needs numpy and scipy (Debian: python3-numpy python3-scipy)")
    sys.exit(77)

warnings.simplefilter("ignore", wavfile.WavFileWarning)

GFIR = os.path.abspath(sys.argv[1])
PRESET_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "presets")
RATE = 48000
# float32 output of a float32 filter accumulating in float: the error of one
# output is about sqrt(ntaps) * 2^-24 relative to its size, so 1e-5 relative L2
# leaves two orders of margin for filters of a few hundred taps and still
# catches any off-by-one sample, wrong tap order or lost block (those give ~1).
REL_L2 = 1e-5

TESTS = {}


def test(group):
    def add(fn):
        TESTS.setdefault(group, []).append(fn)
        return fn
    return add


class Dir:
    """A scratch directory with helpers to write inputs and run gfir in it."""

    def __init__(self, path):
        self.path = path
        self.rng = np.random.default_rng(1234)

    def p(self, name):
        return os.path.join(self.path, name)

    def wav(self, name, data, rate=RATE):
        wavfile.write(self.p(name), rate, np.asarray(data, dtype=np.float32))
        return self.p(name)

    def pcm16(self, name, data, rate=RATE):
        data = np.asarray(data)
        ints = np.clip(np.round(data * 32767), -32768, 32767).astype("<i2")
        with wave.open(self.p(name), "wb") as w:
            w.setnchannels(1 if data.ndim == 1 else data.shape[1])
            w.setsampwidth(2)
            w.setframerate(rate)
            w.writeframes(ints.tobytes())
        return self.p(name)

    def text(self, name, content):
        with open(self.p(name), "w") as f:
            f.write(content)
        return self.p(name)

    def noise(self, frames, channels=1, scale=0.25):
        shape = (frames,) if channels == 1 else (frames, channels)
        return self.rng.standard_normal(shape) * scale

    def run(self, *args, expect=0, env=None):
        r = subprocess.run([GFIR, *args], cwd=self.path, env=env_for(self, env),
                           capture_output=True, text=True, timeout=300)
        if expect is not None and r.returncode != expect:
            raise AssertionError(f"gfir {' '.join(args)}: exit {r.returncode}, wanted {expect}\n"
                                 f"stdout: {r.stdout}\nstderr: {r.stderr}")
        return r


def env_for(d, extra=None):
    """The environment Dir.run gives gfir: no presets or config of the user's;
    then extra."""
    env = dict(os.environ)
    env.pop("GFIR_PRESET_PATH", None)
    env.pop("XDG_CONFIG_HOME", None)
    env["HOME"] = d.path
    env.update(extra or {})
    return env


def read(path):
    rate, data = wavfile.read(path)
    if data.dtype == np.int16:
        data = data / 32768.0
    return rate, data.astype(np.float64)


def rel_l2(got, want):
    assert got.shape == want.shape, f"shape {got.shape}, wanted {want.shape}"
    return np.linalg.norm(got - want) / np.linalg.norm(want)


def conv(x, h, mode):
    """numpy.convolve per channel; mode 'causal' is 'full' cut to x's length."""
    x = np.asarray(x, dtype=np.float64)
    if x.ndim == 1:
        x = x[:, None]
    h = np.asarray(h, dtype=np.float64)
    if h.ndim == 1:
        h = np.repeat(h[:, None], x.shape[1], axis=1)
    cols = []
    for c in range(x.shape[1]):
        if mode == "causal":
            cols.append(np.convolve(x[:, c], h[:, c], "full")[: len(x)])
        else:
            cols.append(np.convolve(x[:, c], h[:, c], mode))
    out = np.stack(cols, axis=1)
    return out[:, 0] if out.shape[1] == 1 else out


def one_line(stderr, *needles):
    lines = [l for l in stderr.splitlines() if l.strip()]
    assert len(lines) == 1, f"wanted one line on stderr, got {lines}"
    for n in needles:
        assert n in lines[0], f"'{n}' not in: {lines[0]}"
    return lines[0]


def response_db(h, freqs, rate=RATE):
    _, H = signal.freqz(h, worN=np.asarray(freqs, dtype=float), fs=rate)
    return 20 * np.log10(np.maximum(np.abs(H), 1e-30))


def impulse_response(d, preset, rate=RATE, extra=()):
    """The filter gfir applies, measured by filtering a one-frame impulse with
    --align full (whose output is exactly the taps)."""
    d.wav("impulse.wav", np.ones(1), rate)
    d.run("impulse.wav", "imp_out.wav", "--preset", preset, "--align", "full", *extra)
    return read(d.p("imp_out.wav"))[1]


# ---- convolve: agreement with numpy.convolve ----------------------------------

@test("convolve")
def taps_each_align_mono_and_stereo(d):
    h = d.rng.standard_normal(101) * 0.1          # odd: 'same' is numpy's 'same'
    d.text("h.txt", "# random taps\n" + "\n".join(f"{v:.9g}" for v in h))
    h = np.loadtxt(d.p("h.txt"))
    for channels in (1, 2):
        x = d.noise(20000, channels)
        d.wav("x.wav", x)
        x = read(d.p("x.wav"))[1]
        for align in ("same", "causal", "full"):
            d.run("x.wav", "y.wav", "--taps", "h.txt", "--align", align)
            err = rel_l2(read(d.p("y.wav"))[1], conv(x, h, align))
            assert err < REL_L2, f"{channels} ch, --align {align}: rel L2 {err}"
        d.run("x.wav", "y.wav", "--taps", "h.txt")             # default: same
        assert rel_l2(read(d.p("y.wav"))[1], conv(x, h, "same")) < REL_L2


@test("convolve")
def taps_text_syntax(d):
    d.text("h.txt", "0.5, 0.25  # a comment\n\n-0.125,\t1e-1\n# end\n")
    x = d.noise(1000)
    d.wav("x.wav", x)
    d.run("x.wav", "y.wav", "--taps", "h.txt", "--align", "causal")
    want = conv(read(d.p("x.wav"))[1], [0.5, 0.25, -0.125, 0.1], "causal")
    assert rel_l2(read(d.p("y.wav"))[1], want) < REL_L2


@test("convolve")
def ir_per_channel_and_shared(d):
    x = d.noise(30000, 2)
    d.wav("x.wav", x)
    x = read(d.p("x.wav"))[1]
    ir2 = d.noise(777, 2, 0.1)
    d.wav("ir2.wav", ir2)
    ir2 = read(d.p("ir2.wav"))[1]
    # --normalize none: the raw IR (the default with an IR is peak, test_routing.py)
    d.run("x.wav", "y.wav", "--ir", "ir2.wav", "--normalize", "none")   # default: full
    err = rel_l2(read(d.p("y.wav"))[1], conv(x, ir2, "full"))
    assert err < REL_L2, f"per-channel IR: {err}"
    ir1 = d.noise(300, 1, 0.1)
    d.wav("ir1.wav", ir1)
    ir1 = read(d.p("ir1.wav"))[1]
    for align in ("same", "causal", "full"):
        d.run("x.wav", "y.wav", "--ir", "ir1.wav", "--align", align, "--normalize", "none")
        # 300 taps, even: 'same' is the contract's full[i + (ntaps - 1) / 2]
        want = (conv(x, ir1, "full")[(len(ir1) - 1) // 2:][:len(x)] if align == "same"
                else conv(x, ir1, align))
        err = rel_l2(read(d.p("y.wav"))[1], want)
        assert err < REL_L2, f"mono IR on stereo, --align {align}: {err}"


@test("convolve")
def chain_folds_stages(d):
    a = d.rng.standard_normal(31) * 0.2
    b = d.rng.standard_normal(17) * 0.2
    d.text("a.txt", " ".join(f"{v:.9g}" for v in a))
    d.text("b.txt", " ".join(f"{v:.9g}" for v in b))
    a, b = np.loadtxt(d.p("a.txt")), np.loadtxt(d.p("b.txt"))
    x = d.noise(5000, 2)
    d.wav("x.wav", x)
    x = read(d.p("x.wav"))[1]
    d.run("x.wav", "y.wav", "--taps", "a.txt", "--taps", "b.txt", "--align", "full")
    err = rel_l2(read(d.p("y.wav"))[1], conv(conv(x, a, "full"), b, "full"))
    assert err < REL_L2, f"two-stage chain: {err}"


@test("convolve")
def no_fold_runs_stages_in_series(d):
    a = d.rng.standard_normal(31) * 0.2
    d.text("a.txt", " ".join(f"{v:.9g}" for v in a))
    a = np.loadtxt(d.p("a.txt"))
    ir = d.noise(200, 2, 0.1)
    d.wav("ir.wav", ir)
    ir = read(d.p("ir.wav"))[1]
    x = d.noise(8000, 2)
    d.wav("x.wav", x)
    x = read(d.p("x.wav"))[1]
    full = conv(conv(x, a, "full"), ir, "full")
    ntaps = len(a) + len(ir) - 1
    wants = {"full": full, "causal": full[:len(x)],
             "same": full[(ntaps - 1) // 2:][:len(x)]}
    for align, want in wants.items():
        for block in ("4096", "997"):
            d.run("x.wav", "y.wav", "--taps", "a.txt", "--ir", "ir.wav", "--no-fold",
                  "--align", align, "--block", block, "--gain", "-6", "--normalize", "none")
            err = rel_l2(read(d.p("y.wav"))[1], want * 10 ** (-6 / 20))
            assert err < REL_L2, f"--no-fold --align {align} --block {block}: {err}"
    d.run("x.wav", "folded.wav", "--preset", "rumble", "--preset", "lowpass")
    r = d.run("x.wav", "series.wav", "--preset", "rumble", "--preset", "lowpass", "--no-fold",
              "-v")
    assert "stage 1:" in r.stderr and "stage 2:" in r.stderr, r.stderr
    assert rel_l2(read(d.p("series.wav"))[1], read(d.p("folded.wav"))[1]) < REL_L2


@test("convolve")
def ir_resampled_to_input_rate(d):
    # A low-pass IR at 24 kHz with DC gain 1; at 48 kHz it must keep DC gain 1.
    ir = signal.firwin(63, 0.3)
    d.wav("ir.wav", ir, rate=24000)
    d.wav("x.wav", np.full(20000, 0.5))
    r = d.run("x.wav", "y.wav", "--ir", "ir.wav", "--normalize", "none")
    one_line(r.stderr, "resampl", "24000", "48000")
    rate, y = read(d.p("y.wav"))
    assert rate == RATE
    mid = y[5000:15000]
    assert np.max(np.abs(mid - 0.5)) < 1e-3, f"DC after resampling: {mid.min()}..{mid.max()}"
    assert len(y) > 20000 + 100, "the resampled IR has about twice the taps"
    r = d.run("x.wav", "y.wav", "--ir", "ir.wav", "-q", "--normalize", "none")
    assert r.stderr == "", "-q silences the resampling note"


# ---- blocks: any block size gives the same output ------------------------------

@test("blocks")
def block_sizes_agree(d):
    x = d.noise(12345, 2)
    d.wav("x.wav", x)
    outs = {}
    for block in (None, "1", "997", "4096", "100000"):
        extra = ("--block", block) if block else ()
        d.run("x.wav", "y.wav", "--preset", "lowpass", *extra)
        outs[block] = read(d.p("y.wav"))[1]
    # with a GPU, auto may pick CUDA for large blocks and the CPU for small
    # ones: the same output to float rounding, so the same bound as for NumPy
    ref = outs[None]
    for block, y in outs.items():
        assert rel_l2(y, ref) < REL_L2, f"--block {block} differs from the default"
    d.wav("ir.wav", d.noise(5000, 1, 0.05))
    d.run("x.wav", "a.wav", "--ir", "ir.wav")
    d.run("x.wav", "b.wav", "--ir", "ir.wav", "--block", "997")
    assert rel_l2(read(d.p("b.wav"))[1], read(d.p("a.wav"))[1]) < REL_L2


@test("blocks")
def bounded_memory(d):
    # 23 MB of float samples; gfir streams them, so its peak memory stays at its
    # own few MB (about 5 here) instead of growing with the file. On the CPU:
    # a CUDA context alone maps more than this whatever the file.
    # GNU time's %M: the kernel's peak resident size of gfir from its exec to
    # its exit (wait4). Sampling /proc/PID/status from here instead missed
    # the whole run on a loaded machine (peak 0, CI's sanitizer pass); and
    # gfir must be time's child, not ours: a child forked from this Python
    # starts its count at Python's size.
    def peak(frames):
        d.wav("x.wav", d.noise(frames, 2))
        res = subprocess.run(["/usr/bin/time", "-f", "peak_kb %M", GFIR, "x.wav", "y.wav",
                              "--taps", "h.txt", "--backend", "cpu", "-q"],
                             cwd=d.path, capture_output=True, text=True)
        lines = [l for l in res.stderr.splitlines() if l.startswith("peak_kb ")]
        assert res.returncode == 0 and lines, (res.returncode, res.stderr)
        assert read(d.p("y.wav"))[1].shape == (frames, 2)
        return int(lines[-1].split()[1])
    d.text("h.txt", "0.5 0.25 0.125")
    # 10 s already fill every block of the pipeline; 60 s must need no more
    short, long = peak(48000 * 10), peak(48000 * 60)
    assert long < short + 1024, f"gfir peaked at {long} KB for 60 s, {short} KB for 10 s"
    # AddressSanitizer's shadow memory and quarantine (tools/ci/sanitize.sh)
    # add a fixed amount; what must not grow with the file is checked above
    if "ASAN_OPTIONS" not in os.environ:
        assert long < 16 * 1024, f"gfir peaked at {long} KB for a 23 MB file"


@test("blocks")
def kernels_agree(d):
    x = d.noise(6000, 2)
    d.wav("x.wav", x)
    d.run("x.wav", "gold.wav", "--preset", "telephone", "--kernel", "gold", "--backend", "cpu")
    d.run("x.wav", "direct.wav", "--preset", "telephone", "--kernel", "direct")
    assert rel_l2(read(d.p("direct.wav"))[1], read(d.p("gold.wav"))[1]) < REL_L2


# ---- presets: each preset's measured response against its spec ------------------

# (preset, passbands, stopbands, attenuation dB): each preset's specification,
# as presets/*.ini state it, band edges at cutoff -+ transition / 2.
NYQ = RATE / 2
PRESET_SPECS = [
    ("lowpass", [(0, 3800)], [(4200, NYQ)], 80),
    ("highpass", [(250, NYQ)], [(0, 150)], 80),
    ("bandpass", [(400, 3300)], [(0, 200), (3500, NYQ)], 80),
    ("bandstop", [(0, 1800), (4200, NYQ)], [(2200, 3800)], 80),
    ("telephone", [(350, 3200)], [(0, 250), (3600, NYQ)], 60),
    ("rumble", [(60, NYQ)], [(0, 20)], 60),
]


# kaiserord's length formula is Kaiser's empirical fit: a design lands within
# about 1.5 dB of the attenuation asked for (scipy's firwin gives the same).
ATTEN_SLACK_DB = 1.5


def check_bands(h, passbands, stopbands, atten_db, stages=1, rate=RATE, what=""):
    delta = 10 ** (-atten_db / 20)
    ripple_db = 20 * np.log10(1 + 2 * stages * delta)
    for lo, hi in passbands:
        db = response_db(h, np.linspace(lo, hi, 4000), rate)
        assert np.max(np.abs(db)) < ripple_db, \
            f"{what}: passband {lo}-{hi} Hz deviates {np.max(np.abs(db)):.5f} dB > {ripple_db:.5f}"
    for lo, hi in stopbands:
        db = response_db(h, np.linspace(lo, hi, 4000), rate)
        assert np.max(db) < -(atten_db - ATTEN_SLACK_DB), \
            f"{what}: stopband {lo}-{hi} Hz only {-np.max(db):.1f} dB down, wanted {atten_db}"


@test("presets")
def each_preset_meets_its_spec(d):
    for name, passbands, stopbands, atten in PRESET_SPECS:
        h = impulse_response(d, name)
        if name in ("highpass", "bandstop", "rumble"):
            assert len(h) % 2 == 1, f"{name}: gain at Nyquist needs odd length, got {len(h)}"
        check_bands(h, passbands, stopbands, atten, 2 if name == "telephone" else 1, what=name)


@test("presets")
def hall_is_its_impulse_response(d):
    # an impulse through the reverb preset gives back its IR, channel by
    # channel, tail included (--align full is the default with an IR)
    rate, ir = read(os.path.join(PRESET_DIR, "hall.wav"))
    x = np.zeros((1000, 2))
    x[0] = [1.0, 0.5]
    d.wav("imp.wav", x, rate)
    d.run("imp.wav", "wet.wav", "--preset", "hall", "--backend", "cpu", "--normalize", "none")
    _, y = read(d.p("wet.wav"))
    want = np.zeros((1000 + len(ir) - 1, 2))
    want[: len(ir)] = ir * [1.0, 0.5]
    assert rel_l2(y, want) < REL_L2, f"hall: rel L2 {rel_l2(y, want):.3g}"
    # stereo: the two channels' tails are different noise
    assert abs(np.corrcoef(ir[4800:, 0], ir[4800:, 1])[0, 1]) < 0.1


@test("presets")
def telephone_is_two_stages(d):
    r = d.run("--describe", "--preset", "telephone")
    assert "2 stages" in r.stdout and "telephone.highpass" in r.stdout \
        and "telephone.lowpass" in r.stdout, r.stdout


@test("presets")
def presets_chain_in_order(d):
    d.text("t.txt", "1 0.5")
    r = d.run("--describe", "--preset", "lowpass", "--taps", "t.txt", "-p", "rumble")
    lines = r.stdout.splitlines()
    assert "3 stages" in lines[0], r.stdout
    assert "1. lowpass" in lines[1] and "2. taps" in lines[2] and "3. rumble" in lines[3], \
        r.stdout
    h = impulse_response(d, "telephone", extra=("--preset", "lowpass"))
    check_bands(h, [(350, 3200)], [(0, 250), (3600, NYQ)], 60, 3, what="telephone+lowpass")


@test("presets")
def designed_at_the_input_rate(d):
    for rate in (44100, 48000, 96000):
        h = impulse_response(d, "lowpass", rate)
        gain = 10 ** (response_db(h, [4000], rate)[0] / 20)
        assert abs(gain - 0.5) < 0.01, f"at {rate} Hz the -6 dB point moved: gain {gain}"
        check_bands(h, [(0, 3800)], [(4200, rate / 2)], 80, rate=rate, what=f"lowpass@{rate}")


@test("presets")
def overrides(d):
    h = impulse_response(d, "lowpass:cutoff_hz=3000,attenuation_db=60")
    check_bands(h, [(0, 2800)], [(3200, NYQ)], 60, what="lowpass:cutoff_hz=3000")
    h = impulse_response(d, "telephone:lowpass.cutoff_hz=2000")
    check_bands(h, [(350, 1800)], [(0, 250), (2200, NYQ)], 60, 2, what="telephone override")
    h = impulse_response(d, "bandpass:low_hz=1000,high_hz=2000,transition_hz=100")
    check_bands(h, [(1050, 1950)], [(0, 950), (2050, NYQ)], 80, what="bandpass override")


@test("presets")
def search_path(d):
    os.makedirs(d.p("mine"))
    os.makedirs(d.p("cfg/gfir/presets"))
    os.makedirs(d.p(".config/gfir/presets"))
    lp = "[lowpass]\ntype = lowpass\ncutoff_hz = %d\ntransition_hz = 400\n"
    d.text("mine/lowpass.ini", lp % 1000)                  # shadows the shipped one
    d.text("mine/mylp.ini", lp % 2000)
    d.text("cfg/gfir/presets/xdg.ini", lp % 5000)
    d.text(".config/gfir/presets/home.ini", lp % 6000)
    d.text("direct.ini", lp % 7000)
    env = {"GFIR_PRESET_PATH": d.p("nowhere") + ":" + d.p("mine")}
    d.wav("impulse.wav", np.ones(1))

    def cutoff_gain(preset, freq, env):
        d.run("impulse.wav", "o.wav", "--preset", preset, "--align", "full", env=env)
        return 10 ** (response_db(read(d.p("o.wav"))[1], [freq])[0] / 20)

    assert abs(cutoff_gain("lowpass", 1000, env) - 0.5) < 0.01, "GFIR_PRESET_PATH first"
    assert abs(cutoff_gain("mylp", 2000, env) - 0.5) < 0.01
    assert abs(cutoff_gain("lowpass", 4000, {}) - 0.5) < 0.01, "the shipped preset otherwise"
    assert abs(cutoff_gain("xdg", 5000, {"XDG_CONFIG_HOME": d.p("cfg")}) - 0.5) < 0.01
    assert abs(cutoff_gain("home", 6000, {}) - 0.5) < 0.01, "~/.config/gfir/presets"
    assert abs(cutoff_gain("direct.ini", 7000, {}) - 0.5) < 0.01, "a path to an .ini"
    assert abs(cutoff_gain(d.p("direct.ini") + ":cutoff_hz=3000", 3000, {}) - 0.5) < 0.01
    r = d.run("--list-presets", env=env)
    assert "mylp" in r.stdout and r.stdout.count("lowpass ") == 1, r.stdout


@test("presets")
def preset_taps_and_ir_stages(d):
    d.text("t.txt", "0.5 0.5")
    d.wav("ir.wav", [1.0, 0.0, -0.25])
    d.text("chain.ini", "[avg]\ntype = taps\nfile = t.txt\n\n[echo]\ntype = ir\nfile = ir.wav\n")
    d.wav("impulse.wav", np.ones(1))
    d.run("impulse.wav", "o.wav", "--preset", "chain.ini", "--align", "full", "--normalize",
          "none")
    want = np.convolve([0.5, 0.5], [1.0, 0.0, -0.25])
    assert np.allclose(read(d.p("o.wav"))[1], want, atol=1e-7)


# ---- options --------------------------------------------------------------------

@test("options")
def help_version_list(d):
    r = d.run("--help")
    assert r.stdout.startswith("usage: gfir [options] INPUT OUTPUT"), r.stdout[:80]
    for opt in ("--preset", "--taps", "--ir", "--align", "--gain", "--normalize", "--backend",
                "--kernel", "--block", "--no-fold", "--format", "--list-presets", "--describe",
                "--response", "--quiet", "--verbose", "--version", "--help", "--no-dither",
                "--rate", "--play", "--monitor", "--list-devices", "Examples", "Exit status"):
        assert opt in r.stdout, f"--help does not mention {opt}"
    assert max(len(l) for l in r.stdout.splitlines()) <= 80, "--help fits 80 columns"
    assert d.run("-h").stdout == r.stdout
    assert d.run("--version").stdout.strip().startswith("gfir 0.")
    r = d.run("--list-presets")
    for name, *_ in PRESET_SPECS:
        assert name in r.stdout, f"--list-presets lacks {name}"


@test("options")
def describe_and_response(d):
    r = d.run("--describe", "--preset", "lowpass")
    for needle in ("at 48000 Hz", "1 stage", "taps", "latency", "delay", "passband",
                   "ripple", "stopband", "attenuation"):
        assert needle in r.stdout, f"--describe lacks '{needle}':\n{r.stdout}"
    atten = float(r.stdout.split("attenuation ")[1].split()[0])
    assert 79 < atten < 100, r.stdout
    ripple = float(r.stdout.split("ripple ")[1].split()[0])
    assert ripple < 0.01, r.stdout
    r44 = d.run("--describe", "--preset", "lowpass", "--rate", "44100")
    assert "at 44100 Hz" in r44.stdout
    d.wav("x.wav", d.noise(100), rate=22050)
    assert "at 22050 Hz" in d.run("--describe", "--preset", "lowpass", "x.wav").stdout
    d.run("--response", "lp.svg", "--preset", "telephone")
    import xml.etree.ElementTree as ET
    root = ET.parse(d.p("lp.svg")).getroot()
    ns = "{http://www.w3.org/2000/svg}"
    assert root.tag == ns + "svg"
    lines = root.findall(f"{ns}polyline")
    assert len(lines) == 1 and len(lines[0].get("points").split()) > 100
    texts = [t.text for t in root.iter(f"{ns}text")]
    assert "300 Hz" in texts and "3400 Hz" in texts, f"band edges not marked: {texts}"
    dashed = [l for l in root.iter(f"{ns}line") if l.get("stroke-dasharray")]
    assert len(dashed) == 2


def plan_lines(text, prefix):
    """The "backend B, kernel K, latency N frames" parts of lines with prefix."""
    import re
    return [m.group(1) for m in
            re.finditer(prefix + r".*?(backend \w+, kernel \w+, latency \d+ frames)", text)]


@test("options")
def describe_and_verbose_agree(d):
    """--describe INPUT names the plans `gfir INPUT OUTPUT -v` then runs, for
    short and long filters, folded and not, any backend the build has."""
    d.wav("x.wav", d.noise(20000, 2))
    for ntaps in (15, 200, 4097):
        d.text("h.txt", " ".join(f"{v:.6f}" for v in d.noise(ntaps, scale=0.1)))
        for extra in ([], ["--block", "512"], ["--kernel", "direct"]):
            args = ["--taps", "h.txt", *extra]
            described = plan_lines(d.run("--describe", "x.wav", *args).stdout, "engine")
            ran = plan_lines(d.run("x.wav", "y.wav", "-v", *args).stderr, "gfir: ")
            assert described and described == ran, (ntaps, extra, described, ran)
    args = ["--preset", "telephone", "--no-fold"]
    described = plan_lines(d.run("--describe", "x.wav", *args).stdout, "engine")
    ran = plan_lines(d.run("x.wav", "y.wav", "-v", *args).stderr, "gfir: ")
    assert len(described) == 2 and described == ran, (described, ran)


@test("options")
def gain_and_normalize(d):
    x = d.noise(3000)
    d.wav("x.wav", x)
    x = read(d.p("x.wav"))[1]
    d.text("h.txt", "3")
    d.run("x.wav", "y.wav", "--taps", "h.txt", "--gain", "-6")
    assert rel_l2(read(d.p("y.wav"))[1], 3 * 10 ** (-6 / 20) * x) < REL_L2
    d.run("x.wav", "y.wav", "--taps", "h.txt", "--normalize", "peak")
    assert rel_l2(read(d.p("y.wav"))[1], x) < REL_L2
    d.run("x.wav", "y.wav", "--taps", "h.txt", "--normalize", "peak", "-g", "-3")
    assert rel_l2(read(d.p("y.wav"))[1], 10 ** (-3 / 20) * x) < REL_L2
    d.run("x.wav", "y.wav", "--taps", "h.txt", "--normalize", "none")
    assert rel_l2(read(d.p("y.wav"))[1], 3 * x) < REL_L2
    # peak of a two-tap comb [1, 1] is 2 at DC
    d.text("comb.txt", "1 1")
    d.run("x.wav", "y.wav", "--taps", "comb.txt", "--normalize", "peak", "--align", "causal")
    assert rel_l2(read(d.p("y.wav"))[1], conv(x, [0.5, 0.5], "causal")) < REL_L2


@test("options")
def backend_kernel_block_verbose_quiet(d):
    d.wav("x.wav", d.noise(48000, 2))
    r = d.run("x.wav", "y.wav", "--preset", "lowpass", "-v", "--backend", "cpu",
              "--kernel", "direct", "--block", "1000")
    for needle in ("backend cpu", "kernel direct", "1000 frames", "realtime"):
        assert needle in r.stderr, f"-v lacks '{needle}': {r.stderr}"
    r = d.run("x.wav", "y.wav", "--preset", "lowpass")
    assert r.stderr == "" and r.stdout == "", "quiet by default when nothing goes wrong"
    assert "\r" not in r.stderr, "no progress bar when stderr is not a terminal"
    r = d.run("x.wav", "y.wav", "--preset", "lowpass", "-q", "-v")
    assert "backend" in r.stderr


@test("options")
def progress_bar_on_a_terminal(d):
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
    from terminal import run_on_terminal
    # a job of more than a second: the gold kernel over 20 s of stereo (4.2 G
    # multiply-adds in double), on one core, since the worker threads would
    # finish it within a second on a machine with many
    d.wav("x.wav", d.noise(48000 * 20, 2))
    rc, text = run_on_terminal([GFIR, "x.wav", "y.wav", "--preset", "telephone", "--backend",
                                "cpu", "--kernel", "gold"], d.path)
    assert rc == 0, text
    assert "%" in text and "realtime" in text and "left" in text, f"no progress bar: {text!r}"


@test("options")
def live_options_parse(d):
    d.wav("x.wav", d.noise(100))
    r = d.run("--play", "--preset", "lowpass", expect=2)
    one_line(r.stderr.splitlines()[0], "--play")
    r = d.run("--monitor", "x.wav", "--preset", "lowpass", expect=2)
    assert "--monitor" in r.stderr


# ---- formats --------------------------------------------------------------------

def wav_info(path):
    with wave.open(path, "rb") as w:
        return w.getnchannels(), w.getsampwidth(), w.getframerate(), w.getnframes()


@test("formats")
def shape_preserved_and_default_format(d):
    x = d.noise(4321, 3) * 0.5
    d.pcm16("x16.wav", x, rate=44100)
    d.run("x16.wav", "y.wav", "--preset", "lowpass")
    assert wav_info(d.p("y.wav")) == (3, 2, 44100, 4321), "pcm16 in, pcm16 out, shape kept"
    d.wav("xf.wav", x, rate=32000)
    d.run("xf.wav", "y.wav", "--preset", "lowpass")
    rate, y = wavfile.read(d.p("y.wav"))
    assert rate == 32000 and y.dtype == np.float32 and y.shape == (4321, 3)


@test("formats")
def float_outputs_byte_for_byte(d):
    """Two runs a second apart write the same bytes: corpora are checked by
    hash, and libsndfile's PEAK chunk carried the time of writing."""
    d.wav("x.wav", d.noise(3001, 2) * 0.5)
    d.run("x.wav", "a.wav", "--preset", "lowpass")
    time.sleep(1.1)
    d.run("x.wav", "b.wav", "--preset", "lowpass")
    with open(d.p("a.wav"), "rb") as a, open(d.p("b.wav"), "rb") as b:
        assert a.read() == b.read(), "two runs of one float output differ"


@test("formats")
def explicit_formats(d):
    x = d.noise(5000, 2) * 0.5
    d.wav("x.wav", x)
    d.text("one.txt", "1")
    d.run("x.wav", "a.wav", "--taps", "one.txt", "--format", "wav:pcm24")
    assert wav_info(d.p("a.wav"))[1] == 3
    d.run("x.wav", "a.out", "--taps", "one.txt", "--format", "wav:pcm16")
    assert wav_info(d.p("a.out"))[1] == 2
    d.run("x.wav", "a.flac", "--taps", "one.txt", "--format", "flac:pcm24")
    with open(d.p("a.flac"), "rb") as f:
        assert f.read(4) == b"fLaC"
    d.run("a.flac", "back.wav", "--taps", "one.txt", "--format", "wav:float")
    assert np.max(np.abs(read(d.p("back.wav"))[1] - read(d.p("x.wav"))[1])) < 2 ** -22
    d.run("x.wav", "a.aiff", "--taps", "one.txt")
    with open(d.p("a.aiff"), "rb") as f:
        assert f.read(4) == b"FORM"
    r = d.run("x.wav", "b.flac", "--taps", "one.txt")          # float does not fit FLAC
    one_line(r.stderr, "note", "pcm24")
    with open(d.p("b.flac"), "rb") as f:
        assert f.read(4) == b"fLaC"


@test("formats")
def dither_and_no_dither(d):
    d.pcm16("silence.wav", np.zeros(20000))
    d.text("one.txt", "1")
    d.run("silence.wav", "dithered.wav", "--taps", "one.txt")
    d.run("silence.wav", "plain.wav", "--taps", "one.txt", "--no-dither")
    dithered = wavfile.read(d.p("dithered.wav"))[1].astype(int)
    plain = wavfile.read(d.p("plain.wav"))[1]
    assert np.all(plain == 0), "--no-dither: silence stays silent"
    assert np.all(np.abs(dithered) <= 1), "TPDF dither is within +-1 LSB"
    frac = np.mean(dithered != 0)
    assert 0.05 < frac < 0.5 and abs(np.mean(dithered)) < 0.05, f"dither: {frac} nonzero"
    d.wav("f.wav", np.zeros(1000))
    d.run("f.wav", "f_out.wav", "--taps", "one.txt")
    assert np.all(wavfile.read(d.p("f_out.wav"))[1] == 0), "float output is never dithered"


@test("formats")
def clipping_is_counted(d):
    x = np.sin(np.arange(48000) * 2 * np.pi * 440 / RATE) * 0.9
    d.pcm16("x.wav", x)
    d.text("one.txt", "1")
    r = d.run("x.wav", "y.wav", "--taps", "one.txt", "--gain", "6")
    line = one_line(r.stderr, "clipped", "try --gain 0")   # peak 0.9: 0 dB would do
    count = int(line.split("gfir: ")[1].split()[0])
    want = int(np.sum(np.abs(np.round(x * 32767) / 32768 * 10 ** (6 / 20)) > 1))
    assert abs(count - want) <= want // 100 + 2, f"{count} clipped, expected about {want}"
    y = wavfile.read(d.p("y.wav"))[1].astype(int)
    assert y.max() == 32767 and y.min() == -32768, "clipped, not wrapped"
    r = d.run("x.wav", "y.wav", "--taps", "one.txt", "--gain", "6", "--format", "wav:float")
    assert r.stderr == "", "float output does not clip"
    d.text("four.txt", "4")                             # +12 dB: 11.1 dB over
    r = d.run("x.wav", "y.wav", "--taps", "four.txt", "-q")
    one_line(r.stderr, "clipped", "try --gain -12")
    r = d.run("x.wav", "y.wav", "--taps", "one.txt", "--gain", "-3")
    assert r.stderr == ""


@test("formats")
def clipping_is_counted_at_8_bits(d):
    # 8-bit's grid stops at 127/128: samples above 127.5/128 are held there,
    # further than rounding would move them, and count as clipped though
    # they are below 1 (they used to go unsaid)
    x = (np.sin(np.arange(4800) * 2 * np.pi * 100 / RATE) * 0.999).astype(np.float32)
    d.wav("x.wav", x)
    d.text("one.txt", "1")
    r = d.run("x.wav", "y.wav", "--taps", "one.txt", "--format", "wav:pcm8", "--no-dither",
              "--backend", "cpu", "--kernel", "direct")
    want = int(np.sum(x > np.float32(127.5 / 128)) + np.sum(x < np.float32(-128.5 / 128)))
    assert want > 0
    line = one_line(r.stderr, "clipped")
    assert int(line.split("gfir: ")[1].split()[0]) == want, f"{line}: expected {want}"
    y = wavfile.read(d.p("y.wav"))[1].astype(int)
    assert y.max() == 255 and y.min() == 0, "8-bit WAV: unsigned, clipped, not wrapped"
    # below the threshold rounding alone reaches the top step: nothing clipped
    d.wav("z.wav", np.clip(x, -0.996, 0.996))
    r = d.run("z.wav", "y.wav", "--taps", "one.txt", "--format", "wav:pcm8", "--no-dither")
    assert r.stderr == "", r.stderr


# ---- errors: one line, the right exit code, nothing lost --------------------------

def leftovers(d):
    return [f for f in os.listdir(d.path) if ".gfir-" in f]


def fails(d, args, code, *needles, output="out.wav"):
    """Runs a failing command; checks the exit code, the one-line message, that
    no OUTPUT appeared and no temporary file was left behind."""
    existed = os.path.exists(d.p(output))
    r = d.run(*args, expect=code)
    lines = [l for l in r.stderr.splitlines() if l.strip()]
    first = lines[0] if lines else ""
    assert first.startswith("gfir: "), f"{args}: {r.stderr!r}"
    if code == 2:
        assert len(lines) == 2 and lines[1].startswith("usage: gfir"), r.stderr
    else:
        assert len(lines) == 1, f"{args}: wanted one line, got {lines}"
    for n in needles:
        assert n in first, f"{args}: '{n}' not in: {first}"
    assert existed or not os.path.exists(d.p(output)), f"{args}: left a partial {output}"
    assert not leftovers(d), f"{args}: left temporary files {leftovers(d)}"
    assert r.stdout == ""
    return first


@test("errors")
def bad_inputs(d):
    d.wav("x.wav", d.noise(1000, 2))
    with open(d.p("random.wav"), "wb") as f:
        f.write(d.rng.bytes(4096))
    open(d.p("empty.wav"), "w").close()
    d.wav("noframes.wav", np.zeros((0, 2)))
    fails(d, ["missing.wav", "out.wav", "--preset", "lowpass"], 1, "missing.wav", "No such file")
    fails(d, ["random.wav", "out.wav", "--preset", "lowpass"], 1, "random.wav")
    fails(d, ["empty.wav", "out.wav", "--preset", "lowpass"], 1, "empty.wav", "empty")
    fails(d, ["noframes.wav", "out.wav", "--preset", "lowpass"], 1, "noframes.wav", "no audio")


@test("errors")
def bad_taps_files(d):
    d.wav("x.wav", d.noise(1000))
    d.text("word.txt", "0.1 0.2\n0.3 zero 0.4\n")
    d.text("nan.txt", "0.1\n0.2, nan\n")
    d.text("inf.txt", "0.1 1e999\n")
    d.text("nothing.txt", "# only a comment\n\n")
    d.text("empty.txt", "")
    fails(d, ["x.wav", "out.wav", "--taps", "word.txt"], 1, "word.txt", "line 2", "'zero'")
    fails(d, ["x.wav", "out.wav", "--taps", "nan.txt"], 1, "nan.txt", "line 2", "nan")
    fails(d, ["x.wav", "out.wav", "--taps", "inf.txt"], 1, "inf.txt", "line 1")
    fails(d, ["x.wav", "out.wav", "--taps", "nothing.txt"], 1, "nothing.txt", "no coeff")
    fails(d, ["x.wav", "out.wav", "--taps", "empty.txt"], 1, "empty.txt", "no coeff")
    fails(d, ["x.wav", "out.wav", "--taps", "absent.txt"], 1, "absent.txt")


@test("errors")
def bad_presets(d):
    d.wav("x.wav", d.noise(1000), rate=16000)
    fails(d, ["x.wav", "out.wav", "--preset", "nosuch"], 1, "unknown preset 'nosuch'")
    fails(d, ["x.wav", "out.wav", "--preset", "lowpass:cutoff_hz=9000"], 1, "lowpass",
          "cutoff_hz = 9000", "Nyquist")
    fails(d, ["x.wav", "out.wav", "--preset", "bandpass:high_hz=8000"], 1, "bandpass",
          "high_hz = 8000", "Nyquist")
    # the shipped lowpass is fine at 16 kHz; at 8 kHz its 4 kHz cutoff is Nyquist
    d.wav("x8.wav", d.noise(1000), rate=8000)
    fails(d, ["x8.wav", "out.wav", "--preset", "lowpass"], 1, "lowpass", "4000", "Nyquist")
    fails(d, ["x.wav", "out.wav", "--preset", "lowpass:colour=red"], 1, "colour")
    fails(d, ["x.wav", "out.wav", "--preset", "lowpass:cutoff_hz=abc"], 1, "cutoff_hz = abc")
    fails(d, ["x.wav", "out.wav", "--preset", "lowpass:cutoff_hz"], 1, "key=value")
    d.text("broken.ini", "[a]\ntype = lowpass\ncutoff_hz = 100\nthis line is wrong\n")
    fails(d, ["x.wav", "out.wav", "--preset", "broken.ini"], 1, "broken.ini", "line 4")
    d.text("typeless.ini", "[a]\ncutoff_hz = 100\ntransition_hz = 10\n")
    fails(d, ["x.wav", "out.wav", "--preset", "typeless.ini"], 1, "typeless.ini", "type")


@test("errors")
def bad_irs(d):
    d.wav("x.wav", d.noise(1000, 2))
    d.wav("ir3.wav", d.noise(50, 3))
    fails(d, ["x.wav", "out.wav", "--ir", "ir3.wav"], 1, "ir3.wav", "3 channels", "2")
    with open(d.p("notsound.wav"), "wb") as f:
        f.write(b"RIFF....WAVEjunk")
    fails(d, ["x.wav", "out.wav", "--ir", "notsound.wav"], 1, "notsound.wav")


@test("errors")
def output_problems(d):
    x = d.wav("x.wav", d.noise(1000))
    before = open(x, "rb").read()
    fails(d, ["x.wav", "x.wav", "--preset", "lowpass"], 1, "same file", output="x.wav")
    fails(d, ["x.wav", "./x.wav", "--preset", "lowpass"], 1, "same file", output="x.wav")
    os.symlink("x.wav", d.p("link.wav"))
    fails(d, ["x.wav", "link.wav", "--preset", "lowpass"], 1, "same file", output="link.wav")
    os.link(d.p("x.wav"), d.p("hard.wav"))
    fails(d, ["x.wav", "hard.wav", "--preset", "lowpass"], 1, "same file", output="hard.wav")
    os.makedirs(d.p("sub"))
    fails(d, ["x.wav", "sub/../x.wav", "--preset", "lowpass"], 1, "same file", output="x.wav")
    assert open(x, "rb").read() == before, "INPUT changed"
    fails(d, ["x.wav", "nodir/out.wav", "--preset", "lowpass"], 1, "nodir", "No such",
          output="nodir/out.wav")
    fails(d, ["x.wav", "sub", "--preset", "lowpass"], 1, "directory", output="sub")
    fails(d, ["x.wav", "out.xyz", "--preset", "lowpass"], 1, "xyz", output="out.xyz")
    fails(d, ["x.wav", "noext", "--preset", "lowpass"], 1, "--format", output="noext")


@test("errors")
def existing_output_untouched(d):
    d.wav("x.wav", d.noise(1000, 2))
    d.wav("ir3.wav", d.noise(50, 3))
    with open(d.p("out.wav"), "wb") as f:
        f.write(b"precious")
    os.utime(d.p("out.wav"), (1000000000, 1000000000))
    for args in (["--ir", "ir3.wav"], ["--preset", "nosuch"], ["--preset", "lowpass:cutoff_hz=1e6"],
                 ["--preset", "lowpass", "--format", "wav:pcm7"]):
        d.run("x.wav", "out.wav", *args, expect=None)
        st = os.stat(d.p("out.wav"))
        assert open(d.p("out.wav"), "rb").read() == b"precious" and st.st_mtime == 1000000000, \
            f"{args}: OUTPUT was touched"
        assert not leftovers(d)
    # a run killed halfway leaves no temporary file and OUTPUT as it was
    d.wav("long.wav", d.noise(48000 * 30, 2))
    p = subprocess.Popen([GFIR, "long.wav", "out.wav", "--preset", "rumble", "--backend", "cpu",
                          "--kernel", "gold"],
                         cwd=d.path, stderr=subprocess.DEVNULL)
    import time
    for _ in range(100):
        if leftovers(d):
            break
        time.sleep(0.02)
    assert leftovers(d), "the temporary file is beside OUTPUT"
    p.terminate()
    p.wait()
    assert open(d.p("out.wav"), "rb").read() == b"precious"
    assert not leftovers(d), f"temporary file left after SIGTERM: {leftovers(d)}"
    # and a successful run replaces it
    d.run("x.wav", "out.wav", "--preset", "lowpass")
    assert read(d.p("out.wav"))[1].shape == (1000, 2)


@test("errors")
def usage_errors(d):
    d.wav("x.wav", d.noise(100))
    fails(d, ["x.wav", "out.wav", "--preset", "lowpass", "--bogus"], 2, "--bogus")
    fails(d, ["x.wav", "out.wav", "-Z", "--preset", "lowpass"], 2, "-Z")
    fails(d, ["x.wav", "out.wav", "--preset"], 2, "--preset", "value")
    fails(d, ["x.wav", "--preset", "lowpass"], 2, "OUTPUT")
    fails(d, ["--preset", "lowpass"], 2, "INPUT")
    fails(d, ["x.wav", "out.wav", "more.wav", "--preset", "lowpass"], 2, "more.wav")
    fails(d, ["x.wav", "out.wav"], 2, "no filter")
    fails(d, ["x.wav", "out.wav", "--preset", "lowpass", "--align", "middle"], 2, "middle")
    fails(d, ["x.wav", "out.wav", "--preset", "lowpass", "--normalize", "rms"], 2, "rms")
    fails(d, ["x.wav", "out.wav", "--preset", "lowpass", "--gain", "loud"], 2, "loud")
    fails(d, ["x.wav", "out.wav", "--preset", "lowpass", "--block", "0"], 2, "--block")
    fails(d, ["x.wav", "out.wav", "--preset", "lowpass", "--block", "-5"], 2, "--block")
    fails(d, ["x.wav", "out.wav", "--preset", "lowpass", "--backend", "tpu"], 2, "tpu")
    fails(d, ["x.wav", "out.wav", "--preset", "lowpass", "--kernel", "magic"], 2, "magic")
    fails(d, ["x.wav", "out.wav", "--preset", "lowpass", "--format", "wav:pcm7"], 1, "pcm7")


def main():
    if len(sys.argv) != 3 or sys.argv[2] not in TESTS:
        print(f"usage: test_cli.py GFIR GROUP   (groups: {', '.join(TESTS)})")
        return 2
    failed = 0
    for fn in TESTS[sys.argv[2]]:
        tmp = tempfile.mkdtemp(prefix="gfir-cli-test-")
        try:
            fn(Dir(tmp))
            print(f"ok    {fn.__name__}")
        except Exception as e:  # one test's failure must not hide the others'
            failed += 1
            print(f"FAIL  {fn.__name__}: {type(e).__name__}: {e}")
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
