#!/usr/bin/python3
"""End-to-end tests of choosing GPUs: gfir's --gpu N and gfir batch's --gpu
and --gpus all|LIST.

    test_gpu.py GFIR GROUP     GROUP: gpu_choice (any host: what is refused
                               and how), gpu_files, gpu_batch (need a GPU;
                               skipped, 77, without one)

The GPU groups compare every output with NumPy's float64 convolution and, for
batch, the outputs of --gpus all with those of --gpus 0 byte for byte (the
same kernels on the same kind of device give the same samples).
"""
import glob
import hashlib
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_cli as cli  # noqa: E402  (the harness: exits 77 without NumPy)
from test_cli import REL_L2, conv, fails, read, rel_l2, test  # noqa: E402

SKIP = 77


def visible_gpus(d):
    """How many GPUs gfir sees, as its own refusal of GPU 999 says."""
    r = d.run("--describe", "-p", "lowpass", "--gpu", "999", expect=1)
    if "no GPU is visible" in r.stderr:
        return 0
    m = re.search(r"this host has (\d+) visible GPU", r.stderr)
    assert m, r.stderr
    return int(m.group(1))


# ---- choice: any host --------------------------------------------------------

@test("gpu_choice")
def gpu_refusals(d):
    d.wav("x.wav", d.noise(1000))
    fails(d, ["x.wav", "out.wav", "-p", "lowpass", "--gpu", "x"], 2, "--gpu x",
          "want a GPU number")
    fails(d, ["x.wav", "out.wav", "-p", "lowpass", "--gpu", "0,1"], 2, "--gpus takes a list")
    fails(d, ["x.wav", "out.wav", "-p", "lowpass", "--gpu", "0", "--backend", "cpu"], 2,
          "--gpu 0 and --backend cpu")
    fails(d, ["--response", "r.svg", "-p", "lowpass", "--gpu", "0"], 2, "--gpu",
          "applies only to", "not to --response")
    fails(d, ["--list-presets", "--gpu", "0"], 2, "--list-presets", "--gpu")
    # a GPU this host lacks: a failure (1), not wrong usage, in one line
    # in every mode that makes plans, before any file or sound device is opened
    n = visible_gpus(d)
    for mode in (["x.wav", "out.wav"], ["--describe"], ["x.wav", "--describe"],
                 ["x.wav", "--play"], ["--monitor"]):
        line = fails(d, [*mode, "-p", "lowpass", "--gpu", str(n)], 1, f"--gpu {n}: ")
        assert ("no GPU is visible" if n == 0 else f"this host has {n} visible GPU") in line, \
            (mode, line)
    # CUDA_VISIBLE_DEVICES hides them all: gfir says so
    r = d.run("x.wav", "out.wav", "-p", "lowpass", "--gpu", "0", expect=1,
              env={"CUDA_VISIBLE_DEVICES": ""})
    assert "--gpu 0: no GPU is visible: " in r.stderr, r.stderr
    assert not os.path.exists(d.p("out.wav"))


@test("gpu_choice")
def batch_gpu_refusals(d):
    d.wav("a.wav", d.noise(1000))
    d.text("m.csv", "input,output\na.wav,b.wav\n")

    def batch_fails(args, code, *needles):
        r = d.run("batch", "m.csv", "-p", "lowpass", *args, expect=code)
        first = r.stderr.splitlines()[0]
        for n in needles:
            assert n in first, f"{args}: '{n}' not in {first}"
        assert len(r.stderr.splitlines()) == (2 if code == 2 else 1), r.stderr
        assert not os.path.exists(d.p("b.wav"))
    batch_fails(["--gpus", "0,0"], 2, "--gpus 0,0: GPU 0 is named twice")
    batch_fails(["--gpus", "0,x"], 2, "want all, or GPU numbers separated by commas")
    batch_fails(["--gpu", "0,1"], 2, "want one GPU number")
    batch_fails(["--gpus", "0", "--gpu", "0"], 2, "--gpu and --gpus: give one")
    batch_fails(["--gpus", "all", "--backend", "cpu"], 2, "--gpus all and --backend cpu")
    batch_fails(["--gpus", "0", "--merge", "done.jsonl"], 2, "--gpus applies only to running")
    batch_fails(["--gpu", "0", "--emit-manifest", "e.jsonl"], 2, "--gpu applies only to running")
    n = visible_gpus(d)
    batch_fails(["--gpus", f"0,{max(n, 1)}"], 1,
                "no GPU is visible" if n == 0 else f"this host has {n} visible GPU")
    if n == 0:
        batch_fails(["--gpus", "all"], 1, "--gpus all: no GPU is visible")
        # the default spreads over no GPU: the CPU's run as ever, no split
        r = d.run("batch", "m.csv", "-p", "lowpass", "--force")
        assert "per GPU" not in r.stderr, r.stderr
    else:
        batch_fails(["--gpus", "all", "-j", "1"] if n > 1 else ["--gpus", "0,0"], 2)


