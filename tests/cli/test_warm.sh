#!/usr/bin/env bash
# tests/cli/test_warm.sh - chunks run on the CPU while CUDA starts, and the backend that follows
# (the GPU, or the CPU where there is none) continues from the CPU's carry. The output must equal
# --backend cpu byte for byte: integer sums, min and max scans (inclusive and exclusive, with
# --out-type), compaction (values, --indices, --count), minmax (windows shorter and longer than a
# chunk and than the part before the hand-over). Float sums and a named --algo never start on the
# CPU. Where a GPU is usable, the input arrives in two parts with a pause longer than CUDA's
# start-up between them, so the hand-over falls inside the stream; build/test_engine hands over
# at every chunk index on any machine (a fake GPU ready at a chosen chunk).
# Prints PASS/FAIL/SKIP lines for tests/run.sh.
set -u
cd "$(dirname "$0")/../.."
. tests/common.sh

HAS_GPU=0
"$G" info 2>/dev/null | grep -q "^devices    [1-9]" && HAS_GPU=1
PAUSE=0
[ $HAS_GPU = 1 ] && PAUSE=${WARM_PAUSE_S:-1.5}

# two parts with a pause longer than the start-up (where there is a GPU to start): the first part
# runs on the CPU, the rest after it
feed() { head -c "$2" "$1"; sleep "$PAUSE"; tail -c +"$(($2 + 1))" "$1"; }

# check NAME TYPE BYTES_FIRST OPTS...: auto on a stream (it fills the first chunk: the GPU is chosen)
check() {
    local name=$1 t=$2 first=$3; shift 3
    feed "$T/in.$t" "$first" | "$G" "$@" -t "$t" --from raw --chunk 64K --stats - "$T/got" -f 2>"$T/err"
    local rc=$?
    "$G" "$@" -t "$t" --backend cpu "$T/in.$t" "$T/want" -f -q 2>/dev/null
    local chunks total
    chunks=$(grep -o "the first [0-9]* chunks\? ([^)]*) on the CPU while CUDA started" "$T/err" | awk '{ print $3 }')
    total=$(sed -n 's/.* \([0-9]*\) chunks$/\1/p' "$T/err" | head -1)
    if [ $rc -ne 0 ]; then fail "$name" "exit $rc: $(head -c 200 "$T/err")"
    elif ! cmp -s "$T/got" "$T/want"; then fail "$name" "output differs from --backend cpu"
    elif [ $HAS_GPU = 0 ]; then pass "$name"
    elif [ -z "$chunks" ]; then fail "$name" "no chunk ran on the CPU while CUDA started: $(grep backend "$T/err")"
    elif [ "$chunks" -ge "${total:-0}" ]; then fail "$name" "no hand-over: $chunks of ${total:-?} chunks on the CPU"
    elif ! grep -q "backend gpu" "$T/err"; then fail "$name" "the GPU did not take over: $(grep backend "$T/err")"
    else pass "$name"; fi
}

for t in i32 u64 f32 i64; do
    case $t in f32 | f64) dist=uniform:-100:100 ;; u*) dist=uniform:0:1000 ;; *) dist=uniform:-1000:1000 ;; esac
    "$G" gen -q -n 1000003 -t $t --dist $dist -f "$T/in.$t" || { fail warm_setup "gen -t $t"; exit 0; }
done
# the first part: not a whole number of chunks nor of elements' multiples of 4 KiB
check warm_scan_i32 i32 1500004 scan
check warm_scan_i32_exclusive_i64 i32 1500004 scan --exclusive --out-type i64
check warm_scan_u64_max_exclusive u64 3000008 scan --op max --exclusive
check warm_scan_f32_min f32 1500004 scan --op min
check warm_scan_i64_min_exclusive i64 2000000 scan --op min --exclusive
check warm_scan_i32_pageable i32 1500004 scan --host-mem pageable
check warm_compact_i32 i32 1500004 compact --pred gt:0
check warm_compact_u64_indices u64 3000008 compact --pred lt:500 --indices
check warm_compact_f32 f32 1500004 compact --pred nonzero
check warm_minmax_i32 i32 1500004 minmax -w 500
check warm_minmax_u64_partial_max u64 3000008 minmax -w 7 --only max --partial
check warm_minmax_f32_long_window f32 1500004 minmax -w 100000 --only min
check warm_minmax_i64_window_past_handover i64 2000000 minmax -w 400000 --partial
# --count: the count is printed, not written
feed "$T/in.i64" 2000000 | "$G" compact --pred ge:0 --count -t i64 --from raw --chunk 64K >"$T/got" 2>/dev/null
"$G" compact --pred ge:0 --count -t i64 --backend cpu "$T/in.i64" >"$T/want"
cmp -s "$T/got" "$T/want" && pass warm_compact_count || fail warm_compact_count "$(cat "$T/got") vs $(cat "$T/want")"

# never on the CPU first: float sums (the split would change the rounding) and a named variant
nowarm() {
    local name=$1; shift
    "$G" "$@" --from raw --chunk 64K --stats - -f /dev/null <"$T/in.f32" >/dev/null 2>"$T/err"
    if grep -q "while CUDA started" "$T/err"; then fail "$name" "$(grep backend "$T/err")"
    else pass "$name"; fi
}
nowarm warm_never_float_sum scan -t f32
nowarm warm_never_float_sum_f64_out scan -t f32 --out-type f64
nowarm warm_never_named_algo scan -t f32 --op max --algo cpu-par
nowarm warm_never_backend_cpu scan -t f32 --op max --backend cpu
