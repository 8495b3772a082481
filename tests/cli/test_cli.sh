#!/usr/bin/env bash
# tests/cli/test_cli.sh - the command line end to end: results against numpy/pandas (an
# independent implementation), chunk- and thread-independence, formats, exit codes, messages
# and refusals. Prints PASS/FAIL lines for tests/run.sh.
set -u
cd "$(dirname "$0")/../.."
G=${G:-./gpustream}
T=$(mktemp -d -p "$( [ -d /dev/shm ] && [ -w /dev/shm ] && echo /dev/shm || echo /tmp)")
trap 'rm -rf "$T"' EXIT
PY=""
for p in python3 /usr/bin/python3; do
    if command -v "$p" >/dev/null && "$p" -c 'import numpy, pandas' 2>/dev/null; then PY=$(command -v "$p"); break; fi
done
[ -n "$PY" ] || echo "SKIP oracle checks (numpy, pandas): python3 with numpy and pandas missing"
HAVE_ZSTD=$(command -v zstd >/dev/null && echo 1 || echo 0)

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }
check() { # name cond-command...
    local name=$1; shift
    if "$@"; then pass "$name"; else fail "$name" "command failed: $*"; fi
}
# expect NAME EXIT PATTERN -- command...: exit status and a stderr line matching PATTERN
expect() {
    local name=$1 want=$2 pat=$3; shift 4
    "$@" >"$T/out" 2>"$T/err"
    local rc=$?
    if [ "$rc" -ne "$want" ]; then fail "$name" "exit $rc, want $want; stderr: $(head -c 300 "$T/err")"; return; fi
    if [ -n "$pat" ] && ! grep -qE -- "$pat" "$T/err"; then fail "$name" "stderr lacks /$pat/: $(head -c 300 "$T/err")"; return; fi
    if [ "$want" -ne 0 ] && [ "$(wc -l <"$T/err")" -gt 3 ]; then fail "$name" "error is not short: $(head -c 300 "$T/err")"; return; fi
    pass "$name"
}

