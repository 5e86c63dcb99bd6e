#!/usr/bin/python3
"""docs/cli.md runs as shown: every `$ gfir ...` command of its examples is
run, in order, in a scratch directory holding the files the page says it ran
on (made by the page's own sox commands where it gives them), and what it
prints is compared with what the page shows, line by line.

    test_docs.py GFIR docs

The inputs are noise, made anew each run, so the numbers that measure them
(a room's normalising gain, where a random IR peaks and how loud it is, the
samples that clipped) and the speed of a run are masked before comparing;
every other number (taps, frames, rates, latencies, designs' measurements,
exit status) and every word must be as shown. A command whose output the
page shows as "..." is compared up to there. The page's copy of --help must
be --help (tests/cli/test_install.py checks the manual page against it).
"""
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_cli as cli  # noqa: E402  (the harness: exits 77 without NumPy)
import sndfile  # noqa: E402
from test_cli import np, test  # noqa: E402

PAGE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "cli.md")

# what measures random inputs or the machine's speed: masked on both sides
VOLATILE = [
    (r"in [0-9.]+ s: [0-9.]+x realtime", "in # s: #x realtime"),
    (r"in [0-9.]+ s$", "in # s"),
    (r"scaled by [-+][0-9.]+ dB", "scaled by # dB"),
    (r"[0-9]+ samples clipped \(peak [0-9.]+ dB over full scale\); try --gain -?[0-9]+",
     "# samples clipped (peak # dB over full scale); try --gain #"),
    (r"peaks at [0-9]+ \([0-9.]+ ms\); level -?[0-9.]+ dB(, inverted)?",
     "peaks at # (# ms); level # dB"),
    # where a noise IR first rises above 60 dB below its peak: its fade-in
    # starts from silence, so which noise sample crosses first varies a frame
    (r"starts at [0-9]+ frames \([0-9.]+ ms\)", "starts at # frames (# ms)"),
    (r"copied it \([0-9.]+ MB\)", "copied it (# MB)"),
    # where the presets' own files are: the source tree here, /usr/share/gfir installed
    (r"'[^']*/presets/", "'PRESETS/"),
    # why no GPU is visible: the build has no CUDA, or CUDA_VISIBLE_DEVICES hides them
    (r"no GPU is visible: .*", "no GPU is visible: WHY"),
    # which backends the build has: CUDA is built wherever nvcc is found
    (r"^backends: .*", "backends: BUILT"),
]


# a note that the noise itself may cause: the rooms fade out to zero, and
# sox's unseeded whitenoise now and then rounds an IR's last 24-bit sample to
# zero (about one file in a hundred), which gfir then trims and says so. Such
# a line of a run is left out where the page shows none.
NOISE_NOTES = re.compile(r"^gfir: note: IR '[^']*': dropped 1 frames? of trailing digital silence")


def noise_notes_out(got, shown):
    if any(NOISE_NOTES.match(l) for l in shown):
        return got
    return [l for l in got if not NOISE_NOTES.match(l)]


def mask(line):
    for pattern, repl in VOLATILE:
        line = re.sub(pattern, repl, line)
    return line.rstrip()


def examples(text):
    """[(command, [shown lines])] of the page's indented `$ ` lines, and the
    setup blocks (indented code that begins with sox or cp), in page order."""
    items, current = [], None
    lines = text.splitlines()
    in_fence = False
    for i, line in enumerate(lines):
        if line.startswith("```"):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        if line.startswith("    $ "):
            current = (line[6:], [])
            items.append(current)
        elif line.rstrip() == "    $":
            current = None
        elif line.startswith("    ") and current is not None:
            current[1].append(line[4:])
        else:
            current = None
    return items


def setup_blocks(text):
    """The page's indented blocks of sox and cp commands, and its crossfeed.ini."""
    blocks, block = [], []
    for line in text.splitlines() + [""]:
        if line.startswith("    ") and not line.startswith("    $"):
            block.append(line[4:])
            continue
        if block and re.match(r"(sox |cp |# Cross-feed)", block[0]):
            blocks.append(block)
        block = []
    return blocks


def make_fixtures(d, text):
    bin_dir = d.p("bin")
    os.makedirs(bin_dir)
    os.symlink(os.path.abspath(cli.GFIR), os.path.join(bin_dir, "gfir"))
    for block in setup_blocks(text):
        if block[0].startswith("# Cross-feed"):
            with open(d.p("crossfeed.ini"), "w") as f:
                f.write("\n".join(block) + "\n")
        else:
            subprocess.run(["bash", "-euc", "\n".join(block)], cwd=d.path, check=True)
    # what the page describes in words: 5.1 from sox, a tagged song, a FLAC
    surround = re.search(r"`(sox -n -r 48000 -c 6 [^`]*surround.wav[^`]*)`", text).group(1)
    subprocess.run(["bash", "-euc", surround], cwd=d.path, check=True)
    x = cli.read(d.p("in.wav"))[1]
    sndfile.write(d.p("song.flac"), x, 48000, "flac", "pcm16",
                  tags={"title": "Song", "artist": "Band", "license": "CC-BY"})
    subprocess.run(["sox", "in.wav", "in.flac"], cwd=d.path, check=True)
    return bin_dir


def run(d, bin_dir, command):
    env = cli.env_for(d, {"PATH": bin_dir + os.pathsep + os.environ["PATH"]})
    # what a command's comment says of its files
    read_only = re.search(r"# (\S+) is mode 0444", command)
    if read_only:
        with open(d.p(read_only.group(1)), "a"):
            pass
        os.chmod(d.p(read_only.group(1)), 0o444)
    if "# a file named -x" in command:
        shutil.copy(d.p("in.wav"), d.p("-x"))
    r = subprocess.run(["bash", "-c", command], cwd=d.path, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, timeout=300)
    return r.stdout.decode("utf-8", "replace").splitlines()


@test("docs")
def every_command_prints_what_the_page_shows(d):
    if not shutil.which("sox"):
        print("      (sox is missing: the page's files cannot be made)")
        sys.exit(77)
    text = open(PAGE).read()
    bin_dir = make_fixtures(d, text)
    wrong = []
    items = examples(text)
    assert len(items) > 40, f"only {len(items)} commands found in {PAGE}"
    for command, shown in items:
        if "gfir" not in command:
            continue
        got = noise_notes_out(run(d, bin_dir, command), shown)
        if shown and shown[-1] == "...":
            shown, got = shown[:-1], got[: len(shown) - 1]
        if [mask(l) for l in got] != [mask(l) for l in shown]:
            wrong.append(f"$ {command}\n  shown: {shown}\n  got:   {got}")
    assert not wrong, f"{len(wrong)} of {len(items)} commands differ:\n" + "\n".join(wrong)


@test("docs")
def help_page_is_the_real_one(d):
    text = open(PAGE).read()
    start = text.index("## gfir --help\n\n```\n") + len("## gfir --help\n\n```\n")
    shown = text[start:text.index("```", start)]
    got = subprocess.run([cli.GFIR, "--help"], capture_output=True, text=True).stdout
    assert shown == got, "docs/cli.md's copy of gfir --help differs from gfir --help"


if __name__ == "__main__":
    sys.exit(cli.main())
