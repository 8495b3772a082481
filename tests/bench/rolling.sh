#!/usr/bin/env bash
# tests/bench/rolling.sh - rolling statistics. In device memory (a GPU): `bench --op rolling` of
# mean and of std over 2^28 f64 at W = 2, 100, 10^4 and 10^6 (its %ceil column: bytes read and
# written against the device copy rate measured in the same run), and, where CuPy imports, what a
# CuPy user writes for the mean (the cumsum difference) on the same data. End to end:
# `rolling -w 500 --agg mean,std` of an f64 .npy (default 8 GiB) in the page cache (/dev/shm) ->
# /dev/null per backend, beside Polars (the .npy read by numpy, a pl.Series, rolling_mean and
# rolling_std; the whole process and its compute alone) where `import polars` works in $PYTHON.
# The CPU backend per core: bench --backend cpu --threads 1 at W = 10, 20, 100 and 10^4 beside Polars with
# POLARS_MAX_THREADS=1 over 10^7 values.
#   bash tests/bench/rolling.sh                  (SIZE=8G, REPS=3)
#   SIZE=256M REPS=1 bash tests/bench/rolling.sh (a quick look)
REPS=${REPS:-3}
. "$(dirname "$0")/lib.sh"
SIZE=${SIZE:-8G}
PY=${PYTHON:-python3}
header "rolling: bench in device memory, -w 500 --agg mean,std of $SIZE f64 .npy -> /dev/null, per core"
if has_gpu; then
    for agg in mean std; do
        "$BIN" bench --op rolling --agg $agg --window 2,100,10000,1000000 -n 2^28 -t f64 --reps 10
    done
    "$PY" - <<'PY' 2>&1 || true
import time
try:
    import cupy as cp
except Exception as e:
    print("SKIP CuPy (cumsum difference):", type(e).__name__)
    raise SystemExit(0)
n = 1 << 28
x = cp.cumsum(cp.random.standard_normal(n, dtype=cp.float64)) + 1e9
for w in (2, 100, 10000, 1000000):
    for _ in range(2):
        s = cp.cumsum(x); m = (s[w - 1:] - cp.concatenate((cp.zeros(1), s[:-w]))) / w
    cp.cuda.Device().synchronize()
    t = time.perf_counter()
    for _ in range(5):
        s = cp.cumsum(x); m = (s[w - 1:] - cp.concatenate((cp.zeros(1), s[:-w]))) / w
    cp.cuda.Device().synchronize()
    dt = (time.perf_counter() - t) / 5
    print(f"CuPy cumsum-difference mean W={w}: {dt * 1e3:.2f} ms, {n / dt / 1e9:.2f} Gelem/s")
PY
fi
bytes=$(bytes_of "$SIZE")
"$BIN" gen -q -n $((bytes / 8)) -t f64 --dist walk -f "$D/x.npy" || exit 1
for b in $(has_gpu && echo "gpu cpu" || echo cpu); do
    in_turn "rolling -w 500 --agg mean,std --backend $b ($SIZE .npy -> /dev/null)" @BIN@ rolling -w 500 \
        --agg mean,std --backend $b -q "$D/x.npy" -f /dev/null
done
cat >"$D/pl_rolling.py" <<'PY'
import sys, time
import numpy as np
import polars as pl
t0 = time.perf_counter()
s = pl.Series("x", np.load(sys.argv[1], mmap_mode="r"))
t1 = time.perf_counter()
w = int(sys.argv[2])
m, v = s.rolling_mean(w), s.rolling_std(w)
t2 = time.perf_counter()
print(f"load {t1 - t0:.3f} s, rolling_mean + rolling_std {t2 - t1:.3f} s", file=sys.stderr)
PY
if "$PY" -c 'import polars' 2>/dev/null; then
    in_turn "Polars: np.load -> pl.Series, rolling_mean(500) + rolling_std(500)" "$PY" "$D/pl_rolling.py" "$D/x.npy" 500
    "$PY" "$D/pl_rolling.py" "$D/x.npy" 500
else
    echo "SKIP Polars ($PY cannot import polars)"
fi
echo "-- per core: 10^7 f64, one thread"
"$BIN" gen -q -n 10000000 -t f64 --dist walk -f "$D/y.npy" || exit 1
for agg in mean std; do
    "$BIN" bench --backend cpu --threads 1 --op rolling --algo cpu-vhgw --agg $agg --window 10,20,100,10000 -n 1e7 -t f64 --reps 5 |
        grep -E '^mode|^cpu'
done
if "$PY" -c 'import polars' 2>/dev/null; then
    POLARS_MAX_THREADS=1 "$PY" - "$D/y.npy" <<'PY'
import sys, time
import numpy as np
import polars as pl
s = pl.Series("x", np.load(sys.argv[1]))
for agg in ("mean", "std"):
    for w in (10, 20, 100, 10000):
        f = getattr(s, "rolling_" + agg)
        f(w)
        best = min((lambda t: (f(w), time.perf_counter() - t)[1])(time.perf_counter()) for _ in range(5))
        print(f"Polars rolling_{agg}({w}), POLARS_MAX_THREADS=1: {best * 1e3:.1f} ms, {len(s) / best / 1e9:.3f} Gelem/s")
PY
fi
