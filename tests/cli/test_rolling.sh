#!/usr/bin/env bash
# tests/cli/test_rolling.sh - `gpustream rolling -w W --agg LIST`: every aggregate against exact,
# numpy and pandas references (tests/rolling_oracle.py: hostile numerics, NaN/inf, --skip-nan,
# --min-periods, --ddof, every type); outputs bit-identical for any --chunk and --threads; minmax's
# bytes from --agg min,max; raw, npy, csv and text outputs (headers, each column in its own type);
# n = 0, 1, W > n; chains; usage errors. Prints PASS/FAIL lines. About a minute on 2 cores.
set -u
cd "$(dirname "$0")/../.."
. tests/common.sh

# ---- the references ------------------------------------------------------------------------------
python3 tests/rolling_oracle.py "$G" "$T" ${ROLLING_QUICK:+--quick}

# ---- the GPU kernels run on the host, one thread index after another, against the CPU kernel ----
# clang++ -O2 where present, else g++ -O0: g++ 12.2 at -O1 and -O2 (not -O0, -Og, -O3, nor with
# -fsanitize=undefined) drops the float sums' stores in this host build of the kernels
B=${BUILD:-build/cpu}
SANF= # the objects' sanitizer, for the link
case $B in *tsan*) SANF=-fsanitize=thread ;; *san*) SANF=-fsanitize=address,undefined ;; esac
CXX_EMU="g++ -O0"
command -v clang++ >/dev/null && [ -z "$SANF" ] && CXX_EMU="clang++ -O2"
if command -v g++ >/dev/null && [ -f "$B/kernels/rolling_cpu.o" ]; then
    if $CXX_EMU -std=c++17 $SANF -I. tests/unit/rolling_gpu_emu.cpp "$B/kernels/rolling_cpu.o" "$B/kernels/rolling_fast.o" "$B/kernels/rolling.o" \
        "$B/common/gs.o" "$B/common/pool.o" -lm -pthread -o "$T/emu" 2>"$T/emu.err"; then
        "$T/emu"
    else
        fail "gpu kernels on the host" "does not build: $(head -3 "$T/emu.err")"
    fi
else
    skip "gpu kernels on the host" "no g++ or no CPU objects in $B"
fi

# ---- bench: the CPU's rows checked against cpu-sweep (the tile sweep without the vector lanes) -----
for t in f64 f32 i32; do
    "$G" bench --backend cpu --op rolling --agg mean,std --window 5,100 -n 100003 -t $t --reps 1 >"$T/bench" 2>&1
    if grep -q "^# 4 rows, 0 FAILED" "$T/bench" && [ "$(grep -c "^cpu    rolling cpu-sweep .* reference$" "$T/bench")" = 2 ] &&
        [ "$(grep -c "^cpu    rolling cpu-vhgw .* passed$" "$T/bench")" = 2 ]; then
        pass "bench --op rolling $t: cpu-vhgw's lanes against cpu-sweep, byte for byte"
    else
        fail "bench --op rolling $t" "$(tail -3 "$T/bench")"
    fi
done

# ---- chunk boundaries and threads: bit-identical -------------------------------------------------
python3 - "$T" <<'EOF'
import array, random, sys
T = sys.argv[1]
rng = random.Random(3)
x = array.array("d", (1e9 + rng.gauss(0, 1) for _ in range(60003)))
x[1000] = 1e15
x[5000:9000] = array.array("d", [0.1] * 4000)
for i in rng.sample(range(len(x)), 50):
    x[i] = float("nan")
with open(f"{T}/h.f64", "wb") as f:
    x.tofile(f)
with open(f"{T}/h.i32", "wb") as f:
    array.array("i", (rng.randrange(-2**31, 2**31) for _ in range(50001))).tofile(f)
EOF
ALL=sum,mean,var,std,count,min,max,argmin,argmax
for spec in "f64 3 64" "f64 1000 1000" "f64 20001 32K" "i32 1 64" "i32 513 64"; do
    set -- $spec
    t=$1 w=$2 c0=$3 # the smallest chunk (a chunk of 64 bytes behind a long halo copies the halo each time)
    ref=$("$G" rolling -q -w "$w" --agg $ALL -t "$t" "$T/h.$t" --threads 1 | md5sum)
    ok=1
    for c in $c0 4096 100000 1M; do
        for th in 1 2 3; do
            got=$("$G" rolling -q -w "$w" --agg $ALL -t "$t" "$T/h.$t" --chunk "$c" --threads "$th" | md5sum)
            [ "$got" = "$ref" ] || { ok=0; fail "chunks $t W=$w" "--chunk $c --threads $th differs"; break 2; }
        done
    done
    [ $ok = 1 ] && pass "bit-identical over --chunk and --threads: $t W=$w"
    got=$("$G" rolling -q -w "$w" --agg $ALL -t "$t" "$T/h.$t" --skip-nan --partial --min-periods 1 --chunk 1000 | md5sum)
    ref=$("$G" rolling -q -w "$w" --agg $ALL -t "$t" "$T/h.$t" --skip-nan --partial --min-periods 1 | md5sum)
    [ "$got" = "$ref" ] && pass "bit-identical --skip-nan --partial: $t W=$w" || fail "skip-nan chunks $t W=$w" "differs"
