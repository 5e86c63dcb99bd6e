#!/usr/bin/env bash
# Installs the built gfir: the command (on PATH), its manual page and bash
# completion, libgfir with its header, pkg-config file and CMake package,
# and the Python package (src/python) for GFIR_PYTHON, found by
# `import gfir`. tools/setup.sh runs it after building;
# tests/cli/test_install.py and tests/python/test_install.py run it into a
# scratch prefix.
#   install.sh [BUILD_DIR]   (default: build)
#   GFIR_PREFIX  where to install (default: /usr/local as root, else ~/.local)
#   GFIR_PYTHON  the Python to install the package for (default /usr/bin/python3,
#                Debian's, which has NumPy; python3 where that is missing)
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

# The Python package, with pip from a copy of src/python (pip builds inside
# the tree it is given), into the site directory Python reads for this
# prefix: /usr/local's or ~/.local's, else <prefix>/lib/pythonX.Y/site-packages,
# which PYTHONPATH must then name. The package finds libgfir beside it.
python=${GFIR_PYTHON:-/usr/bin/python3}
[ -x "$python" ] || python=$(command -v python3)
site=$("$python" - "$prefix" <<'EOF'
import site, sys, sysconfig
prefix = sys.argv[1].rstrip("/")
local = sysconfig.get_path("purelib")
if local.startswith(prefix + "/") and local in sys.path:
    print(local)
elif prefix == site.getuserbase():
    print(site.getusersitepackages())
else:
    print(sysconfig.get_path("purelib", "posix_prefix", vars={"base": prefix, "platbase": prefix}))
EOF
)
copy=$(mktemp -d)
trap 'rm -rf "$copy"' EXIT
cp -r "$(dirname "${BASH_SOURCE[0]}")/../src/python/." "$copy"
"$python" -m pip install --quiet --no-build-isolation --no-deps --no-index --upgrade \
  --disable-pip-version-check --root-user-action=ignore --target "$site" "$copy" >/dev/null
if "$python" -c 'import sys; sys.exit(sys.argv[1] not in sys.path)' "$site"; then
  echo "setup: installed the Python package gfir into $site ($python -c 'import gfir')" >&2
else
  echo "setup: installed the Python package gfir into $site, which $python does not" \
       "search; to import it: export PYTHONPATH=\"$site\"" >&2
fi
