#!/usr/bin/env bash
# tests/gpu/test_tables.sh - real CSV tables on the GPU backend, run by tests/run.sh where a GPU
# answers: tests/tables.py with --backend gpu (the values go to the device, positions come back
# from it and are turned into input rows, and compact --rows writes the rows' text from the host),
# and tests/keep_columns.py with --backend gpu (--keep with several columns, each on a GPU backend of
# its own, the kept text on the host), every case over several --chunk and --threads values against
# pandas; then a larger table whose positions and rows under --na skip must equal the CPU backend's
# byte for byte, with --backend gpu and auto. PASS/FAIL/SKIP lines for tests/run.sh.
set -u
cd "$(dirname "$0")/../.."
. tests/common.sh
need_gpu gpu_tables

within 900 gpu_tables python3 tests/tables.py "$G" "$T/tables" --backend gpu
within 600 gpu_keep_columns python3 tests/keep_columns.py "$G" "$T/keepcols" --backend gpu

# 3 million rows, a twentieth of the prices missing: positions and rows, GPU and auto against the CPU
awk 'BEGIN { srand(3); printf "t,\"sym\",price,vol\r\n";
    for (i = 0; i < 3000000; i++) { r = rand(); p = r < 0.05 ? "" : sprintf("%.2f", rand() * 8000);
        printf "%d,\"S,%d\",%s,%d\r\n", i, i % 97, p, int(rand() * 9000) } }' >"$T/big.csv"
for args in "--pred gt:4000 --indices --na skip" "--pred gt:4000 --rows --na skip" "--pred nan --indices" \
    "--pred lt:10 --rows"; do
    # shellcheck disable=SC2086
    "$G" compact $args --col price --backend cpu -q "$T/big.csv" -f "$T/want.out" --to csv
    for b in gpu auto; do
        for ch in 1M 16M; do
            # shellcheck disable=SC2086
            "$G" compact $args --col price --backend $b --chunk $ch -q "$T/big.csv" -f "$T/got.out" --to csv
            rc=$?
            if [ $rc = 0 ] && cmp -s "$T/want.out" "$T/got.out"; then pass "gpu_tables_big ($args, $b, $ch)"
            else fail "gpu_tables_big ($args, $b, $ch)" "exit $rc, $(cmp "$T/want.out" "$T/got.out" 2>&1 | head -1)"; fi
        done
    done
done
