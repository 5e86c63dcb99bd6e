#!/usr/bin/python3
"""`gfir batch` for corpus builders (issue 31): a row's segment of its input
(offset/duration in seconds, start/end in frames) is exactly those frames of
the whole reverberated file, and only the frames it needs are read; tar
shards (--tar) read back with Python's tarfile hold every key once, whole,
after a SIGKILL and a rerun too; --emit-manifest's NeMo/Lhotse lines, read
with the json module, give the files' exact lengths, with --describe too;
--early-ms's KEY.early.EXT equals its own float64 reference.

    test_corpus.py GFIR GROUP    runs one group: segments, tar, emit, early

Exit status 77 (skipped) when NumPy or SciPy is missing.
"""
import glob
import io
import json
import os
import signal
import subprocess
import sys
import tarfile
import time

try:
    import numpy as np
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import test_batch
    import scipy.io.wavfile as wavfile
    from batchlib import (RATE, loudest, read_receipts, read_wav, reference, rel_l2, room,
                          temporaries, write_wav)
    from test_batch import test
except ImportError:
    print("test_corpus: needs numpy and scipy (Debian: python3-numpy python3-scipy)")
    sys.exit(77)

# float32 filtering against float64, as batchlib's REL_L2 says why
REL_L2 = 1e-5


def whole_frames(n, taps, align, start, end):
    """The frames of the whole reverberated file (as align lays it out) that
    the segment [start, end) of n input frames makes."""
    return slice(start, end + (taps - 1 if align == "full" else 0))


@test("segments")
def segments_equal_the_whole_files_frames(d):
    """Segments at the start (less history than the IR is long), in the
    middle and at the end, in seconds and in frames, for every alignment and
    an odd and an even IR: each equals the same frames of the whole file's
    float64 reference, and of gfir's own whole output."""
    d.corpus(2, frames=(7001, 9000))
    irs = {"ir701.wav": room(d.rng, 701), "ir400.wav": room(d.rng, 400)}
    for name, h in irs.items():
        write_wav(d.p(name), h)
    rows, want = [], {}
    for i, x in enumerate(("in/u0000.wav", "in/u0001.wav")):
        _, sig = read_wav(d.p(x))
        n = len(sig)
        for ir, h in irs.items():
            for align in ("full", "causal", "same"):
                whole = f"out/{i}-{ir[:-4]}-{align}.wav"
                rows.append(dict(input=x, output=whole, ir=ir, align=align))
                ref = reference(sig, h / loudest(h), align)
                # (start, end) in frames; seconds at 16 kHz are whole frames
                for k, (s, e) in enumerate([(0, 333), (123, 1501), (2000, 4999), (n - 777, n)]):
                    out = f"out/{i}-{ir[:-4]}-{align}-{k}.wav"
                    if k % 2:
                        rows.append(dict(input=x, output=out, ir=ir, align=align,
                                         offset=s / RATE, duration=(e - s) / RATE))
                    else:
                        rows.append(dict(input=x, output=out, ir=ir, align=align, start=s,
                                         end=e))
                    want[out] = (ref[whole_frames(n, len(h), align, s, e)], whole)
    d.manifest("jobs.jsonl", rows)
    d.gfir("--manifest", "jobs.jsonl")
    worst = 0
    for out, (ref, whole) in want.items():
        _, y = read_wav(d.p(out))
        worst = max(worst, rel_l2(y, ref))
        assert rel_l2(y, ref) < REL_L2, f"{out}: rel L2 {rel_l2(y, ref)}"
    # and the segment is gfir's whole output's frames (both float32)
    for out, (ref, whole) in want.items():
        _, y = read_wav(d.p(out))
        _, w = read_wav(d.p(whole))
        s = [r for r in rows if r["output"] == out][0]
        start = s.get("start", round(s.get("offset", 0) * RATE))
        assert rel_l2(y, w[start:start + len(y)]) < REL_L2, out
    receipts = {r["output"]: r for r in read_receipts(d.p("jobs.jsonl.receipts"))}
    for out, (ref, _) in want.items():
        assert receipts[out]["frames"] == len(ref), receipts[out]
    print(f"      worst segment rel L2 {worst:.2e} over {len(want)} segments")


