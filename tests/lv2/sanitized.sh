# sanitized.sh - sourced by the tests that run the bundle in hosts built
# without sanitizers (jalv, PipeWire, GStreamer; lv2apply_test.py does the
# same for lv2apply): where the plugin module is built with AddressSanitizer
# (tools/ci/sanitize.sh), its runtime must be loaded first in those hosts,
# and their own allocations left at exit are not the plugin's leaks.
module="${LV2_PATH%%:*}/gfir.lv2/gfir.so"
if ldd "$module" 2>/dev/null | grep -q libasan; then
    LD_PRELOAD=$(gcc -print-file-name=libasan.so)
    ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"
    export LD_PRELOAD ASAN_OPTIONS
fi
