#!/usr/bin/python3
"""A codec's quality as the last part of --format, the sox and ffmpeg way:
mp3:320k, mp3:v0, opus:96k, vorbis:q6, flac:8; and a value the codec cannot
take refused as wrong usage (exit 2) with the range it takes.

    test_quality.py GFIR quality

Each setting is measured on the file written, never read back from gfir:
a constant MP3 bitrate and an Opus target from the file's size over its
duration (an MP3 at 320k must be within 2% of 320 kbit/s: headers, the Xing
frame and ID3 tags are a few hundred bytes in 10 s; Opus within 10%, since
its encoder aims at the target over the stream rather than frame by frame);
LAME -V and Vorbis -q levels by the order of their sizes on the same music
(a better level is a bigger file, by at least 10% between the levels used);
FLAC levels by size on a signal whose prediction rewards effort, the samples
decoded by libsndfile identical to those of level 0. A setting that did
nothing gives equal sizes and fails.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_cli as cli  # noqa: E402  (the harness: exits 77 without NumPy)
import sndfile  # noqa: E402
from test_cli import np, one_line, test  # noqa: E402
from test_codecs import tonal  # noqa: E402

SECONDS = 10.0


def kbps(d, name, seconds=SECONDS):
    return os.path.getsize(d.p(name)) * 8 / seconds / 1000


def music(d):
    """10 s of stereo tones and sweeps with noise beside them (so a codec's
    bitrate depends on the quality asked for), as float WAV."""
    x = tonal(SECONDS) + 0.02 * d.noise(int(SECONDS * 48000), 2)
    sndfile.write(d.p("x.wav"), x, 48000, "wav", "float")
    d.text("one.txt", "1")


def bitrates(d, codec, rates, said, tolerance):
    """Each kbit/s of rates asked of codec (mp3, opus): -v says `said`, and the
    file's size over its duration is the rate, within tolerance."""
    music(d)
    for rate in rates:
        out = "y." + codec
        r = d.run("x.wav", out, "--taps", "one.txt", "--format", f"{codec}:{rate}k", "-v")
        assert said.format(rate) in r.stderr, r.stderr
        got = kbps(d, out)
        assert abs(got - rate) < tolerance * rate, f"{codec}:{rate}k wrote {got:.1f} kbit/s"


@test("quality")
def mp3_constant_bitrate(d):
    bitrates(d, "mp3", (320, 128, 64), "output MP3, constant bitrate {} kbit/s", 0.02)


@test("quality")
def mp3_variable_bitrate(d):
    music(d)
    sizes = {}
    for level in (0, 2, 6, 9):
        r = d.run("x.wav", "y.mp3", "--taps", "one.txt", "--format", f"mp3:v{level}", "-v")
        assert f"variable bitrate (LAME -V {level})" in r.stderr, r.stderr
        sizes[level] = kbps(d, "y.mp3")
    # the default is -V 2: the same file as mp3:v2
    d.run("x.wav", "z.mp3", "--taps", "one.txt")
    assert abs(kbps(d, "z.mp3") - sizes[2]) < 0.01 * sizes[2], (kbps(d, "z.mp3"), sizes)
    assert sizes[0] > 1.1 * sizes[2] > 1.1 * 1.1 * sizes[6], sizes
    assert sizes[6] > 1.1 * sizes[9], sizes


@test("quality")
def opus_bitrate(d):
    bitrates(d, "opus", (96, 256, 24), "output Ogg Opus, {} kbit/s, ", 0.1)


@test("quality")
def vorbis_quality(d):
    music(d)
    sizes = {}
    for q in (2, 6, 10):
        # vorbis: names the codec, as opus: does
        r = d.run("x.wav", "y.ogg", "--taps", "one.txt", "--format", f"vorbis:q{q}", "-v")
        assert f"output Ogg Vorbis, quality {q / 10:g}" in r.stderr, r.stderr
        assert sndfile.Sound(d.p("y.ogg")).subtype == sndfile.SUBTYPES["vorbis"]
        sizes[q] = kbps(d, "y.ogg")
    assert sizes[10] > 1.1 * sizes[6] > 1.1 * 1.1 * sizes[2], sizes