done

# ---- minmax is rolling --agg min,max -------------------------------------------------------------
for t in i32 u64 f32 f64; do
    "$G" gen -q -n 30011 -t $t --dist normal:0:1000 --seed 5 "$T/m.$t"
    for w in 1 2 17 500 30011 40000; do
        for p in "" --partial; do
            a=$("$G" minmax -q -w $w $p -t $t "$T/m.$t" | md5sum)
            b=$("$G" rolling -q -w $w $p --agg min,max -t $t "$T/m.$t" | md5sum)
            [ "$a" = "$b" ] || { fail "minmax = rolling min,max $t W=$w $p" "raw bytes differ"; continue; }
        done
    done
    # rolling runs min and max alone on minmax's kernels; its own (chosen with --algo) give the same
    for w in 2 17 500; do
        a=$("$G" minmax -q -w $w -t $t "$T/m.$t" | md5sum)
        b=$("$G" rolling -q -w $w --agg min,max --algo cpu-vhgw -t $t "$T/m.$t" | md5sum)
        [ "$a" = "$b" ] || fail "minmax = rolling's own min,max $t W=$w" "raw bytes differ"
    done
    a=$("$G" minmax -q -w 9 --only max -t $t "$T/m.$t" --to text | md5sum)
    b=$("$G" rolling -q -w 9 --agg max -t $t "$T/m.$t" --to text | md5sum)
    [ "$a" = "$b" ] && pass "minmax = rolling --agg min,max: $t raw, --only max = --agg max text" || fail "minmax text $t" "differs"
done
python3 - "$T" <<'EOF'
import array, random, sys
rng = random.Random(1)
x = array.array("d", (rng.gauss(0, 1) for _ in range(1000)))
x[3] = x[500] = float("nan")
with open(sys.argv[1] + "/nan.f64", "wb") as f:
    x.tofile(f)
EOF
"$G" minmax -q -w 10 -t f64 "$T/nan.f64" "$T/a.npy" && "$G" rolling -q -w 10 --agg min,max -t f64 "$T/nan.f64" "$T/b.npy" &&
    cmp -s "$T/a.npy" "$T/b.npy" && pass "minmax = rolling min,max: npy with NaN, byte for byte" || fail "minmax npy" "differs"
for w in 1 2; do
    "$G" minmax -q -f -w $w --only min -t f64 "$T/nan.f64" "$T/a.raw" && "$G" rolling -q -f -w $w --agg min -t f64 "$T/nan.f64" "$T/b.raw" &&
        cmp -s "$T/a.raw" "$T/b.raw" && pass "minmax --only min = rolling --agg min, NaN's bits too: W=$w" || fail "minmax nan W=$w" "differs"
done
refused_with rolling_pair_in_chain 2 -F "stage 1 (rolling): rolling writes 2 columns, which no stage reads" \
    "$G" rolling -q -w 2 --agg min,max -t f64 "$T/nan.f64" then scan && pass "a rolling of min,max in a chain is named rolling"
for src in "--col price data/prices.csv" "-t i32 $T/m.i32" "--from csv --no-header -t f64 $T/nh.csv"; do
    printf '5\n3\n8\n1\n' >"$T/nh.csv"
    for only in "" "--only min"; do
        agg=$([ -n "$only" ] && echo min || echo min,max)
        # shellcheck disable=SC2086
        a=$("$G" minmax -q -w 3 $only $src --to csv | md5sum)
        # shellcheck disable=SC2086
        b=$("$G" rolling -q -w 3 --agg $agg $src --to csv | md5sum)
        [ "$a" = "$b" ] && pass "minmax = rolling --agg $agg: csv with its header ($src)" ||
            fail "minmax csv $src $only" "differs"
    done
done

