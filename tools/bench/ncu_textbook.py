#!/usr/bin/env python3
"""Global-memory traffic of the textbook kernels, measured with Nsight Compute,
beside the reductions PMPP chapter 7 predicts.

    python3 tools/bench/ncu_textbook.py BUILD_DIR [--markdown FILE]

Profiles one launch of each kernel from gfir-bench on 2 x 2^24 samples with
blockDim 128 and a mask of 11 taps (the chapter's n = 5), reading:
  - L1 global-load sectors (32 B): the loads the kernel asks for, the
    chapter's "global memory accesses". The chapter counts input loads with
    the mask in constant memory; our basic, tiled and cached kernels read the
    taps from global memory, one broadcast sector per warp per tap, so the
    "input" column subtracts exactly those (warps x ntaps) before comparing;
  - DRAM bytes read: what actually leaves HBM once L2 has caught the reuse.
The chapter's tiled kernel (7.4) cuts loads per output from mask width W to
(T + W - 1) / T: a ratio of T * W / (T + W - 1) = 10.20 for T = 128, W = 11.
Its constant-memory kernel (7.3) halves them (taps no longer loaded).
"""
import argparse
import csv
import io
import subprocess
import sys

METRICS = {
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum": "L1 load sectors",
    "dram__bytes_read.sum": "DRAM bytes read",
    "dram__bytes_write.sum": "DRAM bytes written",
}
KERNELS = ["basic", "constant", "tiled", "cached", "direct"]
T, W, FRAMES, CHANNELS = 128, 11, 1 << 24, 2
# kernels whose inner loop loads taps[m] from global memory
TAPS_IN_GLOBAL = {"basic", "tiled", "cached"}
# all loads for constant (taps leave global memory), input loads for tiled
PREDICTED = {"basic": "1.00", "constant": "2.00 (all loads)",
             "tiled": f"{T * W / (T + W - 1):.2f} (input loads)"}


def profile(bench, kernel):
    cmd = ["ncu", "--clock-control", "none", "--csv", "--print-units", "base",
           "--metrics", ",".join(METRICS), "-k", f"regex:^{kernel}_kernel", "-c", "1",
           bench, "--kernels", kernel, "--taps", str(W), "--threads", str(T),
           "--frames", str(FRAMES), "--channels", str(CHANNELS), "--runs", "1", "--no-host"]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"ncu_textbook: ncu failed for {kernel}:\n{out.stderr[-2000:]}")
    text = out.stdout[out.stdout.index('"ID"'):]
    values = {}
    for row in csv.DictReader(io.StringIO(text)):
        values[row["Metric Name"]] = float(row["Metric Value"].replace(",", ""))
    return values


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--markdown")
    args = ap.parse_args()
    bench = f"{args.build}/tools/gfir-bench"
    rows = {k: profile(bench, k) for k in KERNELS}
    warps = FRAMES * CHANNELS // 32

    def input_sectors(k):
        total = rows[k]["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"]
        return total - (warps * W if k in TAPS_IN_GLOBAL else 0)

    base_all = rows["basic"]["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"]
    base_in = input_sectors("basic")
    ideal = FRAMES * CHANNELS * 4 * 2  # each input read once, each output written once
    lines = [f"blockDim {T}, {W} taps, {CHANNELS} x {FRAMES} samples; one launch each.",
             "",
             "| kernel | L1 global-load sectors | all loads vs basic | input-load sectors |"
             " input loads vs basic | predicted (PMPP) | DRAM bytes | DRAM / ideal |",
             "|---|---|---|---|---|---|---|---|"]
    for k in KERNELS:
        v = rows[k]
        sectors = v["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"]
        dram = v["dram__bytes_read.sum"] + v["dram__bytes_write.sum"]
        pred = PREDICTED.get(k)
        lines.append(f"| {k} | {sectors:.3g} | {base_all / sectors:.2f} | {input_sectors(k):.3g} | "
                     f"{base_in / input_sectors(k):.2f} | {pred if pred else '-'} | "
                     f"{dram:.3g} | {dram / ideal:.2f} |")
    text = "\n".join(lines)
    print(text)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
