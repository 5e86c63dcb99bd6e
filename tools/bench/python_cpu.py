#!/usr/bin/env python3
"""gfir's Python package on the CPU against SciPy and NumPy, in one run.

From the repository's root, after building (bash tools/setup.sh):

    PYTHONPATH=src/python GFIR_LIBRARY=build/libgfir.so \\
        /usr/bin/python3 tools/bench/python_cpu.py \\
        | /usr/bin/python3 tools/bench/put-section.py docs/BENCHMARKS.md python-cpu

CHANNELS x FRAMES float32 NumPy rows (2 x 2^20), one random filter per tap
count, mode 'same'. gfir.convolve with its plan kept from the previous
call of the shape (the common case: one filter, many signals) and with a
new filter every call (the plan made inside the timing); against
scipy.signal.oaconvolve and, up to NUMPY_MAX_TAPS, numpy.convolve row by
row (a direct convolution: seconds per run beyond). The target: gfir at
least as fast as oaconvolve from 255 taps up and numpy.convolve below.

Wall-clock medians of RUNS after a warm-up run (which also lets FFTW
measure and keep its plans). Every result is checked against a float64
oaconvolve: relative L2 error below 1e-5, or the script stops. The
machine's load is printed: on a shared machine the figures measure the
contention as much as the code.
"""
import argparse
import datetime
import os
import platform
import statistics
import subprocess
import sys
import time

import numpy as np
import scipy
import scipy.signal

import gfir

NUMPY_MAX_TAPS = 1023


def time_s(fn, runs):
    fn()
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--channels", type=int, default=2)
    ap.add_argument("--frames", type=int, default=1 << 20)
    ap.add_argument("--taps", default="15,63,127,255,1023,4095,16383,65535")
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()

    rng = np.random.default_rng(1)
    x = rng.uniform(-1, 1, (args.channels, args.frames)).astype(np.float32)
    x64 = x.astype(np.float64)
    load = os.getloadavg()
    rows = []
    for ntaps in (int(t) for t in args.taps.split(",")):
        h = rng.uniform(-1, 1, ntaps).astype(np.float32)
        ref = scipy.signal.oaconvolve(x64, h.astype(np.float64)[None, :], "same", axes=-1)
        y = gfir.convolve(x, h, "same")
        err = float(np.linalg.norm(y - ref) / np.linalg.norm(ref))
        if not err < 1e-5:
            sys.exit(f"python_cpu: gfir at {ntaps} taps is off the float64 result: {err:.3g}")

        def new_filter():
            gfir.clear_cache()
            gfir.convolve(x, h, "same")

        t = {
            "gfir": time_s(lambda: gfir.convolve(x, h, "same"), args.runs),
            "gfir, new filter": time_s(new_filter, args.runs),
            "oaconvolve": time_s(
                lambda: scipy.signal.oaconvolve(x, h[None, :], "same", axes=-1), args.runs),
        }
        if ntaps <= NUMPY_MAX_TAPS:
            t["numpy.convolve"] = time_s(
                lambda: [np.convolve(r, h, "same") for r in x], args.runs)
        rows.append((ntaps, t, err, gfir.Plan(h, backend="cpu", max_latency=None,
                                              max_block_frames=1 << 20).kernel))
        gfir.clear_cache()

    commit = os.environ.get("GFIR_COMMIT") or subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    print("## Python package on the CPU\n")
    print(f"`PYTHONPATH=src/python GFIR_LIBRARY=build/libgfir.so /usr/bin/python3 "
          f"tools/bench/python_cpu.py` — {cpu_name()}, {os.cpu_count()} CPUs; "
          f"{datetime.date.today()}; commit `{commit or 'unknown'}`; NumPy {np.__version__}, "
          f"SciPy {scipy.__version__}; load average at start {load[0]:.2f} {load[1]:.2f} "
          f"{load[2]:.2f}.\n")
    print(f"{args.channels} x {args.frames} float32 samples, mode 'same', wall-clock ms, median "
          f"of {args.runs} after a warm-up. Target peer: oaconvolve from 255 taps, "
          f"numpy.convolve below.\n")
    print("| taps | gfir kernel | gfir | gfir, new filter | scipy oaconvolve | numpy.convolve | "
          "target peer / gfir | rel L2 vs float64 |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|")
    for ntaps, t, err, kernel in rows:
        peer = t["oaconvolve"] if ntaps >= 255 else t.get("numpy.convolve", t["oaconvolve"])
        numpy_ms = f"{1e3 * t['numpy.convolve']:.1f}" if "numpy.convolve" in t else "-"
        print(f"| {ntaps} | {kernel} | {1e3 * t['gfir']:.1f} | {1e3 * t['gfir, new filter']:.1f} "
              f"| {1e3 * t['oaconvolve']:.1f} | {numpy_ms} | {peer / t['gfir']:.2f}x | "
              f"{err:.2g} |")


if __name__ == "__main__":
    main()
