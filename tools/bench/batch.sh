#!/usr/bin/env bash
# `gfir batch` on a reverberation corpus, the issue-16 benchmark: FILES files
# of 10 s, 16 kHz mono 16-bit (noise shaped like speech: bursts and pauses),
# each convolved with a room chosen by seed from 50 room impulse responses of
# 0.5 s (8000 taps, a direct path and a decaying tail), --align full. Timed,
# median wall time of RUNS runs after one warm-up, with the files in the page
# cache:
#   - gfir batch over the manifest, on the CPU (and on CUDA where a GPU is)
#   - the same into tar shards of 1000 outputs (--tar), against the files
#     (target: within 1.1x)
#   - gfir batch with a 1-tap filter: reading and writing the same files with
#     no filter, the floor the target compares with (within 1.5x)
#   - a shell loop of one `gfir IN OUT --ir ROOM` per file, the same rooms
#   - the same loop of `sox IN OUT fir ROOM.txt`
# Checks 20 outputs of gfir batch against a float64 SciPy convolution (within
# 2 LSB: TPDF dither and rounding) and writes the batch section of
# docs/BENCHMARKS.md with the machine, date, commit and load average (the
# section batch-gpu on a machine with a GPU, batch elsewhere).
#   bash tools/bench/batch.sh [FILES [RUNS]]
#     FILES  corpus size (default 1000)
#     RUNS   runs per command, median reported (default 3; the loops are slow:
#            about 15 s and 150 s per run for 1000 files on 2 cores)
#   GFIR_LOOP_RUNS  runs of each shell loop (default RUNS): the loops are the
#                   slow baselines, and one timed run after the warm-up is
#                   enough to say how far behind they are
#   GFIR_PYTHON     Python with NumPy and SciPy (default /usr/bin/python3 where
#                   it exists, else python3)
#   GFIR_BUILD_DIR  build directory (default build)
#   GFIR_COMMIT     commit to record (default: git's HEAD)
#   GFIR_BENCH_DIR  where the corpus goes (default a temporary directory;
#                   1000 files take about 1 GB with the outputs)
#   GFIR_ROOM_S     the rooms' length in seconds (default 0.5; 2 with --gpus)
#
# One GPU against every GPU of the host (issue 30), on a corpus where the GPU
# is the limit: 2000 files with rooms of 2 s (32000 taps) by default:
#   bash tools/bench/batch.sh --gpus [FILES [RUNS]]
# times gfir batch --backend cuda --gpus 0 and --gpus all into two output
# trees, compares them file by file (sha256: the same samples from every GPU),
# checks 20 outputs against SciPy, times the 1-tap floor, and writes the
# batch-gpus section of docs/BENCHMARKS.md with each run's per-GPU split.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
build=${GFIR_BUILD_DIR:-build}
mode=corpus
if [ "${1:-}" = "--gpus" ]; then
    mode=gpus
    shift
fi
files=${1:-$([ "$mode" = gpus ] && echo 2000 || echo 1000)}
runs=${2:-3}
room_s=${GFIR_ROOM_S:-$([ "$mode" = gpus ] && echo 2 || echo 0.5)}
gfir=$(realpath "$build/gfir")
[ -x "$gfir" ] || { echo "batch.sh: no $gfir; build first (tools/setup.sh)" >&2; exit 1; }
py=python3
[ -x /usr/bin/python3 ] && py=/usr/bin/python3
py=${GFIR_PYTHON:-$py}
loop_runs=${GFIR_LOOP_RUNS:-$runs}
if [ -n "${GFIR_BENCH_DIR:-}" ]; then
    work=$GFIR_BENCH_DIR
    mkdir -p "$work"
