#!/usr/bin/env bash
# The GPU benchmark, on a machine with an NVIDIA GPU, CUDA, PyTorch and CuPy:
# builds gfir-bench, times gfir's kernels and the peers side by side in one
# run, and writes the "gpu" section of docs/BENCHMARKS.md (device, date,
# commit, both tables). Tap counts: gfir-bench's, 15 to 2^20 (1048576); a
# peer that cannot run one says why in its cell (gpu_peers.py).
#   GFIR_BUILD_DIR  build directory (default build-gpu)
#   GFIR_COMMIT     commit to record (default: git's HEAD; set it where the
#                   tree's .git is missing or stale, as on a copied tree)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
build=${GFIR_BUILD_DIR:-build-gpu}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGFIR_TESTS=OFF >/dev/null
cmake --build "$build" --target gfir-bench >/dev/null
csv=$build/gpu-bench.csv
rm -f "$csv"
"$build/tools/gfir-bench" --csv "$csv" "$@" | tee "$build/gfir-bench.txt"
echo
python3 tools/bench/gpu_peers.py --csv "$csv" --markdown "$build/peers.md" | tee "$build/peers.txt"
python3 tools/bench/ncu_textbook.py "$build" --markdown "$build/ncu.md"
commit=${GFIR_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
device=$(grep '^device,' "$csv" | cut -d, -f2-)
{
  echo "## GPU kernels and peers"
  echo
  echo "Command: \`bash tools/bench/gpu.sh\`. Device: $device. Date: $(date -u +%F). Commit: $commit."
  echo
  echo "floor ms is the memory floor of each kernel's passes: the bytes they must move through"
  echo "device memory at the copy rate measured in the same run (input and output once; smfft's"
  echo "four-step shape, above 16384 points, also writes, rereads and rewrites, and reads back"
  echo "its work matrix, 32 bytes a point per segment pair and channel; tools/gfir_bench.cu has"
  echo "the model); /floor is the time over it. No floor is given for the cuFFT passes."
  echo
  echo '```'
  cat "$build/gfir-bench.txt"
  echo '```'
  echo
  echo "Peers on the same signal, same run (ms, median; ratio = best peer / best gfir kernel):"
  echo
  cat "$build/peers.md"
  echo
  echo "Global-memory traffic of the textbook kernels (Nsight Compute, tools/bench/ncu_textbook.py):"
  echo
  cat "$build/ncu.md"
} | python3 tools/bench/put-section.py docs/BENCHMARKS.md gpu
