#!/usr/bin/env bash
# tools/ci/deb.sh - gfir's Debian packages as a Debian user meets them: builds
# them (tools/package.sh, lintian with no error), installs them with apt (which
# pulls in what they declare), runs each from the installed files alone, then
# purges them and checks that nothing of theirs is left. As root (CI): it
# changes the system's packages. Each check runs with an empty /usr/local
# mounted over the real one, so a gfir that tools/setup.sh installed there
# cannot stand in for the packaged one.
#   deb.sh   (uses build-deb/, like tools/package.sh)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
[ "$(id -u)" -eq 0 ] || { echo "deb.sh: run as root (it installs packages)" >&2; exit 1; }

step() { echo "== deb: $*" >&2; }
build=${GFIR_DEB_BUILD_DIR:-build-deb}
step "building and checking the packages"
bash tools/package.sh >/dev/null
mapfile -t debs < <(ls "$build"/*.deb)
names=()
for d in "${debs[@]}"; do names+=("$(dpkg-deb -f "$d" Package)"); done
step "installing ${names[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get install -y -q --no-install-recommends "${debs[@]/#/./}" >/dev/null
cleanup() { apt-get purge -y -q "${names[@]}" >/dev/null 2>&1 || true; }
trap cleanup EXIT

tmp=$(mktemp -d)
trap 'cleanup; rm -rf "$tmp"' EXIT
cp tools/gfir_example.c "$tmp/"
# Everything below sees the packaged files only: /usr/local is empty there.
unshare --mount bash -euo pipefail -s "$tmp" <<'CHECKS'
tmp=$1
trap 'echo "deb.sh: check failed: $BASH_COMMAND" >&2' ERR
mount -t tmpfs none /usr/local
step() { echo "== deb: $*" >&2; }
step "the command: gfir --version, one filter, its manual page"
[ "$(command -v gfir)" = /usr/bin/gfir ]
gfir --version | head -n 1
sox -n -r 48000 -c 2 -b 16 "$tmp/in.wav" synth 1 pinknoise vol 0.3
gfir "$tmp/in.wav" "$tmp/out.wav" --preset lowpass   # a preset from /usr/share/gfir
[ "$(soxi -s "$tmp/out.wav")" = 48000 ]
[ "$(man -w gfir)" = /usr/share/man/man1/gfir.1.gz ]
step "the library: pkg-config gfir and a C program built against it"
[ "$(pkg-config --variable=prefix gfir)" = /usr ]
cc -std=c99 -pedantic -Wall -Werror $(pkg-config --cflags gfir sndfile) "$tmp/gfir_example.c" \
   $(pkg-config --libs gfir sndfile) -lm -o "$tmp/example"
ldd "$tmp/example" | grep -E '=> (/usr)?/lib/x86_64-linux-gnu/libgfir\.so' >/dev/null
"$tmp/example" "$tmp/in.wav" "$tmp/example.wav" 2000 63
if [ -d /usr/lib/lv2/gfir.lv2 ]; then
  step "the LV2 bundle: lv2ls lists it, lv2apply runs gfir filter"
  export LV2_PATH=/usr/lib/lv2
  lv2ls | grep -x urn:gfir:lv2:filter-stereo >/dev/null
  lv2apply -i "$tmp/in.wav" -o "$tmp/lv2.wav" urn:gfir:lv2:filter-stereo
  [ "$(soxi -s "$tmp/lv2.wav")" = 48000 ]
fi
step "the Python package: import gfir, one convolution against NumPy"
/usr/bin/python3 - <<'PY'
import numpy as np, gfir
assert gfir.__file__.startswith("/usr/lib/python3/dist-packages/"), gfir.__file__
x = np.random.default_rng(1).standard_normal(4097).astype(np.float32)
h = np.random.default_rng(2).standard_normal(63).astype(np.float32)
y = gfir.convolve(x, h)
ref = np.convolve(x.astype(np.float64), h.astype(np.float64))
err = np.linalg.norm(y - ref) / np.linalg.norm(ref)
assert err < 1e-5, err   # float32 accumulation over 63 taps: about 1e-7
print("python3-gfir: libgfir", gfir.library_version(), "from", gfir.__file__, "rel. error", err)
PY
CHECKS

step "purging"
apt-get purge -y -q "${names[@]}" >/dev/null
trap 'rm -rf "$tmp"' EXIT
left=()
for n in "${names[@]}"; do
  if dpkg-query -W -f='${Status}' "$n" 2>/dev/null | grep -q installed; then left+=("$n"); fi
done
for f in /usr/bin/gfir /usr/include/gfir.h /usr/lib/x86_64-linux-gnu/libgfir.so.* \
         /usr/lib/python3/dist-packages/gfir /usr/share/gfir /usr/lib/lv2/gfir.lv2; do
  [ ! -e "$f" ] || left+=("$f")
done
((${#left[@]} == 0)) || { echo "deb.sh: left after purge: ${left[*]}" >&2; exit 1; }
step "ok: ${names[*]} built, installed, ran and purged"
