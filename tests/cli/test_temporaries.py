#!/usr/bin/python3
"""No stray temporaries (issue 25): OUTPUT's temporary file is made, renamed
and removed through the directory it was made in, so moving or swapping that
directory mid-run cannot strand it.

    test_temporaries.py GFIR GROUP   runs one group: moved

The stale-file sweep of single runs is tested in test_safety.py
(stale_temporary_files_cleaned), batch's in tests/batch/test_batch.py
(killed_run_finishes_on_rerun) and tests/batch/test_limits.py.
Exit 77 (skipped) without NumPy and SciPy.
"""
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_cli  # noqa: E402  (sets GFIR from argv, exits 77 without NumPy)
from test_cli import GFIR, REL_L2, conv, read, rel_l2, test  # noqa: E402
from test_safety import env_for  # noqa: E402

np = test_cli.np


def temporaries(d):
    return sorted(os.path.join(root, f) for root, _, files in os.walk(d.path)
                  for f in files if ".gfir-" in f)


def start_in(d, directory):
    """A run writing DIRECTORY/out.wav from a FIFO fed half its input: it is
    under way, its temporary file has bytes in it, and it waits for the
    rest, which finish() gives it."""
    x = d.noise(48000 * 4, 2)
    d.wav("x.wav", x)
    data = open(d.p("x.wav"), "rb").read()
    x = read(d.p("x.wav"))[1]
    taps = d.noise(31)
    d.text("t.txt", " ".join(repr(float(v)) for v in taps))
    os.mkfifo(d.p("in.wav"))
    p = subprocess.Popen([GFIR, "in.wav", f"{directory}/out.wav", "--taps", "t.txt",
                          "--align", "causal", "--backend", "cpu", "--block", "4096"],
                         cwd=d.path, env=env_for(d), stderr=subprocess.PIPE, text=True)
    fifo = open(d.p("in.wav"), "wb")
    fifo.write(data[:len(data) // 2])
    fifo.flush()
    deadline = time.monotonic() + 30
    while not (temporaries(d) and os.path.getsize(temporaries(d)[0]) > 0):
        assert p.poll() is None and time.monotonic() < deadline, "no temporary file appeared"
        time.sleep(0.01)

    def finish():
        fifo.write(data[len(data) // 2:])
        fifo.close()
        _, err = p.communicate(timeout=60)
        return err
    return p, finish, x, taps


@test("moved")
def directory_moved_mid_run(d):
    # finished: OUTPUT appears in the directory it was made in, now named moved/
    os.makedirs(d.p("sub"))
    p, finish, x, taps = start_in(d, "sub")
    os.rename(d.p("sub"), d.p("moved"))
    err = finish()
    assert p.returncode == 0, err
    assert temporaries(d) == [], temporaries(d)
    assert rel_l2(read(d.p("moved/out.wav"))[1], conv(x, taps, "causal")) < REL_L2
    assert not os.path.exists(d.p("sub"))


@test("moved")
def directory_swapped_mid_run(d):
    # swapped for another: the new directory gets nothing, the old one OUTPUT
    os.makedirs(d.p("sub"))
    p, finish, x, taps = start_in(d, "sub")
    os.rename(d.p("sub"), d.p("old"))
    os.makedirs(d.p("sub"))
    err = finish()
    assert p.returncode == 0, err
    assert temporaries(d) == [] and os.listdir(d.p("sub")) == [], temporaries(d)
    assert rel_l2(read(d.p("old/out.wav"))[1], conv(x, taps, "causal")) < REL_L2


@test("moved")
def directory_moved_then_signal(d):
    # SIGTERM after the move: the temporary file goes from where it is now
    os.makedirs(d.p("sub"))
    p, finish, _, _ = start_in(d, "sub")
    os.rename(d.p("sub"), d.p("moved"))
    p.send_signal(signal.SIGTERM)
    p.communicate(timeout=60)
    try:
        finish()
    except BrokenPipeError:
        pass
    assert p.returncode == -signal.SIGTERM, p.returncode
    assert temporaries(d) == [], temporaries(d)
    assert os.listdir(d.p("moved")) == []


if __name__ == "__main__":
    sys.exit(test_cli.main())
