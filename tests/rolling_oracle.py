#!/usr/bin/env python3
"""tests/rolling_oracle.py - `gpustream rolling` against independent references.

    python3 tests/rolling_oracle.py GPUSTREAM SCRATCH_DIR [--quick]

Prints PASS/FAIL lines (tests/run.sh counts them). References:
  exact    Python fractions over each window (sliding sums of Fractions are exact: no drift), then
           rounded once: sum, mean, var, std of finite data
  pandas   Series.rolling(W, min_periods=...).sum/mean/var(ddof)/std(ddof)/count/min/max (--skip-nan)
  numpy    sliding_window_view: NaN-propagating sum/var/min/max/argmin/argmax (the default mode)
Tolerances (docs/USAGE.md states them; eps = 2^-52, f32 results one f32 rounding more): integer
sums, count, min, max, argmin, argmax exact; float sum within 2 eps |S| + W eps^2 sum|x|
(compensated summation); mean within 3 eps |mean| + eps^2 sum|x|; var within
(16 + 2W) eps var + 8 W eps^2 mean_abs^2, std half that relative error plus 2 eps.
"""
import math
import os
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pandas as pd
from numpy.lib.stride_tricks import sliding_window_view

from checks import check, summary

G, TMP = sys.argv[1], sys.argv[2]
QUICK = "--quick" in sys.argv
EPS = 2.0 ** -52
NPT = {"i32": np.int32, "i64": np.int64, "u32": np.uint32, "u64": np.uint64, "f32": np.float32, "f64": np.float64}
AGGS = ["sum", "mean", "var", "std", "count", "min", "max", "argmin", "argmax"]
WORST = [0.0]  # the largest var error seen, in eps of the exact variance


def report(ok, name, why=""):
    check(ok, name, why, limit=None)


def run(x, t, w, aggs, extra=(), out="o.npy"):
    src = os.path.join(TMP, "in.raw")
    dst = os.path.join(TMP, out)
    x.astype(NPT[t]).tofile(src)
    cmd = [G, "rolling", "-q", "-f", "-w", str(w), "--agg", ",".join(aggs), "-t", t, *extra, src, dst]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        return None, r.stderr.strip()
    return np.load(dst), None


# ---- references ----------------------------------------------------------------------------------
def windows(n, w, partial):
    """(start, end+1) of each output window."""
    if partial:
        return [(max(0, e - w + 1), e + 1) for e in range(n)]
    return [(e - w + 1, e + 1) for e in range(w - 1, n)]


def exact_stats(x, wins, ddof):
    """sum, mean, var, std of finite float data by sliding Fraction sums (exact), rounded once."""
    fx = [Fraction(float(v)) for v in x]
    out = []
    s1 = s2 = Fraction(0)
    lo = hi = 0
    for a, b in wins:
        while hi < b:
            s1 += fx[hi]
            s2 += fx[hi] * fx[hi]
            hi += 1
        while lo < a:
            s1 -= fx[lo]
            s2 -= fx[lo] * fx[lo]
            lo += 1
        n = b - a
        m2 = s2 - s1 * s1 / n
        var = m2 / (n - ddof) if n - ddof > 0 else None
        out.append((float(s1), float(s1 / n), float(var) if var is not None else math.nan,
                    math.sqrt(float(var)) if var is not None else math.nan, n))
    return out


def abs_sums(x, wins):
    c = np.concatenate([[0.0], np.cumsum(np.abs(x.astype(np.float64)))])
    return [c[b] - c[a] for a, b in wins]