@test("quality")
def flac_level(d):
    # tones and sweeps: linear prediction of high order (level 8) pays off
    # where level 0's fixed predictors do not (38% smaller here); 16-bit
    # without dither, so both decode to the same integers
    sndfile.write(d.p("x.wav"), tonal(SECONDS), 48000, "wav", "pcm16")
    d.text("one.txt", "1")
    sizes, data = {}, {}
    for level in (0, 8):
        r = d.run("x.wav", f"y{level}.flac", "--taps", "one.txt", "--format", f"flac:{level}",
                  "--no-dither", "-v")
        assert f"output FLAC, pcm16, compression level {level}" in r.stderr, r.stderr
        sizes[level] = os.path.getsize(d.p(f"y{level}.flac"))
        data[level] = sndfile.Sound(d.p(f"y{level}.flac")).data
    assert sizes[8] < 0.8 * sizes[0], sizes
    assert np.array_equal(data[0], data[8])
    # samples and a level together, in either order
    for fmt in ("flac:pcm24:8", "flac:8:pcm24"):
        r = d.run("x.wav", "z.flac", "--taps", "one.txt", "--format", fmt, "-v")
        assert "output FLAC, pcm24, compression level 8" in r.stderr, r.stderr
        assert sndfile.Sound(d.p("z.flac")).subtype == sndfile.SUBTYPES["pcm24"]


def refused(d, args, *needles, output):
    """Wrong usage found once OUTPUT's format is known: exit 2, one line
    naming the values the codec takes, no OUTPUT."""
    r = d.run(*args, "-q", expect=2)
    line = one_line(r.stderr, *needles)
    assert not os.path.exists(d.p(output)) and not cli.leftovers(d), os.listdir(d.path)
    return line


@test("quality")
def values_a_codec_cannot_take(d):
    music(d)
    for fmt, out, words in [
            ("mp3:321k", "o.mp3", ("32, 40", "256 and 320 kbit/s", "v0 (best) to v9")),
            ("mp3:v10", "o.mp3", ("v0 (best) to v9",)),
            ("mp3:q3", "o.mp3", ("mp3:320k",)),
            ("opus:2k", "o.opus", ("6 to 256 kbit/s a channel", "12 to 512 kbit/s for 2")),
            ("opus:96", "o.opus", ("opus:96k",)),
            ("vorbis:q11", "o.ogg", ("q0 to q10",)),
            ("flac:9", "o.flac", ("0 (fastest) to 8 (smallest)",)),
            ("flac:2.5", "o.flac", ("0 (fastest) to 8",)),
            ("wav:8", "o.wav", ("has none",))]:
        line = refused(d, ["x.wav", out, "--taps", "one.txt", "--format", fmt], *words,
                       output=out)
        assert fmt in line, line
    # MP3 below 32 kHz is MPEG-2: its bitrates stop at 160
    sndfile.write(d.p("x22.wav"), tonal(5.0, 22050) + 0.02 * d.noise(5 * 22050, 2), 22050,
                  "wav", "float")
    refused(d, ["x22.wav", "o.mp3", "--taps", "one.txt", "--format", "mp3:320k"],
            "MP3 at 22050 Hz", "144 and 160 kbit/s", output="o.mp3")
    d.run("x22.wav", "o.mp3", "--taps", "one.txt", "--format", "mp3:160k")
    assert abs(kbps(d, "o.mp3", 5.0) - 160) < 0.03 * 160, kbps(d, "o.mp3", 5.0)


@test("quality")
def batch_jobs_take_a_quality(d):
    """A manifest's format column takes the same quality; a bad one is a bad
    line, found before anything runs."""
    music(d)
    d.text("jobs.tsv", "input\toutput\tformat\nx.wav\ta.mp3\tmp3:128k\n"
           "x.wav\tb.mp3\tmp3:256k\n")
    d.run("batch", "--manifest", "jobs.tsv", "--taps", "one.txt", "-q")
    for name, rate in (("a.mp3", 128), ("b.mp3", 256)):
        assert abs(kbps(d, name) - rate) < 0.02 * rate, (name, kbps(d, name))
    d.text("bad.tsv", "input\toutput\tformat\nx.wav\tc.mp3\tmp3:400k\n")
    r = d.run("batch", "--manifest", "bad.tsv", "--taps", "one.txt", expect=1)
    assert "bad.tsv:2: --format mp3:400k" in r.stderr and "nothing was run" in r.stderr, r.stderr
    assert not os.path.exists(d.p("c.mp3"))


if __name__ == "__main__":
    sys.exit(cli.main())
