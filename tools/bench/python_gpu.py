#!/usr/bin/env python3
"""gfir's Python package on the GPU against its peers, in one run.

On a GPU machine with PyTorch, torchaudio and CuPy, from the repository's
root, after building (cmake -B build -DGFIR_CUDA=ON ...):

    PYTHONPATH=src/python GFIR_LIBRARY=build/libgfir.so \\
        python3 tools/bench/python_gpu.py --gfir-bench build/tools/gfir-bench \\
        | python3 tools/bench/put-section.py docs/BENCHMARKS.md python-gpu

Table 1, one signal: CHANNELS x FRAMES float32 on the device (2 x 2^24),
one random filter at each tap count. gfir.convolve(x, h, "same") on PyTorch
tensors and on CuPy arrays, taps on the device, beside the C benchmark's
kernel time for the same sizes (gfir-bench, run here: the best of its
direct and fft kernels on planar input already on the device, which is
the target: the package within 10% of it), gfir.convolve "full", and the
peers in 'same' mode: torchaudio.functional.fftconvolve, cupyx's
fftconvolve and oaconvolve.

Table 2, a batch as data augmentation has it: BATCH utterances of SECONDS
at RATE Hz, each with its own random room impulse response of IR_SECONDS
(exponentially decaying noise), full convolution. gfir.convolve_batch
against torchaudio's fftconvolve and cupyx's fftconvolve and oaconvolve,
each batched and looped over the rows (the target: gfir at least 3x
faster than each).

Every time is the median of RUNS, after warm-up, of the time per call of
LOOP calls queued back to back between two CUDA events on the stream the
work is queued on (looped peers: one call each), with one more call queued
before the first event, so that the device is busy when the timing starts
and the first call's host work is not counted as device time: the
device's time where the host keeps ahead of it, else the host's, Python's
work included. The "host" columns are the wall time per call of the same
loops as the host queues them (Python and the library's calls, which wait
only where the queue is full), so the headroom is in view. The C kernel times are gfir-bench's, one launch
between its events. Every result is checked against a
float64 convolution on the GPU (cupyx's fftconvolve in float64): relative
L2 error below 1e-5 (1e-4 above 65536 taps), or the script stops.
"""
import argparse
import datetime
import os
import statistics
import subprocess
import sys
import tempfile
import time


def time_ms(fn, make_events, elapsed, runs, loop, warm=3):
    """(device, host): medians over runs of the time per call of `loop`
    calls queued back to back behind one more, between two events (the
    device's time per call where the host keeps ahead of it, the host's
    where it does not, Python's work per call included), and of the host's
    own time per call to queue them."""
    for _ in range(warm):
        fn()
    times, host = [], []
    for _ in range(runs):
        start, stop = make_events()
        fn()  # the device is busy when the first event is queued
        start.record()
        t0 = time.perf_counter()
        for _ in range(loop):
            fn()
        host.append((time.perf_counter() - t0) * 1e3 / loop)
        stop.record()
        stop.synchronize()
        times.append(elapsed(start, stop) / loop)
    return statistics.median(times), statistics.median(host)


def c_kernel_times(args, taps):
    """{ntaps: ms} of gfir-bench's best kernel, data on the device."""
    if args.bench_csv:
        path = args.bench_csv
    else:
        fd, path = tempfile.mkstemp(suffix=".csv")
        os.close(fd)
        subprocess.run([args.gfir_bench, "--kernels", "direct,fft", "--taps",
                        ",".join(map(str, taps)), "--channels", str(args.channels), "--frames",
                        str(args.frames), "--runs", str(args.runs), "--no-host",
                        "--live-blocks", "256", "--csv", path],
                       check=True, stdout=subprocess.DEVNULL)
    best = {}
    with open(path) as f:
        for line in f:
            p = line.strip().split(",")
            if p[0] == "device_resident" and p[1] in ("direct", "fft"):
                n, ms = int(p[2]), float(p[3])
                best[n] = min(ms, best.get(n, ms))
    return best