def check_exact(name, x, t, w, ddof=1, partial=False, extra=()):
    """float sums/means/vars against the exact oracle, within the stated tolerances"""
    aggs = ["sum", "mean", "var", "std"]
    ex = list(extra) + (["--partial"] if partial else []) + ["--ddof", str(ddof)]
    got, err = run(x, t, w, aggs, ex)
    if got is None:
        return report(False, name, err)
    xv = x.astype(NPT[t]).astype(np.float64)
    wins = windows(len(x), w, partial)
    if got.shape != (len(wins), 4) and not (len(wins) == 0 and got.size == 0):
        return report(False, name, f"shape {got.shape}, expected {(len(wins), 4)}")
    ref = exact_stats(xv, wins, ddof)
    asum = abs_sums(xv, wins)
    worst = 0.0
    f32 = t == "f32"
    r32 = 2.0 ** -24 if f32 else 0.0  # one rounding to f32
    for i, ((s, m, v, sd, n), a) in enumerate(zip(ref, asum)):
        g = got[i].astype(np.float64)
        tol_s = 2 * EPS * abs(s) + n * EPS * EPS * a + r32 * abs(s)
        tol_m = 3 * EPS * abs(m) + EPS * EPS * a + r32 * abs(m)
        if math.isnan(v):
            ok_v = math.isnan(g[2]) and math.isnan(g[3])
            tol_v = 0
        else:
            mean_sq = (a / n) ** 2
            tol_v = (16 + 2 * n) * EPS * v + 8 * n * EPS * EPS * mean_sq + r32 * v
            ok_v = abs(g[2] - v) <= tol_v and abs(g[3] - sd) <= 0.5 * tol_v / max(sd, 1e-300) + 2 * EPS * sd + r32 * sd
            ok_v = ok_v and g[2] >= 0
        bad = abs(g[0] - s) > tol_s or abs(g[1] - m) > tol_m or not ok_v
        if bad:
            return report(False, name, f"row {i}: got {g.tolist()} exact {(s, m, v, sd)} tol {(tol_s, tol_m, tol_v)}")
        if not math.isnan(v) and v > 0:
            worst = max(worst, abs(g[2] - v) / v / EPS)
    if t == "f64":
        WORST[0] = max(WORST[0], worst)
    if os.environ.get("RO_DEBUG"): print(f"# {name}: worst var error {worst:.1f} eps")
    report(True, name)


def np_window_ref(x, w, aggs, partial, ddof, skip, mp):
    """numpy over each window: NaN propagates (default) or is skipped (pandas semantics)"""
    xv = x.astype(np.float64)
    rows = []
    for a, b in windows(len(x), w, partial):
        win = xv[a:b]
        valid = win[~np.isnan(win)]
        r = []
        nn = len(valid) if skip else len(win)
        miss = nn < mp
        for g in aggs:
            if g == "count":
                r.append(math.nan if len(win) < mp else len(valid))
                continue
            if miss or (skip and len(valid) == 0 and g not in ("sum",)):
                r.append(math.nan if not (g == "sum" and mp == 0) else 0.0)
                continue
            v = valid if skip else win
            with np.errstate(all="ignore"):
                if g == "sum": r.append(float(np.sum(v)))
                elif g == "mean": r.append(float(np.mean(v)))
                elif g == "var": r.append(float(np.var(v, ddof=ddof)) if len(v) - ddof > 0 else math.nan)
                elif g == "std": r.append(float(np.std(v, ddof=ddof)) if len(v) - ddof > 0 else math.nan)
                elif g == "min": r.append(float(np.min(v)))
                elif g == "max": r.append(float(np.max(v)))
                elif g == "argmin": r.append(float(a + (np.nanargmin(win) if skip else np.argmin(win))))
                elif g == "argmax": r.append(float(a + (np.nanargmax(win) if skip else np.argmax(win))))
        rows.append(r)
    return np.array(rows, dtype=np.float64).reshape(-1, len(aggs))


def same(got, ref, rtol):
    """equal where both NaN, same infinities, else within rtol (relative, with a floor of rtol)"""
    g = got.astype(np.float64)
    if g.shape != ref.shape:
        return False, f"shape {g.shape} vs {ref.shape}"
    nan_ok = np.isnan(g) == np.isnan(ref)
    fin = np.isfinite(ref) & np.isfinite(g)
    inf_ok = np.where(np.isinf(ref) | np.isinf(g), g == ref, True)
    with np.errstate(invalid="ignore"):
        close = np.where(fin, np.abs(g - ref) <= rtol * np.maximum(np.abs(ref), 1.0), True)
    ok = nan_ok & inf_ok & close
    if ok.all():
        return True, ""
    i = np.argwhere(~ok)[0]
    return False, f"at {tuple(i)}: got {g[tuple(i)]!r} expected {ref[tuple(i)]!r}"


