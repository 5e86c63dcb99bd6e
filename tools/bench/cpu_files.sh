#!/usr/bin/env bash
# Filters a stereo 48 kHz 16-bit WAV with gfir's CPU backend, with
# `sox ... fir` and, when ffmpeg is installed (Debian package ffmpeg), with
# ffmpeg's afir, side by side; checks the outputs against a float64 SciPy
# convolution, and writes the cpu-files section of docs/BENCHMARKS.md with the
# machine, date and commit. The run fails when gfir's output is off.
#   bash tools/bench/cpu_files.sh [SECONDS [RUNS]]
#     SECONDS  length of the test file (default 600: the 10-minute file README
#              and docs/BENCHMARKS.md quote)
#     RUNS     runs per command; the median is reported (default 3)
#   GFIR_BUILD_DIR  build directory (default: build)
# The input is pink noise from sox's synth; the filters are Kaiser low-pass
# designs (SciPy's firwin), odd lengths 15 to 262143. `sox in.wav out.wav`
# is the I/O floor. Both tools keep the input's length with the filter's
# delay removed (gfir's --align same is sox's alignment for odd lengths) and
# write undithered 16-bit samples, so each may differ from the rounded
# reference only by float rounding: gfir is allowed 2 LSB. The reference
# covers the first 30 seconds, which every filter here fills completely.
# ffmpeg's afir is causal (it keeps the filter's delay), so its output is
# compared with the causal convolution; its gain normalisation is turned off
# (gtype=none), yet Debian 12's ffmpeg 5.1 still scales the output (by about
# sqrt(2) with a mono IR on stereo input): its column gives the error after
# that one least-squares gain, which is printed beside it, is removed.
# sox's and ffmpeg's figures are reported, not checked; a peer more than 4 LSB
# off does not count as the faster peer (sox's fir was found off by thousands
# of LSB at 262143 taps on Debian 12's sox 14.4.2, where gfir and its direct
# kernel both matched the reference).
# Figures are worth keeping only from an otherwise idle machine: the load
# average at the start is recorded beside the table.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
build=${GFIR_BUILD_DIR:-build}
seconds=${1:-600}
runs=${2:-3}
taps_list=(15 255 4095 65535 262143)

# The system Python has NumPy and SciPy from Debian; a pyenv shim may not.
py=python3
[ -x /usr/bin/python3 ] && py=/usr/bin/python3

if [ ! -f "$build/CMakeCache.txt" ]; then
    GFIR_BUILD_DIR=$build bash tools/setup.sh --tests