def tolerance(ntaps):
    return 1e-5 if ntaps <= 65536 else 1e-4


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gfir-bench", default="build/tools/gfir-bench",
                    help="gfir-bench to time the C kernels with")
    ap.add_argument("--bench-csv", help="gfir-bench --csv output to read instead of running it")
    ap.add_argument("--channels", type=int, default=2)
    ap.add_argument("--frames", type=int, default=1 << 24)
    ap.add_argument("--taps", default="15,63,255,1023,4095,16383,65535,262143")
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--loop", type=int, default=5, help="calls queued per timed run")
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--seconds", type=float, default=4.0)
    ap.add_argument("--rate", type=int, default=16000)
    ap.add_argument("--ir-seconds", type=float, default=0.5)
    args = ap.parse_args()

    import cupy
    import cupyx.scipy.signal as csig
    import torch
    import torchaudio.functional as AF

    import gfir

    def torch_time(fn, loop=None, with_host=False):
        ev = lambda: (torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
        t = time_ms(fn, ev, lambda a, b: a.elapsed_time(b), args.runs, loop or args.loop)
        return t if with_host else t[0]

    def cupy_time(fn, loop=None, with_host=False):
        t = time_ms(fn, lambda: (cupy.cuda.Event(), cupy.cuda.Event()),
                    cupy.cuda.get_elapsed_time, args.runs, loop or args.loop)
        return t if with_host else t[0]

    def check(name, got, ref64, ntaps):
        got64 = cupy.asarray(got).astype(cupy.float64)
        err = float(cupy.linalg.norm(got64 - ref64) / cupy.linalg.norm(ref64))
        if not err < tolerance(ntaps):
            sys.exit(f"python_gpu: {name} at {ntaps} taps is off the float64 result: {err:.3g}")
        return err

    taps = [int(t) for t in args.taps.split(",")]
    kernel = c_kernel_times(args, taps)
    C, N = args.channels, args.frames
    gen = torch.Generator(device="cuda").manual_seed(1)
    x = torch.rand(C, N, device="cuda", generator=gen) * 2 - 1
    xc = cupy.asarray(x)
    x64 = xc.astype(cupy.float64)
    rows1 = []
    worst = 0.0
    for ntaps in taps:
        h = torch.rand(ntaps, device="cuda", generator=gen) * 2 - 1
        hc = cupy.asarray(h)
        ref = csig.fftconvolve(x64, hc.astype(cupy.float64)[None, :], mode="same", axes=-1)
        worst = max(worst, check("gfir.convolve", gfir.convolve(x, h, "same"), ref, ntaps))
        check("gfir.convolve (CuPy)", gfir.convolve(xc, hc, "same"), ref, ntaps)
        del ref
        same, same_host = torch_time(lambda: gfir.convolve(x, h, "same"), with_host=True)
        t = {
            "gfir same (torch)": same,
            "gfir host": same_host,
            "gfir same (cupy)": cupy_time(lambda: gfir.convolve(xc, hc, "same")),
            "gfir full (torch)": torch_time(lambda: gfir.convolve(x, h, "full")),
            "torchaudio fftconvolve": torch_time(lambda: AF.fftconvolve(x, h[None, :], "same")),
            "cupy fftconvolve": cupy_time(
                lambda: csig.fftconvolve(xc, hc[None, :], mode="same", axes=-1)),
            "cupy oaconvolve": cupy_time(
                lambda: csig.oaconvolve(xc, hc[None, :], mode="same", axes=-1)),
        }
        rows1.append((ntaps, kernel.get(ntaps), t))
        gfir.clear_cache()
        torch.cuda.empty_cache()
        cupy.get_default_memory_pool().free_all_blocks()
    del x, xc, x64

    B, T, M = args.batch, int(args.seconds * args.rate), int(args.ir_seconds * args.rate)
    xb = torch.rand(B, T, device="cuda", generator=gen) * 2 - 1
    decay = torch.exp(-torch.arange(M, device="cuda") / (0.1 * args.rate))
    hb = (torch.rand(B, M, device="cuda", generator=gen) * 2 - 1) * decay
    xbc, hbc = cupy.asarray(xb), cupy.asarray(hb)
    refb = csig.fftconvolve(xbc.astype(cupy.float64), hbc.astype(cupy.float64), axes=-1)
    contenders = {
        "gfir.convolve_batch (torch)": ("torch", lambda: gfir.convolve_batch(xb, hb)),
        "gfir.convolve_batch (cupy)": ("cupy", lambda: gfir.convolve_batch(xbc, hbc)),
        "torchaudio fftconvolve, batched": ("torch", lambda: AF.fftconvolve(xb, hb)),
        "torchaudio fftconvolve, looped": (
            "torch", lambda: torch.stack([AF.fftconvolve(xb[i], hb[i]) for i in range(B)])),
        "cupy fftconvolve, batched": ("cupy", lambda: csig.fftconvolve(xbc, hbc, axes=-1)),
        "cupy fftconvolve, looped": (
            "cupy", lambda: cupy.stack([csig.fftconvolve(xbc[i], hbc[i]) for i in range(B)])),
        "cupy oaconvolve, batched": ("cupy", lambda: csig.oaconvolve(xbc, hbc, axes=-1)),
        "cupy oaconvolve, looped": (
            "cupy", lambda: cupy.stack([csig.oaconvolve(xbc[i], hbc[i]) for i in range(B)])),
    }
    rows2 = []
    for name, (kind, fn) in contenders.items():
        err = check(name, fn(), refb, M)
        loop = 1 if "looped" in name else None
        ms, host = (torch_time if kind == "torch" else cupy_time)(fn, loop, with_host=True)
        rows2.append((name, ms, host, err))

    device = torch.cuda.get_device_name()
    commit = os.environ.get("GFIR_COMMIT") or subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    print("## Python package on the GPU\n")
    print(f"`PYTHONPATH=src/python GFIR_LIBRARY=build/libgfir.so python3 "
          f"tools/bench/python_gpu.py --gfir-bench build/tools/gfir-bench` — device: {device}; "
          f"{datetime.date.today()}; commit `{commit or 'unknown'}`; torch {torch.__version__}, "
          f"CuPy {cupy.__version__}; median of {args.runs} runs of {args.loop} calls after "
          f"warm-up, queued behind one more, CUDA events.\n")
    print(f"Table 1: {C} channels x {N} frames on the device, one filter, 'same' unless "
          f"said (ms). C kernel: gfir-bench's best kernel on the same sizes, input already "
          f"planar behind its halo, without the filter's transform, which gfir.convolve "
          f"makes on every call (its taps are device memory that may have changed). host: "
          f"the host's time per gfir same (torch) call. Largest error of gfir against "
          f"float64: {worst:.2g}.\n")
    peers = ["torchaudio fftconvolve", "cupy fftconvolve", "cupy oaconvolve"]
    print("| taps | C kernel | gfir same (torch) | / C kernel | host | gfir same (cupy) | "
          "gfir full (torch) | " + " | ".join(peers) + " | best peer / gfir |")
    print("|---:" * (8 + len(peers)) + "|")
    for ntaps, ck, t in rows1:
        g = t["gfir same (torch)"]
        best = min(t[p] for p in peers)
        versus = (f"{ck:.4f} | {g:.4f} | {g / ck:.2f}x" if ck else f"- | {g:.4f} | -")
        print(f"| {ntaps} | {versus} | {t['gfir host']:.4f} | {t['gfir same (cupy)']:.4f} | "
              f"{t['gfir full (torch)']:.4f} | " + " | ".join(f"{t[p]:.4f}" for p in peers)
              + f" | {best / g:.2f}x |")
    print(f"\nTable 2: {B} utterances of {args.seconds:g} s at {args.rate} Hz, each with its "
          f"own {args.ir_seconds:g} s impulse response ({M} taps), full convolution (ms).\n")
    print("| | ms | host ms | gfir faster by | rel L2 vs float64 |\n|---|---:|---:|---:|---:|")
    g = rows2[0][1]
    for name, ms, host, err in rows2:
        print(f"| {name} | {ms:.3f} | {host:.3f} | {ms / g:.2f}x | {err:.2g} |")


if __name__ == "__main__":
    main()
