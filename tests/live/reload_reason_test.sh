#!/usr/bin/env bash
# The lines of reloads that wait (issue 25), during --monitor on a JACK dummy
# server with 3 s crossfades. While it runs:
#   0.5 s  the preset is saved: swapped in, a crossfade of 3 s begins
#   1.2 s  saved again: this filter waits for that crossfade to end
#   1.7 s  SIGHUP, then 2.0 s a save: one more reload, after the waiting one
#   7.5 s  a preset of 64 million taps: refused at once by the ceiling on a
#          filter's size (--max-taps), the last filter playing on
# Checks: each reload says what made it (the saves, then SIGHUP, never a
# reason the next event wrote over, never an empty one), and a line says
# that the second waits. It used to report the second save as "SIGHUP" and
# the last reload as "gfir: : reloaded", and said nothing while one waited.
source "$(dirname "$0")/common.sh"
start_jack 128

preset() { # cutoff: the preset file, renamed into place as editors save
    printf '[room]\ntype = lowpass\ncutoff_hz = %s\ntransition_hz = 400\n' "$1" \
        >"$work/room.ini.new"
    mv "$work/room.ini.new" "$work/room.ini"
}

preset 2000
"$GFIR" --monitor --duration 9 --preset "$work/room.ini" --backend cpu --device system \
    --crossfade 3000 2>"$work/err" &
pid=$!
wait_started
sleep 0.5
preset 3000
sleep 0.7
preset 1000
sleep 0.5
kill -HUP "$pid"
sleep 0.3
preset 1500
sleep 5.5
printf '[room]\ntype = lowpass\ncutoff_hz = 4000\ntransition_hz = 0.01\nattenuation_db = 200\n' \
    >"$work/room.ini.new"
mv "$work/room.ini.new" "$work/room.ini"
wait "$pid" || fail "gfir --monitor exited $?"
cat "$work/err"

changed="$work/room.ini changed"
! grep -q '^gfir: :' "$work/err" || fail "a reload line without its reason"
[ "$(grep -c "^gfir: $changed: reloaded the filter" "$work/err")" = 2 ] ||
    fail "not two reload lines for the two saves"
[ "$(grep -c '^gfir: SIGHUP: reloaded the filter' "$work/err")" = 1 ] ||
    fail "not one reload line for SIGHUP and the save after it"
grep -q "^gfir: $changed: the new filter waits until the crossfade to the one before it ends" \
    "$work/err" || fail "no line while the second save's filter waited"
# in order: save, save, SIGHUP
order=$(grep -o 'gfir: [^:]*: reloaded' "$work/err" | sed 's/.*\(SIGHUP\|changed\).*/\1/' |
        tr '\n' ' ')
[ "$order" = "changed changed SIGHUP " ] || fail "reloads in the order: $order"
grep -q "^gfir: $changed, but the filter cannot be reloaded: .*64208051 taps.*the ceiling is \
33554432 taps (--max-taps N raises it); the old one keeps playing" "$work/err" ||
    fail "no refusal of the 64-million-tap preset"
echo "ok"
