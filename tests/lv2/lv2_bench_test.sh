#!/usr/bin/env bash
# lv2_bench_test.sh - tools/lv2_bench times a convolver only once its answer
# to a unit impulse is the IR: gfir convolver passes at gain 1 unnormalized
# and at another gain normalized, and fails when told the IR is cut shorter
# than it filters with; LSP Impulse Responses (lsp-plugins-lv2, where
# installed) fails with its channel sources at their default (none: the
# input comes out unfiltered) or swapped, and passes set to the file's left
# and right; x42 zeroconvolv (x42-plugins, where installed) passes with the
# file given as a restored state.
#   lv2_bench_test.sh LV2_BENCH   (LV2_PATH names the built bundle's folder)
set -euo pipefail
BENCH=$1
PY=/usr/bin/python3 # Debian's, with NumPy; a pyenv python3 on PATH may lack it
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

fail() {
    echo "FAIL: $*"
    exit 1
}
"$PY" -c 'import numpy, scipy' 2>/dev/null || { echo "skipped: $PY has no NumPy/SciPy"; exit 77; }
"$PY" - "$work/ir.wav" <<'PYEOF'
import sys
import numpy as np
import scipy.io.wavfile as w
rng = np.random.default_rng(27)
n = 4096
decay = np.exp(-np.arange(n) / (n / 6.0))[:, None]
w.write(sys.argv[1], 48000, (rng.standard_normal((n, 2)) * decay * 0.05).astype(np.float32))
PYEOF

# passes ARGS...: the check passes and the timing follows; its response line on stdout
passes() {
    local out
    out=$("$BENCH" "$@" 2>&1) || fail "lv2_bench $* failed: $out"
    [[ $out == *"mean load"* ]] || fail "lv2_bench $* timed nothing: $out"
    echo "$out" | sed -n 's/^response: //p'
}
# fails WHY ARGS...: the check fails, saying WHY, and nothing is timed
fails() {
    local why=$1 out
    shift
    if out=$("$BENCH" "$@" 2>&1); then
        fail "lv2_bench $* passed: $out"
    fi
    [[ $out == *"$why"* ]] || fail "lv2_bench $* failed without '$why': $out"
    [[ $out != *"mean load"* ]] || fail "lv2_bench $* timed a plugin that failed: $out"
}

ir=$work/ir.wav
gfir=(urn:gfir:lv2:convolver-stereo urn:gfir:lv2:ir "$ir" 64 0.05)
check=$(passes "${gfir[@]}" normalize=0)
[[ $check == "latency 0 frames, gain 1.0000, "* ]] || fail "gfir convolver: $check"
check=$(passes "${gfir[@]}" normalize=1)
[[ $check != *"gain 1.0000"* ]] || fail "gfir convolver normalized at gain 1: $check"
fails "does not answer an impulse with the IR" --kept 2048 "${gfir[@]}" normalize=0
echo "gfir convolver: checked"

export LV2_PATH=$LV2_PATH:/usr/lib/lv2
lsp=http://lsp-plug.in/plugins/lv2/impulse_responses_stereo
if [ -e /usr/lib/lv2/lsp-plugins.lv2/impulse_responses_stereo.ttl ]; then
    peer=("$lsp" "$lsp/ports#ifn0" "$ir" 64 0.05)
    fails "gives its input unfiltered" "${peer[@]}"
    fails "does not answer an impulse with the IR" "${peer[@]}" cs_l=2 cs_r=1 dry=0
    passes "${peer[@]}" cs_l=1 cs_r=2 dry=0 >/dev/null
    echo "LSP Impulse Responses: checked"
fi
if [ -e /usr/lib/lv2/zeroconvo.lv2/zeroconvolv.ttl ]; then
    passes --restore "http://gareus.org/oss/lv2/zeroconvolv#CfgStereo" \
        "http://gareus.org/oss/lv2/zeroconvolv#ir" "$ir" 64 0.05 buffered=0 >/dev/null
    echo "x42 zeroconvolv: checked"
fi
