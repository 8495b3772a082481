#!/usr/bin/env bash
# tests/gpu/test_chains.sh - chains on the GPU backend, run by tests/run.sh where a GPU answers:
#   - tests/cli/test_chains.sh with BACKEND=gpu: every chain of its matrix on the GPU against the
#     same verbs piped on the CPU backend, byte for byte (TYPES narrows, as there);
#   - chains under --device-mem-limit (every stage's buffers counted), equal to the CPU backend's;
#   - compute-sanitizer memcheck on three chains of three stages, each output equal to the CPU
#     backend's (SKIP without compute-sanitizer).
# Prints PASS/FAIL/SKIP lines for tests/run.sh.
set -u
cd "$(dirname "$0")/../.."
. tests/common.sh
need_gpu gpu_chains

within 900 gpu_chains env G="$G" BACKEND=gpu bash tests/cli/test_chains.sh

# --device-mem-limit counts every stage: the buffers between stages and the later stages' halos
# shrink the chunk with stage 0's (each chain's output equal to the CPU backend's)
"$G" gen -q -n 300001 -t i64 -f "$T/m.raw"
for cmd in "minmax -w 4093 --only min then scan then scan then minmax -w 70000 --only max" \
    "rolling -w 100000 --agg mean then scan --op max"; do
    for lim in 64M 256M; do
        # shellcheck disable=SC2086
        if ! "$G" $cmd -t i64 --backend gpu --device-mem-limit $lim "$T/m.raw" -f "$T/m.gpu" -q 2>"$T/m.err"; then
            fail "gpu chain --device-mem-limit $lim: $cmd" "$(head -1 "$T/m.err")"
            continue
        fi
        # shellcheck disable=SC2086
        "$G" $cmd -t i64 --backend cpu "$T/m.raw" -f "$T/m.cpu" -q
        if cmp -s "$T/m.gpu" "$T/m.cpu"; then pass "gpu chain --device-mem-limit $lim: $cmd"
        else fail "gpu chain --device-mem-limit $lim: $cmd" "$(cmp "$T/m.gpu" "$T/m.cpu" 2>&1 | head -1)"; fi
    done
done

if ! command -v compute-sanitizer >/dev/null; then skip gpu_chains_memcheck "no compute-sanitizer"; exit 0; fi
"$G" gen -q -n 3000001 -t i32 --dist sparse:0.3 -f "$T/c.raw"
for cmd in "compact --pred nonzero then scan then minmax -w 500 --only max" \
    "scan --out-type i64 then compact --pred gt:0 --indices then minmax -w 70000 --only min --partial" \
    "minmax -w 3 --only min then compact --pred nonzero then scan --op max"; do
    # shellcheck disable=SC2086
    timeout -k 5 300 compute-sanitizer --tool memcheck --error-exitcode 9 "$G" $cmd -t i32 --backend gpu --chunk 1M \
        "$T/c.raw" -f "$T/c.gpu" -q >"$T/san" 2>&1
    rc=$?
    # shellcheck disable=SC2086
    "$G" $cmd -t i32 --backend cpu --chunk 1M "$T/c.raw" -f "$T/c.cpu" -q
    if [ $rc = 0 ] && grep -q "ERROR SUMMARY: 0 errors" "$T/san" && cmp -s "$T/c.gpu" "$T/c.cpu"; then
        pass "gpu chain memcheck: $cmd"
    else
        fail "gpu chain memcheck: $cmd" "exit $rc, $(grep -m1 'ERROR SUMMARY' "$T/san"), $(cmp "$T/c.gpu" "$T/c.cpu" 2>&1 | head -1)"
    fi
done
