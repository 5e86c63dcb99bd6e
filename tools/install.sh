#!/usr/bin/env bash
# Installs the built gfir: the command (on PATH), its manual page and bash
# completion, and libgfir with its header, pkg-config file and CMake package.
# tools/setup.sh runs it after building; tests/cli/test_install.py runs it
# into a scratch prefix.
#   install.sh [BUILD_DIR]   (default: build)
#   GFIR_PREFIX  where to install (default: /usr/local as root, else ~/.local)
set -euo pipefail
build=${1:-build}
if [ -n "${GFIR_PREFIX:-}" ]; then
  prefix=$GFIR_PREFIX
elif [ "$(id -u)" -eq 0 ]; then
  prefix=/usr/local
else
  prefix=$HOME/.local
fi
cmake --install "$build" --prefix "$prefix" >/dev/null
# the loader's cache, for programs linked with the new libgfir.so
if [ "$(id -u)" -eq 0 ] && [ "$prefix" = /usr/local ]; then
  ldconfig
fi
if [ "$(command -v gfir || true)" = "$prefix/bin/gfir" ]; then
  echo "setup: installed $prefix/bin/gfir (man gfir; bash completion in new shells)" >&2
else
  echo "setup: installed $prefix/bin/gfir, which is not first on PATH; to run it as" \
       "gfir: export PATH=\"$prefix/bin:\$PATH\"" >&2
fi
