#!/usr/bin/python3
"""Every input read to its end, in any format, from a file or a pipe
(file/source.c; issue 25): an MP3 without a length header is read past the
guess libsndfile stops at, as INPUT, from standard input, as an IR and as a
batch job's input, and formats libsndfile reads only from a file come through
a pipe or a FIFO, copied to an unlinked temporary file; a full disk there is
one clear line.

    test_inputs.py GFIR GROUP     GROUP: inputs
"""
import os
import resource
import subprocess
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_cli as cli  # noqa: E402  (the harness: exits 77 without NumPy)
import sndfile  # noqa: E402
from test_cli import GFIR, env_for, np, one_line, read, rel_l2, test  # noqa: E402

RATE = 48000


def mp3_without_length_header(path, x):
    """A VBR MP3 of x as an encoder writing to a pipe leaves it: no Xing/Info
    frame, so the only length a reader has is mpg123's guess from the first
    frame's bit rate. x starts loud (a high bit rate) and goes on quiet, so
    the guess is far short."""
    sndfile.write(path, x, RATE, "mpeg", "mp3", vbr=True)
    b = open(path, "rb").read()
    at = 0
    if b[:3] == b"ID3":  # the tag's size, 7 bits a byte
        at = 10 + (b[6] << 21 | b[7] << 14 | b[8] << 7 | b[9])
    h = b[at:at + 4]
    kbps = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320][h[2] >> 4]
    rate = {0: 44100, 1: 48000, 2: 32000}[(h[2] >> 2) & 3]
    length = 144 * kbps * 1000 // rate + ((h[2] >> 1) & 1)  # MPEG-1 layer III
    first = b[at:at + length]
    assert b"Xing" in first or b"Info" in first, "libsndfile wrote no length header"
    with open(path, "wb") as f:
        f.write(b[:at] + b[at + length:])


