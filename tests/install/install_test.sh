#!/usr/bin/env bash
# libgfir as a user gets it: `cmake --install` into a fresh prefix, then use it
# from there only, the three ways other DSP tools do:
#   1. pkg-config: tools/gfir_example.c built with -std=c99 -pedantic -Werror,
#      run on a generated WAV; its output must be numpy.convolve(x, h, 'same').
#   2. pkg-config --static: a program linked with libgfir.a and Libs.private
#      alone, with no libgfir.so in its needs.
#   3. CMake: find_package(gfir) in a separate project, shared and static.
#   install_test.sh BUILD_DIR SOURCE_DIR LIBDIR CC [PYTHON]
# LIBDIR is CMAKE_INSTALL_LIBDIR (relative). PYTHON (the build's
# GFIR_TEST_PYTHON) needs numpy and scipy; the default is Debian's
# /usr/bin/python3 (the pyenv python3 on some PATHs has neither).
set -euo pipefail
build=$1 src=$2 libdir=$3 cc=$4
python=${5:-/usr/bin/python3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix

step() { echo "== $*"; }

step "install into $prefix"
cmake --install "$build" --prefix "$prefix" >/dev/null
for f in include/gfir.h "$libdir"/libgfir.a "$libdir"/libgfir.so \
         "$libdir"/pkgconfig/gfir.pc "$libdir"/cmake/gfir/gfirConfig.cmake \
         "$libdir"/cmake/gfir/gfirConfigVersion.cmake "$libdir"/cmake/gfir/gfirTargets.cmake; do
    [ -e "$prefix/$f" ] || { echo "not installed: $f" >&2; exit 1; }
done
# The shared library must be found through its soname, as the loader does.
soname=$(readelf -d "$prefix/$libdir/libgfir.so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ -n "$soname" ] && [ -e "$prefix/$libdir/$soname" ] || { echo "no $soname installed" >&2; exit 1; }

# The fresh prefix supplies gfir, ahead of any other; sndfile comes from the
# system or from wherever PKG_CONFIG_PATH already points (dependencies
# unpacked under another prefix). The prefix check below catches a stray gfir.
export PKG_CONFIG_PATH=$prefix/$libdir/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
version=$(pkg-config --modversion gfir)
[ "$(pkg-config --variable=prefix gfir)" = "$prefix" ] || {
    echo "gfir.pc names prefix $(pkg-config --variable=prefix gfir), not $prefix" >&2; exit 1; }

step "1. pkg-config: gfir_example $version"
cp "$src/tools/gfir_example.c" "$tmp/"
# shellcheck disable=SC2046
"$cc" -std=c99 -pedantic -Wall -Wextra -Werror $(pkg-config --cflags gfir sndfile) \
    "$tmp/gfir_example.c" $(pkg-config --libs gfir sndfile) -lm -o "$tmp/gfir_example"
# The prefix is not on the loader's path: set what a user of a private prefix
# would, ahead of whatever the caller's path holds (dependencies unpacked
# under another prefix); the checks that need no path for gfir keep only that.
outer_ld_path=${LD_LIBRARY_PATH:-}
export LD_LIBRARY_PATH=$prefix/$libdir${outer_ld_path:+:$outer_ld_path}
# The cases: several blocks with a partial last one, shorter than the filter's
# delay, and mono with a long filter.
check_example() { # frames channels cutoff ntaps
    "$python" - "$tmp" "$@" <<'PY'
import sys
import warnings
import numpy as np
from scipy.io import wavfile

warnings.simplefilter("ignore", wavfile.WavFileWarning)  # libsndfile's PEAK chunk

tmp, frames, channels, cutoff, ntaps = sys.argv[1], *map(int, sys.argv[2:])
rate = 48000
rng = np.random.default_rng(frames * 7 + channels)
x = rng.uniform(-0.9, 0.9, size=(frames, channels)).astype(np.float32)
wavfile.write(f"{tmp}/in.wav", rate, x)
PY
    "$tmp/gfir_example" "$tmp/in.wav" "$tmp/out.wav" "$3" "$4"
    "$python" - "$tmp" "$@" <<'PY'
import sys
import warnings
import numpy as np
from scipy.io import wavfile

warnings.simplefilter("ignore", wavfile.WavFileWarning)  # libsndfile's PEAK chunk

tmp, frames, channels, cutoff, ntaps = sys.argv[1], *map(int, sys.argv[2:])
_, x = wavfile.read(f"{tmp}/in.wav")
rate, y = wavfile.read(f"{tmp}/out.wav")
x, y = x.reshape(frames, channels), y.reshape(-1, channels)
# The example's filter, written independently: Blackman-windowed sinc, unit DC gain.
t = np.arange(ntaps) - (ntaps - 1) / 2
h = 2 * cutoff / rate * np.sinc(2 * cutoff / rate * t) * np.blackman(ntaps)
h = (h / h.sum()).astype(np.float32)
assert y.dtype == np.float32, f"output format changed to {y.dtype}"
assert y.shape == x.shape, f"output shape {y.shape}, input {x.shape}"
# numpy.convolve(x, h, 'same') for frames >= ntaps; its own definition, the full
# convolution from the filter's middle on, for a signal shorter than the filter.
mid = (ntaps - 1) // 2
ref = np.stack([np.convolve(x[:, c].astype(np.float64), h.astype(np.float64))[mid:mid + frames]
                for c in range(channels)], axis=1)
err = np.linalg.norm(y - ref) / np.linalg.norm(ref)
print(f"   {frames} frames x {channels} ch, {ntaps} taps at {cutoff} Hz: rel L2 {err:.2e}")
assert err < 1e-5, f"output differs from numpy.convolve(x, h, 'same'): rel L2 {err:.3g}"
PY
}
check_example 10007 2 3000 101
check_example 20 2 1000 101
check_example 5000 1 200 1001

step "2. pkg-config --static"
# pkg-config --static adds Libs.private; -lgfir is pointed at the archive, since
# the linker would otherwise prefer libgfir.so from the same directory.
static_libs=$(pkg-config --static --libs gfir)
static_libs=${static_libs/-lgfir/$prefix/$libdir/libgfir.a}
# shellcheck disable=SC2086
"$cc" -std=c99 -pedantic -Wall -Wextra -Werror $(pkg-config --cflags gfir) \
    "$src/tests/install/consumer/consumer.c" $static_libs -o "$tmp/consumer_pc_static"
if readelf -d "$tmp/consumer_pc_static" | grep -q 'NEEDED.*libgfir'; then
    echo "the static link still needs libgfir.so" >&2; exit 1
fi
env LD_LIBRARY_PATH="$outer_ld_path" "$tmp/consumer_pc_static"

step "3. CMake find_package(gfir)"
cmake -S "$src/tests/install/consumer" -B "$tmp/consumer" -G Ninja \
    -DCMAKE_C_COMPILER="$cc" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$tmp/consumer" >/dev/null
readelf -d "$tmp/consumer/consumer_shared" | grep -q 'NEEDED.*libgfir' || {
    echo "consumer_shared does not use libgfir.so" >&2; exit 1; }
if readelf -d "$tmp/consumer/consumer_static" | grep -q 'NEEDED.*libgfir'; then
    echo "consumer_static needs libgfir.so" >&2; exit 1
fi
# CMake gives its programs a run path to the prefix: no LD_LIBRARY_PATH needed.
env LD_LIBRARY_PATH="$outer_ld_path" "$tmp/consumer/consumer_shared"
env LD_LIBRARY_PATH="$outer_ld_path" "$tmp/consumer/consumer_static"
echo "install_test: ok"
