# common.sh - sourced by the live tests: a scratch directory, a private JACK
# server on the dummy driver (no sound card), and the checks on gfir's summary.
# Every test gets the gfir executable as $1; exit 77 means "cannot run here".
set -euo pipefail

GFIR=$1
SKIP=77
PY=/usr/bin/python3     # Debian's, with NumPy; a pyenv python3 on PATH may lack it
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=$(mktemp -d)
jack_pid=

cleanup() {
    if [ -n "$jack_pid" ]; then
        kill "$jack_pid" 2>/dev/null || true
        wait "$jack_pid" 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT

# Nothing from the user's ~/.asoundrc or ~/.jackdrc, and never an autostarted server.
export HOME=$work
export JACK_NO_START_SERVER=1
export JACK_DEFAULT_SERVER=gfir-test-$$
export PYTHONDONTWRITEBYTECODE=1

skip() {
    echo "skipped: $*"
    exit "$SKIP"
}

fail() {
    echo "FAIL: $*"
    exit 1
}

need_numpy() {
    "$PY" -c 'import numpy' 2>/dev/null || skip "$PY has no NumPy (Debian python3-numpy)"
}

# JACK keeps its servers in a registry in shared memory with room for a few:
# a server killed without its shutdown (SIGKILL, a timed-out test) leaves its
# entry, and enough of them refuse every new one ("Too many servers already
# active"). Where no jackd runs, every entry is stale. Starting servers take
# turns under a lock, so one test's clean-up never meets another's new server.
clear_stale_jack() {
    pgrep -x jackd >/dev/null 2>&1 && return 0
    pgrep -x jackdbus >/dev/null 2>&1 && return 0
    rm -f /dev/shm/jack-shm-registry /dev/shm/jack_db-* /dev/shm/jack-[0-9]*-[0-9]* \
        /dev/shm/jack_sem.* 2>/dev/null || true
}

# launch_jack PERIOD [JACKD OPTION ...]: jackd with the options, then -d dummy
# -r 48000 -p PERIOD, ready when its ports are listed; its PID is killed on
# exit whatever happens. Returns 1 if jackd ended before that (its log in
# $work/jackd.log).
launch_jack() {
    local period=$1 lock
    shift
    command -v jackd >/dev/null || skip "jackd is not installed (Debian jackd2)"
    exec {lock}>"${TMPDIR:-/tmp}/gfir-test-jackd.lock"
    flock "$lock"
    clear_stale_jack
    jackd -n "$JACK_DEFAULT_SERVER" "$@" -d dummy -r 48000 -p "$period" \
        >"$work/jackd.log" 2>&1 &
    jack_pid=$!
    for _ in $(seq 100); do
        if jack_lsp 2>/dev/null | grep -q '^system:playback_1$'; then
            exec {lock}>&-
            return 0
        fi
        if ! kill -0 "$jack_pid" 2>/dev/null; then
            exec {lock}>&-
            jack_pid=
            return 1
        fi
        sleep 0.1
    done
    exec {lock}>&-
    tail -5 "$work/jackd.log"
    fail "jackd did not list its ports within 10 s"
}

# start_jack PERIOD: a server with --no-realtime, or the test is skipped.
start_jack() {
    if ! launch_jack "$1" --no-realtime; then
        tail -5 "$work/jackd.log"
        skip "jackd could not start a dummy server here"
    fi
}

# wait_started: until gfir's latency line is in $work/err (it is running), 10 s at most.
wait_started() {
    for _ in $(seq 100); do
        grep -q '^latency:' "$work/err" && return 0
        sleep 0.1
    done
}

# wait_gone PID SECONDS: 0 once PID has exited; else kills it and returns 1.
wait_gone() {
    for _ in $(seq $(($2 * 10))); do
        kill -0 "$1" 2>/dev/null || return 0
        sleep 0.1
    done
    kill -KILL "$1"
    return 1
}

# make_signal SECONDS CHANNELS NTAPS: $work/in.wav (48 kHz float) and $work/taps.txt.
make_signal() {
    need_numpy
    "$PY" - "$work" "$@" <<'PYEOF'
import os, sys
sys.path.insert(0, os.environ['GFIR_LIVE_TESTS'])
import live_util as u
work, seconds, channels, ntaps = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
u.write_wav_float(work + '/in.wav', u.random_signal(1, int(seconds * 48000), channels), 48000)
u.write_taps(work + '/taps.txt', u.random_taps(2, ntaps))
PYEOF
}
export GFIR_LIVE_TESTS=$HERE

# summary_field FILE NAME: the number before NAME on gfir's summary line.
summary_field() {
    grep '^summary:' "$1" | grep -o "[0-9]* $2" | cut -d' ' -f1
}

# alsa_file_sink: ALSA's default PCM becomes its file plugin, writing what is
# played to $work/played.raw (float32, 2 channels) on its way to this
# script's JACK server through ALSA's jack plugin (skips without that plugin).
# The file plugin truncates its file when it opens it, so each run starts
# empty.
alsa_file_sink() {
    local plugin
    plugin=$(ls /usr/lib/*/alsa-lib/libasound_module_pcm_jack.so 2>/dev/null | head -1 || true)
    [ -n "$plugin" ] || skip "ALSA's jack plugin is not installed (Debian libasound2-plugins)"
    cat >"$HOME/.asoundrc" <<ASOUNDRC
pcm.!default {
    type file
    slave.pcm "gfirsink"
    file "$work/played.raw"
    format "raw"
}
pcm.gfirsink {
    type jack
    playback_ports {
        0 system:playback_1
        1 system:playback_2
    }
}
ASOUNDRC
}

# retry_when_late RUN CHECK: runs the function RUN, which leaves gfir's stderr
# in $work/err, then the function CHECK in a subshell. On a shared virtual
# machine the dummy JACK server's own timer sometimes fires late; PortAudio
# reports those callbacks as host xruns, and a period can then be lost, or
# (through ALSA) silence put into the stream, whatever gfir does. So a run
# whose CHECK fails is tried again, three runs at most, only when the server
# was late in it: a failure while the server kept time fails at once.
retry_when_late() {
    local run=$1 check=$2 attempt
    for attempt in 1 2 3; do
        "$run"
        ( "$check" ) && return 0
        [ "$(summary_field "$work/err" 'host xruns')" -gt 0 ] ||
            fail "the check failed while the JACK server kept time"
        echo "run $attempt: the check failed while the JACK server itself ran late; once more"
    done
    fail "the check failed in 3 runs"
}

# live_run CHECK GFIR-ARGS...: runs gfir with GFIR-ARGS (30 s at most, stderr in
# $work/err, shown), which must exit 0, then CHECK, as retry_when_late does.
live_run() {
    local check=$1
    shift
    live_args=("$@")
    retry_when_late live_run_once "$check"
}

live_run_once() {
    local rc=0
    timeout 30 "$GFIR" "${live_args[@]}" 2>"$work/err" || rc=$?
    cat "$work/err"
    [ "$rc" = 0 ] || fail "gfir ${live_args[*]} exited $rc"
}

# expect_clean_summary FILE: a summary line with no underruns or overflows.
expect_clean_summary() {
    grep -q '^summary:' "$1" || fail "no summary line"
    [ "$(summary_field "$1" 'output underruns')" = 0 ] || fail "output underruns"
    [ "$(summary_field "$1" 'input overflows')" = 0 ] || fail "input overflows"
}