def check_np(name, x, t, w, aggs=AGGS, partial=False, ddof=1, skip=False, mp=None, rtol=1e-9):
    ex = (["--partial"] if partial else []) + ["--ddof", str(ddof)] + (["--skip-nan"] if skip else [])
    if mp is not None:
        ex += ["--min-periods", str(mp)]
    got, err = run(x, t, w, aggs, ex)
    if got is None:
        return report(False, name, err)
    eff_mp = mp if mp is not None else 1
    if not partial and not (skip and t.startswith("f")):
        eff_mp = 1
    ref = np_window_ref(x.astype(NPT[t]), w, aggs, partial, ddof, skip, eff_mp)
    got2 = got.reshape(-1, len(aggs)) if got.size else np.zeros((0, len(aggs)))
    ok, why = same(got2, ref, rtol)
    report(ok, name, why)


def check_pandas(name, x, w, mp, ddof, partial):
    """--skip-nan against pandas' rolling on float data with NaN"""
    aggs = ["sum", "mean", "var", "std", "count", "min", "max"]
    ex = ["--skip-nan", "--min-periods", str(mp), "--ddof", str(ddof)] + (["--partial"] if partial else [])
    got, err = run(x, "f64", w, aggs, ex)
    if got is None:
        return report(False, name, err)
    r = pd.Series(x).rolling(w, min_periods=mp)
    ref = np.column_stack([r.sum(), r.mean(), r.var(ddof=ddof), r.std(ddof=ddof), r.count(), r.min(), r.max()])
    if not partial:
        ref = ref[w - 1:]
    ok, why = same(got.reshape(-1, len(aggs)), ref, 1e-9)
    report(ok, name, why)


def check_int(name, x, t, w, partial=False):
    """integer input: sums exact (wrapping in 64 bits), count/min/max/arg exact, mean/var close"""
    aggs = ["sum", "count", "min", "max", "argmin", "argmax"]
    got, err = run(x, t, w, aggs, ["--partial"] if partial else [], out="i.npy")
    if got is None:
        return report(False, name, err)
    xs = [int(v) for v in x.astype(NPT[t])]
    signed = t[0] == "i"
    rows = []
    for a, b in windows(len(x), w, partial):
        win = xs[a:b]
        s = sum(win) % 2 ** 64
        if signed and s >= 2 ** 63:
            s -= 2 ** 64
        mn, mx = min(win), max(win)
        rows.append([s, b - a, mn, mx, a + win.index(mn), a + win.index(mx)])
    exp_t = np.int64 if signed else np.uint64
    if got.dtype != exp_t:
        return report(False, name, f"dtype {got.dtype}, expected {np.dtype(exp_t)}")
    ref = np.array(rows, dtype=object).reshape(-1, len(aggs))
    ok = got.shape == ref.shape and all(int(g) == int(r) for g, r in zip(got.ravel(), ref.ravel()))
    report(ok, name, "" if ok else f"first rows got {got[:2].tolist()} expected {ref[:2].tolist()}")


def check_types():
    x = np.arange(20) % 7
    cases = [("f64", ["mean"], "float64", (17,)), ("f32", ["mean", "std"], "float32", (17, 2)),
             ("i32", ["sum"], "int64", (17,)), ("u32", ["sum"], "uint64", (17,)), ("i32", ["min", "max"], "int32", (17, 2)),
             ("f32", ["mean", "count"], "float64", (17, 2)), ("i32", ["count", "argmin"], "uint64", (17, 2)),
             ("i32", ["sum", "count"], "int64", (17, 2)), ("i64", ["mean"], "float64", (17,)),
             ("u64", ["max", "argmax"], "uint64", (17, 2))]
    for t, aggs, dt, shape in cases:
        got, err = run(x, t, 4, aggs)
        ok = got is not None and str(got.dtype) == dt and got.shape == shape
        report(ok, f"type {t} --agg {','.join(aggs)} -> {dt} {shape}",
               err or (f"got {got.dtype} {got.shape}" if got is not None else ""))


