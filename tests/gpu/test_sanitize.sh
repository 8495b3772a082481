#!/usr/bin/env bash
# tests/gpu/test_sanitize.sh - compute-sanitizer memcheck and racecheck on a run of each verb's
# default GPU variant and of csv formatted on the device (3,000,001 elements in 4 MiB chunks: a
# partial last chunk), each output equal to the CPU backend's. Run by tests/run.sh where a GPU answers; SKIP without compute-sanitizer.
# Prints PASS/FAIL/SKIP lines for tests/run.sh.
set -u
cd "$(dirname "$0")/../.."
. tests/common.sh
need_gpu gpu_sanitize
if ! command -v compute-sanitizer >/dev/null; then skip gpu_sanitize "no compute-sanitizer"; exit 0; fi

"$G" gen -q -n 3000001 -t i32 --dist sparse:0.5 -f "$T/s.raw"
# csv formatted on the device (kernels/text_gpu.cu), every chunk on the GPU (a named --algo)
for tool in memcheck racecheck; do
    for cmd in "scan -t i32|--algo lookback" "minmax -t i32 -w 500|--algo vhgw"; do
        args=${cmd%|*}
        # shellcheck disable=SC2086
        timeout -k 5 300 compute-sanitizer --tool $tool --error-exitcode 9 "$G" $args ${cmd#*|} --backend gpu \
            --chunk 4M --to csv "$T/s.raw" -f "$T/s.gpu" >"$T/san" 2>&1
        rc=$?
        # shellcheck disable=SC2086
        "$G" $args --backend cpu --chunk 4M --to csv "$T/s.raw" -f "$T/s.cpu"
        if [ $rc = 0 ] && grep -qE "(ERROR SUMMARY: 0 errors|RACECHECK SUMMARY: 0 hazards)" "$T/san" &&
            cmp -s "$T/s.gpu" "$T/s.cpu"; then
            pass "gpu $tool: $args to csv"
        else
            fail "gpu $tool: $args to csv" "exit $rc, $(grep -m1 -E '(ERROR|RACECHECK) SUMMARY' "$T/san"), $(cmp "$T/s.gpu" "$T/s.cpu" 2>&1 | head -1)"
        fi
    done
done
for tool in memcheck racecheck; do
    for cmd in "scan -t i32" "compact -t i32 --pred nonzero" "minmax -t i32 -w 500" "minmax -t i32 -w 70000 --partial"; do
        # shellcheck disable=SC2086
        timeout -k 5 300 compute-sanitizer --tool $tool --error-exitcode 9 "$G" $cmd --backend gpu --chunk 4M \
            "$T/s.raw" -f "$T/s.gpu" >"$T/san" 2>&1
        rc=$?
        # shellcheck disable=SC2086
        "$G" $cmd --backend cpu --chunk 4M "$T/s.raw" -f "$T/s.cpu"
        # memcheck ends "ERROR SUMMARY: 0 errors", racecheck "RACECHECK SUMMARY: 0 hazards displayed"
        if [ $rc = 0 ] && grep -qE "(ERROR SUMMARY: 0 errors|RACECHECK SUMMARY: 0 hazards)" "$T/san" &&
            cmp -s "$T/s.gpu" "$T/s.cpu"; then
            pass "gpu $tool: $cmd"
        else
            fail "gpu $tool: $cmd" "exit $rc, $(grep -m1 -E '(ERROR|RACECHECK) SUMMARY' "$T/san"), $(cmp "$T/s.gpu" "$T/s.cpu" 2>&1 | head -1)"
        fi
    done
done
