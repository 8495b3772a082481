#!/usr/bin/env bash
# tests/gpu/test_textout.sh - csv and text outputs formatted on the GPU (the plan's text_gpu), run by
# tests/run.sh where a GPU answers: every job's output from --backend gpu must equal the CPU
# backend's byte for byte (the writer formats those on the host), over hostile values (values the
# device leaves to the host: 1e300, denormals; -0.0, nan, inf; 17-digit values; integer extremes),
# several types, columns, delimiters and chunk sizes, compaction counts that leave chunks empty;
# --stats=json must show the text formatted on the device where every chunk ran there, and not with
# --host-mem mapped. PASS/FAIL/SKIP lines for tests/run.sh.
set -u
cd "$(dirname "$0")/../.."
. tests/common.sh
need_gpu gpu_textout

# 3 million values of each type: a random walk with hostile values sprinkled in
python3 - "$T" <<'PY' || { fail gpu_textout_inputs "python3 with numpy could not write the inputs"; exit 0; }
import sys
import numpy as np
t = sys.argv[1]
rng = np.random.default_rng(7)
n = 3_000_000
f = np.cumsum(rng.normal(0, 0.01, n)) + 500.0
f[::7] = np.round(f[::7], 4)
f.astype("<f8").tofile(f"{t}/clean64.raw")
f.astype("<f4").tofile(f"{t}/clean32.raw")
# the hostile values in the first third: its chunks go back as values, the later ones as text
f[rng.integers(0, n // 3, 3000)] = rng.choice([1e300, -1e300, 5e-324, 2.2250738585072014e-308, -0.0, 0.0,
                                                np.nan, np.inf, -np.inf, 0.1, 1e-7, 123456789012345678.0], 3000)
f.astype("<f8").tofile(f"{t}/f64.raw")
f.astype("<f4").tofile(f"{t}/f32.raw")
i = rng.integers(-2**62, 2**62, n)
i[rng.integers(0, n, 100)] = rng.choice([-2**63, 2**63 - 1, 0, -1], 100)
i.astype("<i8").tofile(f"{t}/i64.raw")
rng.integers(-2**31, 2**31, n).astype("<i4").tofile(f"{t}/i32.raw")
with open(f"{t}/prices.csv", "w") as o:
    o.write("time,price\n")
    for k in range(400_000):
        o.write(f"{1700000000 + k},{f[k] if np.isfinite(f[k]) else 1.5:.4f}\n")
PY

# check NAME INPUT EXT ARGS...: the GPU's output against the CPU's; GA: options for the GPU's run
# alone (a named --algo: every chunk on the GPU, none on the CPU while CUDA starts)
check() {
    local name=$1 in=$2 out=$3
    shift 3
    "$G" "$@" --backend cpu -q "$T/$in" -f "$T/want.$out" --force 2>"$T/c.err"
    local rc=$?
    # shellcheck disable=SC2086
    "$G" "$@" --backend gpu ${GA:-} --stats=json "$T/$in" -f "$T/got.$out" --force 2>"$T/g.err"
    local rg=$?
    if [ $rc = 0 ] && [ $rg = 0 ] && cmp -s "$T/want.$out" "$T/got.$out"; then pass "gpu textout: $name"
    else fail "gpu textout: $name" "exit cpu $rc gpu $rg: $(head -c 300 "$T/g.err") $(cmp "$T/want.$out" "$T/got.$out" 2>&1 | head -1)"; fi
}
formatted() { # the text formatter took values: its stage's bytes in --stats=json are not 0
    grep -oE '"name":"text format \(gpu\)","busy_s":[0-9.e+-]+,"bytes":[0-9]+' "$T/g.err" | grep -qvE '"bytes":0$'
}

# each verb over each type, text and values chunks mixed (f64, f32) or text alone; then the formatter's
# row says it ran (the scans' inputs have no value the device leaves to the host)
on_device() {
    if formatted; then pass "gpu textout: formatted on the device ($1)"
    else fail "gpu textout: formatted on the device ($1)" "$(grep -iE "text|algo" "$T/g.err" | head -3)"; fi
}
for ty in f64 f32 i64 i32; do
    sin=$ty.raw
    case $ty in f64) sin=clean64.raw ;; f32) sin=clean32.raw ;; esac
    for ch in 1M 16M; do
        GA="--algo lookback" check "scan max $ty --chunk $ch" $sin csv scan --op max -t $ty --from raw --to csv --chunk $ch
        on_device "scan $ty $ch"
        GA="--algo vhgw" check "minmax -w 7 $ty --chunk $ch" $ty.raw csv minmax -w 7 -t $ty --from raw --to csv --chunk $ch
        on_device "minmax $ty $ch"
        GA="--algo lookback" check "compact gt:0 $ty --chunk $ch" $ty.raw csv compact --pred gt:0 -t $ty --from raw \
            --to csv --chunk $ch
        on_device "compact $ty $ch"
    done
done
GA="--algo lookback" check "scan sum i32 -> i64" i32.raw csv scan -t i32 --from raw --to csv
GA="--algo lookback" check "compact gt:1e299 (most chunks empty)" f64.raw csv compact --pred gt:1e299 -t f64 \
    --from raw --to csv --chunk 1M
GA="--algo vhgw" check "minmax tsv" f64.raw tsv minmax -w 100 -t f64 --from raw
GA="--algo vhgw" check "minmax text" f64.raw txt minmax -w 100 -t f64 --from raw --to text
GA="--algo vhgw" check "rolling mean,std" f64.raw csv rolling -w 50 --agg mean,std -t f64 --from raw --to csv
on_device "rolling"
# count prints as an integer beside the floats: the writer formats every column
GA="--algo vhgw" check "rolling mean,std,count" f64.raw csv rolling -w 50 --agg mean,std,count -t f64 --from raw --to csv
if formatted; then fail "gpu textout: a column in another type is formatted on the host" "$(grep -i text "$T/g.err" | head -2)"
else pass "gpu textout: a column in another type is formatted on the host"; fi
check "rolling -w 500 mean,std csv in" prices.csv csv rolling -w 500 --agg mean,std --col price
check "scan max csv in, zstd out" prices.csv csv.zst scan --op max --col price --to csv
check "compact csv in" prices.csv csv compact --pred gt:500 --col price --chunk 1M
check "compact then scan csv in (a chain)" prices.csv csv compact --pred gt:500 --col price then scan --op max

# --host-mem mapped: the kernels write host memory, the writer formats (same bytes, no text row)
check "minmax --host-mem mapped" f64.raw csv minmax -w 7 -t f64 --from raw --to csv --host-mem mapped
if formatted; then fail "gpu textout: mapped formats on the host" "$(grep -i text "$T/g.err" | head -2)"
else pass "gpu textout: mapped formats on the host"; fi