def main():
    rng = np.random.default_rng(7)
    n = 1500 if QUICK else 4000
    # hostile numerics against the exact oracle
    near = 1e9 + rng.standard_normal(n)
    spike = rng.standard_normal(n)
    spike[n // 3] = 1e15
    alt = np.where(np.arange(n) % 2, 1.0, -1.0) * (1e8 + rng.random(n))
    runs = np.repeat(rng.standard_normal(n // 200 + 1) * 1e6, 200)[:n]
    runs[::997] += 1e-3
    den = rng.standard_normal(n) * 5e-310
    mixed = rng.standard_normal(n) * 10.0 ** rng.integers(-8, 9, n)
    for label, x in [("near1e9", near), ("spike1e15", spike), ("alternating", alt), ("runs", runs),
                     ("denormal", den), ("mixed-scale", mixed)]:
        for w in (1, 2, 7, 100, 1000, n, n + 1):
            check_exact(f"exact {label} f64 W={w}", x, "f64", w)
        check_exact(f"exact {label} f64 W=100 --partial", x, "f64", 100, partial=True)
        check_exact(f"exact {label} f64 W=100 --ddof 0", x, "f64", 100, ddof=0)
    check_exact("exact near1e9 f32 W=50", (1000 + rng.standard_normal(n)).astype(np.float32), "f32", 50)
    check_exact("exact huge W=10^9 --partial", rng.standard_normal(300), "f64", 10 ** 9, partial=True)
    # equal values: variance exactly 0, never negative
    eq = np.full(3000, 0.1)
    got, err = run(eq, "f64", 64, ["var", "std"])
    report(got is not None and (got == 0).all(), "var exactly 0 on equal values", err or str(got[:3] if got is not None else ""))
    got, err = run(near, "f64", 50, ["var"])
    report(got is not None and (got >= 0).all(), "var never negative (near 1e9)", err or "")
    # numpy windows: NaN/inf propagation, arg positions, partial windows
    f = rng.standard_normal(700)
    f[[5, 6, 100, 333]] = np.nan
    f[[50, 400]] = np.inf
    f[[51, 600]] = -np.inf
    f[200:230] = 2.5  # ties for argmin/argmax
    for w in (1, 3, 16, 100, 699, 700):
        check_np(f"numpy nan/inf f64 W={w}", f, "f64", w)
        check_np(f"numpy nan/inf f64 W={w} --partial", f, "f64", w, partial=True)
        check_np(f"numpy --skip-nan f64 W={w} --partial --min-periods {min(w, 3)}", f, "f64", w, partial=True,
                 skip=True, mp=min(w, 3))
    check_np("numpy nan/inf f32 W=16", f, "f32", 16, rtol=1e-6)
    check_np("numpy W=n+1: no rows", f, "f64", 701)
    for t in ("i32", "u32", "i64", "u64", "f32"):
        xi = rng.integers(0, 1000, 600)
        rt = 1e-6 if t == "f32" else 1e-12  # f32 input: mean, var, std are f32
        check_np(f"numpy {t} W=25 every aggregate", xi, t, 25, rtol=rt)
        check_np(f"numpy {t} W=25 --partial --min-periods 10", xi, t, 25, partial=True, mp=10, rtol=rt)
    # pandas: --skip-nan and --min-periods
    p = rng.standard_normal(900)
    p[rng.random(900) < 0.2] = np.nan
    for w, mp, ddof in ((5, 1, 1), (5, 3, 1), (30, 10, 0), (30, 30, 1), (1, 1, 1), (200, 1, 2)):
        check_pandas(f"pandas --skip-nan W={w} min_periods={mp} ddof={ddof}", p, w, mp, ddof, False)
        check_pandas(f"pandas --skip-nan --partial W={w} min_periods={mp} ddof={ddof}", p, w, mp, ddof, True)
    # integers: exact sums (wrapping), counts, extremes and first positions
    check_int("int i32 W=9", rng.integers(-2 ** 31, 2 ** 31, 800), "i32", 9)
    check_int("int u32 W=33 --partial", rng.integers(0, 2 ** 32, 800), "u32", 33, partial=True)
    check_int("int i64 wraps W=5", rng.integers(-2 ** 63, 2 ** 63, 800, dtype=np.int64), "i64", 5)
    check_int("int u64 W=64", rng.integers(0, 2 ** 64, 800, dtype=np.uint64), "u64", 64)
    check_int("int ties W=20", rng.integers(0, 3, 800), "i32", 20)
    check_types()
    print(f"# worst var error {WORST[0]:.1f} eps of the exact variance")
    summary("rolling oracle: ")


main()
