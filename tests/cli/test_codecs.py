#!/usr/bin/python3
"""End-to-end tests of gfir's output formats beyond PCM: MP3 and Opus in and
out, the encoding chosen for each container, and tags and channel layouts
carried from INPUT to OUTPUT.

    test_codecs.py GFIR GROUP     GROUP: codecs, metadata

Files are written and read back with libsndfile through ctypes (sndfile.py),
and where sox can read a format (FLAC, Ogg Vorbis tags) or the bytes are
simple (WAVE_FORMAT_EXTENSIBLE's channel mask) independently of libsndfile
too. Lossy codecs cannot give the input back sample for sample: their tests
align the decoded output with the input by cross-correlation (the codec's
delay) and demand a signal-to-noise ratio and a correlation that a
wrong gain, a swapped or silent channel, a lost block or a shift would
all fail by far (they give 0 dB or less). The thresholds sit 5 to 10 dB
under what Debian 12's LAME, libopus and libvorbis give at gfir's settings in
these tests (40.6, 23.5 and 37.5 dB), so a codec update does not break them
but a fault does.
"""
import os
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_cli as cli  # noqa: E402  (the harness: exits 77 without NumPy)
import sndfile  # noqa: E402
from test_cli import fails, np, one_line, test  # noqa: E402

RATE = 48000


def tonal(seconds=2.0, rate=RATE):
    """Stereo test music: a tone and a sweep in each channel, different in
    each, under a slow swell. Lossy codecs spend their bits on tones and
    replace noise with noise of the same colour, so a waveform comparison
    needs tones; the sweeps make the alignment unique (a tone alone matches
    itself a period later)."""
    t = np.arange(int(seconds * rate)) / rate
    swell = 0.6 + 0.4 * np.sin(2 * np.pi * 0.7 * t)
    left = 0.2 * np.sin(2 * np.pi * 220 * t) + \
        0.15 * cli.signal.chirp(t, 500, seconds, 4000, method="logarithmic")
    right = 0.2 * np.sin(2 * np.pi * 330 * t) + \
        0.15 * cli.signal.chirp(t, 3000, seconds, 800, method="logarithmic")
    return np.stack([left * swell, right * swell], axis=1)


def aligned_snr(got, want, max_lag=4096):
    """got against want after the lag (0 to max_lag frames) that best aligns
    them: (SNR dB, lag, per-channel correlation)."""
    n = 30000
    assert len(got) >= n + max_lag and len(want) >= n
    lag = int(np.argmax(np.correlate(got[:n + max_lag, 0], want[:n, 0], "valid")))
    got = got[lag:]
    m = min(len(got), len(want))
    err = got[:m] - want[:m]
    snr = 10 * np.log10(np.sum(want[:m] ** 2) / np.sum(err ** 2))
    corr = [np.corrcoef(got[:m, ch], want[:m, ch])[0, 1] for ch in range(want.shape[1])]
    return snr, lag, corr


def lossy_round_trip(d, ext, container, subtype, min_snr_db, frame):
    """INPUT (float WAV) -> OUTPUT.ext with -6 dB of gain, decoded, against the
    input at -6 dB."""
    x = tonal()
    sndfile.write(d.p("x.wav"), x, RATE, "wav", "float")
    d.text("one.txt", "1")
    r = d.run("x.wav", "y." + ext, "--taps", "one.txt", "--gain", "-6", "-v")
    y = sndfile.Sound(d.p("y." + ext))
    assert y.container == sndfile.FORMATS[container], f".{ext}: container {y.format:#x}"
    assert y.subtype == sndfile.SUBTYPES[subtype], f".{ext}: {y.format:#x}, not {subtype}"
    assert y.rate == RATE and y.channels == 2
    assert abs(len(y.data) - len(x)) <= frame, f".{ext}: {len(y.data)} frames for {len(x)}"
    snr, lag, corr = aligned_snr(y.data, x * 10 ** (-6 / 20))
    assert lag <= frame, f".{ext}: decoded output is {lag} frames late"
    assert snr >= min_snr_db, f".{ext}: SNR {snr:.1f} dB after a lag of {lag}"
    assert min(corr) > 0.99, f".{ext}: correlation {corr}"
    print(f"      .{ext}: SNR {snr:.1f} dB, lag {lag}, correlation {min(corr):.5f}")
    return r


