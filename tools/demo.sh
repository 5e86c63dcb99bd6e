#!/usr/bin/env bash
# The main job on an example: makes a 10-second stereo signal (a chord under
# pink noise) with sox, low-passes it with the lowpass preset and describes
# the filter. Run after tools/setup.sh (the README's Quick start does both).
#   GFIR_BUILD_DIR  build directory (default: build)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
build=${GFIR_BUILD_DIR:-build}
out=${GFIR_DEMO_DIR:-$build/demo}
mkdir -p "$out"
sox -n -r 48000 -c 2 -b 16 "$out/in.wav" synth 10 pinknoise sine 220 sine 277 sine 330 \
    sine 6000 remix 1,2,3 2,4,5 vol 0.3
"$build/gfir" --describe --preset lowpass --rate 48000
"$build/gfir" "$out/in.wav" "$out/lowpass.wav" --preset lowpass -v
echo "demo: wrote $out/lowpass.wav (in: $out/in.wav)"
