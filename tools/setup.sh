#!/usr/bin/env bash
# Sets gfir up on Debian 12 as root: installs the Debian packages it builds,
# tests and benchmarks with, configures and builds into build/, then installs
# gfir on PATH with its manual page and bash completion (tools/install.sh).
# Safe to run again; it only installs what is missing.
#   GFIR_BUILD_DIR  build directory (default: build)
#   GFIR_CMAKE_ARGS extra arguments for cmake's configure step
#   GFIR_PREFIX     where to install (default: /usr/local as root, else ~/.local)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

packages=(
  build-essential cmake ninja-build pkg-config      # the build
  libsndfile1-dev libinih-dev libfftw3-dev          # files, presets, FFT
  portaudio19-dev libsoxr-dev                       # live audio, IR resampling
  libcmocka-dev python3 python3-numpy python3-scipy # tests and golden data
  python3-pip python3-pytest                        # the Python package: install, tests
  sox jackd2 alsa-utils libasound2-plugins          # reference tool, live tests
  man-db bash-completion tmux                       # man gfir, completion, its tests
  slurm-wlm munge                                   # gfir batch under a real Slurm
  strace                                            # tests: OUTPUT's directory synced
  clang libclang-rt-14-dev                          # CI: libFuzzer (tests/fuzz/run.sh)
  lv2-dev liblilv-dev lilv-utils sordi jalv         # the LV2 plugins, their hosts, lv2_validate
  pipewire pipewire-bin wireplumber dbus-daemon     # the plugins in PipeWire's filter-chain
  gstreamer1.0-tools gstreamer1.0-plugins-base      # ... and in GStreamer (its LV2 wrapper
  gstreamer1.0-plugins-good gstreamer1.0-plugins-bad # in -bad; WAV in -good)
  x42-plugins lsp-plugins-lv2                       # LV2 convolvers gfir's is timed against
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
  if [ "$(id -u)" -ne 0 ]; then
    echo "setup: missing Debian packages: ${missing[*]}; run as root or install them" >&2
    exit 1
  fi
  echo "setup: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

build=${GFIR_BUILD_DIR:-build}
# The LV2 bundle goes where hosts look: <prefix>/lib/lv2 (/usr/local/lib/lv2
# as root), else ~/.lv2.
lv2_dir=lib/lv2
[ "$(id -u)" -eq 0 ] || lv2_dir=$HOME/.lv2
# shellcheck disable=SC2086
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGFIR_LV2_DIR="$lv2_dir" \
    ${GFIR_CMAKE_ARGS:-} >/dev/null
cmake --build "$build"
bash tools/install.sh "$build"