fi
cmake --build "$build" >/dev/null
gfir=$build/gfir
[ -x "$gfir" ] || { echo "cpu_files.sh: no CLI at $gfir" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

load=$(cut -d' ' -f1-3 /proc/loadavg)
sox -n -r 48000 -c 2 -b 16 "$work/in.wav" synth "$seconds" pinknoise vol 0.3
"$py" - "$work" "${taps_list[@]}" <<'EOF'
import sys
import numpy as np
from scipy import signal
for n in map(int, sys.argv[2:]):
    h = signal.firwin(n, 0.25, window=("kaiser", 8.0))
    np.savetxt(f"{sys.argv[1]}/taps{n}.txt", h, fmt="%.9g")
    # the same taps as a float WAV, for ffmpeg's afir
    from scipy.io import wavfile
    wavfile.write(f"{sys.argv[1]}/taps{n}.wav", 48000, h.astype(np.float32))
EOF

# Median wall time in seconds of RUNS runs of a command; with `cpu` first,
# "WALL CPU": the median run's wall time and its user + system time (on a
# shared machine CPU time tells the work apart from the waiting).
median_time() {
    local t times=() TIMEFORMAT='%R %U %S' want=wall
    if [ "$1" = cpu ]; then
        want=cpu
        shift
    fi
    for ((r = 0; r < runs; r++)); do
        t=$( { time "$@" >/dev/null 2>&1; } 2>&1)
        times+=("$t")
    done
    printf '%s\n' "${times[@]}" | sort -g | awk -v want=$want '
        {w[NR] = $1; c[NR] = $2 + $3}
        END {m = int((NR + 1) / 2); if (want == "cpu") printf "%s %.2f\n", w[m], c[m]; else print w[m]}'
}

# Largest difference in LSB of a 16-bit WAV from the rounded float64
# convolution of the input over its first 30 seconds: --align same, or the
# causal convolution when the third argument is "causal"; "causal-gain" also
# removes one least-squares gain first and prints it.
ref_diff() {
    "$py" - "$work/in.wav" "$1" "$2" "${3:-same}" <<'EOF'
import sys
import wave
import numpy as np
from scipy import signal
def read(path):
    with wave.open(path) as w:
        data = w.readframes(w.getnframes())
        return np.frombuffer(data, dtype="<i2").reshape(-1, w.getnchannels()).astype(np.float64)
x, y = read(sys.argv[1]), read(sys.argv[2])
h = np.loadtxt(sys.argv[3])
if x.shape != y.shape:
    print("length differs")
    sys.exit()
frames = min(len(x), 30 * 48000)
delay = 0 if sys.argv[4].startswith("causal") else (len(h) - 1) // 2
worst, gains = 0.0, []
for c in range(x.shape[1]):
    full = signal.oaconvolve(x[: frames + delay, c], h)
    ref = np.clip(np.round(full[delay : delay + frames]), -32768, 32767)
    got = y[:frames, c]
    if sys.argv[4] == "causal-gain":
        gain = float(np.dot(got, ref) / np.dot(ref, ref))
        gains.append(gain)
        ref = np.clip(np.round(full[delay : delay + frames] * gain), -32768, 32767)
    worst = max(worst, float(np.abs(got - ref).max()))
print(int(worst) if not gains else f"{int(worst)} (gain {np.mean(gains):.4f})")
EOF
}

ffmpeg=$(command -v ffmpeg || true)
[ -n "$ffmpeg" ] || echo "cpu_files.sh: no ffmpeg here (apt-get install ffmpeg): its column stays empty" >&2
read -r floor cfloor < <(median_time cpu sox "$work/in.wav" "$work/copy.wav")
echo "cpu_files.sh: ${seconds} s stereo, copy floor ${floor} s (CPU ${cfloor} s); $runs runs each" >&2

rows=""
verdict=ok
for n in "${taps_list[@]}"; do
    t=$work/taps$n.txt
    read -r tg cg < <(median_time cpu "$gfir" "$work/in.wav" "$work/gfir.wav" --taps "$t" \
                      --backend cpu --no-dither -q)
    ts=$(median_time sox -D "$work/in.wav" "$work/sox.wav" fir "$t")
    tf=- fdiff=-
    if [ -n "$ffmpeg" ]; then
        tf=$(median_time ffmpeg -nostdin -v error -y -i "$work/in.wav" -i "$work/taps$n.wav" \
             -lavfi "[0:a][1:a]afir=gtype=none" -c:a pcm_s16le "$work/ffmpeg.wav")
        fdiff=$(ref_diff "$work/ffmpeg.wav" "$t" causal-gain)
    fi
    kernel=$("$gfir" "$work/in.wav" "$work/gfir.wav" --taps "$t" --backend cpu --no-dither -v 2>&1 \
             | sed -n 's/.*kernel \([a-z]*\),.*/\1/p' | awk 'NR == 1')
    gdiff=$(ref_diff "$work/gfir.wav" "$t")
    sdiff=$(ref_diff "$work/sox.wav" "$t")
    case $gdiff in
        0 | 1 | 2) ;;
        *) verdict="GFIR IS OFF"; echo "cpu_files.sh: $n taps: gfir is off by $gdiff LSB" >&2 ;;
    esac
    # the faster of the peers whose output is right (within 4 LSB of the
    # reference): a wrong output is no race won
    best=-
    for cand in "$ts:$sdiff" "$tf:$fdiff"; do
        tc=${cand%%:*} dc=${cand#*:}
        [ "$tc" != - ] && [ "$dc" != - ] && awk -v d="$dc" 'BEGIN {exit !(d + 0 <= 4)}' || continue
        best=$(awk -v a="$best" -v b="$tc" 'BEGIN {print (a == "-" || b < a) ? b : a}')
    done
    speedup=$(awk -v a="$best" -v b="$tg" 'BEGIN {if (a == "-") print "-"; else printf "%.2fx", a / b}')
    overfloor=$(awk -v a="$tg" -v b="$floor" 'BEGIN {printf "%.2f", a / b}')
    row="| $n | $kernel | $tg | $cg | $ts | $tf | ${speedup} | ${overfloor}x | $gdiff | $sdiff | $fdiff |"
    echo "$row" >&2
    rows+="$row"$'\n'
done

load_end=$(cut -d' ' -f1-3 /proc/loadavg)
model=$(lscpu | sed -n '0,/^Model name:/s/^Model name:[[:space:]]*//p')
section=$(cat <<EOF
## CPU, files: gfir against sox fir and ffmpeg afir

${seconds} s stereo 48 kHz 16-bit WAV (pink noise), Kaiser low-pass filters;
median of $runs runs, wall time in seconds. $model, $(nproc) CPUs, load average
at the start $load, at the end $load_end; $(date -u +%Y-%m-%d), commit $(git rev-parse --short HEAD).
Copy floor (\`sox in.wav out.wav\`): $floor s (CPU, user + system: $cfloor s).
gfir's output: $verdict. gfir CPU: user + system time of its median run,
which on two cores may reach twice the wall time. Error: largest difference
from the rounded float64 convolution, first 30 s, in LSB.

| taps | gfir kernel | gfir --backend cpu | gfir CPU | sox fir | ffmpeg afir | faster right peer / gfir | gfir / floor | gfir error | sox error | ffmpeg error |
|---|---|---|---|---|---|---|---|---|---|---|
${rows%$'\n'}

Made by \`bash tools/bench/cpu_files.sh $seconds $runs\`.
EOF
)
echo "$section" | "$py" tools/bench/put-section.py docs/BENCHMARKS.md cpu-files
echo "cpu_files.sh: wrote the cpu-files section of docs/BENCHMARKS.md" >&2
[ "$verdict" = ok ]