# ---- codecs: MP3, Opus and Vorbis, in and out -------------------------------------

@test("codecs")
def mp3_out(d):
    r = lossy_round_trip(d, "mp3", "mpeg", "mp3", 30, 1152)
    assert "output MP3, variable bitrate (LAME -V 2), 48000 Hz, 2 channels" in r.stderr, r.stderr
    # a sample rate MP3 does not have, and more channels than it holds
    sndfile.write(d.p("x96.wav"), tonal(0.1, 96000), 96000, "wav", "float")
    fails(d, ["x96.wav", "out.mp3", "--taps", "one.txt"], 1, "MP3 has no 96000 Hz",
          output="out.mp3")
    sndfile.write(d.p("x6.wav"), np.zeros((100, 6)) + 0.1, RATE, "wav", "float")
    fails(d, ["x6.wav", "out.mp3", "--taps", "one.txt"], 1, "MP3", "6 channels",
          output="out.mp3")


@test("codecs")
def opus_out(d):
    r = lossy_round_trip(d, "opus", "ogg", "opus", 18, 960)
    assert "output Ogg Opus, 64 kbit/s a channel" in r.stderr, r.stderr
    assert "vorbis" not in r.stderr.lower(), ".opus must not fall back to Vorbis"
    sndfile.write(d.p("x44.wav"), tonal(0.1, 44100), 44100, "wav", "float")
    fails(d, ["x44.wav", "out.opus", "--taps", "one.txt"], 1, "Opus has no 44100 Hz",
          output="out.opus")
    # --format names the codec as well as the extension does
    d.run("x.wav", "named.ogg", "--taps", "one.txt", "--format", "ogg:opus")
    assert sndfile.Sound(d.p("named.ogg")).subtype == sndfile.SUBTYPES["opus"]


@test("codecs")
def vorbis_out(d):
    r = lossy_round_trip(d, "ogg", "ogg", "vorbis", 28, 2048)
    assert "output Ogg Vorbis, quality 0.5" in r.stderr, r.stderr


@test("codecs")
def mp3_and_opus_in(d):
    # INPUT decoded by gfir must be INPUT decoded by libsndfile itself, to
    # 16-bit rounding and dither (about 2e-5 rms against a signal of 0.2)
    x = tonal()
    d.text("one.txt", "1")
    for ext, container, subtype in (("mp3", "mpeg", "mp3"), ("opus", "ogg", "opus")):
        sndfile.write(d.p("in." + ext), x, RATE, container, subtype)
        decoded = sndfile.Sound(d.p("in." + ext)).data
        r = d.run("in." + ext, "out.wav", "--taps", "one.txt", "-v")
        assert "output WAV, pcm16" in r.stderr, f"{ext} in: {r.stderr}"
        out = sndfile.Sound(d.p("out.wav"))
        assert out.subtype == sndfile.SUBTYPES["pcm16"]
        err = cli.rel_l2(out.data, decoded)
        assert err < 5e-4, f"{ext} -> wav: rel L2 {err:.2e} against libsndfile's decoding"
        d.run("in." + ext, "out.flac", "--taps", "one.txt")
        assert sndfile.Sound(d.p("out.flac")).subtype == sndfile.SUBTYPES["pcm16"]
    # the same codec in its own container stays that codec
    d.run("in.opus", "again.ogg", "--taps", "one.txt")
    assert sndfile.Sound(d.p("again.ogg")).subtype == sndfile.SUBTYPES["opus"]


