#!/usr/bin/env bash
# lv2.sh - the LV2 plugins' cost: lilv's lv2bench for gfir filter at blocks
# of 64 and 512 frames (lv2bench offers no worker, so it cannot run the
# convolver), and tools/lv2_bench (the tests' liblilv host) timing run() of
# gfir convolver with stereo IRs of 2^16 and 2^20 taps at 64-frame blocks,
# beside the Debian peers in the same host and run: x42's zeroconvolv and
# convoLV2 (x42-plugins) and LSP's Impulse Responses (lsp-plugins-lv2).
# Every plugin first answers a unit impulse with the IR (lv2_bench checks it
# to 1e-3), so each row is the same convolution. How each peer gets the file,
# as a real host gives it:
#   convoLV2   patch:Set of the path property its Turtle declares;
#   zeroconvolv (20221119) as a restored state (a preset, a session): its
#              work() takes no atom:Path, which patch:Set carries (x42/zconvo.lv2
#              4137093, June 2023, fixed it);
#   LSP (1.2.5) patch:Set of <plugin URI>/ports#ifn0, the URI its wrapper maps
#              and its own UI sends: its Turtle declares http://lsp-plug.in//ports#ifn0
#              (lsp-plugin-fw 57919e7f, 1.0.32, fixed that); its channel sources set
#              to file 1 left and right (their default is none) and its dry level
#              to 0; it loads at most 10 s of a file, so at 2^20 taps it filters
#              with the first 480000 (and is checked against those).
#   tools/bench/lv2.sh [--seconds N] [--build DIR]   (GFIR_PYTHON: a Python with NumPy
#   and SciPy for the 64-channel IR; default /usr/bin/python3)
# Prints a Markdown section for docs/BENCHMARKS.md:
#   tools/bench/lv2.sh | tools/bench/put-section.py docs/BENCHMARKS.md lv2
# With --channels 64, only gfir convolver-64 with a 64-channel IR of --taps
# taps (480000) at --block frames (128) on --backend (cuda; auto, cpu), the
# issue's GPU target (worst run() under 50% of the period):
#   tools/bench/lv2.sh --channels 64 | tools/bench/put-section.py docs/BENCHMARKS.md lv2-64
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
seconds=20
build=build
channels=
taps=480000
block=128
backend=cuda
while [ $# -gt 0 ]; do
    case $1 in
    --seconds) seconds=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --channels) channels=$2; shift 2 ;;
    --taps) taps=$2; shift 2 ;;
    --block) block=$2; shift 2 ;;
    --backend) backend=$2; shift 2 ;;
    *) echo "lv2.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
case $backend in auto) backend_value=0 ;; cpu) backend_value=1 ;; cuda) backend_value=2 ;;
*) echo "lv2.sh: --backend is auto, cpu or cuda, not $backend" >&2; exit 2 ;;
esac
if [ -n "$channels" ] && [ "$channels" != 64 ]; then
    echo "lv2.sh: --channels takes 64 (gfir convolver-64), not $channels" >&2
    exit 2
fi
tools="$build/tools/lv2_bench"
[ -n "$channels" ] || tools="lv2bench $tools" # lv2bench times gfir filter: not in this mode
for tool in $tools; do
    command -v "$tool" >/dev/null || { echo "lv2.sh: no $tool (lilv-utils; build first)" >&2; exit 1; }
done
export LV2_PATH="$PWD/$build/lv2:/usr/lib/lv2"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

