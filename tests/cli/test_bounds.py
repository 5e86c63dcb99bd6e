#!/usr/bin/python3
"""Work bounded by what the user asked for (issue 25): the ceiling on a
filter's size (--max-taps, taps x paths) checked before anything is made,
in every mode, and an IR's trailing digital silence dropped as it is read.

    test_bounds.py GFIR GROUP   runs one group: ceiling, silence

Helpers come from test_cli.py and test_safety.py. Exit 77 (skipped)
without NumPy and SciPy.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_cli  # noqa: E402  (sets GFIR from argv, exits 77 without NumPy)
from test_cli import REL_L2, conv, fails, one_line, read, rel_l2, test  # noqa: E402
from test_safety import MB, run_measured  # noqa: E402
import sndfile  # noqa: E402

np = test_cli.np

# The four-line preset: 64,208,051 taps, 2.0 GB and 127 s before.
HUGE = "[huge]\ntype = lowpass\ncutoff_hz = 4000\ntransition_hz = 0.01\nattenuation_db = 200\n"
DEFAULT_CEILING = "33554432"


@test("ceiling")
def huge_design_refused_in_every_mode(d):
    d.text("huge.ini", HUGE)
    d.wav("x.wav", d.noise(2 * 48000, 2))
    for args in (["x.wav", "out.wav"], ["--describe"], ["x.wav", "--describe"],
                 ["--response", "r.svg"]):
        rc, out, err, rss = run_measured(d, args + ["--preset", "huge.ini"], timeout=30)
        assert rc == 1, f"{args}: exit {rc}: {err}"
        one_line(err, "64208051 taps", "GB of memory", f"ceiling is {DEFAULT_CEILING} taps",
                 "--max-taps")
        assert rss < 64 * MB, f"{args}: {rss} KB"
        assert not os.path.exists(d.p("out.wav")) and not os.path.exists(d.p("r.svg"))


@test("ceiling")
def design_of_trillions_names_its_count(d):
    d.text("huge.ini", HUGE)
    # kaiserord's length for 1e-8 Hz at 48 kHz, 80 dB: 24,088,466,310,243 taps
    line = fails(d, ["--describe", "--preset", "lowpass:transition_hz=1e-8"], 1,
                 "24088466310243 taps", f"ceiling is {DEFAULT_CEILING}")
    assert "bad taps" not in line
    # raised past the library's own limit of a tap set, that limit is named
    fails(d, ["--describe", "--preset", "huge.ini:transition_hz=0.005", "--max-taps",
              "1073741824"], 1, "128416100 taps", "more than the 67108864")


@test("ceiling")
def ceiling_counts_channels_and_can_be_raised(d):
    # n taps: under a ceiling of 2n - 1 on one channel, over it on two
    x = d.noise(3000, 2)
    d.wav("x.wav", x)
    h = d.run("--describe", "--preset", "lowpass:transition_hz=40").stdout
    n = int(re.search(r"(\d+) taps", h).group(1))
    assert n > 6000, h
    args = ["x.wav", "out.wav", "--preset", "lowpass:transition_hz=40", "--max-taps"]
    fails(d, args + [str(2 * n - 1)], 1, f"{n} taps x 2 channels = {2 * n} taps",
          f"ceiling is {2 * n - 1}")
    d.run(*args + [str(2 * n)])
    fails(d, ["x.wav", "out.wav", "--preset", "lowpass", "--max-taps", "0"], 2, "--max-taps")


@test("ceiling")
def taps_file_and_ir_within_the_ceiling(d):
    x = d.noise(500)
    d.wav("x.wav", x)
    taps = d.noise(101)
    d.text("t.txt", " ".join(repr(float(v)) for v in taps))
    fails(d, ["x.wav", "out.wav", "--taps", "t.txt", "--max-taps", "100"], 1, "t.txt",
          "ceiling is 100 taps")
    d.run("x.wav", "y.wav", "--taps", "t.txt", "--max-taps", "101", "--align", "causal")
    assert rel_l2(read(d.p("y.wav"))[1], conv(read(d.p("x.wav"))[1], taps, "causal")) < REL_L2
    # a stereo IR of 5000 frames is 10000 taps on a mono signal (two outputs)
    d.wav("ir.wav", d.noise(5000, 2, 0.1))
    fails(d, ["x.wav", "out.wav", "--ir", "ir.wav", "--max-taps", "9999"], 1, "ir.wav",
          "x 2 ", "9999")
    d.run("x.wav", "y.wav", "--ir", "ir.wav", "--max-taps", "10000")
    # one file per output: each within the ceiling, together not
    for name in ("a", "b", "c"):
        d.wav(f"{name}.wav", d.noise(5000, 1, 0.1))
    fails(d, ["x.wav", "out.wav", "--ir", "a.wav,b.wav,c.wav", "--max-taps", "14999"], 1,
          "the IR files read so far: 15000 taps", "14999")
    d.run("x.wav", "y.wav", "--ir", "a.wav,b.wav,c.wav", "--max-taps", "15000")


@test("ceiling")
def batch_rows_within_the_ceiling(d):
    d.text("huge.ini", HUGE)
    d.wav("x.wav", d.noise(1000))
    d.text("jobs.tsv", "input\toutput\tpreset\nx.wav\ty.wav\thuge.ini\nx.wav\tz.wav\tlowpass\n")
    rc, _, err, rss = run_measured(d, ["batch", "--manifest", "jobs.tsv", "-q"], timeout=60)
    assert rc == 1, err
    assert "64208051 taps" in err and "--max-taps" in err, err
    assert rss < 64 * MB, f"{rss} KB"
    assert os.path.exists(d.p("z.wav")) and not os.path.exists(d.p("y.wav"))
    r = d.run("batch", "--manifest", "jobs.tsv", "--max-taps", "100", expect=1)
    assert "ceiling is 100 taps" in r.stderr, r.stderr


# ---- silence ------------------------------------------------------------------

@test("silence")
def trailing_silence_of_an_ir_dropped(d):
    # the IR, scaled down: 8 channels, 1013 frames of sound, then
    # 2^21 frames of digital silence (FLAC: a small file); it took memory and
    # time for every frame
    ir = np.zeros((1013 + (1 << 21), 8))
    ir[:1013] = d.noise(1013, 8, 0.1)
    ir[1012, 3] = 0.5  # the last frame of sound has one channel that is not zero
    ir[1012, [0, 1, 2, 4, 5, 6, 7]] = 0
    sndfile.write(d.p("ir.flac"), ir, 48000, "flac", "pcm24")
    assert os.path.getsize(d.p("ir.flac")) < 1 * MB * 1024
    h = ir[:1013]  # 24-bit: within 1e-6 of it, relative
    x = d.noise(48000, 8)
    d.wav("x.wav", x)
    x = read(d.p("x.wav"))[1]
    rc, _, err, rss = run_measured(d, ["x.wav", "y.wav", "--ir", "ir.flac", "--normalize",
                                       "none", "-v", "--backend", "cpu", "--align", "causal"],
                                   timeout=60, env={"GFIR_FFTW_PLANNER": "estimate"})
    assert rc == 0, err
    assert f"dropped {1 << 21} frames of trailing digital silence, kept 1013" in err, err
    assert rel_l2(read(d.p("y.wav"))[1], conv(x, h, "causal")) < REL_L2
    assert rss < 64 * MB, f"{rss} KB"
    r = d.run("x.wav", "y.wav", "--ir", "ir.flac", "--normalize", "none", "--align", "causal")
    assert "silence" not in r.stderr, r.stderr
    # the alignment still counts the silence: --align full keeps the file's
    # whole tail (zeros), --align same its delay, exactly numpy's convolve
    # with the IR as the file holds it
    small = np.zeros((3501, 2))
    small[:499] = d.noise(499, 2, 0.1)
    small[498] = [0.0, 0.3]
    sndfile.write(d.p("small.wav"), small, 48000, "wav", "float")
    x2 = d.noise(5001, 2)
    d.wav("x2.wav", x2)
    x2 = read(d.p("x2.wav"))[1]
    for align in ("full", "same", "causal"):
        d.run("x2.wav", "y.wav", "--ir", "small.wav", "--normalize", "none", "--align", align)
        y = read(d.p("y.wav"))[1]
        assert rel_l2(y, conv(x2, small.astype(np.float32), align)) < REL_L2, align
    # an IR of nothing but silence is one frame of it: a silent filter
    sndfile.write(d.p("zero.wav"), np.zeros(5000), 48000, "wav", "float")
    r = d.run("x.wav", "y.wav", "--ir", "zero.wav", "--normalize", "none", "-v")
    assert "dropped 4999 frames" in r.stderr, r.stderr
    assert not np.any(read(d.p("y.wav"))[1])


if __name__ == "__main__":
    sys.exit(test_cli.main())
