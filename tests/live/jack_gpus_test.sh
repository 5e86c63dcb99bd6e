#!/usr/bin/env bash
# --monitor --gpus through a JACK dummy server (2 capture and 2 playback
# ports), 64-frame periods: a stereo 20,000-tap IR on GPU 0 named by
# --gpus, and split over 0,1 (one output a GPU) where two are visible. Each run must
# keep time (no underruns, no input overflows), and -v must say the plan
# runs over those GPUs. Skipped (77) without a usable CUDA GPU.
source "$(dirname "$0")/common.sh"
# the GPUs are counted as the options are read: --describe opens nothing
err=$("$GFIR" --gpu 0 --describe -p lowpass 2>&1 >/dev/null || true)
case $err in *"no GPU is visible"*) skip "no CUDA GPU is usable here" ;; esac
need_numpy
start_jack 64
"$PY" - "$work" <<'PYEOF'
import os, sys
sys.path.insert(0, os.environ['GFIR_LIVE_TESTS'])
import live_util as u
u.write_wav_float(sys.argv[1] + '/ir.wav', 0.01 * u.random_signal(4, 20000, 2), 48000)
PYEOF
expect_clean() {
    expect_clean_summary "$work/err"
}
run_on() {
    live_run expect_clean --monitor --duration 3 --period 64 --channels 2 --ir "$work/ir.wav" \
        --gpus "$1" --device system -v
    case $1 in
    *,*) grep -q "over GPUs $1" "$work/err" || fail "-v does not say the plan runs over GPUs $1" ;;
    *) grep -q "on GPU $1" "$work/err" || fail "-v does not say the plan runs on GPU $1" ;;
    esac
}
run_on 0
if "$GFIR" --gpu 1 --describe -p lowpass 2>&1 | grep -q "visible GPU"; then
    echo "one GPU visible: the 0,1 run is left out"
else
    run_on 0,1
fi
echo "ok"