# ---- files: a GPU each -------------------------------------------------------

def need_gpus(d):
    n = visible_gpus(d)
    if n == 0:
        print("skipped: no GPU is visible")
        sys.exit(SKIP)
    return n


def room(d, frames, seed):
    rng = cli.np.random.default_rng(seed)
    t = cli.np.arange(frames)
    return rng.standard_normal(frames) * cli.np.exp(-t / (frames / 6)) * 0.1


@test("gpu_files")
def each_gpu_filters_a_file(d):
    n = need_gpus(d)
    x = d.noise(48000 * 3 + 17, 2)
    h = room(d, 9601, 5)
    d.wav("x.wav", x)
    d.wav("h.wav", h)
    want = conv(x, h, "full")
    for k in range(min(n, 2)):
        for extra in ([], ["--backend", "auto"], ["--kernel", "direct"]):
            r = d.run("x.wav", f"y{k}.wav", "--ir", "h.wav", "--normalize", "none",
                      "--gpu", str(k), "-v", *extra)
            if not extra:
                assert re.search(rf"backend cuda, kernel \w+, latency \d+ frames on GPU {k};",
                                 r.stderr), r.stderr
            _, y = read(d.p(f"y{k}.wav"))
            err = rel_l2(y, want)
            assert err < REL_L2, f"--gpu {k} {extra}: relative L2 {err:.2e}"
    # --describe makes its plans there too
    r = d.run("--describe", "-p", "lowpass", "--gpu", str(n - 1))
    assert "backend cuda" in r.stdout, r.stdout


# ---- batch: every GPU --------------------------------------------------------

def sha(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


@test("gpu_batch")
def every_gpu_same_outputs(d):
    n = need_gpus(d)
    rooms = [room(d, 4001 + 1000 * i, 10 + i) for i in range(3)]
    for i, h in enumerate(rooms):
        d.wav(f"h{i}.wav", h)
    lines, xs = [], []
    os.mkdir(d.p("in"))
    for j in range(37):
        x = d.noise(48000 + 101 * j)
        xs.append(x)
        d.wav(f"in/{j}.wav", x)
        lines.append(f"in/{j}.wav,OUT/{j}.wav,h{j % 3}.wav")
    outs = {}
    for spec in ("0", "all"):
        d.text(f"m{spec}.csv", "input,output,ir\n" +
               "\n".join(l.replace("OUT", f"out{spec}") for l in lines) + "\n")
        r = d.run("batch", f"m{spec}.csv", "--gpus", spec, "--normalize", "none", "-v")
        split = re.search(r"per GPU: ([^;\n]*)", r.stderr)
        assert split, f"--gpus {spec}: no per-GPU split in {r.stderr!r}"
        counts = {int(g): int(c) for g, c in re.findall(r"(\d+): (\d+)", split.group(1))}
        assert sum(counts.values()) == 37 and "CPU" not in split.group(1), split.group(0)
        assert set(counts) == (set(range(n)) if spec == "all" else {0}), counts
        # every GPU took files: the workers share one queue
        assert all(c > 0 for c in counts.values()), counts
        # and its workers made their plans there (-v names each plan's GPU)
        for g in counts:
            assert f"on GPU {g};" in r.stderr, f"--gpus {spec}: no plan on GPU {g}"
        with open(d.p(f"m{spec}.csv.receipts/shard-0-of-1.jsonl")) as f:
            assert len(f.readlines()) == 37
        outs[spec] = {os.path.basename(p): sha(p) for p in glob.glob(d.p(f"out{spec}/*.wav"))}
    assert len(outs["0"]) == 37 and outs["0"] == outs["all"], "outputs differ between GPUs"
    for j in (0, 1, 2, 36):
        _, y = read(d.p(f"outall/{j}.wav"))
        err = rel_l2(y, conv(xs[j], rooms[j % 3], "full"))
        assert err < REL_L2, f"job {j}: relative L2 {err:.2e}"


if __name__ == "__main__":
    sys.exit(cli.main())
