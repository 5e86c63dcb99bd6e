#!/usr/bin/env bash
# Builds gfir's Debian packages into build-deb/ with CPack (src/install/package.cmake
# says which packages and why CPack), then checks each with lintian, which must
# report no error. Run after tools/setup.sh --tests (dpkg-dev, fakeroot, lintian).
#   package.sh             build-deb/*.deb
#   GFIR_DEB_BUILD_DIR     build directory (default: build-deb)
#   GFIR_CMAKE_ARGS        extra arguments for cmake's configure step
# Install them with: apt-get install ./build-deb/*.deb
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
build=${GFIR_DEB_BUILD_DIR:-build-deb}
echo "package: 1/3 building into $build/" >&2
# shellcheck disable=SC2086
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/usr \
      -DGFIR_DEB=ON -DGFIR_TESTS=OFF ${GFIR_CMAKE_ARGS:-} >/dev/null
cmake --build "$build"
echo "package: 2/3 packaging with CPack" >&2
rm -f "$build"/*.deb
(cd "$build" && cpack -G DEB >/dev/null)
echo "package: 3/3 checking with lintian" >&2
status=0
for deb in "$build"/*.deb; do
  # errors fail; warnings are shown, every instance of each
  if ! lintian --fail-on error --tag-display-limit 0 "$deb" >&2; then status=1; fi
done
((status == 0)) || { echo "package: lintian found errors" >&2; exit 1; }
ls "$build"/*.deb
