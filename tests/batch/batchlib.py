"""What the `gfir batch` tests share: a scratch directory that writes corpora
(float WAV speech-like noise and decaying room responses made with NumPy),
manifests in every layout, runs gfir, and checks outputs against a float64
NumPy convolution and receipts against the manifest.
"""
import glob
import json
import os
import shlex
import subprocess
import sys
import warnings

import numpy as np
import scipy.io.wavfile as wavfile
import scipy.signal as signal

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from response_peak import peak_of_sums  # noqa: E402

warnings.simplefilter("ignore", wavfile.WavFileWarning)

RATE = 16000
# float32 filtering accumulates in float: one output's error is about
# sqrt(ntaps) * 2^-24 of its size; 1e-5 relative L2 leaves margin for the
# few thousand taps used here and still catches a lost block or a shift.
REL_L2 = 1e-5
FIELDS = ("id", "input", "output", "ir", "preset", "taps", "gain", "align", "format", "seed",
          "offset", "duration", "start", "end")


def write_wav(path, data, rate=RATE):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    wavfile.write(path, rate, np.asarray(data, dtype=np.float32))


def read_wav(path):
    rate, data = wavfile.read(path)
    if data.dtype == np.int16:
        data = data / 32768.0
    return rate, data.astype(np.float64)


def reference(x, h, align):
    """The contract: numpy.convolve per channel, cut as --align says."""
    x = np.asarray(x, dtype=np.float64)
    h = np.asarray(h, dtype=np.float64)
    x2 = x[:, None] if x.ndim == 1 else x
    h2 = h[:, None] if h.ndim == 1 else h
    if h2.shape[1] == 1:
        h2 = np.repeat(h2, x2.shape[1], axis=1)
    full = np.stack([signal.fftconvolve(x2[:, c], h2[:, c]) for c in range(x2.shape[1])], 1)
    if align == "full":
        y = full
    elif align == "causal":
        y = full[:len(x2)]
    else:
        y = full[(len(h2) - 1) // 2:][:len(x2)]
    return y[:, 0] if x.ndim == 1 else y


def loudest(h):
    """What --normalize peak (gfir's default with an IR) divides an IR by:
    the largest magnitude over frequency of any channel (response_peak.py)."""
    h2 = np.asarray(h, dtype=np.float64)
    h2 = h2[:, None] if h2.ndim == 1 else h2
    return peak_of_sums([[(h2[:, c], 1.0)] for c in range(h2.shape[1])])


def rel_l2(got, want):
    assert got.shape == want.shape, f"shape {got.shape}, wanted {want.shape}"
    return float(np.linalg.norm(got - want) / np.linalg.norm(want))


def room(rng, taps, rate=RATE):
    """A room-like impulse response: a direct path, then decaying noise."""
    t = np.arange(taps) / rate
    h = rng.standard_normal(taps) * np.exp(-t / (taps / rate / 5)) * 0.05
    h[0] = 0.5
    return h


def write_manifest(path, rows, layout=None):
    """rows: dicts of FIELDS. layout from the extension: tsv, csv or jsonl."""
    layout = layout or os.path.splitext(path)[1][1:]
    cols = [f for f in FIELDS if any(f in r for r in rows)]
    with open(path, "w", newline="") as f:
        if layout == "jsonl":
            for r in rows:
                f.write(json.dumps(r) + "\n")
            return path
        sep = "\t" if layout == "tsv" else ","

        def cell(v):
            v = str(v)
            if layout == "csv" and any(c in v for c in ',"'):
                v = '"' + v.replace('"', '""') + '"'
            return v
        f.write(sep.join(cols) + "\n")
        for r in rows:
            f.write(sep.join(cell(r.get(c, "")) for c in cols) + "\n")
    return path


def read_receipts(directory):
    """Every receipt line of every shard file, as dicts."""
    out = []
    for p in sorted(glob.glob(os.path.join(directory, "shard-*.jsonl"))):
        with open(p) as f:
            text = f.read()
        assert text == "" or text.endswith("\n"), f"{p}: last line unfinished"
        out += [json.loads(line) for line in text.splitlines()]
    return out


def temporaries(directory):
    """Temporary outputs (.NAME.gfir-XXXXXX) anywhere under directory."""
    return glob.glob(os.path.join(directory, "**", ".*.gfir-*"), recursive=True)


def ir_of(receipt):
    """The IR a receipt's filter names (--ir PATH)."""
    words = shlex.split(receipt["filter"])
    return words[words.index("--ir") + 1]


def check_output(job, receipt=None, base="", tol=REL_L2):
    """The output of a job given as a dict (input, output, ir, align, gain;
    paths under base) equals the NumPy reference (the IR at its default
    --normalize peak); with a receipt, its facts match too, and the IR is the
    one the receipt names."""
    job = {k: os.path.join(base, v) if k in ("input", "output", "ir") else v
           for k, v in job.items()}
    _, x = read_wav(job["input"])
    ir = job["ir"] if receipt is None else os.path.join(base, ir_of(receipt))
    _, h = read_wav(ir)
    want = reference(x, h / loudest(h), job.get("align", "full")) * \
        10 ** (float(job.get("gain", 0)) / 20)
    rate, y = read_wav(job["output"])
    err = rel_l2(y, want)
    assert err < tol, f"{job['output']}: rel L2 {err}"
    if receipt is not None:
        assert receipt["frames"] == len(y) and receipt["rate"] == rate, receipt
        assert receipt["bytes"] == os.path.getsize(job["output"]), receipt
        assert abs(receipt["peak"] - np.max(np.abs(y))) <= 1e-5 * receipt["peak"], receipt
    return err


def run(gfir, args, cwd, expect=0, env=None, timeout=300):
    full_env = dict(os.environ)
    for k in ("GFIR_PRESET_PATH", "XDG_CONFIG_HOME", "SLURM_ARRAY_TASK_ID",
              "SLURM_ARRAY_TASK_COUNT", "JOB_COMPLETION_INDEX"):
        full_env.pop(k, None)
    full_env["HOME"] = cwd
    # measuring FFT sizes takes seconds per size; wisdom is not what is tested
    full_env["GFIR_FFTW_PLANNER"] = "estimate"
    full_env.update(env or {})
    r = subprocess.run([gfir, *args], cwd=cwd, env=full_env, capture_output=True, text=True,
                       timeout=timeout)
    if expect is not None and r.returncode != expect:
        raise AssertionError(f"gfir {' '.join(args)}: exit {r.returncode}, wanted {expect}\n"
                             f"stdout: {r.stdout}\nstderr: {r.stderr}")
    return r
