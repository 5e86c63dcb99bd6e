#!/usr/bin/python3
"""gfir batch's habits beyond exactly-once: the manifest as an operand,
--force, and a job whose input changed done again.

    test_redo.py GFIR redo

Outputs are checked against the harness's float64 reference (batchlib), so a
job redone from a changed input must hold the new input filtered, not merely
a new file.
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_batch as tb  # noqa: E402  (the harness: exits 77 without NumPy)
from test_batch import Dir, receipts_by_output, test  # noqa: E402
from batchlib import check_output, room, write_wav  # noqa: E402


def summary(stderr):
    return [l for l in stderr.splitlines() if " jobs: " in l][-1]


@test("redo")
def operand_force_and_changed_input(d):
    inputs = d.corpus(3)
    write_wav(d.p("room.wav"), room(d.rng, 300))
    rows = d.jobs(inputs, ir="room.wav")
    d.manifest("jobs.tsv", rows)
    # the manifest as an operand, as --manifest
    r = d.gfir("jobs.tsv")
    assert "3 written, 0 done before" in summary(r.stderr), r.stderr
    r = d.gfir("--manifest", "jobs.tsv")
    assert "0 written, 3 done before" in summary(r.stderr), r.stderr
    receipts = receipts_by_output(d, "jobs.tsv.receipts")
    for row in rows:
        rec = receipts[row["output"]]
        st = os.stat(d.p(row["input"]))
        assert rec["input_bytes"] == st.st_size and rec["input_mtime_ns"] == st.st_mtime_ns, rec
        check_output(row, rec, base=d.path)
    # --force: every job again, each output the same samples
    before = {row["output"]: os.stat(d.p(row["output"])).st_mtime_ns for row in rows}
    time.sleep(0.01)
    r = d.gfir("jobs.tsv", "--force")
    assert "3 written, 0 done before" in summary(r.stderr), r.stderr
    for row in rows:
        assert os.stat(d.p(row["output"])).st_mtime_ns != before[row["output"]]
    # one input rewritten with other samples: that job alone is redone, from
    # the new samples
    write_wav(d.p(inputs[1]), d.rng.standard_normal(4321) * 0.1)
    r = d.gfir("jobs.tsv")
    assert "1 written, 2 done before" in summary(r.stderr), r.stderr
    latest = {}
    for rec in tb.read_receipts(d.p("jobs.tsv.receipts")):
        latest[rec["output"]] = rec     # a forced or redone job's newest receipt
    check_output(rows[1], latest[rows[1]["output"]], base=d.path)
    assert latest[rows[1]["output"]]["frames"] == 4321 + 300 - 1
    # only touched: the same bytes, a new time, redone too (gfir cannot know)
    os.utime(d.p(inputs[2]), ns=(time.time_ns(), time.time_ns()))
    r = d.gfir("jobs.tsv")
    assert "1 written, 2 done before" in summary(r.stderr), r.stderr
    # --force only runs jobs: it is wrong usage with --merge
    r = d.gfir("jobs.tsv", "--merge", "all.jsonl", "--force", expect=2)
    assert "--force applies only to running jobs" in r.stderr, r.stderr


@test("redo")
def receipts_without_input_facts_are_redone(d):
    """A receipt written before gfir recorded its input says nothing of it:
    the job is done again rather than trusted."""
    inputs = d.corpus(2)
    write_wav(d.p("room.wav"), room(d.rng, 200))
    d.manifest("jobs.tsv", d.jobs(inputs, ir="room.wav"))
    d.gfir("jobs.tsv")
    path = d.p("jobs.tsv.receipts", "shard-0-of-1.jsonl")
    with open(path) as f:
        lines = f.read().splitlines()
    old = [l[: l.index(',"input_bytes"')] + "}" for l in lines]
    with open(path, "w") as f:
        f.write("\n".join(old) + "\n")
    r = d.gfir("jobs.tsv")
    assert "2 written, 0 done before" in summary(r.stderr), r.stderr


if __name__ == "__main__":
    sys.exit(tb.main())