@test("codecs")
def lossless_choices_unchanged(d):
    x = tonal(0.2)
    sndfile.write(d.p("f.wav"), x, RATE, "wav", "float")
    d.text("one.txt", "1")
    r = d.run("f.wav", "out.flac", "--taps", "one.txt")
    one_line(r.stderr, "note", "FLAC", "float", "pcm24")
    assert sndfile.Sound(d.p("out.flac")).subtype == sndfile.SUBTYPES["pcm24"]
    sndfile.write(d.p("i.wav"), x, RATE, "wav", "pcm24")
    r = d.run("i.wav", "out.wav", "--taps", "one.txt")
    assert r.stderr == "" and sndfile.Sound(d.p("out.wav")).subtype == sndfile.SUBTYPES["pcm24"]
    fails(d, ["i.wav", "out.mp2", "--taps", "one.txt"], 1, "unknown output format", "mp3",
          output="out.mp2")


# ---- metadata: tags and channel layouts ------------------------------------------

TAGS = {"title": "Étude in A", "artist": "The Testers", "album": "Filters",
        "license": "CC-BY-4.0"}


def sox_tags(path):
    r = subprocess.run(["sox", "--i", "-a", path], capture_output=True, text=True, check=True)
    return dict(line.split("=", 1) for line in r.stdout.splitlines() if "=" in line)


@test("metadata")
def tags_survive(d):
    sndfile.write(d.p("in.flac"), tonal(0.5), RATE, "flac", "pcm16", tags=TAGS)
    assert sox_tags(d.p("in.flac"))["title"] == TAGS["title"], "the input has its tags"
    d.text("one.txt", "1")
    # formats with a field for each of them
    for out in ("out.flac", "out.ogg", "out.opus"):
        r = d.run("in.flac", out, "--taps", "one.txt", "-v")
        assert "tags title, artist, album, license" in r.stderr, r.stderr
        got = sndfile.Sound(d.p(out)).tags
        for k, v in TAGS.items():
            assert got.get(k) == v, f"{out}: {k} is {got.get(k)!r}, wanted {v!r}"
        assert "note" not in r.stderr, f"{out}: {r.stderr}"
    for out in ("out.flac", "out.ogg"):           # read by libFLAC and libvorbisfile too
        got = {k.lower(): v for k, v in sox_tags(d.p(out)).items()}
        assert all(got.get(k) == v for k, v in TAGS.items()), f"{out}: sox reads {got}"
    # formats without a license field: the rest kept, the loss said
    for out, label in (("out.wav", "WAV"), ("out.mp3", "MP3")):
        r = d.run("in.flac", out, "--taps", "one.txt")
        one_line(r.stderr, "note", label, "license")
        got = sndfile.Sound(d.p(out)).tags
        for k in ("title", "artist", "album"):
            assert got.get(k) == TAGS[k], f"{out}: {k} is {got.get(k)!r}"
        assert "license" not in got
    # MP3 (ID3) tags in, to a format that has them
    d.run("out.mp3", "back.flac", "--taps", "one.txt")
    got = sndfile.Sound(d.p("back.flac")).tags
    assert all(got.get(k) == TAGS[k] for k in ("title", "artist", "album")), got
    # -q: the same files, no notes
    r = d.run("in.flac", "out.wav", "--taps", "one.txt", "-q")
    assert r.stderr == ""


def wavex_51(path, data, mask):
    """A 16-bit WAVE_FORMAT_EXTENSIBLE file, written byte by byte (not by
    libsndfile)."""
    ints = np.clip(np.round(data * 32767), -32768, 32767).astype("<i2")
    ch = data.shape[1]
    pcm_guid = bytes.fromhex("0100000000001000800000aa00389b71")
    fmt = struct.pack("<HHIIHHHHI16s", 0xFFFE, ch, RATE, RATE * ch * 2, ch * 2, 16, 22, 16,
                      mask, pcm_guid)
    body = b"WAVE" + b"fmt " + struct.pack("<I", len(fmt)) + fmt
    body += b"data" + struct.pack("<I", ints.nbytes) + ints.tobytes()
    with open(path, "wb") as f:
        f.write(b"RIFF" + struct.pack("<I", len(body)) + body)
    return path