# ---- formats, headers and column types -----------------------------------------------------------
printf 'time,price\n1,10\n2,11.5\n3,nan\n4,13\n5,12\n' > "$T/p.csv"
"$G" rolling -q -w 2 --agg mean,count,argmax,sum "$T/p.csv" --col price "$T/o.csv"
exp='price_mean,price_count,price_argmax,price_sum
10.75,2,1,21.5
nan,1,2,nan
nan,1,2,nan
12.5,2,3,25'
[ "$(cat "$T/o.csv")" = "$exp" ] && pass "csv: header from the column, count and argmax as integers" ||
    fail "csv header" "$(cat "$T/o.csv" | tr '\n' '|')"
"$G" rolling -q -w 2 --agg sum,count -t i32 "$T/h.i32" --to csv | head -2 > "$T/o2.csv"
[ "$(head -1 "$T/o2.csv")" = "sum,count" ] && pass "csv from raw: columns named by aggregate" || fail "csv raw header" "$(head -1 "$T/o2.csv")"
"$G" rolling -q -w 2 --agg mean,count -t f32 "$T/m.f32" --to csv | sed -n 2p | grep -Eq '^-?[0-9.e+-]+,2$' &&
    pass "csv: f32 mean beside a count printed as an integer" || fail "csv types" "$("$G" rolling -q -w 2 --agg mean,count -t f32 "$T/m.f32" --to csv | sed -n 2p)"
"$G" rolling -q -w 2 --skip-nan --agg count "$T/p.csv" --col price --to text > "$T/o.txt"
[ "$(tr '\n' ' ' < "$T/o.txt")" = "2 1 1 2 " ] && pass "text: count under --skip-nan" || fail "text" "$(tr '\n' ' ' < "$T/o.txt")"
if have_numpy; then
    "$G" rolling -q -w 3 --agg mean,std -t f64 "$T/h.f64" --out-type f32 -f "$T/o.npy" &&
        python3 -c "import numpy as np,sys; a=np.load(sys.argv[1]); assert a.dtype==np.float32 and a.shape==(60001,2)" "$T/o.npy" &&
        pass "--out-type f32: npy (n, 2) of f32" || fail "--out-type" "wrong npy"
    "$G" rolling -q -w 3 --agg std -t f64 "$T/h.f64" "$T/o1.npy" &&
        python3 -c "import numpy as np,sys; a=np.load(sys.argv[1]); assert a.shape==(60001,)" "$T/o1.npy" &&
        pass "one aggregate: 1-D npy" || fail "1-D npy" "wrong shape"
else
    skip "--out-type f32 and one aggregate: npy shapes" "numpy is not installed"
fi

# ---- n = 0, 1 and W > n --------------------------------------------------------------------------
: > "$T/empty.f64"
out=$("$G" rolling -w 3 --agg sum,var -t f64 "$T/empty.f64" 2>&1 | wc -c)
if have_numpy; then
    "$G" rolling -q -w 3 --agg sum,var -t f64 "$T/empty.f64" "$T/e.npy" &&
        python3 -c "import numpy as np,sys; a=np.load(sys.argv[1]); assert a.shape==(0,2)" "$T/e.npy" && pass "n = 0: npy (0, 2)" || fail "n=0" "bad"
else
    skip "n = 0: npy (0, 2)" "numpy is not installed"
fi
printf '\x00\x00\x00\x00\x00\x00\xf0\x3f' > "$T/one.f64"
[ "$("$G" rolling -q -w 1 --agg sum,mean,var,count,argmin -t f64 "$T/one.f64" --to csv | tail -1)" = "1,1,nan,1,0" ] &&
    pass "n = 1, W = 1: var with ddof 1 is NaN" || fail "n=1" "$("$G" rolling -q -w 1 --agg sum,mean,var,count,argmin -t f64 "$T/one.f64" --to csv)"
[ "$("$G" rolling -q -w 1 --ddof 0 --agg var -t f64 "$T/one.f64" --to csv | tail -1)" = "0" ] && pass "n = 1, --ddof 0: var 0" || fail "ddof 0" "not 0"
msg=$("$G" rolling -w 5 --agg sum -t f64 "$T/one.f64" "$T/w.raw" -f 2>&1)
[ -f "$T/w.raw" ] && [ ! -s "$T/w.raw" ] && [[ "$msg" == *"longer than the input"* ]] && pass "W > n: no output, a warning" ||
    fail "W > n" "$msg"
[ "$("$G" rolling -q -w 1e9 --partial --agg count,sum -t f64 "$T/one.f64" --to csv | tail -1)" = "1,1" ] &&
    pass "W = 10^9 --partial" || fail "huge W" "bad"

