#!/usr/bin/python3
"""End-to-end tests of `gfir batch`.

    test_batch.py GFIR GROUP     runs one group: manifest, shards, run, once,
                                 files (what each job may write), disk (other
                                 writers, file systems that cannot sync)

The files and disk groups need strace (tools/setup.sh installs it) to hold
gfir at a system call or make one fail.

Every test makes its corpus here with NumPy, runs the built executable and
checks exit codes, the lines on stderr, the outputs (against float64 NumPy,
or sample for sample against single-file gfir) and the receipts.
Exit status 77 (skipped) when NumPy or SciPy is missing.
"""
import fcntl
import os
import re
import resource
import shlex
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time

try:
    import numpy as np
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from batchlib import (RATE, check_output, loudest, read_receipts, read_wav, reference,
                          rel_l2, room, run, temporaries, write_manifest, write_wav, ir_of)
except ImportError:
    print("test_batch: needs numpy and scipy (Debian: python3-numpy python3-scipy)")
    sys.exit(77)

GFIR = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else ""
TESTS = {}


def test(group):
    def add(fn):
        TESTS.setdefault(group, []).append(fn)
        return fn
    return add


class Dir:
    def __init__(self, path):
        self.path = path
        self.rng = np.random.default_rng(20261123)

    def p(self, *names):
        return os.path.join(self.path, *names)

    def gfir(self, *args, expect=0, env=None, timeout=300):
        return run(GFIR, ["batch", *args], self.path, expect=expect, env=env, timeout=timeout)

    def corpus(self, n, frames=(3000, 6000), rooms=0, room_taps=400, channels=1, rate=RATE,
               prefix="in"):
        """n inputs in in/; rooms IRs in rooms/ (half of them one level down)."""
        inputs = []
        for i in range(n):
            shape = int(self.rng.integers(*frames))
            shape = (shape,) if channels == 1 else (shape, channels)
            path = f"{prefix}/u{i:04d}.wav"
            write_wav(self.p(path), self.rng.standard_normal(shape) * 0.1, rate)
            inputs.append(path)
        for k in range(rooms):
            sub = "rooms/deep" if k % 2 else "rooms"
            write_wav(self.p(f"{sub}/r{k:02d}.wav"), room(self.rng, room_taps), rate)
        return inputs

    def jobs(self, inputs, out="out", **fields):
        return [dict(id=f"utt{i}", input=x, output=f"{out}/{os.path.basename(x)}", **fields)
                for i, x in enumerate(inputs)]

    def manifest(self, name, rows):
        return write_manifest(self.p(name), rows)


def receipts_by_output(d, directory):
    got = {}
    for r in read_receipts(d.p(directory)):
        assert r["output"] not in got, f"two receipts for {r['output']}"
        got[r["output"]] = r
    return got


def error_lines(stderr):
    return [l for l in stderr.splitlines() if l.startswith("gfir: ")]


# ---- manifest: layouts and bad lines ------------------------------------------

@test("manifest")
def layouts_agree(d):
    """The same jobs as TSV, CSV (a quoted path with a comma and a quote) and
    JSONL (NeMo-style extra keys) give the same, correct outputs."""
    inputs = d.corpus(6)
    write_wav(d.p("room one.wav"), room(d.rng, 300))
    os.rename(d.p(inputs[0]), d.p('in/odd, "name".wav'))
    inputs[0] = 'in/odd, "name".wav'
    for layout in ("tsv", "csv", "jsonl"):
        rows = d.jobs(inputs, out=f"out-{layout}", ir="room one.wav")
        rows[2]["align"] = "same"
        rows[3]["gain"] = "-6"
        if layout == "jsonl":
            for r in rows:
                r.update(text="hello", duration=0.3, words=[{"w": "hi", "t": [0, 1]}])
            rows[3]["gain"] = -6
        d.manifest(f"jobs.{layout}", rows)
        d.gfir("--manifest", f"jobs.{layout}", "-q")
        receipts = receipts_by_output(d, f"jobs.{layout}.receipts")
        assert len(receipts) == 6
        for r in rows:
            check_output(r, receipts[r["output"]], base=d.path)
    for i in range(6):
        a = read_wav(d.p("out-tsv", os.path.basename(inputs[i])))[1]
        for layout in ("csv", "jsonl"):
            b = read_wav(d.p(f"out-{layout}", os.path.basename(inputs[i])))[1]
            assert np.array_equal(a, b), f"{layout} differs from tsv for {inputs[i]}"


@test("manifest")
def bad_lines_are_named(d):
    """Every bad line is reported with its number, and nothing runs."""
    d.corpus(2)
    write_wav(d.p("ir.wav"), room(d.rng, 100))
    rows = [
        "id\tinput\toutput\tir\tpreset\tgain\talign\tseed\tformat",
        "a\tin/u0000.wav\tout/a.wav\tir.wav\t\t\t\t\t",            # 2: good
        "b\tin/u0001.wav\t\tir.wav\t\t\t\t\t",                    # 3: no output
        "c\tin/u0001.wav\tout/c.wav\tir.wav\t\tloud\t\t\t",       # 4: gain
        "d\tin/u0001.wav\tout/d.wav\tir.wav\t\t\tmiddle\t\t",     # 5: align
        "e\tin/u0001.wav\tout/e.wav\tir.wav",                     # 6: fields
        "f\tin/u0001.wav\tout/a.wav\tir.wav\t\t\t\t\t",           # 7: output again
        "g\tin/u0001.wav\tin/u0001.wav\tir.wav\t\t\t\t\t",        # 8: input as output
        "h\tin/u0001.wav\tout/h.wav\tir.wav\t\t\t\t-1\t",         # 9: seed
        "i\tin/u0001.wav\tout/i.wav\t\tnosuchpreset\t\t\t\t",     # 10: preset
        "j\tin/u0001.wav\tout/j.mp9\tir.wav\t\t\t\t\t",           # 11: extension
        "k\tin/u0001.wav\tout/k.wav\t\t\t\t\t\t",                 # 12: no filter
        "l\tin/u0001.wav\tout/l.wav\tir.wav\t\t\t\t\twav:pcm7",   # 13: format
        "m\tin/u0001.wav\tout/m.wav\tir.wav\t\t3\tfull\t7\tflac", # 14: good
    ]
    with open(d.p("jobs.tsv"), "w") as f:
        f.write("\n".join(rows) + "\n")
    r = d.gfir("--manifest", "jobs.tsv", expect=1)
    lines = error_lines(r.stderr)
    want = {3: "no output", 4: "loud", 5: "middle", 6: "4 fields", 7: "line 2's output",
            8: "is the input", 9: "seed '-1'", 10: "nosuchpreset", 11: "mp9", 12: "no filter",
            13: "pcm7"}
    for line, words in want.items():
        hits = [l for l in lines if l.startswith(f"gfir: jobs.tsv:{line}: ")]
        assert len(hits) == 1, f"line {line}: {hits} in\n{r.stderr}"
        assert words in hits[0], f"line {line}: '{words}' not in {hits[0]}"
    assert not any(re.match(r"gfir: jobs\.tsv:(2|14):", l) for l in lines), r.stderr
    assert lines[-1] == "gfir: jobs.tsv: 11 bad lines; nothing was run", lines[-1]
    assert not os.path.exists(d.p("out")) and not os.path.exists(d.p("jobs.tsv.receipts"))


