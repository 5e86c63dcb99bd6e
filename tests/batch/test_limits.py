#!/usr/bin/python3
"""`gfir batch` bounded and honest (issue 25): a manifest that is no manifest
costs one line's memory, a rerun sweeps every stale temporary file of its
shard's output directories (done jobs' included), and a summary counts the
jobs whose receipts could not be written.

    test_limits.py GFIR GROUP    runs one group: limits, bar (the progress bar
                                 on a terminal)

Exit status 77 (skipped) when NumPy or SciPy is missing.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time

try:
    import numpy as np  # noqa: F401  (batchlib needs it)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import test_batch
    from batchlib import check_output, read_receipts, room, temporaries, write_wav
    from test_batch import Dir, test, under_strace
except ImportError:
    print("test_limits: needs numpy and scipy (Debian: python3-numpy python3-scipy)")
    sys.exit(77)

GFIR = test_batch.GFIR

# Runs argv[2:] and writes its peak resident memory in KB (wait4's) to argv[1],
# from a small interpreter (ru_maxrss counts the image a child was forked as).
LAUNCH = """
import os, sys
pid = os.fork()
if pid == 0:
    os.execv(sys.argv[2], sys.argv[2:])
_, status, usage = os.wait4(pid, 0)
open(sys.argv[1], "w").write(f"{os.waitstatus_to_exitcode(status)} {usage.ru_maxrss}")
"""


def measured(d, args, stdin=subprocess.DEVNULL, timeout=60):
    with tempfile.NamedTemporaryFile("r") as report:
        p = subprocess.run([sys.executable, "-I", "-S", "-c", LAUNCH, report.name, GFIR,
                            "batch", *args], cwd=d.path, stdin=stdin, capture_output=True,
                           text=True, timeout=timeout, env=dict(os.environ, HOME=d.path))
        assert p.returncode == 0, p.stderr
        rc, kb = map(int, report.read().split())
        return rc, p.stderr, kb


@test("limits")
def manifest_that_is_no_manifest(d):
    """/dev/zero grew without bound (4.7 GB after 10 s); an endless line, a
    stream of blank lines and a line past 64 KiB stop at the line, in a few
    MB, each with one line naming it."""
    with open(d.p("long.tsv"), "w") as f:
        f.write("input\toutput\n" + "a" * 70000 + "\tb.wav\n")
    cases = [("/dev/zero", "/dev/zero:1: a NUL byte"),
             ("long.tsv", "long.tsv:2: a line longer than 65536 bytes")]
    for manifest, want in cases:
        rc, err, kb = measured(d, ["--manifest", manifest])
        assert rc == 1, err
        assert want in err, err
        assert kb < 64 * 1024, f"{manifest}: {kb} KB"
    # an endless line from a pipe: the same bound, however long it runs
    endless = subprocess.Popen(["sh", "-c", "printf 'input\\toutput\\n'; yes | tr -d '\\n'"],
                               stdout=subprocess.PIPE)
    rc, err, kb = measured(d, ["--manifest", "/dev/stdin"], stdin=endless.stdout)
    endless.kill()
    endless.wait()
    assert rc == 1 and "a line longer than 65536 bytes" in err, err
    assert kb < 64 * 1024, f"{kb} KB"


@test("limits")
def rerun_sweeps_done_jobs_directories(d):
    """A killed run's temporary file beside a job that is done by now (as a
    job redone after a kill is) was never removed: the sweep looked only
    beside jobs still to do, and only at files a minute old. A file some
    process holds locked stays, however old."""
    inputs = d.corpus(3)
    write_wav(d.p("ir.wav"), room(d.rng, 200))
    rows = d.jobs(inputs, ir="ir.wav")
    d.manifest("jobs.tsv", rows)
    d.gfir("--manifest", "jobs.tsv")
    stale = d.p("out", ".u0001.wav.gfir-Kil1ed")
    other = d.p("out", ".notajob.wav.gfir-AbC123")   # another manifest's, or a plain run's
    held = d.p("out", ".u0002.wav.gfir-HeLd00")
    for path in (stale, other, held):
        with open(path, "wb") as f:
            f.write(b"RIFF half an output")
    locker = subprocess.Popen([sys.executable, "-c", "import fcntl, sys, time\n"
                               "f = open(sys.argv[1], 'rb'); fcntl.flock(f, fcntl.LOCK_EX)\n"
                               "print('locked', flush=True); time.sleep(60)", held],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert locker.stdout.readline().strip() == "locked"
        r = d.gfir("--manifest", "jobs.tsv")
        assert "removed 2 unfinished outputs that a killed run left" in r.stderr, r.stderr
        assert "0 written, 3 done before, 0 failed" in r.stderr, r.stderr
        assert temporaries(d.path) == [held], temporaries(d.path)
    finally:
        locker.kill()
        locker.wait()
    for row in rows:
        check_output(row, base=d.path)


@test("limits")
def summary_counts_receipt_failures(d):
    """Receipts that cannot be written (their sync fails: strace makes every
    fdatasync fail with EIO) fail the jobs whose outputs they vouch for: the
    summary said "0 failed" while gfir exited 1."""
    inputs = d.corpus(4)
    write_wav(d.p("ir.wav"), room(d.rng, 100))
    d.manifest("jobs.tsv", d.jobs(inputs, ir="ir.wav"))
    proc = under_strace(d, "fdatasync", "error=EIO", ["--manifest", "jobs.tsv", "--jobs", "1"])
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 1, err
    assert "cannot sync receipts" in err and "Input/output error" in err, err
    summary = [line for line in err.splitlines() if "4 jobs:" in line]
    assert len(summary) == 1, err
    line = summary[0]
    assert "0 written, 0 done before, 4 failed" in line, line
    assert "without a receipt" in line and "a rerun does" in line, line
    assert read_receipts(d.p("jobs.tsv.receipts")) == []
    # the rerun does every job again, and records it
    r = d.gfir("--manifest", "jobs.tsv")
    assert "4 written, 0 done before, 0 failed" in r.stderr, r.stderr
    assert len(read_receipts(d.p("jobs.tsv.receipts"))) == 4


@test("bar")
def progress_bar_on_a_terminal(d):
    """On a terminal the shard's progress is one line redrawn in place (files
    done of the shard's, the rate, the time left), cleared before the
    summary. Three jobs of over a second each: the gold kernel, one core."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
    from terminal import run_on_terminal
    inputs = d.corpus(3, frames=(48000 * 4, 48000 * 4 + 1), rate=48000, channels=2)
    d.manifest("jobs.tsv", d.jobs(inputs, preset="telephone"))
    rc, text = run_on_terminal([GFIR, "batch", "--manifest", "jobs.tsv", "-j", "1", "--backend",
                                "cpu", "--kernel", "gold"], d.path,
                               env=dict(os.environ, HOME=d.path, GFIR_FFTW_PLANNER="estimate"))
    assert rc == 0, text
    bars = [part for part in text.split("\r") if part.startswith("[")]
    assert bars, f"no progress bar: {text!r}"
    assert all("/3 files" in b and "left" in b for b in bars), bars
    # the last thing on the terminal is the summary, on a line of its own
    last = text.rstrip("\r\n").split("\r")[-1].split("\n")[-1]
    last = last.removeprefix("\x1b[K")  # the bar erased: the rest of its line cleared
    assert last.startswith("gfir: 3 jobs: 3 written, 0 done before, 0 failed"), repr(last)


if __name__ == "__main__":
    sys.exit(test_batch.main())