header() {
    echo "\`bash tools/bench/lv2.sh $*\` — machine: $(grep -m1 'model name' /proc/cpuinfo |
        cut -d: -f2 | sed 's/^ //'), $(nproc) CPUs$(gpu_name); $(date -u +%F); commit \`$(git rev-parse --short HEAD)\`;"
    echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)."
}
gpu_name() {
    command -v nvidia-smi >/dev/null &&
        nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 | sed 's/^/, /'
    true
}

if [ -n "$channels" ]; then
    "${GFIR_PYTHON:-/usr/bin/python3}" - "$work/ir.wav" "$taps" <<'PYEOF'
import sys
import numpy as np
import scipy.io.wavfile as w
rng = np.random.default_rng(64)
n = int(sys.argv[2])
decay = np.exp(-np.arange(n) / (n / 6.0))[:, None]
w.write(sys.argv[1], 48000, (rng.standard_normal((n, 64)) * decay * 0.05).astype(np.float32))
PYEOF
    out=$(timeout 600 "$build/tools/lv2_bench" urn:gfir:lv2:convolver-64 urn:gfir:lv2:ir \
        "$work/ir.wav" "$block" "$seconds" normalize=0 backend=$backend_value 2>&1) || {
        echo "lv2.sh: lv2_bench failed: $out" >&2
        exit 1
    }
    status=$(echo "$out" | sed -n 's/^status: //p')
    check=$(echo "$out" | sed -n 's/^response: //p')
    line=$(echo "$out" | tail -1)
    [[ $line =~ median\ ([0-9.]+)\ us,\ p99.9\ ([0-9.]+)\ us,\ worst\ ([0-9.]+)\ us,\ period\ ([0-9.]+)\ us.*worst\ ([0-9.]+%).*load\ ([0-9.]+%) ]] ||
        { echo "lv2.sh: lv2_bench said: $out" >&2; exit 1; }
    echo "## LV2 convolver, 64 channels"
    echo
    header --channels 64 --taps "$taps" --block "$block" --backend "$backend" --seconds "$seconds"
    echo
    echo "gfir convolver-64 in tools/lv2_bench (the tests' liblilv host), a 64-channel IR"
    echo "(channel c through channel c), loaded in 3 s of silence; its answer to a unit impulse"
    echo "on every input checked against the IR ($check);"
    echo "then $seconds s of random audio: run() times (with the work responses each cycle takes in)"
    echo "against the period:"
    echo
    echo "| plugin | IR | block | backend | median us | p99.9 us | worst us | period us | worst / period | mean load |"
    echo "|---|---|---:|---|---:|---:|---:|---:|---:|---:|"
    ran=$backend
    [[ $status != *"running on the CPU"* ]] || ran="$backend asked, the CPU ran"
    echo "| gfir convolver-64 | 64 x $taps taps | $block | $ran | ${BASH_REMATCH[1]} | ${BASH_REMATCH[2]} | ${BASH_REMATCH[3]} | ${BASH_REMATCH[4]} | ${BASH_REMATCH[5]} | ${BASH_REMATCH[6]} |"
    echo
    echo "The plugin's status note: ${status:-none (it runs on the backend asked for)}."
    exit 0
fi
"${GFIR_PYTHON:-/usr/bin/python3}" - "$work" <<'PYEOF'
import sys
import numpy as np
import scipy.io.wavfile as w
rng = np.random.default_rng(3)
for log2 in (16, 20):
    n = 1 << log2
    decay = np.exp(-np.arange(n) / (n / 6.0))[:, None]
    w.write(f"{sys.argv[1]}/ir{log2}.wav", 48000,
            (rng.standard_normal((n, 2)) * decay * 0.05).astype(np.float32))
PYEOF

echo "## LV2 plugins"
echo
header --seconds "$seconds"
echo
echo "lv2bench (lilv-utils), gfir filter, the lowpass preset's design, 10 s of audio at 48 kHz:"
echo
echo "| plugin | block | seconds for 10 s of audio | load |"
echo "|---|---:|---:|---:|"
for plugin in filter-mono filter-stereo; do
    for block in 64 512; do
        t=$(lv2bench -b "$block" -n 480000 "urn:gfir:lv2:$plugin" 2>/dev/null | awk 'END {print $1}')
        echo "| gfir $plugin | $block | $t | $(awk -v t="$t" 'BEGIN {printf "%.2f%%", t * 10}') |"
    done
done
echo
echo "Convolvers in tools/lv2_bench at 64-frame blocks (period 1333 us), stereo IRs."
echo "Each first answers a unit impulse on both inputs with the IR's channels (checked:"
echo "relative error after the best gain, latency as the plugin reports it), then runs"
echo "$seconds s of random audio: run() times (with the work responses each cycle takes"
echo "in), run()'s mean load of one core, the CPU time the plugin's own threads took"
echo "meanwhile (share of the audio's duration), their sum, and that sum against gfir's:"
echo
echo "| plugin | IR taps | impulse check | median us | p99.9 us | worst us | worst / period | run() load | own threads | CPU | CPU / gfir's |"
echo "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|"
gfir_cpu=
row() { # label taps [--restore] [--kept N] uri property ir [controls...]
    local label=$1 taps=$2 opts=()
    shift 2
    while [[ $1 == --* ]]; do
        if [ "$1" = --kept ]; then opts+=("$1" "$2"); shift 2; else opts+=("$1"); shift; fi
    done
    local uri=$1 prop=$2 ir=$3
    shift 3
    local out check line cpu ratio
    if out=$(timeout 600 "$build/tools/lv2_bench" "${opts[@]}" "$uri" "$prop" "$ir" 64 "$seconds" "$@" 2>&1) &&
        check=$(echo "$out" | sed -n 's/^response: //p') &&
        line=$(echo "$out" | tail -1) &&
        [[ $line =~ median\ ([0-9.]+)\ us,\ p99.9\ ([0-9.]+)\ us,\ worst\ ([0-9.]+)\ us.*worst\ ([0-9.]+%).*load\ ([0-9.]+)%,\ other\ threads\ ([0-9.]+)% ]]; then
        cpu=$(awk -v a="${BASH_REMATCH[5]}" -v b="${BASH_REMATCH[6]}" 'BEGIN {printf "%.2f", a + b}')
        [ -n "$gfir_cpu" ] || gfir_cpu=$cpu
        ratio=$(awk -v a="$cpu" -v g="$gfir_cpu" 'BEGIN {printf "%.1fx", a / g}')
        [[ $check =~ latency\ ([0-9]+)\ frames,\ gain\ ([0-9.]+),\ relative\ error\ ([0-9.e+-]+) ]]
        check="latency ${BASH_REMATCH[1]}, gain ${BASH_REMATCH[2]}, error ${BASH_REMATCH[3]}"
        [[ $line =~ median\ ([0-9.]+)\ us,\ p99.9\ ([0-9.]+)\ us,\ worst\ ([0-9.]+)\ us.*worst\ ([0-9.]+%).*load\ ([0-9.]+)%,\ other\ threads\ ([0-9.]+)% ]]
        echo "| $label | $taps | $check | ${BASH_REMATCH[1]} | ${BASH_REMATCH[2]} | ${BASH_REMATCH[3]} | ${BASH_REMATCH[4]} | ${BASH_REMATCH[5]}% | ${BASH_REMATCH[6]}% | $cpu% | $ratio |"
    else
        echo "| $label | $taps | failed: $( (echo "$out" | grep -m1 '^lv2_bench: ' || echo "$out" | tail -1) | sed 's/^lv2_bench: //') | | | | | | | | |"
    fi
}
lsp=http://lsp-plug.in/plugins/lv2/impulse_responses_stereo
for log2 in 16 20; do
    ir="$work/ir$log2.wav"
    gfir_cpu=
    row "gfir convolver (stereo)" "2^$log2" urn:gfir:lv2:convolver-stereo urn:gfir:lv2:ir "$ir" normalize=0
    row "x42 zeroconvolv (CfgStereo, buffered off), as a restored state" "2^$log2" --restore \
        "http://gareus.org/oss/lv2/zeroconvolv#CfgStereo" "http://gareus.org/oss/lv2/zeroconvolv#ir" \
        "$ir" buffered=0
    row "x42 convoLV2 (Stereo)" "2^$log2" "http://gareus.org/oss/lv2/convoLV2#Stereo" \
        "http://gareus.org/oss/lv2/convoLV2#impulse" "$ir"
    if [ "$log2" = 16 ]; then
        row "LSP Impulse Responses (stereo)" "2^$log2" "$lsp" "$lsp/ports#ifn0" "$ir" cs_l=1 cs_r=2 dry=0
    else # it keeps 10 s of a file
        row "LSP Impulse Responses (stereo), the first 480000 taps" "2^$log2" --kept 480000 \
            "$lsp" "$lsp/ports#ifn0" "$ir" cs_l=1 cs_r=2 dry=0
    fi
done
echo
echo "The machine is shared with other builds while these run: the worst times"
echo "and the 99.9th percentiles are noisy (a preempted cycle counts); the"
echo "medians and mean loads are steadier."
