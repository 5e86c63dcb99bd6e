# prelude.sh - what the bench scripts that time the gfir CLI on files they
# generate share; sourced after `set -euo pipefail`. It moves to the tree's
# root and sets: build (GFIR_BUILD_DIR, default build; configured and built
# first when missing), gfir (its CLI), runs (the script's first argument,
# default 5), baseline (GFIR_BASELINE: another gfir to time beside it, or
# empty) and baseline_name (GFIR_BASELINE_NAME: what the table calls it;
# default its path, or none), py (the system Python, which has Debian's NumPy and SciPy where a
# pyenv shim may not) and work (a scratch directory removed on exit).
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
build=${GFIR_BUILD_DIR:-build}
runs=${1:-5}
baseline=${GFIR_BASELINE:-}

py=python3
[ -n "${GFIR_PYTHON:-}" ] && py=$GFIR_PYTHON || { [ -x /usr/bin/python3 ] && py=/usr/bin/python3; }

if [ ! -f "$build/CMakeCache.txt" ]; then
    GFIR_BUILD_DIR=$build bash tools/setup.sh --tests
fi
cmake --build "$build" >/dev/null
gfir=$(realpath "$build/gfir")
[ -x "$gfir" ] || { echo "$(basename "$0"): no CLI at $gfir" >&2; exit 1; }
[ -z "$baseline" ] || baseline=$(realpath "$baseline")
baseline_name=${GFIR_BASELINE_NAME:-${baseline:-none}}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