def wav_format(path):
    """(format tag, channel mask or None) from a WAV's fmt chunk."""
    with open(path, "rb") as f:
        raw = f.read()
    pos = 12
    while pos + 8 <= len(raw):
        tag, size = raw[pos:pos + 4], struct.unpack("<I", raw[pos + 4:pos + 8])[0]
        if tag == b"fmt ":
            fmt_tag = struct.unpack("<H", raw[pos + 8:pos + 10])[0]
            mask = struct.unpack("<I", raw[pos + 28:pos + 32])[0] if fmt_tag == 0xFFFE else None
            return fmt_tag, mask
        pos += 8 + size + (size & 1)
    raise AssertionError(f"{path}: no fmt chunk")


MASK_51_BACK, MASK_51_SIDE = 0x3F, 0x60F    # FL FR FC LFE + BL BR, or + SL SR
S = sndfile
MAP_51_BACK = [S.LEFT, S.RIGHT, S.CENTER, S.LFE, S.REAR_LEFT, S.REAR_RIGHT]
MAP_51_SIDE = [S.LEFT, S.RIGHT, S.CENTER, S.LFE, S.SIDE_LEFT, S.SIDE_RIGHT]


@test("metadata")
def surround_layout_survives(d):
    x = d.noise(4800, 6) * 0.5
    d.text("one.txt", "1")
    for mask, cmap, name in ((MASK_51_BACK, MAP_51_BACK, "FL FR FC LFE BL BR"),
                             (MASK_51_SIDE, MAP_51_SIDE, "FL FR FC LFE SL SR")):
        wavex_51(d.p("in.wav"), x, mask)
        assert sndfile.Sound(d.p("in.wav")).channel_map == cmap, "libsndfile reads the mask"
        r = d.run("in.wav", "out.wav", "--taps", "one.txt", "--no-dither", "-v")
        assert f"layout {name}" in r.stderr, r.stderr
        assert wav_format(d.p("out.wav")) == (0xFFFE, mask), \
            f"out.wav: fmt {wav_format(d.p('out.wav'))}, wanted extensible with {mask:#x}"
        out = sndfile.Sound(d.p("out.wav"))
        assert np.array_equal(out.data, sndfile.Sound(d.p("in.wav")).data), "samples changed"
        # Apple's layouts: libsndfile has a layout tag for 5.1 with back
        # speakers, none for side ones, which must then be said
        for ext in ("caf", "aiff"):
            r = d.run("in.wav", "out." + ext, "--taps", "one.txt")
            got = sndfile.Sound(d.p("out." + ext)).channel_map
            if mask == MASK_51_BACK:
                assert r.stderr == "" and got == cmap, f".{ext}: {got}, {r.stderr}"
            else:
                assert got != cmap, f".{ext} now keeps {name}: update this test"
                one_line(r.stderr, "note", "channel layout", name)
        # FLAC implies FL FR FC LFE BL BR for six channels and records nothing else
        r = d.run("in.wav", "out.flac", "--taps", "one.txt")
        if mask == MASK_51_BACK:
            assert r.stderr == "", r.stderr
        else:
            one_line(r.stderr, "note", "FLAC", "channel layout", name)
    # a format with no layout at all says so
    r = d.run("in.wav", "out.w64", "--taps", "one.txt")
    one_line(r.stderr, "note", "W64", "channel layout")
    # a plain 6-channel WAV has no layout to keep: plain WAV out, no note
    d.pcm16("plain.wav", x)
    r = d.run("plain.wav", "out.wav", "--taps", "one.txt")
    assert r.stderr == "" and wav_format(d.p("out.wav"))[0] == 1


if __name__ == "__main__":
    sys.exit(cli.main())
