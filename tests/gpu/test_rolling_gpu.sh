#!/usr/bin/env bash
# tests/gpu/test_rolling_gpu.sh - `rolling` on the GPU backend against the CPU backend, byte for
# byte (the GPU kernel computes the CPU's states: kernels/rolling_vhgw.cu), run by tests/run.sh
# where a GPU answers:
#   - every type; windows 1, 2, 31, 32, 33, 100, 1000, 70001 and W > n; --partial, --skip-nan with
#     --min-periods, --ddof 0; NaN/inf in the data; every aggregate; chunks that split windows and
#     tiles (--chunk 1K, 1M, the default); --skip-nan at W = 70001 (the two-level chains with counts off
#     multiples of a tile); a chain (compact then rolling); csv output; the f64 sum
#     and mean alone (their warp paths) at the same windows and chunks; windows of a few values of the
#     f64 sum and var families (their short path), alone and together, in chunks, with --skip-nan
#   - n > 2^32 (ROLLING_BIG=0 skips it): argmax positions past 2^32 and sums, 4.3e9 f32 from gen
#   - compute-sanitizer memcheck on three runs (SKIP without compute-sanitizer)
# Prints PASS/FAIL/SKIP lines for tests/run.sh.
set -u
cd "$(dirname "$0")/../.."
. tests/common.sh
need_gpu gpu_rolling

ALL=sum,mean,var,std,count,min,max,argmin,argmax
python3 - "$T" <<'EOF'
import sys, numpy as np
T = sys.argv[1]
rng = np.random.default_rng(11)
n = 3000017
f = 1e9 + rng.standard_normal(n)
f[rng.integers(0, n, 300)] = np.nan
f[rng.integers(0, n, 30)] = np.inf
f[rng.integers(0, n, 30)] = -np.inf
f[1000:5000] = 0.1
f.tofile(f"{T}/x.f64")
f.astype(np.float32).tofile(f"{T}/x.f32")
dt = {"i32": np.int32, "i64": np.int64, "u32": np.uint32, "u64": np.uint64}
for t, (lo, hi) in {"i32": (-2**31, 2**31), "i64": (-2**62, 2**62), "u32": (0, 2**32), "u64": (0, 2**63)}.items():
    rng.integers(lo, hi, n, dtype=np.int64 if t != "u64" else np.uint64).astype(dt[t]).tofile(f"{T}/x.{t}")
