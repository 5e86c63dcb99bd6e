#!/bin/sh
# The bundle's Turtle against the installed LV2 specification (lv2_validate,
# which runs sordi's sord_validate), and what lilv's tools see in it: all
# five plugins, their ports by symbol, the convolver's IR parameter.
#   ttl_test.sh BUNDLE_DIR   (LV2_PATH names its parent)
set -eu
bundle=$1
out=$(lv2_validate "$bundle"/manifest.ttl "$bundle"/gfir.ttl "$bundle"/convolver-64.ttl 2>&1) || {
    echo "$out" >&2
    exit 1
}
echo "$out" | grep -q 'Found 0 errors' || { echo "$out" >&2; exit 1; }
if echo "$out" | grep -i 'warning' | grep -v '^Skipping' | grep -q .; then
    echo "$out" >&2
    exit 1
fi

for p in filter-mono filter-stereo convolver-mono convolver-mono-stereo convolver-stereo convolver-64; do
    lv2ls | grep -qx "urn:gfir:lv2:$p" || { echo "lv2ls does not list urn:gfir:lv2:$p" >&2; exit 1; }
done
info=$(lv2info urn:gfir:lv2:filter-stereo)
for sym in type cutoff_hz low_hz high_hz transition_hz attenuation_db gain_db phase latency \
           in_1 out_1 in_2 out_2; do
    echo "$info" | grep -q "Symbol: *$sym\$" || { echo "filter-stereo has no port $sym" >&2; exit 1; }
done
info=$(lv2info urn:gfir:lv2:convolver-stereo)
for sym in control notify wet_db dry_db gain_db normalize ir_trim_db backend latency; do
    echo "$info" | grep -q "Symbol: *$sym\$" || { echo "convolver-stereo has no port $sym" >&2; exit 1; }
done
info=$(lv2info urn:gfir:lv2:convolver-64)
syms="control notify wet_db dry_db gain_db normalize ir_trim_db backend latency"
for c in $(seq 1 64); do syms="$syms in_$c out_$c"; done
for sym in $syms; do
    echo "$info" | grep -q "Symbol: *$sym\$" || { echo "convolver-64 has no port $sym" >&2; exit 1; }
done
[ "$(echo "$info" | grep -c 'Symbol:')" -eq 137 ] || { echo "convolver-64 has not 137 ports" >&2; exit 1; }
for i in 9 72; do
    echo "$info" | grep -A3 "Port $i:" | grep -q 'lv2core#InputPort' ||
        { echo "convolver-64: port $i is no input" >&2; exit 1; }
done
for i in 73 136; do
    echo "$info" | grep -A3 "Port $i:" | grep -q 'lv2core#OutputPort' ||
        { echo "convolver-64: port $i is no output" >&2; exit 1; }
done
# lilv 0.24's lv2info does not print parameters: the triple itself, as sordi reads it
sordi "$bundle"/gfir.ttl | grep -q '<urn:gfir:lv2:convolver-stereo> <http://lv2plug.in/ns/ext/patch#writable> <urn:gfir:lv2:ir>' ||
    { echo "convolver-stereo: no patch:writable IR parameter" >&2; exit 1; }
sordi "$bundle"/convolver-64.ttl | grep -q '<urn:gfir:lv2:convolver-64> <http://lv2plug.in/ns/ext/patch#writable> <urn:gfir:lv2:ir>' ||
    { echo "convolver-64: no patch:writable IR parameter" >&2; exit 1; }
echo "ttl_test: lv2_validate clean; lv2ls and lv2info see both plugins, convolver-64 with 64 ports a side"
