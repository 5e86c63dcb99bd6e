#!/usr/bin/env bash
# Sets gfir up on Debian 12 as root: installs the Debian packages it needs,
# configures and builds into build/, then installs gfir on PATH with its
# manual page and bash completion (tools/install.sh). Safe to run again; it
# only installs what is missing. It says each phase on a line of its own and
# lets apt and ninja show their own progress.
#   setup.sh           what building, installing and tools/demo.sh need
#   setup.sh --tests   that, plus what the tests and benchmarks need (the
#                      README's test command and CI)
#   GFIR_BUILD_DIR  build directory (default: build)
#   GFIR_CMAKE_ARGS extra arguments for cmake's configure step
#   GFIR_PREFIX     where to install (default: /usr/local as root, else ~/.local)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

tests=0
case "${1:-}" in
  "") ;;
  --tests) tests=1 ;;
  -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) echo "setup: unknown argument '$1' (only --tests)" >&2; exit 2 ;;
esac

packages=(
  build-essential cmake ninja-build pkg-config      # the build
  libsndfile1-dev libinih-dev libfftw3-dev          # files, presets, FFT
  portaudio19-dev libsoxr-dev                       # live audio, IR resampling
  libjansson-dev libarchive-dev                     # gfir batch's JSON, tar shards
  python3 python3-numpy python3-pip                 # the Python package and its install
  sox man-db bash-completion                        # the demo's signal, man gfir, completion
  lv2-dev                                           # the LV2 plugins (gfir.lv2)
)
test_packages=(
  libcmocka-dev python3-scipy python3-pytest        # tests and golden data
  jackd2 alsa-utils libasound2-plugins              # live tests
  tmux                                              # the terminal tests
  slurm-wlm munge                                   # gfir batch under a real Slurm
  strace                                            # tests: OUTPUT's directory synced
  time                                              # tests: a run's peak memory (GNU time)
  clang libclang-rt-14-dev                          # CI: libFuzzer (tests/fuzz/run.sh)
  git                                               # benchmarks name the commit they ran
  dpkg-dev fakeroot lintian                         # the Debian packages (tests/install)
  liblilv-dev lilv-utils sordi jalv                 # LV2 hosts, lv2_validate, a test host
  pipewire pipewire-bin wireplumber dbus-daemon     # the plugins in PipeWire's filter-chain
  gstreamer1.0-tools gstreamer1.0-plugins-base      # ... and in GStreamer (its LV2 wrapper
  gstreamer1.0-plugins-good gstreamer1.0-plugins-bad # in -bad; WAV in -good)
  x42-plugins lsp-plugins-lv2                       # LV2 convolvers gfir's is timed against
  ardour                                            # the plugins in Ardour, headless (ardour7-lua)
)
((tests)) && packages+=("${test_packages[@]}")

phase() { printf 'setup: %s\n' "$*" >&2; }

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
  if [ "$(id -u)" -ne 0 ]; then
    echo "setup: missing Debian packages: ${missing[*]}; run as root or install them" >&2
    exit 1
  fi
  phase "1/4 installing ${#missing[@]} Debian packages and what they need: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  phase "    reading the package lists (apt-get update)"
  apt-get update -q
  # apt's own progress: one line per package fetched, unpacked and set up
  apt-get install -y -q --no-install-recommends -o Dpkg::Use-Pty=0 "${missing[@]}"
else
  phase "1/4 the Debian packages are installed"
fi

build=${GFIR_BUILD_DIR:-build}
phase "2/4 configuring into $build/"
# The LV2 bundle goes where hosts look: <prefix>/lib/lv2 (/usr/local/lib/lv2
# as root), else ~/.lv2.
lv2_dir=lib/lv2
[ "$(id -u)" -eq 0 ] || lv2_dir=$HOME/.lv2
# shellcheck disable=SC2086
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGFIR_LV2_DIR="$lv2_dir" \
    ${GFIR_CMAKE_ARGS:-} >/dev/null
phase "3/4 building (ninja's [done/total] counts the steps)"
cmake --build "$build"
phase "4/4 installing"
bash tools/install.sh "$build"
