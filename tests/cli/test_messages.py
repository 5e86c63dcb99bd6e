#!/usr/bin/python3
"""One clear line, always (issue 25 item 6; issue 26 item 5): every message
of src/cli goes through message.c, which escapes control characters as
`ls -b` does, and failures name their real cause.

    test_messages.py GFIR GROUP     GROUP: messages
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_cli as cli  # noqa: E402  (the harness: exits 77 without NumPy)
import sndfile  # noqa: E402
from test_cli import fails, np, one_line, test  # noqa: E402

RATE = 48000
SRC_CLI = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "src", "cli")

# a newline, a tab, a terminal's escape sequence (red), a backslash and a C1
# control (U+009B, CSI to a terminal that takes C1) in one name, and how
# `ls -b` writes it
EVIL = "a\nb\033[31mred\tx\\y\u009bz.wav"
EVIL_SHOWN = "a\\nb\\033[31mred\\tx\\\\y\\302\\233z.wav"


def raw_stderr(d, *args):
    """gfir's exit code and stderr as bytes: text mode would hide a \\r."""
    r = subprocess.run([cli.GFIR, *args], cwd=d.path, capture_output=True, timeout=120)
    return r.returncode, r.stderr


@test("messages")
def control_characters_escaped(d):
    code, err = raw_stderr(d, EVIL, "out.wav", "--preset", "lowpass")
    assert code == 1
    assert err.count(b"\n") == 1 and err.endswith(b"\n"), err
    assert not re.search(rb"[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]", err), err
    assert EVIL_SHOWN.encode() in err, err
    # a name that exists: read, and escaped where a message names it
    d.wav(EVIL, d.noise(2000))
    d.text("one.txt", "1")
    d.run(EVIL, "o.wav", "--taps", "one.txt")
    assert os.path.exists(d.p("o.wav"))
    open(d.p(EVIL), "w").close()
    code, err = raw_stderr(d, EVIL, "o2.wav", "--taps", "one.txt")
    assert code == 1 and err == b"gfir: INPUT '" + EVIL_SHOWN.encode() + b"' is empty (0 bytes)\n"
    # --describe names its files on stdout: escaped the same
    taps = "t\n\033]0;title\a.txt"
    d.text(taps, "0.5 0.5")
    r = subprocess.run([cli.GFIR, "--describe", "--taps", taps, "--rate", "48000"], cwd=d.path,
                       capture_output=True, timeout=60)
    assert r.returncode == 0 and b"\033" not in r.stdout and b"\a" not in r.stdout, r.stdout
    assert b"taps from 't\\n\\033]0;title\\007.txt'" in r.stdout, r.stdout
    # UTF-8 that is text stays as it is
    code, err = raw_stderr(d, "Étude.wav", "o3.wav", "--taps", "one.txt")
    assert code == 1 and "'Étude.wav'".encode() in err, err


@test("messages")
def batch_lines_escaped(d):
    # a job's messages go through batch's per-job sink; the line it prints
    # for a failed job is escaped like any other
    d.text("one.txt", "1")
    with open(d.p("jobs.tsv"), "w") as f:
        f.write("input\toutput\ttaps\n")
        f.write("in\033[2Jx\\.wav\tout.wav\tone.txt\n")
    code, err = raw_stderr(d, "batch", "--manifest", "jobs.tsv", "-q")
    assert code == 1, err
    assert b"\033" not in err, err
    assert b"in\\033[2Jx\\\\.wav" in err, err
    assert all(line.startswith(b"gfir: ") for line in err.splitlines()), err


@test("messages")
def cli_prints_only_through_its_message_module(d):
    # what batch's sink and the escaping cannot miss: no other stderr writer
    bad = []
    writer = re.compile(r"\b(f?printf|fputs|fputc|putc|vfprintf|perror|fwrite)\s*\([^;]*\bstderr\b"
                        r"|\bperror\s*\(")
    for root, _, files in os.walk(SRC_CLI):
        for name in files:
            if not name.endswith(".c") or name == "message.c":
                continue
            path = os.path.join(root, name)
            text = open(path).read()
            for m in writer.finditer(text):
                bad.append(f"{os.path.relpath(path, SRC_CLI)}: {m.group(0)[:60]}")
    assert not bad, "stderr written past message.c:\n" + "\n".join(bad)


@test("messages")
def corrupt_mp3_names_the_cause(d):
    x = 0.2 * np.sin(np.arange(RATE) / 7.0)
    sndfile.write(d.p("good.mp3"), x, RATE, "mpeg", "mp3")
    data = open(d.p("good.mp3"), "rb").read()
    # the first frame's header, then noise: MP3 to look at, no frame to decode
    with open(d.p("bad.mp3"), "wb") as f:
        f.write(data[:4] + d.rng.bytes(5000))
    d.text("one.txt", "1")
    r = d.run("bad.mp3", "out.wav", "--taps", "one.txt", expect=1)
    line = [l for l in r.stderr.splitlines() if l.startswith("gfir: ")]
    assert len(line) == 1 and "MP3" in line[0] and "corrupt" in line[0], r.stderr
    assert "does not exist" not in r.stderr


@test("messages")
def full_device_named(d):
    # libsndfile blamed "the flac decoder"; LAME dropped the failed writes
    # and gfir exited 0 having written nothing
    d.wav("x.wav", d.noise(20000, 2))
    d.text("one.txt", "1")
    for fmt in ("flac", "mp3", "wav", "ogg"):
        r = d.run("x.wav", "/dev/full", "--taps", "one.txt", "--format", fmt, "-q", expect=1)
        one_line(r.stderr, "/dev/full", "No space left on device")
        assert "decoder" not in r.stderr, fmt


@test("messages")
def format_without_container_takes_outputs(d):
    d.wav("x.wav", d.noise(3000))
    d.text("one.txt", "1")
    d.run("x.wav", "x.flac", "--taps", "one.txt", "--format", ":pcm24")
    y = sndfile.Sound(d.p("x.flac"))
    assert y.container == sndfile.FORMATS["flac"] and y.subtype == sndfile.SUBTYPES["pcm24"]
    line = fails(d, ["x.wav", "noext", "--taps", "one.txt", "--format", ":pcm16"], 1,
                 "--format :pcm16", "no container", "wav:pcm16", output="noext")
    assert "has no extension to tell its format; add one or use --format" not in line


@test("messages")
def dash_names_are_files(d):
    # "-v.wav" cannot be options (there is no option '.'): a file name
    x = d.noise(3000)
    d.wav("x.wav", x)
    d.text("one.txt", "1")
    r = d.run("x.wav", "-v.wav", "--taps", "one.txt")
    assert r.stderr == "", r.stderr   # -v was not taken
    assert cli.rel_l2(cli.read(d.p("-v.wav"))[1], x) < 1e-6
    d.run("-v.wav", "back.wav", "--taps", "one.txt")
    assert cli.rel_l2(cli.read(d.p("back.wav"))[1], x) < 1e-6
    # an option's value is left alone ("-h.txt" would be a name), and so is
    # what follows "--"
    d.text("-h.txt", "0.5")
    d.run("x.wav", "y.wav", "-t", "-h.txt")
    assert cli.rel_l2(cli.read(d.p("y.wav"))[1], 0.5 * x) < 1e-6
    d.run("--taps", "one.txt", "--", "x.wav", "-w.wav")
    assert os.path.exists(d.p("-w.wav"))
    # a word with no '.' is still an unknown option
    fails(d, ["-x", "x.wav", "y.wav", "--taps", "one.txt"], 2, "unknown option '-x'",
          output="y.wav")


if __name__ == "__main__":
    sys.exit(cli.main())
