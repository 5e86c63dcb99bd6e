#!/usr/bin/env bash
# tools/ci/tsan.sh - the LV2 plugins' threads under ThreadSanitizer: builds
# the bundle and its liblilv host tests with -fsanitize=thread into
# build-tsan/ and runs them. convolver_test runs the worker on a thread of
# its own while the audio calls go on, and restores state while a load runs
# there (tests/lv2/host.h); convolver_save_test calls save() on a third
# thread while run() and the worker swap IRs: any data race between run(),
# work(), save() and restore() is a report, and a report fails the run. Then gfir batch with
# six workers designing filters side by side (IRs and presets, no lock
# between them) over a small corpus.
#   GFIR_TSAN_BUILD_DIR   build directory (default: build-tsan)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

build=${GFIR_TSAN_BUILD_DIR:-build-tsan}
# GCC warns that ThreadSanitizer does not model atomic_thread_fence: the
# runner's one fence orders its seqlock check (src/lv2/runner.c), and what
# the worker reads from the ring is ordered by acquire loads TSan does see.
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGFIR_CUDA=OFF \
    -DGFIR_WERROR=ON -DCMAKE_C_FLAGS="-fsanitize=thread -g -Wno-tsan" >/dev/null
cmake --build "$build" --target gfir_lv2 convolver_test convolver_save_test filter_test gfir
TSAN_OPTIONS="halt_on_error=1 exitcode=66" ctest --test-dir "$build" --output-on-failure \
    -R '^(convolver_test|convolver_save_test|filter_test)$'

corpus=$(mktemp -d)
trap 'rm -rf "$corpus"' EXIT
py=${GFIR_PYTHON:-$( [ -x /usr/bin/python3 ] && echo /usr/bin/python3 || echo python3)}
"$py" - "$corpus" <<'PYEOF'
import sys
import numpy as np
from scipy.io import wavfile
d = sys.argv[1]
rng = np.random.default_rng(3)
for i in range(4):
    n = 3000 + 500 * i
    h = rng.standard_normal(n) * np.exp(-np.arange(n) / 600) * 0.1
    wavfile.write(f"{d}/h{i}.wav", 16000, h.astype(np.float32))
lines = ["input,output,ir,preset"]
for j in range(24):
    x = rng.standard_normal(16000 + 37 * j) * 0.2
    wavfile.write(f"{d}/x{j}.wav", 16000, x.astype(np.float32))
    lines.append(f"x{j}.wav,out/y{j}.wav,h{j % 4}.wav," if j % 3 else
                 f"x{j}.wav,out/y{j}.wav,,lowpass")
open(f"{d}/m.csv", "w").write("\n".join(lines) + "\n")
PYEOF
gfir=$(realpath "$build/gfir")
(cd "$corpus" && TSAN_OPTIONS="halt_on_error=1 exitcode=66" "$gfir" batch m.csv --backend cpu -j 6 -q)
[ "$(ls "$corpus/out" | wc -l)" = 24 ] || { echo "tsan.sh: gfir batch wrote too few outputs" >&2; exit 1; }
echo "tsan.sh: gfir batch, 24 jobs on 6 workers: no race reported"