@test("manifest")
def bad_headers_and_json(d):
    d.corpus(1)
    write_wav(d.p("ir.wav"), room(d.rng, 100))
    with open(d.p("a.csv"), "w") as f:
        f.write("input,output,gian\nin/u0000.wav,out/x.wav,3\n")
    r = d.gfir("--manifest", "a.csv", "--ir", "ir.wav", expect=1)
    assert "gfir: a.csv:1: unknown column 'gian'" in r.stderr, r.stderr
    with open(d.p("b.csv"), "w") as f:
        f.write("input,ir\nin/u0000.wav,ir.wav\n")
    r = d.gfir("--manifest", "b.csv", expect=1)
    assert "gfir: b.csv:1: the header needs an input and an output column" in r.stderr
    with open(d.p("c.jsonl"), "w") as f:
        f.write('{"input": "in/u0000.wav", "output": "out/1.wav", "ir": "ir.wav"}\n'
                '{"input": "in/u0000.wav", "output": "out/2.wav" "ir": "ir.wav"}\n'
                '\n{"input": "in/u0000.wav", "output": "out/3.wav", "gain": true}\n'
                '{"input": "in/u0000.wav", "output": "out/4.wav", "ir": ["ir.wav"]}\n')
    r = d.gfir("--manifest", "c.jsonl", "--ir", "ir.wav", expect=1)
    lines = error_lines(r.stderr)
    # jansson's words, at the byte where it stopped (the end of "ir")
    assert lines[0] == "gfir: c.jsonl:2: column 52: '}' expected near '\"ir\"'", lines
    assert lines[1] == "gfir: c.jsonl:4: 'gain' must be a string or a number", lines
    assert lines[2] == "gfir: c.jsonl:5: 'ir' must be a string or a number", lines
    # a name that is not UTF-8 could not be written in its JSON receipt
    with open(d.p("u.tsv"), "wb") as f:
        f.write(b"input\toutput\nin/u0000.wav\tout/\xff.wav\n")
    r = d.gfir("--manifest", "u.tsv", "--ir", "ir.wav", expect=1)
    assert "gfir: u.tsv:2: the input, output or id is not UTF-8" in r.stderr, r.stderr
    assert not os.path.exists(d.p("out"))
    with open(d.p("d.tsv"), "w") as f:
        f.write("input\toutput\n")
    r = d.gfir("--manifest", "d.tsv", "--ir", "ir.wav", expect=1)
    assert "has no jobs" in r.stderr
    with open(d.p("e.tsv"), "w") as f:
        f.write("input\toutput\n" + "".join(f"in/u0000.wav\n" for _ in range(30)))
    r = d.gfir("--manifest", "e.tsv", "--ir", "ir.wav", expect=1)
    lines = error_lines(r.stderr)
    assert len(lines) == 22 and lines[-2] == "gfir: e.tsv: 10 more bad lines", lines[-3:]
    r = d.gfir("--manifest", "missing.tsv", expect=1)
    assert "missing.tsv" in r.stderr and "No such file" in r.stderr
    r = d.gfir("--manifest", "e.tsv", "extra", expect=2)
    assert "the manifest is 'e.tsv' already" in r.stderr
    r = d.gfir("e.tsv", "extra", expect=2)
    assert "takes one MANIFEST ('extra' is a second)" in r.stderr
    r = d.gfir("--ir", "ir.wav", expect=2)
    assert "no MANIFEST" in r.stderr
    r = d.gfir("--manifest", "e.tsv", "--jobs", "0", expect=2)
    assert "--jobs 0" in r.stderr


@test("manifest")
def merge_takes_only_its_own_options(d):
    """--merge runs no job: options that only tune running them (the shard,
    workers, engine) are usage errors, as for gfir INPUT OUTPUT; the filter's
    options stay, since the receipts must match its recipes."""
    d.corpus(1)
    write_wav(d.p("ir.wav"), room(d.rng, 100))
    d.manifest("jobs.tsv", d.jobs(["in/u0000.wav"], ir="ir.wav"))
    d.gfir("--manifest", "jobs.tsv", "-q")
    for extra in (["--shard", "0/2"], ["--shards", "2"], ["--jobs", "2"], ["--backend", "cpu"],
                  ["--kernel", "direct"], ["--block", "1024"], ["--no-fold"]):
        r = d.gfir("--manifest", "jobs.tsv", "--merge", "all.jsonl", *extra, expect=2)
        lines = error_lines(r.stderr)
        assert lines and f"{extra[0]} applies only to running jobs, not to --merge" in lines[0], \
            r.stderr
        assert not os.path.exists(d.p("all.jsonl"))
    d.gfir("--manifest", "jobs.tsv", "--merge", "all.jsonl", "--align", "full", "--seed", "0")
    assert len(open(d.p("all.jsonl")).readlines()) == 1


# ---- shards -----------------------------------------------------------------------

@test("shards")
def shards_partition_the_manifest(d):
    inputs = d.corpus(11, frames=(1000, 2000))
    write_wav(d.p("ir.wav"), room(d.rng, 64))
    rows = d.jobs(inputs, ir="ir.wav")
    d.manifest("jobs.tsv", rows)
    for k in range(3):
        r = d.gfir("--manifest", "jobs.tsv", "--shard", f"{k}/3")
        assert f"shard {k}/3 (--shard): {len(range(k, 11, 3))} jobs:" in r.stderr, r.stderr
    seen = {}
    for k in range(3):
        for rec in read_receipts_file(d.p("jobs.tsv.receipts", f"shard-{k}-of-3.jsonl")):
            index = rec["line"] - 2
            assert index % 3 == k, f"job {index} ran in shard {k}"
            assert index not in seen
            seen[index] = rec
    assert sorted(seen) == list(range(11))
    for i, row in enumerate(rows):
        check_output(row, seen[i], base=d.path)
    d.gfir("--manifest", "jobs.tsv", "--merge", "all.jsonl")
    merged = [json_line for json_line in open(d.p("all.jsonl")).read().splitlines()]
    assert [int(re.search(r'"line":(\d+)', l).group(1)) for l in merged] == list(range(2, 13))


def read_receipts_file(path):
    import json
    with open(path) as f:
        return [json.loads(l) for l in f]


@test("shards")
def shard_from_the_environment(d):
    inputs = d.corpus(7, frames=(1000, 2000))
    write_wav(d.p("ir.wav"), room(d.rng, 64))
    d.manifest("jobs.tsv", d.jobs(inputs, ir="ir.wav"))
    slurm = {"SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_COUNT": "3",
             "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_MAX": "3"}
    r = d.gfir("--manifest", "jobs.tsv", env=slurm)
    assert "shard 2/3 (SLURM_ARRAY_TASK_ID=3): 2 jobs" in r.stderr, r.stderr
    lines = [x["line"] for x in read_receipts_file(d.p("jobs.tsv.receipts/shard-2-of-3.jsonl"))]
    assert sorted(lines) == [4, 7], lines
    r = d.gfir("--manifest", "jobs.tsv", "--shards", "3", env={"JOB_COMPLETION_INDEX": "1"})
    assert "shard 1/3 (JOB_COMPLETION_INDEX=1): 2 jobs" in r.stderr, r.stderr
    r = d.gfir("--manifest", "jobs.tsv", env={"JOB_COMPLETION_INDEX": "1"}, expect=2)
    assert "--shards" in r.stderr
    r = d.gfir("--manifest", "jobs.tsv", "--shard", "3/3", expect=2)
    assert "below N" in r.stderr
    listed = dict(slurm, SLURM_ARRAY_TASK_MAX="9")
    r = d.gfir("--manifest", "jobs.tsv", env=listed, expect=2)
    assert "not one range" in r.stderr
    r = d.gfir("--manifest", "jobs.tsv")     # every shard's receipts count
    assert "7 jobs: 3 written, 4 done before" in r.stderr, r.stderr