EOF
same() { # NAME ARGS... OUT: --backend gpu and --backend cpu write the same bytes (OUT names the format)
    local name=$1; shift
    local ext=${!###*.}
    set -- "${@:1:$#-1}"
    "$G" "$@" --backend gpu -q -f "$T/g.$ext" 2>"$T/g.err"
    local rg=$?
    "$G" "$@" --backend cpu -q -f "$T/c.$ext" 2>"$T/c.err"
    local rc=$?
    if [ $rg = 0 ] && [ $rc = 0 ] && cmp -s "$T/g.$ext" "$T/c.$ext"; then pass "gpu rolling: $name"
    else fail "gpu rolling: $name" "exit gpu $rg cpu $rc: $(head -c 200 "$T/g.err") $(cmp "$T/g.$ext" "$T/c.$ext" 2>&1 | head -1)"; fi
}
for t in f64 f32 i32 i64 u32 u64; do
    for w in 1 2 31 32 33 100 1000 70001; do
        same "$t W=$w" rolling -w $w --agg $ALL -t $t "$T/x.$t" "$T/o.raw"
    done
    same "$t W=100 --partial --chunk 1K" rolling -w 100 --partial --agg $ALL -t $t --chunk 1K "$T/x.$t" "$T/o.raw"
    same "$t W=70001 --chunk 1M" rolling -w 70001 --agg $ALL -t $t --chunk 1M "$T/x.$t" "$T/o.raw"
    same "$t W=5000000 (W > n) --partial" rolling -w 5000000 --partial --agg sum,count,argmax -t $t "$T/x.$t" "$T/o.raw"
done
for t in f64 f32; do
    same "$t --skip-nan --partial --min-periods 5 W=64" rolling -w 64 --skip-nan --partial --min-periods 5 --agg $ALL -t $t "$T/x.$t" "$T/o.raw"
    same "$t --skip-nan W=1000 --ddof 0" rolling -w 1000 --skip-nan --ddof 0 --agg $ALL -t $t "$T/x.$t" "$T/o.raw"
    same "$t --skip-nan W=70001 mean,var,std (two-level chains, counts off multiples of a tile)" rolling -w 70001 --skip-nan --agg mean,var,std -t $t "$T/x.$t" "$T/o.raw"
    same "$t --out-type f32 mean,std" rolling -w 500 --agg mean,std --out-type f32 -t $t "$T/x.$t" "$T/o.raw"
    same "$t csv" rolling -w 77 --agg mean,count,argmin -t $t "$T/x.$t" "$T/o.csv"
done
for w in 1 2 31 32 33 64 100 500 1024 1025 1000 70001; do # the f64 sum or mean alone: the warp paths (rolling_vhgw_warp.cuh)
    same "f64 --agg mean W=$w" rolling -w $w --agg mean -t f64 "$T/x.f64" "$T/o.raw"
done
same "f64 --agg sum W=100 --chunk 1K" rolling -w 100 --agg sum -t f64 --chunk 1K "$T/x.f64" "$T/o.raw"
same "f64 --agg mean W=300 --chunk 5K" rolling -w 300 --agg mean -t f64 --chunk 5K "$T/x.f64" "$T/o.raw"
same "f64 --agg mean W=1000 --partial --chunk 1M" rolling -w 1000 --partial --agg mean -t f64 --chunk 1M "$T/x.f64" "$T/o.raw"
same "f64 --agg sum W=70001 --chunk 100K" rolling -w 70001 --agg sum -t f64 --chunk 100K "$T/x.f64" "$T/o.raw"
same "f64 --agg mean W=33 --partial --min-periods 20" rolling -w 33 --partial --min-periods 20 --agg mean -t f64 "$T/x.f64" "$T/o.raw"
for w in 1 2 3 4 5 8; do # f64 windows of a few values, the sum and var families: the short path (rolling_vhgw_short.cuh)
    same "f64 --agg std W=$w" rolling -w $w --agg std -t f64 "$T/x.f64" "$T/o.raw"
    same "f64 --agg sum,var W=$w --chunk 1K" rolling -w $w --agg sum,var -t f64 --chunk 1K "$T/x.f64" "$T/o.raw"
done
same "f64 --agg mean,std W=7 --skip-nan --partial --min-periods 3 --chunk 5K" rolling -w 7 --skip-nan --partial --min-periods 3 \
    --agg mean,std -t f64 --chunk 5K "$T/x.f64" "$T/o.raw"
same "f64 --agg std W=4 --ddof 0 --out-type f32" rolling -w 4 --ddof 0 --agg std --out-type f32 -t f64 "$T/x.f64" "$T/o.raw"
same "chain: compact then rolling" compact --pred finite then rolling -w 300 --agg std -t f64 "$T/x.f64" "$T/o.raw"
same "chain: rolling then scan" rolling -w 300 --agg mean then scan --op max -t f64 "$T/x.f64" "$T/o.raw"

if [ "${ROLLING_BIG:-1}" = 1 ]; then # n > 2^32: positions and sums past 32 bits
    N=4300000000
    g=$("$G" gen -q -n $N -t f32 --dist uniform:0:1 --seed 3 | "$G" rolling -q -w 1000003 --agg argmax,sum -t f32 --backend gpu | md5sum)
    c=$("$G" gen -q -n $N -t f32 --dist uniform:0:1 --seed 3 | "$G" rolling -q -w 1000003 --agg argmax,sum -t f32 --backend cpu | md5sum)
    [ "$g" = "$c" ] && pass "gpu rolling: n = $N > 2^32, argmax and sum" || fail "gpu rolling: n > 2^32" "gpu and cpu differ"
else
    skip "gpu rolling: n > 2^32" "ROLLING_BIG=0"
fi

if ! command -v compute-sanitizer >/dev/null; then skip gpu_rolling_memcheck "no compute-sanitizer"; exit 0; fi
for args in "-w 33 --agg $ALL -t f64" "-w 70001 --partial --skip-nan --min-periods 3 --agg $ALL -t f32" "-w 1 --agg $ALL -t u64"; do
    t=${args##* }
    # shellcheck disable=SC2086
    timeout -k 5 600 compute-sanitizer --tool memcheck --error-exitcode 9 "$G" rolling $args --backend gpu --chunk 4M \
        "$T/x.$t" -f -q "$T/s.gpu" >"$T/san" 2>&1
    rc=$?
    # shellcheck disable=SC2086
    "$G" rolling $args --backend cpu --chunk 4M "$T/x.$t" -f -q "$T/s.cpu"
    if [ $rc = 0 ] && grep -q "ERROR SUMMARY: 0 errors" "$T/san" && cmp -s "$T/s.gpu" "$T/s.cpu"; then pass "gpu rolling memcheck: $args"
    else fail "gpu rolling memcheck: $args" "exit $rc, $(grep -m1 'ERROR SUMMARY' "$T/san")"; fi
done
