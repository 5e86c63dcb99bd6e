#!/usr/bin/env bash
# Times --describe and --response on long impulse responses: a 30-second room
# at 48 kHz (1.44 million taps a channel), stereo (one to one on a stereo
# file) and true stereo (4 paths), described alone, described with a low-pass
# after it (whose bands are measured), and plotted. Writes the inspect
# section of docs/BENCHMARKS.md with the machine, date and commit.
#   bash tools/bench/inspect.sh [RUNS]
#     RUNS  runs per command; the median is reported (default 5)
#   GFIR_BUILD_DIR  build directory (default: build)
#   GFIR_BASELINE   another gfir executable to time beside it (an older
#                   build, say), in a column of its own
#   GFIR_BASELINE_NAME  what the table calls it (default: its path)
# The rooms are Gaussian noise under a 2-second exponential decay, from a
# fixed seed. Each run designs the filter (reading and normalising the room),
# makes the file's plans and measures or plots the response, as a user's run
# does. Figures are worth keeping only from an otherwise idle machine: the
# load average at the start is recorded beside the table.
set -euo pipefail
# shellcheck source=tools/bench/prelude.sh
source "$(dirname "${BASH_SOURCE[0]}")/prelude.sh"

load=$(cut -d' ' -f1-3 /proc/loadavg)
"$py" - "$work" <<'EOF'
import sys
import numpy as np
from scipy.io import wavfile
rate, frames = 48000, 30 * 48000
rng = np.random.default_rng(20261123)
decay = np.exp(-np.arange(frames) / (2.0 * rate))[:, None]
for name, channels in (("room2.wav", 2), ("room4.wav", 4)):
    room = rng.standard_normal((frames, channels)) * decay * 0.3
    wavfile.write(f"{sys.argv[1]}/{name}", rate, room.astype(np.float32))
wavfile.write(f"{sys.argv[1]}/st.wav", rate,
              (rng.standard_normal((4800, 2)) * 0.1).astype(np.float32))
EOF

# Median wall time in seconds of RUNS runs of a command, run in $work.
median_time() {
    local t times=() TIMEFORMAT=%R
    for ((r = 0; r < runs; r++)); do
        t=$( { time (cd "$work" && "$@" >/dev/null 2>&1); } 2>&1)
        times+=("$t")
    done
    printf '%s\n' "${times[@]}" | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'
}

cases=("--describe st.wav --ir room2.wav"
       "--describe st.wav --ir room2.wav --preset lowpass"
       "--response p.svg st.wav --ir room2.wav"
       "--describe st.wav --ir room4.wav"
       "--describe st.wav --ir room4.wav --preset lowpass"
       "--response p.svg st.wav --ir room4.wav")
rows=""
for c in "${cases[@]}"; do
    # shellcheck disable=SC2086
    t=$(median_time "$gfir" $c)
    tb=-
    # shellcheck disable=SC2086
    [ -z "$baseline" ] || tb=$(median_time "$baseline" $c)
    row="| \`gfir $c\` | $t | $tb |"
    echo "$row" >&2
    rows+="$row"$'\n'
done

model=$(lscpu | sed -n 's/^Model name:[[:space:]]*//p' | head -n1)
section=$(cat <<EOF
## --describe and --response on long impulse responses

30-second rooms at 48 kHz (1.44 million taps a channel; \`room2.wav\` stereo, one
to one on the stereo \`st.wav\`; \`room4.wav\` true stereo, 4 paths); median of
$runs runs, wall time in seconds, each designing the filter, making its plans
and measuring or plotting. $model, $(nproc) CPUs, load average at the start
$load; $(date -u +%Y-%m-%d), commit $(git rev-parse --short HEAD).
Baseline: $baseline_name.

| command | gfir | baseline |
|---|---|---|
${rows%$'\n'}

Made by \`bash tools/bench/inspect.sh $runs\`.
EOF
)
echo "$section" | "$py" tools/bench/put-section.py docs/BENCHMARKS.md inspect
echo "inspect.sh: wrote the inspect section of docs/BENCHMARKS.md" >&2