@test("shards")
def growing_manifest_keeps_shards(d):
    """Jobs appended at the end leave every earlier job in its shard: a rerun
    of each shard does only the new ones."""
    inputs = d.corpus(13, frames=(1000, 2000))
    write_wav(d.p("ir.wav"), room(d.rng, 64))
    rows = d.jobs(inputs, ir="ir.wav")
    d.manifest("jobs.tsv", rows[:9])
    for k in range(3):
        d.gfir("--manifest", "jobs.tsv", "--shard", f"{k}/3")
    stamps = {r["output"]: os.stat(d.p(r["output"])).st_mtime_ns for r in rows[:9]}
    d.manifest("jobs.tsv", rows)
    for k in range(3):
        new = len([i for i in range(9, 13) if i % 3 == k])
        r = d.gfir("--manifest", "jobs.tsv", "--shard", f"{k}/3")
        assert f"{new} written, 3 done before, 0 failed" in r.stderr, r.stderr
    for out, ns in stamps.items():
        assert os.stat(d.p(out)).st_mtime_ns == ns, f"{out} was written again"
    d.gfir("--manifest", "jobs.tsv", "--merge", "all.jsonl")
    assert len(open(d.p("all.jsonl")).readlines()) == 13


# ---- run: filters, plans, failures --------------------------------------------

@test("run")
def ir_sets_are_seeded(d):
    """An ir naming a directory (or a list of the same files) gives each job
    one room, the same for the same seed and id, and the output is that
    room's convolution."""
    inputs = d.corpus(24, rooms=6)
    with open(d.p("rooms", "list.txt"), "w") as f:
        f.write("# the same rooms, listed\n" +
                "".join(f"{'deep/' if k % 2 else ''}r{k:02d}.wav\n" for k in (5, 3, 1, 0, 2, 4)))
    d.manifest("dir.tsv", d.jobs(inputs, out="a", ir="rooms"))
    d.manifest("list.tsv", d.jobs(inputs, out="b", ir="rooms/list.txt"))
    d.manifest("seeded.tsv", d.jobs(inputs, out="c", ir="rooms", seed=99))
    for name in ("dir", "list", "seeded"):
        d.gfir("--manifest", f"{name}.tsv", "-q")
    a = receipts_by_output(d, "dir.tsv.receipts")
    b = receipts_by_output(d, "list.tsv.receipts")
    c = receipts_by_output(d, "seeded.tsv.receipts")
    picks = {os.path.basename(o): ir_of(r) for o, r in a.items()}
    assert len(set(picks.values())) >= 4, f"24 jobs took only {set(picks.values())}"
    assert picks == {os.path.basename(o): ir_of(r) for o, r in b.items()}
    seeded = {os.path.basename(o): ir_of(r) for o, r in c.items()}
    assert sum(picks[k] != seeded[k] for k in picks) >= 8, "another seed, other rooms"
    for row in d.jobs(inputs, out="a", ir="rooms"):
        check_output(row, a[row["output"]], base=d.path)
    shutil.rmtree(d.p("a"))
    shutil.rmtree(d.p("dir.tsv.receipts"))
    d.gfir("--manifest", "dir.tsv", "--shard", "1/2", "-q")
    again = receipts_by_output(d, "dir.tsv.receipts")
    assert all(ir_of(r) == ir_of(a[o]) for o, r in again.items()), "the seed's rooms changed"
    r = d.gfir("--manifest", "dir.tsv", "--seed", "5", "-q")
    d.manifest("empty.tsv", d.jobs(inputs, out="e", ir="in"))
    r = d.gfir("--manifest", "empty.tsv", expect=0)
    os.makedirs(d.p("nothing"))
    d.manifest("none.tsv", d.jobs(inputs[:1], out="f", ir="nothing"))
    r = d.gfir("--manifest", "none.tsv", expect=1)
    assert "gfir: none.tsv:2: 'nothing' lists no IRs" in r.stderr, r.stderr


@test("run")
def same_samples_as_single_file_gfir(d):
    """Each receipt's filter, given to gfir INPUT OUTPUT, makes the same
    samples: presets, taps, IRs, gains, alignments and formats per row, and
    the command line's filter for rows without one."""
    inputs = d.corpus(8, frames=(4000, 9000))
    stereo = d.corpus(2, channels=2, rate=48000, prefix="st")
    write_wav(d.p("ir.wav"), room(d.rng, 900))
    np.savetxt(d.p("h.txt"), d.rng.standard_normal(31) * 0.2)
    rows = d.jobs(inputs) + d.jobs(stereo, out="out-st")
    rows[0].update(preset="lowpass:cutoff_hz=3000")
    rows[1].update(taps="h.txt", align="causal")
    rows[2].update(ir="ir.wav", gain="-4.5")
    rows[3].update(ir="ir.wav", align="same", format="flac:pcm24")
    rows[4].update(preset="telephone", taps="h.txt")
    rows[5].update(gain="2")
    rows[8].update(preset="rumble", format="wav:pcm16")
    rows[9].update(ir="ir.wav")
    d.manifest("jobs.tsv", rows)
    d.gfir("--manifest", "jobs.tsv", "--taps", "h.txt", "--align", "full", "-q")
    receipts = receipts_by_output(d, "jobs.tsv.receipts")
    assert len(receipts) == len(rows)
    for row in rows:
        rec = receipts[row["output"]]
        run(GFIR, [row["input"], "single.wav", *shlex.split(rec["filter"]), "-q"], d.path)
        if "flac" in rec["filter"]:     # FLAC's header holds no time: the bytes must agree
            same = open(d.p(row["output"]), "rb").read() == open(d.p("single.wav"), "rb").read()
        else:                           # a float WAV's PEAK chunk holds the time of writing
            same = np.array_equal(read_wav(d.p(row["output"]))[1], read_wav(d.p("single.wav"))[1])
        assert same, f"{row['id']}: batch and gfir differ ({rec['filter']})"
    assert receipts["out/u0005.wav"]["filter"] == "--taps h.txt --gain 2 --align full"
    assert receipts["out/u0003.wav"]["filter"] == \
        "--ir ir.wav --align same --format flac:pcm24"
    _, h = read_wav(d.p("ir.wav"))
    _, x = read_wav(d.p(inputs[2]))
    want = reference(x, h / loudest(h), "full") * 10 ** (-4.5 / 20)
    assert rel_l2(read_wav(d.p(rows[2]["output"]))[1], want) < 1e-5


@test("run")
def plans_are_reused(d):
    """One worker builds each filter's plans once per channel layout (and
    rate), however the manifest interleaves them, and every output is right."""
    mono = d.corpus(6, frames=(3000, 5000))
    stereo = d.corpus(6, frames=(3000, 5000), channels=2, prefix="st")
    for k in range(3):
        write_wav(d.p(f"ir{k}.wav"), room(d.rng, 200 + 50 * k))
    rows = []
    for i in range(6):
        for src in (mono, stereo):
            rows.append(dict(input=src[i], output=f"out/{len(rows)}.wav", ir=f"ir{i % 3}.wav"))
    d.manifest("jobs.tsv", rows)
    r = d.gfir("--manifest", "jobs.tsv", "--jobs", "1", "-v")
    builds = [l for l in r.stderr.splitlines() if "backend" in l and "taps x" in l]
    assert len(builds) == 6, f"{len(builds)} plans built for 3 filters x 2 layouts:\n{r.stderr}"
    receipts = receipts_by_output(d, "jobs.tsv.receipts")
    for row in rows:
        check_output(row, receipts[row["output"]], base=d.path)