# ---- oracle comparisons ------------------------------------------------------------------
# Every case runs gpustream and records "name mode input type output arg" in a manifest; one
# python process then checks all of them against numpy (exact integer arithmetic; pandas-style
# partial windows built from numpy so 64-bit integers are not rounded through float64).
if [ -n "$PY" ]; then
    MAN="$T/manifest"
    : >"$MAN"
    make_input() { # path type n seed: random, never all zeros, mixed signs, large magnitudes
        $PY - "$@" <<'EOF2'
import sys, numpy as np
path, t, n, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
dt = np.dtype({'i32': '<i4', 'i64': '<i8', 'u32': '<u4', 'u64': '<u8', 'f32': '<f4', 'f64': '<f8'}[t])
rng = np.random.default_rng(seed)
if t[0] == 'f':
    x = rng.normal(0, 1000, n).astype(dt)
    if n > 10:
        x[rng.integers(0, n, 2)] = [0.0, -0.0]
        x[n // 2] = np.nan if seed % 2 else np.inf
else:
    info = np.iinfo(dt)
    x = rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)
    x[rng.random(n) < 0.3] = 0
    x[rng.random(n) < 0.3] %= 100
x.tofile(path)
EOF2
    }
    case_run() { # name mode type arg -- gpustream args (input and output appended)
        local name=$1 mode=$2 t=$3 arg=$4; shift 5
        if "$@" "$IN" -f "$T/o_$name" 2>"$T/err"; then echo "$name $mode $IN $t $T/o_$name $arg" >>"$MAN"
        else fail "$name" "exit $?: $(head -c 200 "$T/err")"; fi
    }
    for t in i32 i64 u32 u64 f32 f64; do
        for n in 0 1 1000 100003; do
            IN="$T/x_${t}_$n"
            make_input "$IN" $t $n $((n + ${#t} + 7))
            for op in sum min max; do case_run "scan_${op}_${t}_n$n" $op $t - -- $G scan --backend cpu -t $t --op $op --chunk 4000; done
            case_run "scan_excl_${t}_n$n" sumx $t - -- $G scan --backend cpu -t $t --exclusive --chunk 1004
            case_run "scan_exclmax_${t}_n$n" maxx $t - -- $G scan --backend cpu -t $t --op max --exclusive --chunk 1004
            for p in nonzero gt:5 le:-3 range:0:100 eq:0 ne:0 finite nan; do
                case "$t:$p" in u*:le:-3) continue ;; esac
                case_run "compact_${p}_${t}_n$n" compact $t "$p" -- $G compact --backend cpu -t $t --pred $p --chunk 1000
            done
            case_run "compact_invert_${t}_n$n" compactinv $t gt:5 -- $G compact --backend cpu -t $t --pred gt:5 --invert --chunk 996
            case_run "compact_indices_${t}_n$n" indices $t - -- $G compact --backend cpu -t $t --indices --chunk 999
            for w in 1 2 7 500 $n $((n + 1)); do
                [ "$w" -ge 1 ] || continue
                case_run "minmax_w${w}_${t}_n$n" minmax $t $w -- $G minmax -q --backend cpu -t $t -w $w --chunk 1204
                case_run "partial_w${w}_${t}_n$n" partial $t $w -- $G minmax --backend cpu -t $t -w $w --partial --chunk 1204
            done
        done
    done
    case_run "scan_widen_i32_i64" sum64 i32 - -- $G scan --backend cpu -t i32 --out-type i64 --chunk 4000
    $PY - "$MAN" <<'EOF2'
import sys, numpy as np, pandas as pd
DT = {'i32': '<i4', 'i64': '<i8', 'u32': '<u4', 'u64': '<u8', 'f32': '<f4', 'f64': '<f8'}
def same(a, b):
    return a.shape == b.shape and np.array_equal(a, b, equal_nan=(a.dtype.kind == 'f'))
def sliding(x, w, partial, f):
    if partial and w >= len(x):  # every window is a prefix: a running min/max (NaN propagates)
        return (np.minimum if f is np.min else np.maximum).accumulate(x) if len(x) else x
    if partial:  # pad the front with the op's identity: windows clipped at the start
        ident = (np.inf if f is np.min else -np.inf) if x.dtype.kind == 'f' else (np.iinfo(x.dtype).max if f is np.min else np.iinfo(x.dtype).min)
        x = np.concatenate([np.full(w - 1, ident, x.dtype), x])
        if len(x) == w - 1: return np.zeros(0, x.dtype)
    if len(x) < w: return np.zeros(0, x.dtype)
    v = np.lib.stride_tricks.sliding_window_view(x, w)
    if x.dtype.kind == 'f':  # a window holding NaN gives NaN
        r = f(v, axis=1); r[np.isnan(v).any(axis=1)] = np.nan; return r
    return f(v, axis=1)
for line in open(sys.argv[1]):
    name, mode, inp, t, outp, arg = line.split()
    x = np.fromfile(inp, DT[t])
    with np.errstate(all='ignore'):
        if mode == 'indices':
            got, ref = np.fromfile(outp, '<u8'), np.flatnonzero(x != 0).astype(np.uint64)
        elif mode == 'sum64':
            got, ref = np.fromfile(outp, '<i8'), np.cumsum(x.astype(np.int64))
        else:
            got = np.fromfile(outp, DT[t])
            if mode in ('sum', 'sumx'):
                ref = np.cumsum(x, dtype=x.dtype)
            elif mode in ('min', 'max', 'maxx'):
                f = np.fmin if False else (np.minimum if mode == 'min' else np.maximum)
                ref = f.accumulate(x) if len(x) else x
            if mode in ('sumx', 'maxx') and len(x):
                ident = 0 if mode == 'sumx' else (-np.inf if t[0] == 'f' else np.iinfo(x.dtype).min)
                ref = np.concatenate([np.full(1, ident, x.dtype), ref[:-1]])
            if mode in ('compact', 'compactinv'):
                p, _, v = arg.partition(':')
                c = lambda s: np.array(float(s) if t[0] == 'f' else int(s)).astype(x.dtype)
                m = {'nonzero': lambda: x != 0, 'gt': lambda: x > c(v), 'le': lambda: x <= c(v),
                     'eq': lambda: x == c(v), 'ne': lambda: x != c(v),
                     'range': lambda: (x >= c(v.split(':')[0])) & (x <= c(v.split(':')[1])),
                     'finite': lambda: np.isfinite(x) if t[0] == 'f' else np.ones(len(x), bool),
                     'nan': lambda: np.isnan(x) if t[0] == 'f' else np.zeros(len(x), bool)}[p]()
                ref = x[~m] if mode == 'compactinv' else x[m]
            if mode in ('minmax', 'partial'):
                w = int(arg)
                got = got.reshape(-1, 2)
                ref = np.stack([sliding(x, w, mode == 'partial', np.min), sliding(x, w, mode == 'partial', np.max)], axis=1)
                if mode == 'partial' and t in ('i32', 'f64') and len(x):  # the pandas convention itself, where exact
                    # pandas' rolling skips +-inf and NaN, so compare only windows of finite values
                    s = pd.Series(x.astype(np.float64))
                    pr = np.stack([s.rolling(w, min_periods=1).min(), s.rolling(w, min_periods=1).max()], axis=1)
                    nonfin = (~np.isfinite(x.astype(np.float64))).astype(np.int8)
                    okw = sliding(nonfin, w, True, np.max) == 0
                    if not np.array_equal(pr[okw], ref[okw].astype(np.float64)):
                        print('FAIL %s: differs from pandas rolling(min_periods=1)' % name); continue
    if mode in ('sum', 'sumx') and t[0] == 'f':
        scale = np.cumsum(np.abs(np.nan_to_num(x.astype(np.float64), nan=0, posinf=0, neginf=0)))
        fin = np.isfinite(ref)
        ok = got.shape == ref.shape and np.all(np.abs(got[fin].astype(np.float64) - ref[fin]) <= 1e-4 * scale[fin] + 1e-30) and same(got[~fin], ref[~fin])
    else:
        ok = same(got, ref)
    print(('PASS %s' % name) if ok else ('FAIL %s: got %s ref %s' % (name, got[:6], ref[:6])))
EOF2
fi

# ---- results do not depend on chunk size, thread count or algorithm -------------------------
$G gen -n 300001 -t i64 --dist walk --seed 3 -f "$T/w" || fail gen_walk "gen failed"
for op in "scan" "scan --op max" "compact --pred gt:0" "compact --pred gt:0 --indices" "minmax -w 777" "minmax -w 777 --partial"; do
    tag=$(echo "$op" | tr ' :' '__')
    $G $op --backend cpu -t i64 --threads 1 --chunk 64M "$T/w" -f "$T/a"
    ok=1
    for ch in 64 1000 4096 123456; do
        for th in 1 2 4; do
            $G $op --backend cpu -t i64 --threads $th --chunk $ch "$T/w" -f "$T/b" && cmp -s "$T/a" "$T/b" || { ok=0; fail "chunk_independent_$tag" "chunk $ch threads $th differs"; break 2; }
        done
    done
    [ $ok = 1 ] && pass "chunk_independent_$tag"
done
for algo in cpu-naive cpu-lemire cpu-vhgw; do
    $G minmax -w 333 --algo $algo --backend cpu -t i64 "$T/w" -f "$T/b" && $G minmax -w 333 --algo cpu-naive --backend cpu -t i64 "$T/w" -f "$T/a" && check "minmax_algo_$algo" cmp -s "$T/a" "$T/b"
done
$G scan --algo cpu --backend cpu -t i64 "$T/w" -f "$T/a"; $G scan --algo cpu-par --backend cpu -t i64 "$T/w" -f "$T/b"; check scan_algo_par cmp -s "$T/a" "$T/b"
$G compact --algo cpu --backend cpu -t i64 --pred lt:0 "$T/w" -f "$T/a"; $G compact --algo cpu-par --backend cpu -t i64 --pred lt:0 "$T/w" -f "$T/b"; check compact_algo_par cmp -s "$T/a" "$T/b"

# ---- gen: deterministic, chunk-independent, every distribution and type ------------------------
$G gen -n 100000 -t f64 --dist normal:5:2 --seed 9 -f "$T/a"; $G gen -n 100000 -t f64 --dist normal:5:2 --seed 9 --chunk 1000 --threads 1 -f "$T/b"
check gen_deterministic cmp -s "$T/a" "$T/b"
$G gen -n 100000 -t f64 --dist normal:5:2 --seed 10 -f "$T/b"; check gen_seed_matters bash -c "! cmp -s $T/a $T/b"
for d in uniform:-5:5 normal:0:1 walk sparse:0.1 sine:100; do
    for t in i32 i64 u32 u64 f32 f64; do
        $G gen -n 5000 -t $t --dist $d -f "$T/g" 2>"$T/err" && [ "$(stat -c %s "$T/g")" -eq $((5000 * ${t:1:2} / 8)) ] || { fail "gen_${d}_$t" "$(cat "$T/err")"; continue; }
    done
    pass "gen_$d"
done
if [ -n "$PY" ]; then
    $G gen -n 200000 -t f64 --dist normal:3:2 -f "$T/g"
    r=$($PY -c "import numpy as np; x=np.fromfile('$T/g'); print('ok' if abs(x.mean()-3)<0.05 and abs(x.std()-2)<0.05 else (x.mean(), x.std()))")
    [ "$r" = ok ] && pass gen_normal_moments || fail gen_normal_moments "$r"
    $G gen -n 200000 -t i32 --dist sparse:0.25 -f "$T/g"
    r=$($PY -c "import numpy as np; x=np.fromfile('$T/g','<i4'); print('ok' if abs((x!=0).mean()-0.25)<0.01 and x.min()>=0 and x.max()<=100 else ((x!=0).mean(), x.min(), x.max()))")
    [ "$r" = ok ] && pass gen_sparse_density || fail gen_sparse_density "$r"
fi

# ---- formats through the CLI -----------------------------------------------------------------
$G gen -n 10000 -t f32 --dist walk -f "$T/f.raw"
$G convert -t f32 "$T/f.raw" "$T/f.npy" && $G convert "$T/f.npy" "$T/back.raw" && check npy_roundtrip cmp -s "$T/f.raw" "$T/back.raw"
if [ -n "$PY" ]; then
    $G minmax -w 10 "$T/f.npy" "$T/mm.npy" &&
        r=$($PY -c "import numpy as np; a=np.load('$T/mm.npy'); x=np.load('$T/f.npy'); v=np.lib.stride_tricks.sliding_window_view(x,10); print('ok' if a.shape==(len(x)-9,2) and (a[:,0]==v.min(1)).all() and (a[:,1]==v.max(1)).all() else a.shape)") &&
        { [ "$r" = ok ] && pass npy_minmax_numpy_loads || fail npy_minmax_numpy_loads "$r"; }
    $G compact --pred gt:0 "$T/f.npy" "$T/c.npy" &&
        r=$($PY -c "import numpy as np; a=np.load('$T/c.npy'); x=np.load('$T/f.npy'); print('ok' if np.array_equal(a, x[x>0]) else 'bad')") &&
        { [ "$r" = ok ] && pass npy_compact_unknown_length || fail npy_compact_unknown_length "$r"; }
fi
if [ "$HAVE_ZSTD" = 1 ]; then
    $G scan -t i32 -z data/sensor.i32.zst "$T/s.zst" 2>"$T/err" && zstd -tq "$T/s.zst" && pass zstd_out_readable_by_zstd || fail zstd_out_readable_by_zstd "$(cat "$T/err")"
else echo "note: no zstd CLI: interop check skipped"; fi
$G scan --op max data/prices.csv --col price --to csv >"$T/p.csv" 2>"$T/err" && [ "$(head -1 "$T/p.csv")" = price ] && [ "$(wc -l <"$T/p.csv")" -eq 5001 ] && pass csv_scan_header || fail csv_scan_header "$(head -3 "$T/p.csv") $(cat "$T/err")"
$G minmax -w 3 data/prices.csv --col price --to csv >"$T/m.csv" && [ "$(head -1 "$T/m.csv")" = "price_min,price_max" ] && pass csv_minmax_header || fail csv_minmax_header "$(head -2 "$T/m.csv")"
cat "$T/f.raw" | $G scan -t f32 | cmp -s - <($G scan -t f32 "$T/f.raw") && pass stdin_stdout || fail stdin_stdout "pipe result differs from file result"

# ---- bench: a smoke test on the CPU variants (tiny sizes; every row must pass) -------------------
$G bench --backend cpu -n 2^12,5000 -t i32,f64 --window 2,33 --reps 1 --csv "$T/b.csv" >"$T/b.txt" 2>&1 && grep -q "0 FAILED" "$T/b.txt" &&
    [ "$(grep -c passed "$T/b.txt")" -ge 20 ] && grep -q "^mode,op,variant" "$T/b.csv" && pass bench_cpu_smoke || fail bench_cpu_smoke "$(tail -3 "$T/b.txt")"
# --block: a default build has the tuned launches only and says how to get the others (one line);
# a make TUNING=1 build runs the CPU variants as usual, with one note, and the CSV has the block
# column (0 on CPU rows). Sizes other than powers of two from 32 to 1024 are usage errors either way.
if $G info | grep -q "^tuning .*built"; then
    $G bench --backend cpu --block 64,128 --op scan -n 1000 --reps 1 --csv "$T/bb.csv" >"$T/bb.txt" 2>"$T/bb.err" &&
        grep -q "0 FAILED" "$T/bb.txt" && [ "$(grep -c passed "$T/bb.txt")" -eq 2 ] &&
        [ "$(grep -c "note: --block applies to GPU variants" "$T/bb.err")" -eq 1 ] &&
        grep -q "^mode,op,variant,type,n,param,block,ms," "$T/bb.csv" && grep -q "^cpu,scan,cpu-par,i32,1000,sum,0," "$T/bb.csv" &&
        pass bench_block_cpu_note || fail bench_block_cpu_note "$(cat "$T/bb.err") $(tail -2 "$T/bb.txt")"
else
    expect bench_block_cpu_note 2 "^gpustream: error: --block needs the block sizes this build leaves out: rebuild with make TUNING=1$" -- \
        $G bench --backend cpu --block 64,128 --op scan -n 1000 --reps 1
fi
# bench --zstd: libzstd's rows on the CPU (nvCOMP's need a GPU: tests/gpu/run.sh zbench), each
# checked by decoding; the ratio is that of the frames written; a frame size that is not a whole
# number of elements and odd sizes still round-trip
$G bench --zstd --backend cpu -n 5000,2^16 -t i32,f64 --frame-size 1K,3000,64K --reps 1 --csv "$T/bz.csv" >"$T/bz.txt" 2>&1 &&
    grep -q "# 24 rows, 0 FAILED" "$T/bz.txt" && [ "$(grep -c '^zstd   encode  libzstd .* frame=[0-9KM]* ratio=[0-9.]* .* passed$' "$T/bz.txt")" = 12 ] &&
    [ "$(grep -c '^zstd   decode  libzstd .* of libzstd .* passed$' "$T/bz.txt")" = 12 ] && [ "$(grep -c '^zstd,' "$T/bz.csv")" = 24 ] &&
    grep -q "^# zstd: no nvCOMP rows: --backend cpu" "$T/bz.txt" && pass bench_zstd_cpu || fail bench_zstd_cpu "$(tail -3 "$T/bz.txt")"
$G bench --zstd --backend cpu -n 2^16 --frame-size 64K --dist uniform:0:1 --reps 1 --json >"$T/bzj.txt" 2>&1 &&
    ratio=$(sed -n 's/.*"op":"encode".*"param":"frame=64K ratio=\([0-9.]*\)".*/\1/p' "$T/bzj.txt") &&
    awk -v r="$ratio" 'BEGIN { exit !(r > 8) }' && pass bench_zstd_ratio_follows_data || fail bench_zstd_ratio_follows_data "$(head -2 "$T/bzj.txt")"
expect bench_zstd_no_stream 2 "--zstd times the codecs: it takes no --stream" -- $G bench --zstd --stream
expect bench_zstd_frame_alone 2 "--frame-size, --level and --dist apply to bench --zstd" -- $G bench --frame-size 64K
expect bench_zstd_frame_small 2 "--frame-size must be from 1K to 1G" -- $G bench --zstd --frame-size 512
expect bench_block_not_pow2 2 "invalid --block '100' \(threads per block: 32, 64, 128, 256, 512 or 1024\)" -- $G bench --block 100
expect bench_block_zero 2 "invalid --block '0'" -- $G bench --block 0
expect bench_block_too_big 2 "invalid --block '2048'" -- $G bench --block 64,2048
$G bench --backend cpu --op scan -n 1000 --reps 1 --json >"$T/bj.txt" 2>&1 && grep -q '"param":"sum","block":0,' "$T/bj.txt" &&
    pass bench_json_block || fail bench_json_block "$(head -2 "$T/bj.txt")"
# info names each GPU variant's block sizes (GPU rows exist only in a CUDA build)
if $G info | grep -q "CUDA compiled in"; then
    if $G info | grep -q "^tuning .*built"; then lb="threads per block: 128; bench --block takes 64, 128, 256, 512" vh="bench --block takes 64, 128, 256$"
    else lb="threads per block: 128 \(other sizes: make TUNING=1\)" vh="threads per block: 128 \(other sizes: make TUNING=1\)"; fi
    $G info >"$T/info.txt" && grep -A1 -E "^  scan +lookback" "$T/info.txt" | grep -qE "$lb" &&
        grep -A1 -E "^  minmax +vhgw " "$T/info.txt" | grep -qE "$vh" &&
        grep -A1 -E "^  scan +cub " "$T/info.txt" | grep -q "does not apply" && pass info_block_sizes ||
        fail info_block_sizes "$(grep -A1 -E "lookback|cub" "$T/info.txt" | head -4)"
else
    ! $G info | grep -q "threads per block" && pass info_no_gpu_rows || fail info_no_gpu_rows "block sizes without GPU variants"
fi
if [ -n "$PY" ]; then
    $G minmax -w 5 data/prices.csv --col price "$T/env.csv" -q &&
        r=$($PY -c "import pandas as pd, numpy as np; d=pd.read_csv('$T/env.csv'); p=pd.read_csv('data/prices.csv')['price'].to_numpy(); v=np.lib.stride_tricks.sliding_window_view(p,5); print('ok' if list(d.columns)==['price_min','price_max'] and np.array_equal(d['price_min'].to_numpy(), v.min(1)) and np.array_equal(d['price_max'].to_numpy(), v.max(1)) else d.head())") &&
        { [ "$r" = ok ] && pass pandas_reads_csv_output || fail pandas_reads_csv_output "$r"; }
fi

# ---- exit codes, messages, refusals --------------------------------------------------------
expect unknown_verb 2 "unknown verb" -- $G frobnicate
expect no_args 2 "" -- $G
expect unknown_option 2 "unknown option '--bogus'" -- $G scan --bogus x
expect bad_type 2 "invalid type 'i7'" -- $G scan -t i7 x
expect bad_size 2 "invalid --chunk" -- $G scan --chunk 12Q x
expect window_zero 2 "at least 1" -- $G minmax -w 0 "$T/f.raw"
expect window_missing 2 "needs --window" -- $G minmax "$T/f.raw"
expect bad_pred 2 "unknown predicate 'bigger:3'" -- $G compact --pred bigger:3 "$T/f.raw"
expect pred_needs_value 2 "needs a value" -- $G compact --pred gt "$T/f.raw"
expect pred_int_fraction 2 "integers only" -- $G compact -t i32 --pred gt:2.5 "$T/f.raw"
expect bad_op 2 "unknown --op" -- $G scan --op avg "$T/f.raw"
expect bad_backend 2 "unknown backend" -- $G scan --backend tpu "$T/f.raw"
expect bad_algo 2 "unknown --algo 'nope'" -- $G scan --algo nope "$T/f.raw"
expect bad_widen 2 "" -- $G scan -t i64 --out-type i32 --backend cpu "$T/f.raw" -f "$T/o"
expect too_many_args 2 "unexpected argument" -- $G scan a b c
expect help_ok 0 "" -- $G scan --help
grep -q "examples:" "$T/out" && pass help_has_examples || fail help_has_examples "no examples in scan --help"
for v in scan compact minmax convert gen info; do $G $v --help >/dev/null 2>&1 && pass "help_$v" || fail "help_$v" "exit $?"; done
expect version 0 "" -- $G --version
grep -q "^gpustream [0-9]" "$T/out" && pass version_text || fail version_text "$(cat "$T/out")"
expect missing_input 1 "nonexistent.raw: No such file or directory" -- $G scan "$T/nonexistent.raw"
printf 'abcdefg' >"$T/odd.raw"
expect raw_not_multiple 1 "odd.raw.*not a multiple" -- $G scan -t i32 "$T/odd.raw" "$T/odd_out.raw"
check raw_not_multiple_no_output test ! -e "$T/odd_out.raw"
touch "$T/exists.raw"
expect refuse_overwrite 1 "exists" -- $G scan -t f32 "$T/f.raw" "$T/exists.raw"
check refuse_overwrite_kept test ! -s "$T/exists.raw"
expect force_overwrite 0 "" -- $G scan -t f32 -f "$T/f.raw" "$T/exists.raw"
expect dev_full 1 "No space left on device" -- $G scan -t f32 "$T/f.raw" -f /dev/full
expect unwritable_dir 1 "" -- $G scan -t f32 "$T/f.raw" /nonexistent-dir/out.raw
printf '1,2\n3,x\n' >"$T/bad.csv"
expect csv_bad_field 1 "bad.csv: line 2 field 2: invalid number 'x'" -- $G scan --col 2 "$T/bad.csv" "$T/bad_out.csv"
check csv_bad_no_output test ! -e "$T/bad_out.csv"
expect csv_missing_column 1 "no column named 'nope'" -- $G scan --col nope data/prices.csv "$T/o2.csv"
expect count_stdout 0 "" -- $G compact --pred nonzero --count data/sensor.i32.zst
[ "$(cat "$T/out")" -gt 1000 ] && pass count_prints_number || fail count_prints_number "$(cat "$T/out")"
expect window_longer_warns 0 "longer than the input" -- $G minmax -w 100000 -t f32 "$T/f.raw" -f "$T/o3"
check window_longer_empty test ! -s "$T/o3"
# A closed pipe ends the run quickly and quietly (exit 0 from gpustream, no message).
start=$(date +%s%N)
$G gen -n 1e10 -t i64 2>"$T/err" | head -c 1000 >/dev/null
rc=${PIPESTATUS[0]}
ms=$((($(date +%s%N) - start) / 1000000))
[ "$rc" = 0 ] && [ ! -s "$T/err" ] && [ "$ms" -lt 5000 ] && pass epipe_quiet || fail epipe_quiet "rc $rc, ${ms} ms, stderr: $(head -c 200 "$T/err")"

# ---- memory is bounded by configuration, not input size ------------------------------------------
if [ -x /usr/bin/time ]; then
    rss() { $G gen -n "$1" -t i64 | /usr/bin/time -o "$T/rss" -f %M $G scan -t i64 --chunk 16M >/dev/null; tail -1 "$T/rss"; }
    small=$(rss 25e6); big=$(rss 250e6)
    # 200 MB vs 2 GB through a pipe: the peak RSS must stay within 10%.
    if [ "$big" -le $((small * 11 / 10 + 2048)) ]; then pass "rss_flat_${small}k_${big}k"; else fail rss_flat "200 MB run ${small} kB, 2 GB run ${big} kB"; fi
fi
# ---- GS_TRACE=1: the run's timeline on stderr, in time order; nothing without it ------------------
"$G" gen -n 300000 -t i32 --dist sparse:0.5 --seed 5 -f "$T/tr.raw" 2>/dev/null
GS_TRACE=1 "$G" compact --pred nonzero -t i32 --chunk 64K --backend cpu "$T/tr.raw" -f "$T/tr.out" 2>"$T/tr.err"
"$G" compact --pred nonzero -t i32 --chunk 64K --backend cpu "$T/tr.raw" -f "$T/tr.want" 2>/dev/null
nsub=$(grep -c '^trace .* chunk [0-9]* submitted' "$T/tr.err"); nret=$(grep -c '^trace .* chunk [0-9]* retired' "$T/tr.err")
if cmp -s "$T/tr.out" "$T/tr.want" && grep -q '^trace  *0\.0000  process: main$' "$T/tr.err" && grep -q 'engine: start$' "$T/tr.err" &&
    grep -q 'writer: ended$' "$T/tr.err" && [ "$nsub" = 19 ] && [ "$nret" = 19 ] &&
    awk '/^trace / { if ($2 + 0 < last) bad = 1; last = $2 + 0 } END { exit bad }' "$T/tr.err"; then
    pass trace_timeline
else fail trace_timeline "submitted $nsub retired $nret (want 19 each: 300000 x 4 B in 64 KiB chunks): $(head -c 400 "$T/tr.err")"; fi
"$G" compact --pred nonzero -t i32 --chunk 64K --backend cpu "$T/tr.raw" -f "$T/tr.out" 2>"$T/tr.err"
if ! grep -q '^trace' "$T/tr.err"; then pass trace_off_by_default; else fail trace_off_by_default "$(head -c 200 "$T/tr.err")"; fi
# more events than it keeps: the first 16384 in order, then how many were not kept
"$G" gen -n 2000000 -t i32 --seed 6 -f "$T/tr2.raw" 2>/dev/null
GS_TRACE=1 "$G" scan -t i32 --chunk 1K --backend cpu "$T/tr2.raw" -f /dev/null 2>"$T/tr.err"
kept=$(grep -c '^trace  *[0-9]' "$T/tr.err")
if [ "$kept" = 16384 ] && grep -qE '^trace: [0-9]+ later events not kept$' "$T/tr.err"; then pass trace_bounded
else fail trace_bounded "kept $kept, tail: $(tail -2 "$T/tr.err")"; fi
exit 0