else
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
fi
commit=${GFIR_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
load=$(cut -d' ' -f1-3 /proc/loadavg)

echo "batch.sh: making $files files and 50 rooms of $room_s s in $work" >&2
"$py" - "$work" "$files" "$room_s" <<'PY'
import os, sys, wave
import numpy as np
work, files, room_s = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
rate, seconds = 16000, 10
rng = np.random.default_rng(16)

def write16(path, x):
    with wave.open(path, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(np.clip(np.round(x * 32767), -32768, 32767).astype("<i2").tobytes())

os.makedirs(f"{work}/in", exist_ok=True)
os.makedirs(f"{work}/rooms", exist_ok=True)
# syllable-rate bursts (4 Hz) over noise, pauses between words
t = np.arange(rate * seconds) / rate
for i in range(files):
    envelope = np.maximum(0, np.sin(2 * np.pi * (3.5 + rng.random()) * t + rng.random() * 6))
    envelope *= rng.random(seconds * 2).repeat(rate // 2) > 0.3
    write16(f"{work}/in/u{i:04d}.wav", rng.standard_normal(len(t)) * envelope * 0.08)
# the tail decays over the whole room (0.08 s a neper for 0.5 s), so that a
# longer room is as many taps in 16 bits, not trailing zeros gfir drops
taps = int(rate * room_s)
decay = np.exp(-np.arange(taps) / rate / (room_s / 6.25))
for k in range(50):
    h = rng.standard_normal(taps) * decay * 0.04
    h[: 16 + k] = 0
    h[16 + k] = 0.6
    with wave.open(f"{work}/rooms/r{k:02d}.wav", "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(np.round(h * 32767).astype("<i2").tobytes())
    # sox's fir reads coefficients as text: the same 16-bit values
    np.savetxt(f"{work}/rooms/r{k:02d}.txt", np.round(h * 32767) / 32768, fmt="%.9g")
# a job's room follows its seed and id: the same in both trees of --gpus
for name, tree in (("jobs", "out"), ("jobs_all", "outall")):
    with open(f"{work}/{name}.tsv", "w") as f:
        f.write("id\tinput\toutput\tir\tseed\n")
        for i in range(files):
            f.write(f"u{i:04d}\tin/u{i:04d}.wav\t{tree}/u{i:04d}.wav\trooms\t16\n")
with open(f"{work}/copy.tsv", "w") as f:
    f.write("input\toutput\n")
    for i in range(files):
        f.write(f"in/u{i:04d}.wav\tcopy/u{i:04d}.wav\n")
with open(f"{work}/one.txt", "w") as f:
    f.write("1\n")
PY
cd "$work"

# Median wall time in seconds of RUNS runs of a command that must succeed,
# after one run that is not timed. Each batch run gets new receipts, so it
# does every job again. Every run starts with nothing left to write back
# (sync): gfir syncs each output before its rename, and would otherwise wait
# for what the run before it (or the corpus's making) left dirty.
median_time() {
    local times=() t0 t1 n=${n_runs:-$runs}
    for ((r = 0; r <= n; r++)); do
        rm -rf receipts shards
        sync
        t0=$(date +%s.%N)
        "$@" >/dev/null 2>"$work/err" || { echo "batch.sh: failed: $*" >&2; cat "$work/err" >&2; exit 1; }
        t1=$(date +%s.%N)
        ((r == 0)) || times+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.2f", b - a}')")
    done
    printf '%s\n' "${times[@]}" | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'
}

# --normalize none: the raw rooms, as sox's fir takes them and the check below
# expects (an IR's default is scaled to its peak gain).
batch() {
    local quiet=(-q)
    [ -z "${summary:-}" ] || quiet=()
    # GFIR_BATCH_ARGS: more options for every run (e.g. -j 32)
    # shellcheck disable=SC2086
    "$gfir" batch --receipts receipts "${quiet[@]}" --normalize none ${GFIR_BATCH_ARGS:-} "$@"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (a == "-" || b == "-") print "-"; else printf "%.2fx", a / b}'; }
per_s() { awk -v t="$1" -v n="$files" 'BEGIN {if (t == "-") print "-"; else printf "%.0f", n / t}'; }

# --gpus: every GPU against GPU 0 (the run of --gpus 0 is done by then), the
# outputs compared file by file, and the batch-gpus section.
gpu_all() {
    local t_all split_all t_floor same ngpu model gpu section
    t_all=$(median_time batch --manifest jobs_all.tsv --backend cuda --gpus all)
    split_all=$(grep -o 'per GPU: [^;]*' "$work/err" || echo "no split")
    echo "batch.sh: gfir batch --gpus all: $t_all s ($split_all)" >&2
    # the lines of files whose hashes differ (sha256sum -c fails then: not an error here)
    same=$(cd out && sha256sum -- *.wav | (cd ../outall && sha256sum --quiet -c - 2>/dev/null || true) |
           wc -l)
    if [ "$same" = 0 ] && [ "$(find outall -name '*.wav' | wc -l)" = "$files" ]; then
        same="all $files outputs identical (sha256)"
    else
        same="$same of $files outputs DIFFER from --gpus 0's"
    fi
    echo "batch.sh: $same" >&2
    t_floor=$(median_time batch --manifest copy.tsv --taps one.txt --backend cpu)
    echo "batch.sh: gfir batch, 1 tap $t_floor s" >&2
    ngpu=$(nvidia-smi -L | wc -l)
    model=$(lscpu | sed -n '0,/^Model name:/s/^Model name:[[:space:]]*//p')
    gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | awk 'NR == 1')
    section=$(cat <<EOF
## Batch: one GPU against every GPU of the host

$files files of 10 s, 16 kHz mono 16-bit, each convolved with one of 50 room
impulse responses of $room_s s chosen by seed, output with the tail. Median
wall time of $runs runs after a warm-up, files in the page cache. $model,
$(nproc) CPUs, $ngpu x $gpu; load average at the start $load; $(date -u +%Y-%m-%d),
commit $commit. Output against a float64 SciPy convolution (20 files, 2 LSB
allowed for dither): $verdict. --gpus all against --gpus 0: $same.

| command | seconds | files/s | / 1-tap floor | files per GPU |
|---|---|---|---|---|
| gfir batch --backend cuda --gpus 0 | $t_one | $(per_s "$t_one") | $(ratio "$t_one" "$t_floor") | ${split_one#per GPU: } |
| gfir batch --backend cuda --gpus all | $t_all | $(per_s "$t_all") | $(ratio "$t_all" "$t_floor") | ${split_all#per GPU: } |
| gfir batch, 1 tap (read and write only) | $t_floor | $(per_s "$t_floor") | 1.00x | |

The time of --gpus 0 over that of --gpus all: $(ratio "$t_one" "$t_all") (the issue's
target on two GPUs: 1.8x or more). Made by \`bash tools/bench/batch.sh --gpus $files $runs\`.
EOF
)
    cd - >/dev/null
    echo "$section" | "$py" tools/bench/put-section.py docs/BENCHMARKS.md batch-gpus
    echo "batch.sh: wrote the batch-gpus section of docs/BENCHMARKS.md" >&2
    echo "$section"
    [ "$verdict" = ok ] && [ "${same#all}" != "$same" ]
}
if [ "$mode" = gpus ]; then
    # without -q: the summary's per-GPU split, in $work/err after each run
    summary=1 t_one=$(median_time batch --manifest jobs.tsv --backend cuda --gpus 0)
    split_one=$(grep -o 'per GPU: [^;]*' "$work/err" || echo "no split")
    echo "batch.sh: gfir batch --gpus 0: $t_one s ($split_one)" >&2
else
    t_cpu=$(median_time batch --manifest jobs.tsv --backend cpu)
    echo "batch.sh: gfir batch (cpu) $t_cpu s" >&2
fi
# the rooms the batch chose, for the loops
"$py" - <<'PY'
import json, shlex
with open("receipts/shard-0-of-1.jsonl") as f, open("loop.txt", "w") as out:
    for line in f:
        r = json.loads(line)
        words = shlex.split(r["filter"])
        room = words[words.index("--ir") + 1]
        out.write(f"{r['input']} {r['output']} {room}\n")
PY
verdict=$("$py" - <<'PY'
import wave
import numpy as np
from scipy import signal
def read(path):
    with wave.open(path) as w:
        return np.frombuffer(w.readframes(w.getnframes()), dtype="<i2").astype(np.float64)
lines = open("loop.txt").read().splitlines()
worst = 0.0
for line in lines[:: max(1, len(lines) // 20)]:
    x, y, room = line.split()
    want = np.clip(np.round(signal.fftconvolve(read(x), read(room) / 32768)), -32768, 32767)
    got = read(y)
    worst = max(worst, float(np.abs(got - want).max()) if got.shape == want.shape else 1e9)
print("ok" if worst <= 2 else f"OFF BY {worst:g} LSB")
PY
)
echo "batch.sh: gfir batch output checked: $verdict" >&2
if [ "$mode" = gpus ]; then
    gpu_all
    exit 0
fi

t_cuda=-
if nvidia-smi -L >/dev/null 2>&1; then
    t_cuda=$(median_time batch --manifest jobs.tsv --backend cuda)
    echo "batch.sh: gfir batch (cuda) $t_cuda s" >&2
fi
t_tar=$(median_time batch --manifest jobs.tsv --backend cpu --tar shards)
echo "batch.sh: gfir batch (cpu) into tar shards $t_tar s" >&2
t_floor=$(median_time batch --manifest copy.tsv --taps one.txt --backend cpu)
echo "batch.sh: gfir batch, 1 tap $t_floor s" >&2
t_loop=$(n_runs=$loop_runs median_time bash -c 'while read -r x y room; do
    "$0" "$x" "$y" --ir "$room" --normalize none --backend cpu -q || exit 1; done < loop.txt' "$gfir")
echo "batch.sh: loop of gfir $t_loop s" >&2
t_sox=$(n_runs=$loop_runs median_time bash -c 'while read -r x y room; do
    sox "$x" "$y" fir "${room%.wav}.txt" || exit 1; done < loop.txt')
echo "batch.sh: loop of sox $t_sox s" >&2

row() { echo "| $1 | $2 | $(per_s "$2") | $(ratio "$2" "$t_floor") |"; }
model=$(lscpu | sed -n '0,/^Model name:/s/^Model name:[[:space:]]*//p')
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | awk 'NR == 1' || true)
section=$(cat <<EOF
## Batch: a reverberation corpus${gpu:+, on a GPU machine}

$files files of 10 s, 16 kHz mono 16-bit, each convolved with one of 50 room
impulse responses of 0.5 s (8000 taps) chosen by seed, output with the tail
(10.5 s). Median wall time of $runs runs after a warm-up ($loop_runs for the
shell loops), files in the page cache. $model, $(nproc) CPUs${gpu:+, $gpu}; load average at the start $load;
$(date -u +%Y-%m-%d), commit $commit. gfir batch's output against a float64
SciPy convolution (20 files, 2 LSB allowed for dither): $verdict.

Into tar shards rather than files: $(ratio "$t_tar" "$t_cpu") the time.

| command | seconds | files/s | / 1-tap floor |
|---|---|---|---|
$(row "gfir batch --backend cpu" "$t_cpu")
$(row "gfir batch --backend cuda" "$t_cuda")
$(row "gfir batch --backend cpu --tar shards (1000 a shard)" "$t_tar")
$(row "gfir batch, 1 tap (read and write only)" "$t_floor")
$(row "shell loop of gfir IN OUT --ir ROOM --normalize none" "$t_loop")
$(row "shell loop of sox IN OUT fir ROOM.txt" "$t_sox")

Made by \`${GFIR_LOOP_RUNS:+GFIR_LOOP_RUNS=$loop_runs }bash tools/bench/batch.sh $files $runs\`.
EOF
)
cd - >/dev/null
# The issue asks for both machines' figures: each has a section of its own.
name=batch
[ -z "$gpu" ] || name=batch-gpu
echo "$section" | "$py" tools/bench/put-section.py docs/BENCHMARKS.md "$name"
echo "batch.sh: wrote the $name section of docs/BENCHMARKS.md" >&2
echo "$section"
[ "$verdict" = ok ]