@test("run")
def bad_files_do_not_stop_the_shard(d):
    inputs = d.corpus(5)
    write_wav(d.p("ir.wav"), room(d.rng, 100))
    with open(d.p("in", "text.wav"), "w") as f:
        f.write("this is not a sound file\n")
    rows = d.jobs(inputs, ir="ir.wav")
    rows[1]["input"] = "in/missing.wav"
    rows[2]["input"] = "in/text.wav"
    rows[3]["output"] = "in/u0000.wav/x.wav"
    rows[4]["ir"] = "noroom.wav"
    rows.append(dict(input=inputs[0], output="out/ok2.wav", ir="ir.wav"))
    d.manifest("jobs.tsv", rows)
    r = d.gfir("--manifest", "jobs.tsv", "--jobs", "2", expect=1)
    lines = error_lines(r.stderr)
    want = {3: "missing.wav", 4: "text.wav", 5: "in/u0000.wav", 6: "noroom.wav"}
    for line, words in want.items():
        hits = [l for l in lines if l.startswith(f"gfir: jobs.tsv:{line}: ")]
        assert len(hits) == 1 and words in hits[0], f"line {line}: {hits}"
    assert lines[-1].startswith("gfir: 6 jobs: 2 written, 0 done before, 4 failed;"), lines[-1]
    assert len(lines) == 5, lines
    receipts = receipts_by_output(d, "jobs.tsv.receipts")
    assert sorted(receipts) == ["out/ok2.wav", "out/u0000.wav"]
    assert not temporaries(d.path)
    with open(d.p("in", "missing.wav"), "wb") as f:
        f.write(open(d.p(inputs[1]), "rb").read())
    r = d.gfir("--manifest", "jobs.tsv", expect=1)
    assert "1 written, 2 done before, 3 failed" in r.stderr, r.stderr


@test("run")
def receipts_count_clipping(d):
    """16-bit output of a loud job: the receipt counts the clipped samples
    and the peak before clipping, as NumPy finds them."""
    x = d.rng.standard_normal(20000) * 0.3
    write_wav(d.p("loud.wav"), x)
    h = room(d.rng, 300)
    write_wav(d.p("ir.wav"), h)
    d.manifest("jobs.tsv", [dict(input="loud.wav", output="loud16.wav", ir="ir.wav",
                                 gain="12", format="wav:pcm16")])
    r = d.gfir("--manifest", "jobs.tsv", "--no-dither", "--normalize", "none")
    assert "1 output clipped" in r.stderr, r.stderr
    rec = read_receipts(d.p("jobs.tsv.receipts"))[0]
    _, xf = read_wav(d.p("loud.wav"))
    _, hf = read_wav(d.p("ir.wav"))
    y = reference(xf, hf, "full") * 10 ** (12 / 20)
    near = int(np.sum(np.abs(np.abs(y) - 1) < 1e-5))
    assert abs(rec["clipped"] - int(np.sum(np.abs(y) > 1))) <= near, rec
    assert abs(rec["peak"] - np.max(np.abs(y))) < 1e-5 * np.max(np.abs(y)), rec
    assert rec["filter"].endswith("--format wav:pcm16 --no-dither"), rec


@test("run")
def preset_with_ir_aligns_full(d):
    """A preset holding an IR stage (the shipped hall) gets the default
    alignment of an IR, full, as single-file gfir gives it: decided from the
    filter as loaded, not from the manifest's words."""
    x = d.rng.standard_normal((48000, 2)) * 0.1
    write_wav(d.p("s2.wav"), x, 48000)
    d.manifest("jobs.tsv", [dict(input="s2.wav", output="out/hall.wav")])
    d.gfir("--manifest", "jobs.tsv", "--preset", "hall", "-q")
    run(GFIR, ["s2.wav", "single.wav", "--preset", "hall", "-q"], d.path)
    batch, single = read_wav(d.p("out/hall.wav"))[1], read_wav(d.p("single.wav"))[1]
    assert single.shape[0] > 48000, single.shape
    assert batch.shape == single.shape, f"batch {batch.shape}, gfir {single.shape}"
    assert np.array_equal(batch, single)
    rec = read_receipts(d.p("jobs.tsv.receipts"))[0]
    assert rec["filter"] == "--preset hall --align full", rec
    # a row's own preset too
    d.manifest("rows.tsv", [dict(input="s2.wav", output="out/row.wav", preset="hall")])
    d.gfir("--manifest", "rows.tsv", "-q")
    assert np.array_equal(read_wav(d.p("out/row.wav"))[1], single)


def float_wav_bytes(x, rate=RATE):
    """A float WAV as bytes, NaN and infinities kept."""
    import io
    import scipy.io.wavfile as wavfile
    b = io.BytesIO()
    wavfile.write(b, rate, np.asarray(x, dtype=np.float32))
    return b.getvalue()


