#!/usr/bin/env bash
# tests/gpu/test_sanitize.sh - compute-sanitizer memcheck and racecheck on a run of each verb's
# default GPU variant, of csv formatted on the device (3,000,001 elements in 4 MiB chunks: a partial
# last chunk), of csv parsed there, of the f64 rolling sum and mean's warp paths (W = 100 fused,
# W = 2000 not) and of the short path (W = 3, the sum and var families), each output equal to the
# CPU backend's. Run by tests/run.sh where a GPU answers; SKIP without compute-sanitizer.
# Prints PASS/FAIL/SKIP lines for tests/run.sh.
set -u
cd "$(dirname "$0")/../.."
. tests/common.sh
need_gpu gpu_sanitize
if ! command -v compute-sanitizer >/dev/null; then skip gpu_sanitize "no compute-sanitizer"; exit 0; fi

"$G" gen -q -n 3000001 -t i32 --dist sparse:0.5 -f "$T/s.raw"
"$G" gen -q -n 15000001 -t i64 -f "$T/s.csv" # about 44 MB: 2 of the reader's blocks
"$G" gen -q -n 3000001 -t f64 --dist walk -f "$T/s.f64"
# Each case: the verb's arguments | options for the GPU's run alone | what both runs write | the input
# (s.raw unless named). The csv outputs are formatted on the device (kernels/text_gpu.cu), every chunk
# on the GPU (a named --algo); the csv input is parsed there (--host-mem registered: the reader waits
# for the backend, so that every block is offered to the device).
CASES=("scan -t i32|--algo lookback|--to csv" "minmax -t i32 -w 500|--algo vhgw|--to csv" "scan -t i32||"
    "compact -t i32 --pred nonzero||" "minmax -t i32 -w 500||" "minmax -t i32 -w 70000 --partial||"
    "scan -t i64 --op max|--algo lookback --host-mem registered|--to raw|s.csv"
    "rolling -t f64 -w 100 --agg mean|||s.f64" "rolling -t f64 -w 2000 --agg sum|||s.f64"
    "rolling -t f64 -w 3 --agg mean,std|||s.f64")
for tool in memcheck racecheck; do
    for c in "${CASES[@]}"; do
        IFS='|' read -r args ga out in <<<"$c"
        in=${in:-s.raw}
        name="$args${out:+ $out}${in#s.raw}"
        # shellcheck disable=SC2086
        timeout -k 5 300 compute-sanitizer --tool $tool --error-exitcode 9 "$G" $args $ga --backend gpu --chunk 4M \
            $out "$T/$in" -f "$T/s.gpu" >"$T/san" 2>&1
        rc=$?
        # shellcheck disable=SC2086
        "$G" $args --backend cpu --chunk 4M $out "$T/$in" -f "$T/s.cpu"
        # memcheck ends "ERROR SUMMARY: 0 errors", racecheck "RACECHECK SUMMARY: 0 hazards displayed"
        if [ $rc = 0 ] && grep -qE "(ERROR SUMMARY: 0 errors|RACECHECK SUMMARY: 0 hazards)" "$T/san" &&
            cmp -s "$T/s.gpu" "$T/s.cpu"; then
            pass "gpu $tool: $name"
        else
            fail "gpu $tool: $name" "exit $rc, $(grep -m1 -E '(ERROR|RACECHECK) SUMMARY' "$T/san"), $(cmp "$T/s.gpu" "$T/s.cpu" 2>&1 | head -1)"
        fi
    done
done
