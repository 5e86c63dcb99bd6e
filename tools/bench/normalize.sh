#!/usr/bin/env bash
# Times what --normalize costs on a long impulse response: a 20-second
# stereo file through a 30-second stereo room at 48 kHz (1.44 million taps a
# channel, one to one), with the default (--normalize peak), with
# --normalize energy and with --normalize none, and --describe of that filter
# with the default and with none (the normalisation's cost without the
# filtering), all interleaved so a shared machine's load falls on all alike.
# Writes the normalize section of docs/BENCHMARKS.md with the machine, date
# and commit.
#   bash tools/bench/normalize.sh [RUNS]
#     RUNS  timed runs per command after one warm-up each; the median is
#           reported (default 5)
#   GFIR_BUILD_DIR  build directory (default: build)
#   GFIR_BASELINE   another gfir executable (an older build, say) timed the
#                   same way, in rows of its own
#   GFIR_BASELINE_NAME  what the table calls it (default: its path)
# The room is Gaussian noise under a 2-second exponential decay and the
# input noise, both from a fixed seed. The target (issue 28): the default at
# most 1.1 times --normalize none.
set -euo pipefail
# shellcheck source=tools/bench/prelude.sh
source "$(dirname "${BASH_SOURCE[0]}")/prelude.sh"

"$py" - "$work" <<'EOF'
import sys
import numpy as np
from scipy.io import wavfile
rate, frames = 48000, 30 * 48000
rng = np.random.default_rng(20261126)
decay = np.exp(-np.arange(frames) / (2.0 * rate))[:, None]
room = rng.standard_normal((frames, 2)) * decay * 0.3
wavfile.write(f"{sys.argv[1]}/room2.wav", rate, room.astype(np.float32))
x = rng.standard_normal((20 * rate, 2)) * 0.1
wavfile.write(f"{sys.argv[1]}/in.wav", rate, x.astype(np.float32))
EOF

# One run's wall and CPU (user + system) times in seconds, as "wall,cpu":
# exe, then the case: file or describe (--describe of the filter alone, no
# file: reading, normalising and planning, what the normalisation adds to
# without the filtering), a colon and --normalize's value (- for the default).
one_time() {
    local exe=$1 kind=${2%%:*} mode=${2#*:} TIMEFORMAT='%R %U %S' args=() t
    [ "$mode" = - ] || args=(--normalize "$mode")
    if [ "$kind" = file ]; then
        rm -f "$work/out.wav"
        args=("$work/in.wav" "$work/out.wav" "${args[@]}" -q)
    else
        args=(--describe "${args[@]}")
    fi
    t=$( { time "$exe" --ir "$work/room2.wav" "${args[@]}" >/dev/null 2>&1; } 2>&1)
    awk '{printf "%.3f,%.3f", $1, $2 + $3}' <<<"$t"
}

# The median of field 1 (wall) or 2 (CPU) of the "wall,cpu" words read.
median() {
    tr ' ' '\n' | awk -F, -v f="$1" 'NF {print $f}' | sort -g |
        awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'
}

load=$(cut -d' ' -f1-3 /proc/loadavg)
exes=("$gfir")
[ -z "$baseline" ] || exes+=("$baseline")
modes=(file:- file:energy file:none describe:- describe:none)
declare -A times
for exe in "${exes[@]}"; do
    for mode in "${modes[@]}"; do
        one_time "$exe" "$mode" >/dev/null       # warm-up: page cache, FFTW wisdom
    done
done
for ((r = 0; r < runs; r++)); do
    for exe in "${exes[@]}"; do
        for mode in "${modes[@]}"; do
            times[$exe$mode]+="$(one_time "$exe" "$mode") "
        done
    done
done

rows=""
for exe in "${exes[@]}"; do
    name=gfir
    [ "$exe" = "$gfir" ] || name="baseline"
    for mode in "${modes[@]}"; do
        kind=${mode%%:*}
        none=$(median 1 <<<"${times[$exe$kind:none]}")
        none_cpu=$(median 2 <<<"${times[$exe$kind:none]}")
        t=$(median 1 <<<"${times[$exe$mode]}")
        cpu=$(median 2 <<<"${times[$exe$mode]}")
        label="--normalize ${mode#*:}"
        [ "${mode#*:}" != - ] || label="default (--normalize peak)"
        [ "$kind" = file ] || label="--describe, $label"
        ratio=$(awk -v a="$t" -v b="$none" 'BEGIN {printf "%.2f", a / b}')
        cpu_ratio=$(awk -v a="$cpu" -v b="$none_cpu" 'BEGIN {printf "%.2f", a / b}')
        row="| $name | $label | $t | ${ratio}x | $cpu | ${cpu_ratio}x |"
        echo "$row" >&2
        rows+="$row"$'\n'
    done
done

model=$(lscpu | sed -n '0,/^Model name:/s/^Model name:[[:space:]]*//p')
section=$(cat <<EOF
## --normalize on a long impulse response

A 20-second stereo file through a 30-second stereo room at 48 kHz (1.44
million taps a channel, one to one, \`--align full\`: 50 s out), the
backend AUTO picks; median of $runs runs after one warm-up, the commands
interleaved; wall time and CPU time (user + system, all threads) in
seconds, each a median of its own. $model, $(nproc) CPUs, load average at
the start $load, niceness $(nice); $(date -u +%Y-%m-%d), commit $(git rev-parse --short HEAD).
Baseline: $baseline_name. Target: the default at most 1.10x
\`--normalize none\`.

The \`--describe\` rows design the filter and make its plans without a file:
their difference is what the normalisation costs.

| build | command | wall s | / none | CPU s | / none |
|---|---|---|---|---|---|
${rows%$'\n'}

Made by \`bash tools/bench/normalize.sh $runs\`.
EOF
)
echo "$section" | "$py" tools/bench/put-section.py docs/BENCHMARKS.md normalize
echo "normalize.sh: wrote the normalize section of docs/BENCHMARKS.md" >&2