@test("run")
def damaged_inputs_fail(d):
    """An input cut short (a WAV whose data chunk claims more than the file
    holds, a FLAC that ends before its header's length) fails its job with
    the reason: no output, no receipt, counted as failed, exit 1, and the
    rerun tries it again. Samples that are not finite are data, not damage:
    that job is done, with a MANIFEST:LINE warning and its receipt's count."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
    import sndfile  # tests/cli's libsndfile through ctypes: SciPy writes no FLAC
    inputs = d.corpus(3)
    write_wav(d.p("ir.wav"), room(d.rng, 100))
    x = d.rng.standard_normal(5000) * 0.1
    x[100], x[2000], x[2001] = np.nan, np.inf, -np.inf
    with open(d.p("in/nan.wav"), "wb") as f:
        f.write(float_wav_bytes(x))
    data = open(d.p(inputs[1]), "rb").read()
    with open(d.p("in/cut.wav"), "wb") as f:
        f.write(data[:-4000])
    sndfile.write(d.p("in/whole.flac"), d.rng.standard_normal(20000) * 0.1, RATE, "flac",
                  "pcm16")
    data = open(d.p("in/whole.flac"), "rb").read()
    with open(d.p("in/cut.flac"), "wb") as f:
        f.write(data[:-3000])
    rows = [dict(input="in/nan.wav", output="out/nan.wav", ir="ir.wav"),
            dict(input="in/cut.wav", output="out/cut.wav", ir="ir.wav"),
            dict(input="in/cut.flac", output="out/flac.wav", ir="ir.wav"),
            dict(input=inputs[2], output="out/whole.wav", ir="ir.wav")]
    d.manifest("jobs.tsv", rows)
    r = d.gfir("--manifest", "jobs.tsv", expect=1)
    lines = error_lines(r.stderr)
    by_line = {int(m.group(1)): l for l in lines
               for m in [re.match(r"gfir: jobs\.tsv:(\d+): ", l)] if m}
    assert sorted(by_line) == [2, 3, 4], r.stderr
    assert "warning: 3 samples of INPUT 'in/nan.wav' are not finite" in by_line[2], by_line
    assert "INPUT 'in/cut.wav' is cut short" in by_line[3] and "4000 bytes" in by_line[3], \
        by_line
    assert re.search(r"INPUT 'in/cut\.flac' ended after \d+ frames, \d+ short of what its "
                     r"header promised", by_line[4]), by_line
    assert "4 jobs: 2 written, 0 done before, 2 failed" in r.stderr, r.stderr
    assert not os.path.exists(d.p("out/cut.wav")) and not os.path.exists(d.p("out/flac.wav"))
    assert not temporaries(d.path), temporaries(d.path)
    receipts = receipts_by_output(d, "jobs.tsv.receipts")
    assert sorted(receipts) == ["out/nan.wav", "out/whole.wav"], receipts
    assert receipts["out/nan.wav"]["nonfinite_in"] == 3, receipts["out/nan.wav"]
    whole = receipts["out/whole.wav"]
    assert (whole["nonfinite_in"], whole["nonfinite_out"]) == (0, 0), whole
    assert np.all(np.isfinite(read_wav(d.p("out/nan.wav"))[1]))
    # still damaged: tried again, failed again, nothing else redone
    r = d.gfir("--manifest", "jobs.tsv", expect=1)
    assert "4 jobs: 0 written, 2 done before, 2 failed" in r.stderr, r.stderr


@test("run")
def flac_of_unknown_length(d):
    """A FLAC whose STREAMINFO counts 0 samples (its length unknown, as
    encoders writing to a pipe leave it) is whole: its job is done and
    matches the reference, and the single-file run says nothing of damage.
    libsndfile gives such a file SF_COUNT_MAX frames, which gfir once took
    for a promise and failed the job as cut short."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
    import sndfile  # tests/cli's libsndfile through ctypes: SciPy writes no FLAC
    os.makedirs(d.p("in"))
    x = d.rng.standard_normal(20000) * 0.1
    sndfile.write(d.p("in/known.flac"), x, RATE, "flac", "pcm16")
    data = bytearray(open(d.p("in/known.flac"), "rb").read())
    assert data[:4] == b"fLaC" and data[4] & 0x7F == 0, "STREAMINFO comes first"
    # the 36-bit total: the low 4 bits of byte 21, then bytes 22 to 25
    assert (data[21] & 0x0F, bytes(data[22:26])) != (0, bytes(4)), "the length is recorded"
    data[21] &= 0xF0
    data[22:26] = bytes(4)
    with open(d.p("in/unknown.flac"), "wb") as f:
        f.write(data)
    h = room(d.rng, 300)
    write_wav(d.p("ir.wav"), h)
    d.manifest("jobs.tsv", [dict(input="in/unknown.flac", output="out/u.wav", ir="ir.wav",
                                 align="full")])
    r = d.gfir("--manifest", "jobs.tsv", "--normalize", "none")
    assert "1 written, 0 done before, 0 failed" in r.stderr, r.stderr
    _, y = read_wav(d.p("out/u.wav"))
    # 16-bit input and output, each rounded and dithered: 1e-3 is ten times
    # their noise against this signal, and far below a shifted or cut output
    e = rel_l2(y.reshape(-1), reference(x, h, "full").reshape(-1))
    assert e < 1e-3, f"rel L2 {e:.2e}"
    one = run(GFIR, ["in/unknown.flac", "single.wav", "--ir", "ir.wav", "--normalize", "none"],
              d.path)
    assert not one.stderr.strip(), one.stderr