# ---- chains --------------------------------------------------------------------------------------
a=$("$G" compact -q --pred finite -t f64 "$T/h.f64" | "$G" rolling -q -w 50 --agg std -t f64 | md5sum)
b=$("$G" compact -q --pred finite then rolling -w 50 --agg std -t f64 "$T/h.f64" | md5sum)
[ "$a" = "$b" ] && pass "chain: compact then rolling = the shell pipe" || fail "chain compact then rolling" "differs"
a=$("$G" rolling -q -w 50 --agg mean -t f64 "$T/h.f64" | "$G" scan -q -t f64 --op max | md5sum)
b=$("$G" rolling -q -w 50 --agg mean then scan --op max -t f64 "$T/h.f64" | md5sum)
[ "$a" = "$b" ] && pass "chain: one-aggregate rolling feeds scan" || fail "chain rolling then scan" "differs"
a=$("$G" rolling -q -w 7 --agg count -t i32 "$T/h.i32" | "$G" minmax -q -w 3 -t u64 | md5sum)
b=$("$G" rolling -q -w 7 --agg count then minmax -w 3 -t i32 "$T/h.i32" | md5sum)
[ "$a" = "$b" ] && pass "chain: rolling count (u64) then minmax" || fail "chain rolling then minmax" "differs"

# ---- usage errors --------------------------------------------------------------------------------
bad() { # NAME EXPECT ARGS...
    local name=$1 exp=$2; shift 2
    local msg rc
    msg=$("$G" "$@" 2>&1 >/dev/null); rc=$?
    [ $rc = 2 ] && [[ "$msg" == *"$exp"* ]] && pass "usage: $name" || fail "usage: $name" "rc=$rc: $msg"
}
bad "no window" "rolling needs --window" rolling -t f64 "$T/one.f64"
bad "unknown aggregate" "unknown aggregate 'median'" rolling -w 3 --agg mean,median -t f64 "$T/one.f64"
bad "min-periods over W" "--min-periods 4 is more than" rolling -w 3 --min-periods 4 -t f64 "$T/one.f64"
bad "bad ddof" "invalid --ddof" rolling -w 3 --ddof -1 -t f64 "$T/one.f64"
bad "two columns into a stage" "give one --agg" rolling -w 3 --agg mean,std then scan -t f64 "$T/one.f64"
bad "minmax takes no --agg" "agg" minmax -w 3 --agg mean -t f64 "$T/one.f64"

# ---- MPI ranks: the bytes one process writes -----------------------------------------------------
MPIRUN=$(command -v mpirun)
if [ -z "$MPIRUN" ] || "$G" info | grep -q '^mpi  *not built'; then
    skip "rolling over MPI ranks" "no mpirun or gpustream built without MPI"
else
    "$G" gen -q -n 20011 -t f64 --dist walk --seed 9 "$T/r.f64"
    "$G" gen -q -n 20011 -t i32 --dist uniform:-1000:1000 --seed 9 "$T/r.i32"
    for spec in "f64 1" "f64 777 --partial" "f64 7000" "i32 30" "i32 25000 --partial"; do
        set -- $spec
        t=$1 w=$2 p=${3:-}
        "$G" rolling -q -f -w "$w" $p --agg sum,mean,std,count,min,argmin,argmax -t "$t" "$T/r.$t" "$T/one.npy"
        ok=1
        for k in 2 3 4; do
            rm -f "$T/k.npy"
            "$MPIRUN" --oversubscribe --allow-run-as-root -n $k "$G" rolling -q -w "$w" $p --threads 1 \
                --agg sum,mean,std,count,min,argmin,argmax -t "$t" "$T/r.$t" "$T/k.npy" 2>/dev/null
            cmp -s "$T/one.npy" "$T/k.npy" || { ok=0; fail "mpi rolling $t W=$w $p" "$k ranks differ from one process"; break; }
        done
        [ $ok = 1 ] && pass "mpi: rolling $t W=$w $p, 2-4 ranks = one process, byte for byte"
    done
    "$G" rolling -q -w 50 --agg mean,count -t f64 "$T/r.f64" --to csv "$T/one.csv"
    "$MPIRUN" --oversubscribe --allow-run-as-root -n 3 "$G" rolling -q -w 50 --agg mean,count -t f64 "$T/r.f64" --to csv "$T/k.csv" 2>/dev/null
    cmp -s "$T/one.csv" "$T/k.csv" && pass "mpi: rolling csv with a header, 3 ranks" || fail "mpi rolling csv" "differs"
fi
