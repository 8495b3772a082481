#!/usr/bin/env bash
# tests/gpu/test_multicol.sh - several columns in one pass on the GPU backend, run by tests/run.sh
# where a GPU answers: tests/multicol.py with --backend gpu (each column on a GPU backend of its
# own, against pandas over several --chunk and --threads values); then a larger table and a 2-D
# npy whose results must equal the CPU backend's (integers byte for byte; float sums, whose chunks'
# sums the GPU's scan may reassociate, through tests/multicol.py's tolerance), with --backend gpu
# and auto, every --host-mem. PASS/FAIL/SKIP lines for tests/run.sh.
set -u
cd "$(dirname "$0")/../.."
. tests/common.sh
need_gpu gpu_multicol

within 900 gpu_multicol python3 tests/multicol.py "$G" "$T/py" --backend gpu

# 2 million rows of integers, a twentieth of b missing: the CPU's answer is the reference
awk 'BEGIN { srand(5); printf "t,\"s\",a,b,c\n";
    for (i = 0; i < 2000000; i++) { r = rand(); b = r < 0.05 ? "" : int(rand() * 9000) - 4000;
        printf "%d,\"x,%d\",%d,%s,%d\n", i, i % 7, int(rand() * 1000), b, int(rand() * 50) - 25 } }' >"$T/big.csv"
"$G" convert -q --col a,b,c -t i64 --na 0 "$T/big.csv" "$T/big.npy" -f
for args in "scan -t i64 --col a,b,c --na skip" "scan --op max -t i64 --col c,a --na 0" \
    "minmax -w 1000 -t i64 --col b,a,c --na skip" "rolling -w 300 --agg sum,min,count -t i64 --col a,b --na skip" \
    "compact --count --pred gt:0 -t i64 --col 3-5 --na 0"; do
    # shellcheck disable=SC2086
    "$G" $args --backend cpu -q "$T/big.csv" -f "$T/want.out" --to csv
    for b in gpu auto; do
        for hm in pinned pageable mapped; do
            ch=$([ $hm = pinned ] && echo 1M || echo 16M)
            # shellcheck disable=SC2086
            "$G" $args --backend $b --host-mem $hm --chunk $ch -q "$T/big.csv" -f "$T/got.out" --to csv 2>"$T/err"
            rc=$?
            if [ $rc = 0 ] && cmp -s "$T/want.out" "$T/got.out"; then pass "gpu_multicol_csv ($args, $b, $hm)"
            else fail "gpu_multicol_csv ($args, $b, $hm)" "exit $rc $(head -c 200 "$T/err"), $(cmp "$T/want.out" "$T/got.out" 2>&1 | head -1)"; fi
        done
    done
done
for args in "scan" "scan --col 3,1" "minmax -w 5000" "rolling -w 77 --agg max,sum --col 2,3"; do
    # shellcheck disable=SC2086
    "$G" $args --backend cpu -q "$T/big.npy" -f "$T/want.npy"
    for hm in pinned direct mapped; do
        # shellcheck disable=SC2086
        "$G" $args --backend gpu --host-mem $hm --chunk 4M -q "$T/big.npy" -f "$T/got.npy" 2>"$T/err"
        rc=$?
        if [ $rc = 0 ] && cmp -s "$T/want.npy" "$T/got.npy"; then pass "gpu_multicol_npy ($args, $hm)"
        else fail "gpu_multicol_npy ($args, $hm)" "exit $rc $(head -c 200 "$T/err")"; fi
    done
done