@test("segments")
def segments_read_only_what_they_need(d):
    """An input whose frames before the segment's history and after what it
    needs are NaN: the segment never reads them (no non-finite input in its
    receipt), and still equals the reference."""
    taps, n, s, e = 501, 9001, 3000, 5000
    h = room(d.rng, taps)
    write_wav(d.p("ir.wav"), h)
    x = d.rng.standard_normal(n) * 0.1
    for align, last in (("causal", e), ("full", e + taps - 1), ("same", e + (taps - 1) // 2)):
        first = s + ((taps - 1) // 2 if align == "same" else 0) - (taps - 1)
        poisoned = x.copy()
        poisoned[:first] = np.nan
        poisoned[last:] = np.nan
        write_wav(d.p(f"in/{align}.wav"), poisoned)
        rows = [dict(input=f"in/{align}.wav", output=f"out/{align}.wav", ir="ir.wav",
                     align=align, start=s, end=e)]
        d.manifest(f"{align}.tsv", rows)
        d.gfir("--manifest", f"{align}.tsv")
        (r,) = read_receipts(d.p(f"{align}.tsv.receipts"))
        assert r["nonfinite_in"] == 0, r
        _, y = read_wav(d.p(f"out/{align}.wav"))
        ref = reference(x, h / loudest(h), align)[whole_frames(n, taps, align, s, e)]
        assert rel_l2(y, ref) < REL_L2
        # one frame more each side is read, and counted
        poisoned[first] = np.nan
        write_wav(d.p(f"in/{align}.wav"), poisoned)
        os.remove(d.p(f"{align}.tsv.receipts/shard-0-of-1.jsonl"))
        d.gfir("--manifest", f"{align}.tsv")
        (r,) = read_receipts(d.p(f"{align}.tsv.receipts"))
        assert r["nonfinite_in"] == (1 if first > 0 else 0), r


@test("segments")
def bad_segments(d):
    """Seconds and frames together, an empty or negative segment: bad lines
    before anything runs; a segment past the input's end: that job fails."""
    d.corpus(1, frames=(4000, 4001))
    write_wav(d.p("ir.wav"), room(d.rng, 100))
    rows = [dict(input="in/u0000.wav", output="out/a.wav", ir="ir.wav", offset=0.1, start=5),
            dict(input="in/u0000.wav", output="out/b.wav", ir="ir.wav", start=50, end=50),
            dict(input="in/u0000.wav", output="out/c.wav", ir="ir.wav", offset=-1),
            dict(input="in/u0000.wav", output="out/d.wav", ir="ir.wav", start="1.5")]
    d.manifest("bad.tsv", rows)
    r = d.gfir("--manifest", "bad.tsv", expect=1)
    assert "bad.tsv:2: a segment is offset and duration (seconds) or start and end" in r.stderr
    assert "bad.tsv:3: end 50 is not after start 50" in r.stderr, r.stderr
    assert "bad.tsv:4: offset '-1' is not a number of seconds" in r.stderr, r.stderr
    assert "bad.tsv:5: start '1.5' is not a frame number" in r.stderr, r.stderr
    rows = [dict(input="in/u0000.wav", output="out/e.wav", ir="ir.wav", start=3000, end=4001),
            dict(input="in/u0000.wav", output="out/f.wav", ir="ir.wav", start=3000, end=4000)]
    d.manifest("past.tsv", rows)
    r = d.gfir("--manifest", "past.tsv", expect=1)
    assert "the segment ends at frame 4001, after INPUT's 4000 frames" in r.stderr, r.stderr
    assert not os.path.exists(d.p("out/e.wav")) and os.path.exists(d.p("out/f.wav"))
    # NeMo's duration of the whole file, with no offset: the whole file
    d.manifest("nemo.jsonl", [dict(input="in/u0000.wav", output="out/g.wav", ir="ir.wav",
                                   duration=0.3)])
    d.gfir("--manifest", "nemo.jsonl")
    assert len(read_wav(d.p("out/g.wav"))[1]) == 4000 + 99


@test("segments")
def changed_segment_is_redone(d):
    """The segment is part of the receipt's recipe: a rerun with another
    segment of the same row writes it again, one with the same skips it."""
    d.corpus(1, frames=(5000, 5001))
    write_wav(d.p("ir.wav"), room(d.rng, 100))
    for end, runs in ((1000, "1 written"), (1000, "1 done before"), (2000, "1 written")):
        d.manifest("jobs.tsv", [dict(input="in/u0000.wav", output="out/a.wav", ir="ir.wav",
                                     start=10, end=end)])
        r = d.gfir("--manifest", "jobs.tsv")
        assert runs in r.stderr, r.stderr
        assert len(read_wav(d.p("out/a.wav"))[1]) == end - 10 + 99


def read_shards(d, directory="shards"):
    """{key: (wav bytes, receipt dict, shard)} from every tar shard; each
    key's members once in all of them."""
    got = {}
    for path in sorted(glob.glob(d.p(directory, "*.tar"))):
        with tarfile.open(path) as tf:
            for m in tf.getmembers():
                # as WebDataset groups members: the key ends at the name's first dot
                head, base = os.path.split(m.name)
                key, ext = os.path.join(head, base.split(".")[0]), "." + base.split(".", 1)[1]
                data = tf.extractfile(m).read()
                assert len(data) == m.size, f"{path}: {m.name} cut short"
                entry = got.setdefault(key, {})
                assert ext not in entry, f"{m.name} twice (again in {path})"
                entry[ext] = (data, path)
    return got


def check_shards(d, rows, h, directory="shards"):
    """Every row's key once, its audio the float64 reference, its KEY.json
    its receipt; the receipts name the shard each is in, and each shard's
    line lists its keys."""
    got = read_shards(d, directory)
    assert sorted(got) == sorted(r["output"][:-4] for r in rows), sorted(got)
    receipts = read_receipts(d.p("jobs.tsv.receipts"))
    by_output = {r["output"]: r for r in receipts if "output" in r}
    lists = {r["tar"]: r["keys"] for r in receipts if "keys" in r}
    for row in rows:
        key = row["output"][:-4]
        (wav, shard), (js, shard2) = got[key][".wav"], got[key][".json"]
        assert shard == shard2
        rate, y = wavfile.read(io.BytesIO(wav))
        _, x = read_wav(d.p(row["input"]))
        want = reference(x, h / loudest(h), "full")
        assert rel_l2(y.astype(np.float64), want) < REL_L2, key
        member = json.loads(js)
        assert member["output"] == row["output"] and member["frames"] == len(y), member
        r = by_output[row["output"]]
        assert d.p(r["tar"]) == shard and r["frames"] == len(y), r
        assert r["bytes"] == os.path.getsize(shard), r
        assert key in lists[r["tar"]]
    assert sorted(k for keys in lists.values() for k in keys) == sorted(got)
    # a killed run's temporary shards are swept, except an empty one in its
    # first minute (its writer may be about to lock it: output.h)
    left = [t for t in temporaries(d.p(directory)) if os.path.getsize(t) > 0]
    assert not left, left
    return got


@test("tar")
def tar_shards_read_back(d):
    """23 outputs in shards of 5 (and of 40 KiB): every key once, every
    member whole and equal to the reference; a rerun adds nothing."""
    inputs = d.corpus(23, frames=(2001, 4000))
    h = room(d.rng, 301)
    write_wav(d.p("ir.wav"), h)
    rows = [dict(input=x, output=f"utt/{os.path.basename(x)}", ir="ir.wav") for x in inputs]
    d.manifest("jobs.tsv", rows)
    d.gfir("--manifest", "jobs.tsv", "--tar", "shards", "--shard-size", "5")
    check_shards(d, rows, h)
    assert len(glob.glob(d.p("shards", "*.tar"))) == 5
    assert not os.path.exists(d.p("utt")), "outputs were written as files too"
    # files made before are no members: the tar run packs them all the same
    d.gfir("--manifest", "jobs.tsv", "--receipts", "files.receipts")
    r = d.gfir("--manifest", "jobs.tsv", "--receipts", "files.receipts", "--tar", "shards2")
    assert "23 written, 0 done before" in r.stderr, r.stderr
    r = d.gfir("--manifest", "jobs.tsv", "--receipts", "files.receipts")
    assert "0 written, 23 done before" in r.stderr, r.stderr
    r = d.gfir("--manifest", "jobs.tsv", "--tar", "shards", "--shard-size", "5")
    assert "0 written, 23 done before" in r.stderr, r.stderr
    assert len(glob.glob(d.p("shards", "*.tar"))) == 5
    # by size: a shard ends once its members hold 40 KiB
    d.manifest("jobs.tsv", rows)
    os.rename(d.p("jobs.tsv.receipts"), d.p("old.receipts"))
    d.gfir("--manifest", "jobs.tsv", "--tar", "big", "--shard-size", "40K")
    check_shards(d, rows, h, "big")
    sizes = []
    for path in sorted(glob.glob(d.p("big", "*.tar"))):
        with tarfile.open(path) as tf:
            sizes.append(sum(m.size for m in tf.getmembers()))
    assert all(s >= 40 * 1024 for s in sizes[:-1]) and len(sizes) > 1, sizes
    r = d.gfir("--manifest", "jobs.tsv", "--shard-size", "5", expect=2)
    assert "--shard-size applies only with --tar" in r.stderr
    # two outputs with one key would share KEY.json: refused before anything runs
    d.manifest("dup.tsv", [dict(input=inputs[0], output="k/a.wav", ir="ir.wav"),
                           dict(input=inputs[1], output="k/a.flac", ir="ir.wav")])
    r = d.gfir("--manifest", "dup.tsv", "--tar", "dup", expect=1)
    assert "dup.tsv:3: with --tar, its key 'k/a' names another row's output too" in r.stderr
    assert not glob.glob(d.p("dup", "*.tar"))


@test("tar")
def tar_shards_survive_sigkill(d):
    """Killed (SIGKILL) once a shard is whole and more are being packed, then
    run again: every key once, every member whole, no temporary left. A
    whole shard without receipts (killed between its rename and them) is
    removed by the rerun, its jobs made again."""
    inputs = d.corpus(120, frames=(8001, 16000))
    h = room(d.rng, 2001)
    write_wav(d.p("ir.wav"), h)
    rows = [dict(input=x, output=f"utt/{os.path.basename(x)}", ir="ir.wav") for x in inputs]
    d.manifest("jobs.tsv", rows)
    env = dict(os.environ, GFIR_FFTW_PLANNER="estimate", HOME=d.path)
    proc = subprocess.Popen([test_batch.GFIR, "batch", "--manifest", "jobs.tsv", "--tar",
                             "shards", "--shard-size", "7", "-j", "2"], cwd=d.path, env=env,
                            stderr=subprocess.PIPE)
    deadline = time.time() + 60
    while time.time() < deadline and len(glob.glob(d.p("shards", "*.tar"))) < 2:
        time.sleep(0.005)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    whole = glob.glob(d.p("shards", "*.tar"))
    assert 2 <= len(whole) < 120 // 7, f"killed with {len(whole)} shards"
    # a whole shard that no receipt names, as if killed after its rename
    with open(sorted(whole)[0], "rb") as f:
        data = f.read()
    with open(d.p("shards", "shard-0-of-1-000777.tar"), "wb") as f:
        f.write(data)
    r = d.gfir("--manifest", "jobs.tsv", "--tar", "shards", "--shard-size", "7")
    assert "shard-0-of-1-000777.tar: a tar shard no receipt of this manifest vouches for, " \
        "set aside as shard-0-of-1-000777.tar.orphan" in r.stderr, r.stderr
    # set aside, not deleted: another manifest's shards in the same directory survive
    assert os.path.getsize(d.p("shards", "shard-0-of-1-000777.tar.orphan")) == len(data)
    check_shards(d, rows, h)


def read_jsonl(path):
    with open(path) as f:
        return [json.loads(line) for line in f]


@test("emit")
def emitted_manifest_lengths_match_the_files(d):
    """--describe before the run and --emit-manifest after it: one line per
    output in manifest order, whose NeMo duration and Lhotse num_samples are
    the files' (odd lengths, every alignment, a segment, a stereo input), and
    whose provenance is the row's."""
    inputs = d.corpus(4, frames=(3001, 5000))
    write_wav(d.p("in/stereo.wav"), d.rng.standard_normal((4321, 2)) * 0.1)
    d.corpus(3, rooms=3, room_taps=257, prefix="unused")
    rows = [dict(id=f"utt{i}", input=x, output=f"out/{i}.wav", ir="rooms", seed=7 + i,
                 align=a, gain=g)
            for i, (x, a, g) in enumerate(zip(inputs + ["in/stereo.wav"],
                                              ["full", "causal", "same", "full", "same"],
                                              [0, -3, 1.5, 0, -6]))]
    rows.append(dict(id="seg", input=inputs[0], output="out/seg.wav", ir="rooms", seed=1,
                     offset=0.0625, duration=0.1))
    d.manifest("jobs.jsonl", rows)
    d.gfir("--manifest", "jobs.jsonl", "--emit-manifest", "described.jsonl", "--describe")
    assert not os.path.exists(d.p("out")), "--describe ran jobs"
    r = d.gfir("--manifest", "jobs.jsonl", "--emit-manifest", "early.jsonl", expect=1)
    assert "6 of 6 jobs could not be found in the receipts" in r.stderr, r.stderr
    assert not os.path.exists(d.p("early.jsonl"))
    d.gfir("--manifest", "jobs.jsonl")
    d.gfir("--manifest", "jobs.jsonl", "--emit-manifest", "after.jsonl")
    described, after = read_jsonl(d.p("described.jsonl")), read_jsonl(d.p("after.jsonl"))
    assert described == after, (described, after)
    receipts = {r["output"]: r for r in read_receipts(d.p("jobs.jsonl.receipts"))}
    assert [e["audio_filepath"] for e in after] == [r["output"] for r in rows]
    for row, e in zip(rows, after):
        rate, y = read_wav(d.p(e["audio_filepath"]))
        channels = 1 if y.ndim == 1 else y.shape[1]
        rec = e["recording"]
        assert rec["num_samples"] == len(y) and rec["sampling_rate"] == rate, (e, y.shape)
        assert e["duration"] == rec["duration"] == len(y) / rate, e
        assert rec["channel_ids"] == list(range(channels)), e
        assert rec["sources"] == [dict(type="file", channels=list(range(channels)),
                                       source=row["output"])], e
        assert rec["id"] == row["id"]
        g = e["gfir"]
        assert g["input"] == row["input"] and g["seed"] == row["seed"], g
        assert g["ir"] == test_batch.ir_of(receipts[row["output"]]), g
        assert g["gain_db"] == float(row.get("gain", 0)) and g["version"], g
        assert g["align"] == row.get("align", "full"), g
    assert after[-1]["gfir"]["segment"] == "--offset 0.0625 --duration 0.1"
    r = d.gfir("--manifest", "jobs.jsonl", "--describe", expect=2)
    assert "--describe applies only with --emit-manifest" in r.stderr
    r = d.gfir("--manifest", "jobs.jsonl", "--emit-manifest", "jobs.jsonl", expect=1)
    assert "is the manifest" in r.stderr


@test("emit")
def emitted_manifest_of_tar_shards(d):
    """With --tar: audio_filepath is the member's name, tar the shard that
    holds it, and num_samples the member's length."""
    inputs = d.corpus(5, frames=(2001, 3000))
    write_wav(d.p("ir.wav"), room(d.rng, 99))
    rows = [dict(input=x, output=f"utt/{i}.wav") for i, x in enumerate(inputs)]
    d.manifest("jobs.tsv", rows)
    d.gfir("--manifest", "jobs.tsv", "--ir", "ir.wav", "--tar", "shards", "--shard-size", "2")
    d.gfir("--manifest", "jobs.tsv", "--ir", "ir.wav", "--tar", "shards", "--emit-manifest",
           "m.jsonl")
    got = read_shards(d)
    for row, e in zip(rows, read_jsonl(d.p("m.jsonl"))):
        key = row["output"][:-4]
        wav, shard = got[key][".wav"]
        assert e["audio_filepath"] == row["output"] and d.p(e["tar"]) == shard, e
        assert e["gfir"]["ir"] == "ir.wav", e
        rate, y = wavfile.read(io.BytesIO(wav))
        assert e["recording"]["num_samples"] == len(y), e


def delayed_room(rng, delay, taps):
    """A room whose direct path comes after `delay` frames of low noise (40 dB
    down: before it, as --ir-trim -20 sees it), then a tail."""
    h = np.concatenate([rng.standard_normal(delay) * 0.005, room(rng, taps - delay)])
    return h


def early_reference(x, h, ms, align):
    """x through h (as --normalize peak scales it) cut ms after the first tap
    within 20 dB of its peak, cut as align says: the same length as x
    through the whole h."""
    hn = h / loudest(h)
    onset = int(np.argmax(np.abs(hn) >= np.abs(hn).max() * 0.1))
    cut = hn.copy()
    cut[onset + int(round(ms * RATE / 1000)) + 1:] = 0
    return reference(x, cut, align)


@test("early")
def early_reverb_outputs(d):
    """KEY.early.EXT beside each output for every alignment and a segment:
    equal to its own float64 reference (the IR cut 50 ms after a direct path
    that comes 137 frames in), as long as the main output, and far from it
    (the tail is really gone). Also packed into tar shards."""
    inputs = d.corpus(3, frames=(5001, 7000))
    h = delayed_room(d.rng, 137, 4001)
    write_wav(d.p("ir.wav"), h)
    rows = [dict(input=x, output=f"out/{i}.wav", align=a)
            for i, (x, a) in enumerate(zip(inputs, ["full", "causal", "same"]))]
    rows.append(dict(input=inputs[0], output="out/seg.wav", align="full", start=1000,
                     end=2501))
    d.manifest("jobs.tsv", rows)
    d.gfir("--manifest", "jobs.tsv", "--ir", "ir.wav", "--early-ms", "50")
    for row in rows:
        _, x = read_wav(d.p(row["input"]))
        _, y = read_wav(d.p(row["output"]))
        _, e = read_wav(d.p(row["output"][:-4] + ".early.wav"))
        whole = slice(None)
        if "start" in row:
            whole = slice(row["start"], row["end"] + len(h) - 1)
        want = early_reference(x, h, 50, row["align"])[whole]
        assert len(e) == len(y), (len(e), len(y))
        assert rel_l2(e, want) < REL_L2, (row, rel_l2(e, want))
        assert rel_l2(e, y) > 0.1, "the early output is the whole reverberation"
    # the emitted manifest names each twin, as long as its output
    d.gfir("--manifest", "jobs.tsv", "--ir", "ir.wav", "--early-ms", "50", "--emit-manifest",
           "m.jsonl")
    for row, e in zip(rows, read_jsonl(d.p("m.jsonl"))):
        assert e["early_filepath"] == row["output"][:-4] + ".early.wav", e
        rate, y = read_wav(d.p(e["early_filepath"]))
        assert e["recording"]["num_samples"] == len(y), e
    # a second run skips them; another --early-ms is another recipe
    r = d.gfir("--manifest", "jobs.tsv", "--ir", "ir.wav", "--early-ms", "50")
    assert "0 written, 4 done before" in r.stderr, r.stderr
    d.gfir("--manifest", "jobs.tsv", "--ir", "ir.wav", "--early-ms", "20")
    _, x = read_wav(d.p(inputs[1]))
    _, e = read_wav(d.p("out/1.early.wav"))
    assert rel_l2(e, early_reference(x, h, 20, "causal")) < REL_L2
    # packed: KEY.wav, KEY.early.wav, KEY.json
    os.rename(d.p("jobs.tsv.receipts"), d.p("old.receipts"))
    d.gfir("--manifest", "jobs.tsv", "--ir", "ir.wav", "--early-ms", "50", "--tar", "shards")
    got = read_shards(d)
    for row in rows[:3]:
        key = row["output"][:-4]
        assert sorted(got[key]) == [".early.wav", ".json", ".wav"], sorted(got[key])
        _, e = wavfile.read(io.BytesIO(got[key][".early.wav"][0]))
        _, x = read_wav(d.p(row["input"]))
        assert rel_l2(e.astype(np.float64), early_reference(x, h, 50, row["align"])) < REL_L2
    r = d.gfir("--manifest", "jobs.tsv", "--early-ms", "0", expect=2)
    assert "--early-ms 0: give milliseconds above 0" in r.stderr


if __name__ == "__main__":
    sys.exit(test_batch.main())