@test("run")
def failed_write_is_the_reason(d):
    """A write that fails (here past `ulimit -f`) while its input is a pipe
    that stays open and silent: the job fails at once with the write's
    reason, in one line (it used to wait in its read for the rest of the
    input), and the other jobs are done."""
    write_wav(d.p("long.wav"), d.rng.standard_normal((8 * RATE, 2)) * 0.1)
    data = open(d.p("long.wav"), "rb").read()
    os.makedirs(d.p("in"))
    os.mkfifo(d.p("in/long.wav"))
    inputs = d.corpus(2)
    write_wav(d.p("ir.wav"), room(d.rng, 100))
    rows = [dict(input="in/long.wav", output="out/long.wav", ir="ir.wav")] + \
        d.jobs(inputs, ir="ir.wav")
    d.manifest("jobs.tsv", rows)
    env = dict(os.environ, HOME=d.path, GFIR_FFTW_PLANNER="estimate")

    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (200000, 200000))
    # blocks of 4096 frames: what comes through the pipe is filtered and written
    proc = subprocess.Popen([GFIR, "batch", "--manifest", "jobs.tsv", "--block", "4096"],
                            cwd=d.path, env=env, stderr=subprocess.PIPE, text=True,
                            preexec_fn=limit)
    fifo = open(d.p("in/long.wav"), "wb")
    try:
        fifo.write(data[:len(data) // 4])    # 2 s of 8, then nothing, the pipe open
        fifo.flush()
        err = proc.communicate(timeout=60)[1]
    except subprocess.TimeoutExpired:
        err = None
    finally:
        try:
            fifo.close()
        except OSError:
            pass
        if err is None:
            err = proc.communicate(timeout=60)[1]
            raise AssertionError(f"gfir batch waited for the input pipe: {err}")
    assert proc.returncode == 1, err
    lines = [l for l in error_lines(err) if l.startswith("gfir: jobs.tsv:")]
    assert len(lines) == 1 and lines[0].startswith("gfir: jobs.tsv:2: ") and \
        "File too large" in lines[0], err
    assert "3 jobs: 2 written, 0 done before, 1 failed" in err, err
    assert not os.path.exists(d.p("out/long.wav")) and not temporaries(d.path)


# ---- exactly once ------------------------------------------------------------------

@test("once")
def rerun_skips_what_is_done(d):
    inputs = d.corpus(10)
    write_wav(d.p("ir.wav"), room(d.rng, 100))
    rows = d.jobs(inputs, ir="ir.wav")
    d.manifest("jobs.tsv", rows)
    d.gfir("--manifest", "jobs.tsv")
    stamps = {r["output"]: os.stat(d.p(r["output"])).st_mtime_ns for r in rows}
    r = d.gfir("--manifest", "jobs.tsv")
    assert "0 written, 10 done before, 0 failed" in r.stderr, r.stderr
    with open(d.p(rows[3]["output"]), "ab") as f:
        f.write(b"\0")
    rows[6]["gain"] = "-1"
    d.manifest("jobs.tsv", rows)
    r = d.gfir("--manifest", "jobs.tsv")
    assert "2 written, 8 done before, 0 failed" in r.stderr, r.stderr
    for i, row in enumerate(rows):
        changed = os.stat(d.p(row["output"])).st_mtime_ns != stamps[row["output"]]
        assert changed == (i in (3, 6)), f"{row['output']}: rewritten {changed}"
        check_output(row, base=d.path)
    d.gfir("--manifest", "jobs.tsv", "--merge", "all.jsonl")
    merged = [l for l in open(d.p("all.jsonl"))]
    assert len(merged) == 10 and '"filter":"--ir ir.wav --gain -1 --align full"' in merged[6]
    os.remove(d.p(rows[8]["output"]))
    r = d.gfir("--manifest", "jobs.tsv", "--merge", "again.jsonl", expect=1)
    assert "gfir: jobs.tsv:10: no receipt for OUTPUT 'out/u0008.wav'" in r.stderr, r.stderr
    assert not os.path.exists(d.p("again.jsonl"))


class Held:
    """A job whose input is a FIFO fed halfway: with one worker, the shard
    does every job before it, then holds in the middle of writing its
    output, for as long as the test wants: a kill lands there every time."""

    def __init__(self, d, name, frames=400000):
        self.whole = d.p(name + ".whole.wav")
        write_wav(self.whole, d.rng.standard_normal(frames) * 0.1)
        self.fifo = d.p(name)
        os.mkfifo(self.fifo)
        self.release = threading.Event()
        self.thread = threading.Thread(target=self.feed, daemon=True)
        self.thread.start()

    def feed(self):
        data = open(self.whole, "rb").read()
        try:
            with open(self.fifo, "wb") as f:    # waits for gfir to open it
                f.write(data[:len(data) // 2])
                f.flush()
                self.release.wait(60)
        except BrokenPipeError:
            pass

    def fill(self):
        """The whole input in the FIFO's place, for the run after."""
        self.release.set()
        self.thread.join(10)
        os.remove(self.fifo)
        shutil.copy(self.whole, self.fifo)


def start_held(d, n):
    """n ordinary jobs and a held one last, run by one worker; returns the
    process, the held input and the rows, once the ordinary jobs all have
    receipts and the held output's temporary file has samples in it."""
    inputs = d.corpus(n, frames=(20000, 30000))
    write_wav(d.p("ir.wav"), room(d.rng, 500))
    held = Held(d, "in/held.wav")
    rows = d.jobs(inputs + ["in/held.wav"], ir="ir.wav")
    d.manifest("jobs.tsv", rows)
    env = dict(os.environ, HOME=d.path, GFIR_FFTW_PLANNER="estimate")
    proc = subprocess.Popen([GFIR, "batch", "--manifest", "jobs.tsv", "--jobs", "1"],
                            cwd=d.path, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    shard_file = d.p("jobs.tsv.receipts", "shard-0-of-1.jsonl")
    deadline = time.monotonic() + 60

    def ready():
        tmp = temporaries(d.p("out"))
        return (os.path.exists(shard_file) and len(open(shard_file).readlines()) == n and
                len(tmp) == 1 and "held.wav" in tmp[0] and os.path.getsize(tmp[0]) > 0)
    while not ready():
        assert proc.poll() is None and time.monotonic() < deadline, "the held job never began"
        time.sleep(0.01)
    return proc, held, rows


@test("once")
def killed_run_finishes_on_rerun(d):
    """SIGKILL while an output is half-written: nothing under its name; the
    rerun, at once (as Slurm's --requeue and a restarted pod do: a temporary
    file with bytes in it and no lock is stale whatever its age), removes the
    temporary file, does that job and only that job, and every job has one
    receipt."""
    proc, held, rows = start_held(d, 12)
    proc.send_signal(signal.SIGKILL)
    assert proc.wait() == -signal.SIGKILL
    assert not os.path.exists(d.p("out", "held.wav")), "half an output under its name"
    left = temporaries(d.path)
    assert len(left) == 1
    for row in rows[:-1]:
        check_output(row, base=d.path)
    held.fill()
    assert time.time() - os.path.getmtime(left[0]) < 30
    r = d.gfir("--manifest", "jobs.tsv")
    assert "removed 1 unfinished output that a killed run left" in r.stderr, r.stderr
    assert "1 written, 12 done before, 0 failed" in r.stderr, r.stderr
    receipts = receipts_by_output(d, "jobs.tsv.receipts")
    assert sorted(receipts) == sorted(row["output"] for row in rows)
    for row in rows:
        check_output(row, receipts[row["output"]], base=d.path)
    assert not temporaries(d.path), temporaries(d.path)


@test("once")
def terminated_run_leaves_no_temporaries(d):
    """SIGTERM (Slurm's time limit, a preempted pod) while an output is
    half-written removes its temporary file; the rerun finishes."""
    proc, held, rows = start_held(d, 5)
    proc.send_signal(signal.SIGTERM)
    assert proc.wait() == -signal.SIGTERM
    assert not temporaries(d.path), temporaries(d.path)
    assert not os.path.exists(d.p("out", "held.wav"))
    held.fill()
    r = d.gfir("--manifest", "jobs.tsv")
    assert "1 written, 5 done before, 0 failed" in r.stderr, r.stderr
    assert len(receipts_by_output(d, "jobs.tsv.receipts")) == 6


@test("once")
def one_process_per_shard(d):
    inputs = d.corpus(2)
    write_wav(d.p("ir.wav"), room(d.rng, 100))
    d.manifest("jobs.tsv", d.jobs(inputs, ir="ir.wav"))
    os.makedirs(d.p("jobs.tsv.receipts"))
    with open(d.p("jobs.tsv.receipts", "shard-1-of-2.jsonl"), "a") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        r = d.gfir("--manifest", "jobs.tsv", "--shard", "1/2", expect=1)
        assert "shard 1/2 is running already" in r.stderr, r.stderr
        d.gfir("--manifest", "jobs.tsv", "--shard", "0/2")
    d.gfir("--manifest", "jobs.tsv", "--shard", "1/2")


@test("once")
def unfinished_receipt_line_is_cut(d):
    """A process killed while appending a receipt leaves half a line: the
    next run cuts it and does that job again."""
    inputs = d.corpus(4)
    write_wav(d.p("ir.wav"), room(d.rng, 100))
    d.manifest("jobs.tsv", d.jobs(inputs, ir="ir.wav"))
    d.gfir("--manifest", "jobs.tsv")
    path = d.p("jobs.tsv.receipts", "shard-0-of-1.jsonl")
    lines = open(path).readlines()
    with open(path, "w") as f:
        f.write("".join(lines[:3]) + lines[3][:40])
    r = d.gfir("--manifest", "jobs.tsv")
    assert "1 written, 3 done before" in r.stderr, r.stderr
    text = open(path).read()
    assert text.endswith("\n") and len(text.splitlines()) == 4, text


# ---- files: each output one file of its own, however it is spelt -------------------

def bad_line_words(r, want):
    """Each line of want ({line: words}) is named once, with its words."""
    lines = error_lines(r.stderr)
    for line, words in want.items():
        hits = [l for l in lines if l.startswith(f"gfir: jobs.tsv:{line}: ")]
        assert len(hits) == 1, f"line {line}: {hits} in\n{r.stderr}"
        assert words in hits[0], f"line {line}: '{words}' not in {hits[0]}"
    return lines


@test("files")
def outputs_compared_as_files(d):
    """Two names of one output (another spelling, a link, a hard link), an
    output that another row reads (as input, IR or taps, before or after
    it), the manifest, and anything in the receipts directory: each refused
    with its line, before anything runs."""
    d.corpus(4)
    write_wav(d.p("ir.wav"), room(d.rng, 100))
    write_wav(d.p("ir2.wav"), room(d.rng, 100))
    os.makedirs(d.p("out"))
    os.symlink("x.wav", d.p("out", "link.wav"))         # dangling: it names out/x.wav
    write_wav(d.p("out", "old.wav"), np.zeros(10))
    os.link(d.p("out", "old.wav"), d.p("out", "hard.wav"))
    rows = [
        "input\toutput\tir\ttaps",
        "in/u0000.wav\tout/x.wav\tir.wav\t",                       # 2: good
        "in/u0001.wav\t./out/x.wav\tir.wav\t",                     # 3: line 2's output
        "in/u0001.wav\tout/../out//x.wav\tir.wav\t",               # 4: line 2's output
        "in/u0001.wav\tout/link.wav\tir.wav\t",                    # 5: line 2's output
        "in/u0001.wav\tout/old.wav\tir.wav\t",                     # 6: good
        "in/u0002.wav\tout/hard.wav\tir.wav\t",                    # 7: line 6's output
        "in/u0002.wav\t./in/u0000.wav\tir.wav\t",                  # 8: line 2's input
        "out/x.wav\tout/y.wav\tir.wav\t",                          # 9: input is line 2's output
        "in/u0002.wav\tir2.wav\tir2.wav\t",                        # 10: its own ir
        "in/u0002.wav\tout/z.wav\tout/old.wav\t",                  # 11: ir is line 6's output
        "in/u0003.wav\th.wav\tir.wav\t",                           # 12: good: taps read later
        "in/u0003.wav\tout/t.wav\t\th.wav",                        # 13: taps is line 12's output
        "in/u0003.wav\tjobs.tsv\tir.wav\t",                        # 14: the manifest
        "in/u0003.wav\t./jobs.tsv.receipts/shard-0-of-1.jsonl\tir.wav\t",   # 15: receipts
        "in/u0003.wav\tjobs.tsv.receipts\tir.wav\t",               # 16: receipts
    ]
    with open(d.p("jobs.tsv"), "w") as f:
        f.write("\n".join(rows) + "\n")
    before = {p: open(d.p(p), "rb").read() for p in ("jobs.tsv", "ir.wav", "in/u0000.wav")}
    r = d.gfir("--manifest", "jobs.tsv", expect=1)
    lines = bad_line_words(r, {
        3: "line 2's output too", 4: "line 2's output too", 5: "line 2's output too",
        7: "line 6's output too", 8: "line 2's input", 9: "input 'out/x.wav' is line 2's output",
        10: "is the row's ir", 11: "ir 'out/old.wav' is line 6's output",
        13: "taps 'h.wav' is line 12's output", 14: "is the manifest",
        15: "receipts directory", 16: "receipts directory"})
    assert not any(re.match(r"gfir: jobs\.tsv:(2|6|12):", l) for l in lines), r.stderr
    assert lines[-1] == "gfir: jobs.tsv: 12 bad lines; nothing was run", lines[-1]
    assert not os.path.exists(d.p("jobs.tsv.receipts"))
    for p, data in before.items():
        assert open(d.p(p), "rb").read() == data, f"{p} was written"
    # the command line's IR is read by rows without a filter
    d.manifest("cli.tsv", [dict(input="in/u0000.wav", output="ir.wav")])
    r = d.gfir("--manifest", "cli.tsv", "--ir", "./ir.wav", expect=1)
    assert "gfir: cli.tsv:2: output 'ir.wav' is the command line's --ir" in r.stderr, r.stderr
    # --receipts elsewhere: the same rule for that directory
    d.manifest("own.tsv", [dict(input="in/u0000.wav", output="done/r.jsonl", ir="ir.wav")])
    r = d.gfir("--manifest", "own.tsv", "--receipts", "./done", expect=1)
    assert "gfir: own.tsv:2: output 'done/r.jsonl' is in the receipts directory" in r.stderr


@test("files")
def special_outputs_refused(d):
    """Standard output, a FIFO, a device (through a link) and a directory as
    a row's output: refused with the line, nothing written anywhere."""
    d.corpus(1)
    write_wav(d.p("ir.wav"), room(d.rng, 100))
    os.mkfifo(d.p("fifo.wav"))
    os.symlink("/dev/null", d.p("null.wav"))
    os.makedirs(d.p("dir.wav"))
    rows = [dict(input="in/u0000.wav", output=o, ir="ir.wav")
            for o in ("-", "fifo.wav", "null.wav", "dir.wav", "out/ok.wav")]
    d.manifest("jobs.tsv", rows)
    r = d.gfir("--manifest", "jobs.tsv", expect=1)
    assert r.stdout == "", "standard output was written"
    bad_line_words(r, {2: "output '-'", 3: "is a FIFO", 4: "is a character device",
                       5: "is a directory"})
    assert stat.S_ISFIFO(os.lstat(d.p("fifo.wav")).st_mode)
    assert os.path.islink(d.p("null.wav"))
    assert not os.path.exists(d.p("out"))


def merge_fixture(d):
    inputs = d.corpus(3)
    write_wav(d.p("ir.wav"), room(d.rng, 100))
    d.manifest("jobs.tsv", d.jobs(inputs, ir="ir.wav"))
    d.gfir("--manifest", "jobs.tsv", "-q")
    return inputs


@test("files")
def merge_never_overwrites_batch_files(d):
    """--merge FILE may be none of the batch's own files, however spelt: the
    manifest, a job's input, output or IR, anything in the receipts
    directory. Each is refused in one line and left as it was."""
    inputs = merge_fixture(d)
    os.symlink("jobs.tsv", d.p("link.jsonl"))
    os.makedirs(d.p("elsewhere"))
    os.link(d.p("ir.wav"), d.p("elsewhere", "hard.jsonl"))
    cases = {"jobs.tsv": "is the manifest", "./link.jsonl": "is the manifest",
             inputs[0]: "is the input of jobs.tsv:2", "./" + inputs[1]: "is the input of jobs.tsv:3",
             "out/u0002.wav": "is the output of jobs.tsv:4", "ir.wav": "is the ir of jobs.tsv:2",
             "elsewhere/hard.jsonl": "is the ir of jobs.tsv:2",
             "jobs.tsv.receipts/all.jsonl": "is in the receipts directory",
             "jobs.tsv.receipts/shard-0-of-1.jsonl": "is in the receipts directory"}
    files = ["jobs.tsv", *inputs, "ir.wav", "out/u0002.wav",
             "jobs.tsv.receipts/shard-0-of-1.jsonl"]
    before = {p: open(d.p(p), "rb").read() for p in files}
    for target, words in cases.items():
        r = d.gfir("--manifest", "jobs.tsv", "--merge", target, expect=1)
        lines = error_lines(r.stderr)
        assert len(lines) == 1 and f"--merge '{target}' {words}" in lines[0], (target, lines)
    for p, data in before.items():
        assert open(d.p(p), "rb").read() == data, f"{p} was overwritten"
    assert sorted(os.listdir(d.p("jobs.tsv.receipts"))) == ["shard-0-of-1.jsonl"]
    d.gfir("--manifest", "jobs.tsv", "--merge", "all.jsonl")
    assert len(open(d.p("all.jsonl")).readlines()) == 3


def gfir_child_of(pid):
    """The child of a process (strace) that runs gfir: strace forks others
    first, to probe what ptrace can do."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/task/{pid}/children") as f:
                for kid in f.read().split():
                    if os.path.realpath(f"/proc/{kid}/exe") == os.path.realpath(GFIR):
                        return int(kid)
        except OSError:
            pass
        time.sleep(0.005)
    raise AssertionError(f"process {pid} started no gfir")


def under_strace(d, calls, inject, args, path=None, log="/dev/null"):
    """Starts gfir batch ARGS under strace, which alters every one of calls
    (comma-separated system calls), or those on path only, as inject says
    ("delay_enter=2000000": held there 2 s; "error=EINVAL": refused)."""
    assert shutil.which("strace"), "strace is needed (tools/setup.sh installs it)"
    env = dict(os.environ, HOME=d.path, GFIR_FFTW_PLANNER="estimate",
               ASAN_OPTIONS=os.environ.get("ASAN_OPTIONS", "") + ":detect_leaks=0")
    return subprocess.Popen(["strace", "-f", "-o", log, *(["-P", path] if path else []),
                             "-e", f"trace={calls}", "-e", f"inject={calls}:{inject}", GFIR,
                             "batch", *args], cwd=d.path, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def interrupt_when(proc, ready, what):
    """Sends SIGINT to the gfir that proc (strace) runs once ready() says it
    is where strace holds it, and waits for the end; what: for the message."""
    gfir = gfir_child_of(proc.pid)
    deadline = time.monotonic() + 30
    while not ready():
        assert proc.poll() is None and time.monotonic() < deadline, f"no {what}"
        time.sleep(0.005)
    os.kill(gfir, signal.SIGINT)
    proc.communicate(timeout=60)


@test("files")
def interrupted_merge_leaves_nothing(d):
    """SIGINT while --merge's temporary file is open (held there by strace,
    which delays its sync) removes it: merge catches signals like any
    writer of gfir's."""
    merge_fixture(d)
    proc = under_strace(d, "fsync", "delay_enter=3000000",
                        ["--manifest", "jobs.tsv", "--merge", "all.jsonl"])
    interrupt_when(proc, lambda: [f for f in os.listdir(d.path)
                                  if f.startswith(".all.jsonl.gfir-")], "temporary file")
    assert not temporaries(d.path), temporaries(d.path)
    assert not os.path.exists(d.p("all.jsonl"))


@test("files")
def signal_between_create_and_lock(d):
    """SIGINT to a batch whose worker has just created an output's temporary
    file and not yet locked it (strace holds it before its flock): whichever
    thread takes the signal removes the file, since its name is listed for
    the handler before it is created. It used to be listed after the lock,
    with signals blocked in the creating thread alone, and another thread
    took the signal and left the file."""
    d.corpus(1)
    write_wav(d.p("ir.wav"), room(d.rng, 100))
    d.manifest("jobs.tsv", d.jobs(["in/u0000.wav"], ir="ir.wav"))
    os.makedirs(d.p("out"))
    proc = under_strace(d, "flock", "delay_enter=2000000",
                        ["--manifest", "jobs.tsv", "--jobs", "1"])
    interrupt_when(proc, lambda: temporaries(d.p("out")), "temporary file")
    assert not temporaries(d.path), temporaries(d.path)
    assert not os.path.exists(d.p("out/u0000.wav"))


@test("files")
def receipt_describes_the_file_written(d):
    """Another process replaces an output just after gfir renames it into
    place (strace holds gfir there). The receipt gives the size and time of
    the file gfir wrote, taken before the rename, so the rerun sees that the
    name holds something else and does the job again. A stat after the
    rename vouched for the replacement, and the rerun skipped the job."""
    d.corpus(1)
    write_wav(d.p("ir.wav"), room(d.rng, 100))
    rows = d.jobs(["in/u0000.wav"], ir="ir.wav")
    d.manifest("jobs.tsv", rows)
    proc = under_strace(d, "rename,renameat,renameat2", "delay_exit=2000000",
                        ["--manifest", "jobs.tsv", "-q"])
    deadline = time.monotonic() + 30
    while not os.path.exists(d.p("out/u0000.wav")):
        assert proc.poll() is None and time.monotonic() < deadline, "no output"
        time.sleep(0.005)
    with open(d.p("out/other.wav"), "wb") as f:
        f.write(b"not gfir's")
    os.replace(d.p("out/other.wav"), d.p("out/u0000.wav"))
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    receipt = read_receipts(d.p("jobs.tsv.receipts"))[0]
    assert receipt["bytes"] != len(b"not gfir's"), receipt
    r = d.gfir("--manifest", "jobs.tsv")
    assert "1 written, 0 done before, 0 failed" in r.stderr, r.stderr
    check_output(rows[0], read_receipts(d.p("jobs.tsv.receipts"))[-1], base=d.path)


# ---- disk: other writers, other file systems ----------------------------------------

@test("disk")
def concurrent_shards_keep_each_others_files(d):
    """Shard 0/1 writing a long job, stopped mid-file; shard 0/2 of the same
    manifest starts meanwhile (another N: not guarded by the receipts' lock)
    and sweeps. The first's temporary file is in use (locked, and young): it
    stays, and the first finishes with every output whole."""
    x = d.rng.standard_normal(20 * RATE) * 0.1
    write_wav(d.p("in/long.wav"), x)
    write_wav(d.p("ir.wav"), room(d.rng, 2000))
    rows = [dict(input="in/long.wav", output="out/long.wav", ir="ir.wav")]
    d.manifest("jobs.tsv", rows)
    env = dict(os.environ, HOME=d.path, GFIR_FFTW_PLANNER="estimate")
    slow = ["--backend", "cpu", "--kernel", "direct", "--block", "256"]
    first = subprocess.Popen([GFIR, "batch", "--manifest", "jobs.tsv", "--shard", "0/1", *slow],
                             cwd=d.path, env=env, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not [t for t in temporaries(d.p("out")) if os.path.getsize(t) > 0]:
        assert first.poll() is None and time.monotonic() < deadline, "the first never wrote"
        time.sleep(0.005)
    first.send_signal(signal.SIGSTOP)
    try:
        mine = temporaries(d.p("out"))
        assert len(mine) == 1
        second = subprocess.Popen([GFIR, "batch", "--manifest", "jobs.tsv", "--shard", "0/2",
                                   *slow], cwd=d.path, env=env, stderr=subprocess.PIPE,
                                  text=True)
        # the second has swept once it writes a temporary file of its own
        deadline = time.monotonic() + 60
        while not set(temporaries(d.p("out"))) - set(mine):
            assert second.poll() is None and time.monotonic() < deadline, second.stderr.read()
            time.sleep(0.005)
        second.send_signal(signal.SIGTERM)
        second.wait(60)
        assert os.path.exists(mine[0]), "the second run removed a temporary file in use"
    finally:
        first.send_signal(signal.SIGCONT)
    _, err = first.communicate(timeout=300)
    assert first.returncode == 0, err
    check_output(rows[0], read_receipts(d.p("jobs.tsv.receipts"))[0], base=d.path)
    assert not temporaries(d.path), temporaries(d.path)


@test("disk")
def directories_that_cannot_sync(d):
    """Some file systems refuse fsync on a directory (EINVAL): gfir batch
    goes on there as single-file gfir does; strace makes out/ such a
    directory."""
    inputs = d.corpus(3)
    write_wav(d.p("ir.wav"), room(d.rng, 100))
    os.makedirs(d.p("out"))
    d.manifest("jobs.tsv", d.jobs(inputs, ir="ir.wav"))
    proc = under_strace(d, "fsync", "error=EINVAL", ["--manifest", "jobs.tsv"], path="out",
                        log=d.p("trace.txt"))
    _, err = proc.communicate(timeout=300)
    assert "INJECTED" in open(d.p("trace.txt")).read(), "no directory sync was refused"
    assert proc.returncode == 0, err
    receipts = receipts_by_output(d, "jobs.tsv.receipts")
    for row in d.jobs(inputs, ir="ir.wav"):
        check_output(row, receipts[row["output"]], base=d.path)


def main():
    if len(sys.argv) != 3 or sys.argv[2] not in TESTS:
        print(f"usage: test_batch.py GFIR GROUP   (groups: {', '.join(TESTS)})")
        return 2
    failed = 0
    for fn in TESTS[sys.argv[2]]:
        tmp = tempfile.mkdtemp(prefix="gfir-batch-test-")
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