@test("inputs")
def mp3_read_to_its_end(d):
    # INPUT, an IR and standard input are read to the decoder's end, not to
    # the frame count libsndfile stops at (issue 25: 3.49 s of a 10 s file)
    t = np.arange(6 * RATE) / RATE
    x = 0.05 * np.stack([np.sin(2 * np.pi * 440 * t), np.sin(2 * np.pi * 550 * t)], 1)
    x[:RATE // 2] += d.rng.standard_normal((RATE // 2, 2)) * 0.3
    mp3_without_length_header(d.p("cut.mp3"), x)
    guessed = len(sndfile.Sound(d.p("cut.mp3")).data)
    assert guessed < len(x) // 2, f"libsndfile alone reads {guessed} frames: no test"
    d.text("one.txt", "1")
    # a whole MPEG frame of encoder delay and padding may come on top
    r = d.run("cut.mp3", "out.wav", "--taps", "one.txt", "--gain", "-6", "-v")
    assert "MP3 without a length header: read to its decoder's end" in r.stderr, r.stderr
    out = sndfile.Sound(d.p("out.wav")).data
    got = len(out)
    assert len(x) <= got <= len(x) + 2 * 1152, f"read {got} frames of {len(x)}"
    # what libsndfile decodes is the start, at -6 dB (16-bit rounding and
    # dither: 1e-3 relative); what it stops short of is the quiet tones, not
    # silence (their rms, 0.025 / sqrt 2, within the codec's 10 %)
    start = sndfile.Sound(d.p("cut.mp3")).data * 10 ** (-6 / 20)
    assert cli.rel_l2(out[:guessed], start) < 1e-3
    tail_rms = np.sqrt(np.mean(out[-RATE:] ** 2, axis=0))
    assert np.all(np.abs(tail_rms / (0.025 / np.sqrt(2)) - 1) < 0.1), tail_rms
    r = subprocess.run([cli.GFIR, "-", "piped.wav", "--taps", "one.txt", "--gain", "-6"],
                       cwd=d.path, stdin=open(d.p("cut.mp3"), "rb"), capture_output=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    assert len(sndfile.Sound(d.p("piped.wav")).data) == got
    r = d.run("--describe", "--ir", "cut.mp3", "--rate", str(RATE))
    taps = int(r.stdout.split("folded into ")[1].split()[0])
    assert taps == got, f"the IR has {taps} taps, INPUT {got} frames"
    # gfir batch reads its inputs through the same reader
    d.text("jobs.tsv", "input\toutput\ttaps\tgain\ncut.mp3\tbatch.wav\tone.txt\t-6\n")
    d.run("batch", "--manifest", "jobs.tsv", "-q")
    assert len(sndfile.Sound(d.p("batch.wav")).data) == got



@test("inputs")
def any_format_through_a_pipe(d):
    # formats libsndfile reads only from a file (FLAC, CAF, RF64: they seek)
    # come through a pipe whole: copied to an unlinked temporary file, said
    # with -v (issue 25: `gfir a.wav - --format flac | gfir - b.wav` failed).
    # 24-bit FLAC against float: 2^-23 of full scale, far under 1e-4 relative.
    d.wav("x.wav", d.noise(3001, 2, scale=0.1))  # no clipping in pcm24
    d.run("x.wav", "ref.wav", "--preset", "lowpass")
    spool = os.path.join(d.path, "spool")
    os.mkdir(spool)
    for name, fmt in (("x.flac", "flac:pcm24"), ("x.caf", "caf:float"), ("x.rf64", "rf64:float")):
        d.run("x.wav", name, "--taps", d.text("one.txt", "1"), "--format", fmt, "-q")
        r = subprocess.run([GFIR, "-", "out.wav", "--preset", "lowpass", "-v", "--format",
                            "wav:float"], cwd=d.path,
                           input=open(d.p(name), "rb").read(), capture_output=True,
                           timeout=60, env=env_for(d, {"TMPDIR": spool}))
        assert r.returncode == 0, f"{name} over a pipe: {r.stderr}"
        assert "from a pipe" in r.stderr.decode() and spool in r.stderr.decode(), r.stderr
        assert rel_l2(read(d.p("out.wav"))[1], read(d.p("ref.wav"))[1]) < 1e-4, name
        assert os.listdir(spool) == [], "the temporary copy has a name"
    # gfir to gfir through a real pipe, FLAC between them
    first = subprocess.Popen([GFIR, "x.wav", "-", "--taps", "one.txt", "--format", "flac", "-q"],
                             cwd=d.path, stdout=subprocess.PIPE, env=env_for(d))
    second = subprocess.run([GFIR, "-", "piped.wav", "--preset", "lowpass", "--format",
                             "wav:float"], cwd=d.path,
                            stdin=first.stdout, capture_output=True, timeout=60, env=env_for(d))
    first.stdout.close()
    assert first.wait(timeout=60) == 0 and second.returncode == 0, second.stderr
    assert rel_l2(read(d.p("piped.wav"))[1], read(d.p("ref.wav"))[1]) < 1e-4
    # a FIFO, opened once, its first bytes looked at without taking them
    os.mkfifo(d.p("in.fifo"))
    data = open(d.p("x.flac"), "rb").read()

    def writer():
        with open(d.p("in.fifo"), "wb") as f:
            f.write(data)
    t = threading.Thread(target=writer, daemon=True)
    t.start()
    r = subprocess.run([GFIR, "in.fifo", "fifo.wav", "--preset", "lowpass", "--format",
                        "wav:float"], cwd=d.path, capture_output=True, timeout=60,
                       env=env_for(d))
    t.join(timeout=10)
    assert r.returncode == 0, r.stderr
    assert rel_l2(read(d.p("fifo.wav"))[1], read(d.p("ref.wav"))[1]) < 1e-4
    # no room for the copy: one clear line naming the place, no OUTPUT
    big = d.wav("big.wav", d.noise(200000, 2, scale=0.1))
    d.run(big, "big.flac", "--taps", "one.txt", "--format", "flac:pcm24", "-q")
    size = os.path.getsize(d.p("big.flac"))

    def small_files():
        resource.setrlimit(resource.RLIMIT_FSIZE, (size // 2, size // 2))
    r = subprocess.run([GFIR, "-", "out2.wav", "--preset", "lowpass"], cwd=d.path,
                       input=open(d.p("big.flac"), "rb").read(),
                       capture_output=True, timeout=60, preexec_fn=small_files,
                       env=env_for(d, {"TMPDIR": spool}))
    assert r.returncode == 1
    one_line(r.stderr.decode(), "temporary file in " + spool, "File too large")
    assert not os.path.exists(d.p("out2.wav"))
    # a tmpfs that fills, where this user may mount one
    tmpfs = os.path.join(d.path, "tmpfs")
    os.mkdir(tmpfs)
    if subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size // 2}", "tmpfs", tmpfs],
                      capture_output=True).returncode != 0:
        print("      (no tmpfs: cannot mount one here)")
        return
    try:
        r = subprocess.run([GFIR, "-", "out2.wav", "--preset", "lowpass"], cwd=d.path,
                           input=open(d.p("big.flac"), "rb").read(), capture_output=True,
                           timeout=60, env=env_for(d, {"TMPDIR": tmpfs}))
        assert r.returncode == 1
        one_line(r.stderr.decode(), "temporary file in " + tmpfs, "No space left on device")
        assert os.listdir(tmpfs) == [] and not os.path.exists(d.p("out2.wav"))
    finally:
        subprocess.run(["umount", tmpfs])


if __name__ == "__main__":
    sys.exit(cli.main())
