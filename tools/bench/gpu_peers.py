#!/usr/bin/env python3
"""Times what a GPU user could pick instead of gfir, on gfir-bench's signal.

Runs with the python3 of a GPU machine that has PyTorch, torchaudio and CuPy:

    python3 tools/bench/gpu_peers.py --csv gfir-bench.csv [--markdown out.md]

The signal is the one gfir-bench times: CHANNELS x FRAMES float32 on the
device, random, with a random shared tap set. Each peer computes the causal
convolution (or the full one, which contains it), timed with CUDA events:
median of RUNS after warm-up. Rows of gfir-bench's CSV from the same run give
gfir's figures; the ratio column is best peer time / best gfir kernel time at
that tap count (issue 28's target: at least 4x at every tap count from 15
to 2^20).

torch conv1d is a direct convolution: above CONV1D_MAX_TAPS it takes seconds
per run and is left out ("too slow (direct)" in its cell). A peer that cannot
run a size (out of device memory, an error) says so in its cell too, and the
best peer is the fastest of those that ran. The peers that ran must agree
with the first of them to 1e-3 (relative L2), or the script stops.
"""
import argparse
import statistics
import sys

CONV1D_MAX_TAPS = 16383


def time_ms(fn, make_events, elapsed, runs, warm=3):
    """Median milliseconds of fn between two device events, after warm-up."""
    for _ in range(warm):
        fn()
    times = []
    for _ in range(runs):
        start, stop = make_events()
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(elapsed(start, stop))
    return statistics.median(times)


def free_device(cupy):
    """Gives the memory pools' cached blocks back, so the next size starts clean."""
    import torch
    torch.cuda.empty_cache()
    cupy.get_default_memory_pool().free_all_blocks()


def attempt(fn, cupy):
    """fn's time, or why a peer has none at this size: the table says so."""
    try:
        return fn()
    except Exception as e:  # torch's and CuPy's OutOfMemoryError, a cuFFT size limit, ...
        free_device(cupy)
        text = f"{type(e).__name__}: {e}"
        return "out of memory" if "out of memory" in text.lower() or "OutOfMemory" in text \
            else "failed: " + type(e).__name__


def read_gfir(path):
    rows, info = {}, {}
    with open(path) as f:
        for line in f:
            parts = line.strip().split(",")
            if parts[0] == "device_resident":
                rows.setdefault(int(parts[2]), {})[parts[1]] = float(parts[3])
            elif parts[0] in ("ceiling", "device"):
                info[parts[1] if parts[0] == "ceiling" else "device"] = parts[-1]
    return rows, info


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--csv", required=True, help="gfir-bench --csv output of this run")
    ap.add_argument("--channels", type=int, default=2)
    ap.add_argument("--frames", type=int, default=1 << 24)
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--markdown", help="also write the table as Markdown here")
    args = ap.parse_args()

    import cupy
    import cupyx.scipy.signal as csig
    import torch
    import torch.nn.functional as F
    import torchaudio.functional as AF

    gfir, info = read_gfir(args.csv)
    C, N = args.channels, args.frames
    gen = torch.Generator(device="cuda").manual_seed(1)
    x = torch.rand(C, N, device="cuda", generator=gen) * 2 - 1
    def torch_time(fn):
        events = lambda: (torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
        return time_ms(fn, events, lambda a, b: a.elapsed_time(b), args.runs)

    def cupy_time(fn):
        events = lambda: (cupy.cuda.Event(), cupy.cuda.Event())
        return time_ms(fn, events, cupy.cuda.get_elapsed_time, args.runs)

    peers = ["torch conv1d", "torchaudio fftconvolve", "cupy oaconvolve", "cupy fftconvolve"]
    table = []
    for ntaps in sorted(gfir):
        h = torch.rand(ntaps, device="cuda", generator=gen) * 2 - 1
        # conv1d correlates: flip the taps; the halo (ntaps-1 zeros) is laid
        # out beforehand, as gfir's kernels get theirs, so only the filter is timed.
        xp = F.pad(x, (ntaps - 1, 0)).unsqueeze(0)
        w = h.flip(0).view(1, 1, ntaps).expand(C, 1, ntaps).contiguous()
        hb = h.view(1, ntaps)
        xc, hc = cupy.asarray(x), cupy.asarray(hb)
        # each peer: its call, how it is timed, and its causal output as a tensor
        calls = {
            "torch conv1d": (lambda: F.conv1d(xp, w, groups=C), torch_time, lambda r: r[0]),
            "torchaudio fftconvolve": (lambda: AF.fftconvolve(x, hb), torch_time,
                                       lambda r: r[:, :N]),
            "cupy oaconvolve": (lambda: csig.oaconvolve(xc, hc, axes=-1), cupy_time,
                                lambda r: torch.as_tensor(r[:, :N], device="cuda")),
            "cupy fftconvolve": (lambda: csig.fftconvolve(xc, hc, axes=-1), cupy_time,
                                 lambda r: torch.as_tensor(r[:, :N], device="cuda")),
        }
        t = {}
        for p in peers:
            if p == "torch conv1d" and ntaps > CONV1D_MAX_TAPS:
                t[p] = "too slow (direct)"
            else:
                call, timer, _ = calls[p]
                t[p] = attempt(lambda: timer(call), cupy)
        # the peers that ran must agree with each other, or the timings mean nothing
        ran = [p for p in peers if isinstance(t[p], float)]
        if len(ran) > 1:
            ref = calls[ran[0]][2](calls[ran[0]][0]())
            for p in ran[1:]:
                other = calls[p][2](calls[p][0]())
                err = float(torch.linalg.norm(ref - other) / torch.linalg.norm(ref))
                if not err < 1e-3:
                    sys.exit(f"gpu_peers: {ran[0]} and {p} disagree at {ntaps} taps: {err:.2g}")
                del other
            del ref
        best_peer = min(ran, key=t.get) if ran else None
        g = gfir[ntaps]
        best_gfir = min(g, key=g.get)
        table.append((ntaps, g, best_gfir, t, best_peer))
        del xp, w, xc, hc
        free_device(cupy)

    def ms(v):
        if isinstance(v, str):
            return v
        return f"{v:.4f}" if v is not None else "-"

    head = ("| ntaps | gfir direct ms | gfir fft ms | best gfir | "
            + " | ".join(f"{p} ms" for p in peers)
            + " | best peer | best peer / best gfir |")
    lines = [head, "|" + "---|" * (6 + len(peers))]
    for ntaps, g, bk, t, bp in table:
        ratio = f"{t[bp] / g[bk]:.2f}x" if bp else "-"
        lines.append(f"| {ntaps} | {ms(g.get('direct'))} | {ms(g.get('fft'))} | {bk} | "
                     + " | ".join(ms(t.get(p)) for p in peers)
                     + f" | {bp or 'none ran'} | {ratio} |")
    text = "\n".join(lines)
    print(f"device: {info.get('device', '?')}; {C} channels x {N} frames; median of {args.runs}")
    print(text)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
