"""tests/diff/oracle.py - what each verb must give, computed with numpy alone: cumsum and
minimum/maximum.accumulate for scan, flatnonzero for compact, sliding_window_view (a doubling
table for long windows) for minmax, saturating casts for convert, and for rolling exact window
sums (prefix sums of the values as Python integers, rounded once) and a doubling table of
(key, position) for the extremes and their first positions.

A value is a Val: the array, and for float sums whose order gpustream may change (docs/USAGE.md, Semantics), a
tolerance per element (None: exact). Min and max order -0.0 below +0.0 and give NaN wherever a NaN
is in reach, as gpustream documents."""
import math
from collections import namedtuple

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from formats import NP, FLOATS, type_range

Val = namedtuple('Val', 'x t tol cols own', defaults=(None, None))
# array, type name, per-element tolerance or None (an element's tolerance below 0: exact); for
# rolling each column's own type (CSV and text print it) and, for several, each column in it

WIDEN = {'i32': 'i64', 'u32': 'u64', 'f32': 'f64'}
HIGH = {'f32': np.float64, 'f64': np.longdouble}  # the exact-enough sum of each float type


# ---- ordering keys: -0.0 < +0.0, integers as they are --------------------------------------

def _keys(x, t):
    if t not in FLOATS:
        return x
    b = x.view('<i4' if t == 'f32' else '<i8').astype(np.int64)
    if t == 'f32':
        return np.where(b < 0, b ^ 0x7FFFFFFF, b)
    return np.where(b < 0, b ^ 0x7FFFFFFFFFFFFFFF, b)


def _unkeys(k, t):
    if t not in FLOATS:
        return k.astype(NP[t])
    if t == 'f32':
        b = np.where(k < 0, k ^ 0x7FFFFFFF, k).astype('<i4')
    else:
        b = np.where(k < 0, k ^ 0x7FFFFFFFFFFFFFFF, k).astype('<i8')
    return b.view(NP[t])


def _nan_reach(x, t, w=None):
    """Where a running (W None) or sliding window of W reaching back from i holds a NaN."""
    if t not in FLOATS:
        return np.zeros(len(x), bool)
    c = np.concatenate(([0], np.cumsum(np.isnan(x))))
    i = np.arange(len(x))
    lo = np.zeros(len(x), np.int64) if w is None else np.maximum(i - w + 1, 0)
    return c[i + 1] - c[lo] > 0


# ---- scan --------------------------------------------------------------------------------------

def _identity(op, t):
    if op == 'sum':
        return 0
    if t in FLOATS:
        return np.inf if op == 'min' else -np.inf
    lo, hi = type_range(t)
    return hi if op == 'min' else lo


def _float_sum(v, ot, exact):
    """Float prefix sums of V in type OT; EXACT: as numpy's sequential cumsum (the data make every
    order agree), else the high-precision sum with the bound that holds for any order of adding:
    |error of out[i]| <= i*u/(1-i*u) * (|x[0]| + ... + |x[i]|), u the unit roundoff."""
    x = v.x.astype(NP[ot])
    if exact and v.tol is None:
        return np.cumsum(x, dtype=NP[ot]), None
    hi = x.astype(HIGH[ot])
    y = np.cumsum(hi).astype(NP[ot])
    u = float(np.finfo(NP[ot]).eps) / 2
    iu = np.arange(1, len(x) + 1, dtype=np.float64) * u
    absx = np.where(np.isfinite(hi), np.abs(hi), 0).astype(np.float64)
    tol = iu / (1 - iu) * np.cumsum(absx) + float(np.finfo(NP[ot]).tiny)
    if v.tol is not None:
        tol = tol + np.cumsum(v.tol)
    return y, tol


def scan(v, op, exclusive, out_t, exact=True):
    """scan --op OP [--exclusive] [--out-type OUT_T] of V."""
    ot = out_t or v.t
    n = len(v.x)
    tol = None
    if op == 'sum':
        if ot in FLOATS:
            y, tol = _float_sum(v, ot, exact)
        else:
            y = np.cumsum(v.x.astype(NP[ot]), dtype=NP[ot])  # wraps
    else:
        k = _keys(v.x.astype(NP[ot]), ot)
        acc = np.minimum.accumulate if op == 'min' else np.maximum.accumulate
        y = _unkeys(acc(k), ot) if n else v.x.astype(NP[ot])
        if ot in FLOATS:
            y = np.where(_nan_reach(v.x, v.t), np.nan, y).astype(NP[ot])
        if v.tol is not None:
            tol = np.maximum.accumulate(v.tol) if n else v.tol
    if exclusive:
        if op == 'sum' and ot in FLOATS:
            # gpustream's exclusive sum starts from +0.0, so the leading run of -0.0 that numpy's
            # cumsum keeps sums to +0.0 there (a sum gives -0.0 only from two -0.0): + 0.0 maps
            # exactly those, and a later argmin or argmax sees the zeros gpustream gives
            y = (y + np.zeros(1, dtype=NP[ot])).astype(NP[ot])
        y = np.concatenate((np.array([_identity(op, ot)], dtype=NP[ot]), y[:-1]))[:n]
        if tol is not None:
            tol = np.concatenate(([0.0], tol[:-1]))[:n]
    return Val(y.astype(NP[ot]), ot, tol)


# ---- compact -----------------------------------------------------------------------------------

def pred_mask(x, t, pred):
    """Which elements of X the predicate PRED (kind, values) accepts, compared in type T."""
    kind, vals = pred
    c = [NP[t].type(float(s)) if t in FLOATS else NP[t].type(int(s)) for s in vals]
    with np.errstate(invalid='ignore'):
        if kind == 'nonzero':
            return x != 0
        if kind == 'finite':
            return np.isfinite(x) if t in FLOATS else np.ones(len(x), bool)
        if kind == 'nan':
            return np.isnan(x) if t in FLOATS else np.zeros(len(x), bool)
        if kind == 'range':
            return (x >= c[0]) & (x <= c[1])
        return {'eq': np.equal, 'ne': np.not_equal, 'gt': np.greater, 'ge': np.greater_equal,
                'lt': np.less, 'le': np.less_equal}[kind](x, c[0])


def compact(v, pred, invert, indices, count):
    """compact --pred PRED [--invert] [--indices] [--count] of V; --count gives an int."""
    if v.tol is not None:
        raise ValueError('compact after an inexact float sum')
    m = pred_mask(v.x, v.t, pred)
    if invert:
        m = ~m
    if count:
        return int(m.sum())
    if indices:
        return Val(np.flatnonzero(m).astype(NP['u64']), 'u64', None)
    return Val(v.x[m], v.t, None)


# ---- minmax ------------------------------------------------------------------------------------

def _sliding(k, w, fn):
    """fn (np.minimum or np.maximum) over each full window of W in K: len(K)-W+1 values."""
    m = len(k) - w + 1
    if m <= 0:
        return k[:0]
    if m * w <= 4_000_000:
        red = np.min if fn is np.minimum else np.max
        return red(sliding_window_view(k, w), axis=1)
    table, span = k, 1  # table[i] = fn over k[i .. i+span-1]
    while span * 2 <= w:
        table = fn(table[:-span], table[span:])
        span *= 2
    return fn(table[:m], table[w - span:w - span + m])


def _window(v, w, partial, fn):
    k = _keys(v.x, v.t)
    full = _sliding(k, w, fn)
    if partial:
        head = (np.minimum if fn is np.minimum else np.maximum).accumulate(k[:w - 1])
        full = np.concatenate((head, full))
    y = _unkeys(full, v.t) if len(full) else v.x[:0]
    if v.t in FLOATS and len(y):
        reach = _nan_reach(v.x, v.t, w)
        y = np.where(reach if partial else reach[w - 1:], np.nan, y).astype(NP[v.t])
    tol = None
    if v.tol is not None:
        tol = _sliding(v.tol, w, np.maximum)
        if partial:
            tol = np.concatenate((np.maximum.accumulate(v.tol[:w - 1]), tol))
    return y, tol


def minmax(v, w, partial, only):
    """minmax -w W [--partial] [--only min|max] of V: (m, 2) rows, or one column with ONLY."""
    w = min(w, len(v.x) + 1)  # a window longer than the input: no full window
    lo, tlo = _window(v, w, partial, np.minimum)
    hi, thi = _window(v, w, partial, np.maximum)
    if only == 'min':
        return Val(lo, v.t, tlo)
    if only == 'max':
        return Val(hi, v.t, thi)
    tol = None if tlo is None else np.stack((tlo, thi), axis=1)
    return Val(np.stack((lo, hi), axis=1).reshape(-1, 2), v.t, tol)


# ---- convert -----------------------------------------------------------------------------------

def _to_int(v, t, ot):
    lo, hi = type_range(ot)
    if t in FLOATS:
        out = []
        for f in v.tolist():
            if f != f:
                out.append(0)
            elif f == math.inf or f >= hi + 1:
                out.append(hi)
            elif f == -math.inf or f <= lo - 1:
                out.append(lo)
            else:
                out.append(min(max(math.trunc(f), lo), hi))
    else:
        out = [min(max(i, lo), hi) for i in v.tolist()]
    return np.array(out, dtype=object).astype(NP[ot]) if out else np.zeros(0, NP[ot])


def convert(v, out_t):
    """convert --out-type OUT_T of V: saturating, truncating toward zero, NaN to 0."""
    ot = out_t or v.t
    if ot in FLOATS:
        with np.errstate(over='ignore'):
            y = v.x.astype(NP[ot])
    else:
        y = _to_int(v.x, v.t, ot)
    return Val(y, ot, None)


# ---- rolling -----------------------------------------------------------------------------------

EPS = 2.0 ** -52
INT_AGGS = ('count', 'argmin', 'argmax')
FLOAT_AGGS = ('sum', 'mean', 'var', 'std')


def rolling_types(t, aggs, partial, mp, skip):
    """The column type of each aggregate of AGGS over input type T (docs/USAGE.md, Rolling
    statistics): an integer-valued column that may have to say "no value" is f64."""
    no_value = (partial and (mp or 1) > 1) or (skip and t in FLOATS)
    out = []
    for a in aggs:
        if a == 'sum':
            c = t if t in FLOATS else ('i64' if t[0] == 'i' else 'u64')
        elif a in ('mean', 'var', 'std'):
            c = 'f32' if t == 'f32' else 'f64'
        elif a in INT_AGGS:
            c = 'u64'
        else:
            c = t
        out.append('f64' if no_value and c not in FLOATS else c)
    return out


def shared_type(cols):
    """The one type of raw and npy output for columns of types COLS."""
    if len(set(cols)) == 1:
        return cols[0]
    if any(c in FLOATS for c in cols):
        return 'f64'
    return 'i64' if any(c[0] == 'i' for c in cols) else 'u64'


def _bounds(n, w, partial):
    """Start and end (exclusive) of each output window."""
    e = np.arange(0 if partial else w - 1, n, dtype=np.int64) + 1
    return np.maximum(e - w, 0), e


def _sliding_arg(k, w, partial, lower):
    """Position of the first least (LOWER) or greatest key of K in each window, by a doubling
    table on (key, position) where ties go to the earlier position."""
    n = len(k)
    sent = np.iinfo(k.dtype).max if lower else np.iinfo(k.dtype).min
    pad = w - 1 if partial else 0
    kk = np.concatenate((np.full(pad, sent, k.dtype), k))
    pp = np.concatenate((np.full(pad, 1 << 62, np.int64), np.arange(n, dtype=np.int64)))
    m = len(kk) - w + 1

    def pick(ka, pa, kb, pb):
        first = (ka < kb if lower else ka > kb) | ((ka == kb) & (pa <= pb))
        return np.where(first, ka, kb), np.where(first, pa, pb)
    tk, tp, span = kk, pp, 1
    while span * 2 <= w:
        tk, tp = pick(tk[:-span], tp[:-span], tk[span:], tp[span:])
        span *= 2
    return pick(tk[:m], tp[:m], tk[w - span:w - span + m], tp[w - span:w - span + m])[1]


def _exact_ints(x, t):
    """X as Python ints, exactly, and the power of two they are counted in."""
    if t not in FLOATS:
        return [int(v) for v in x.tolist()], 0
    fin = np.isfinite(x)
    f = np.where(fin, x, 0).astype(np.float64)
    m, e = np.frexp(f)
    mant = (m * 2.0 ** 53).astype(np.int64)
    e = e.astype(np.int64) - 53
    low = int(e[mant != 0].min()) if (mant != 0).any() else 0
    return [a << b for a, b in zip(mant.tolist(), (np.maximum(e - low, 0)).tolist())], low


def _ratio(num, den, scale):
    """num / den * 2^scale as the nearest f64 (Python's int division rounds correctly)."""
    if scale >= 0:
        return (num << scale) / den
    return num / (den << -scale)


def _float_stats(x, t, a, b, c, valid, ddof, squares):
    """Exact sum, mean, variance of the values of each window [a, b) (only VALID ones, C of
    them), rounded once to f64, and sum |x| over each: from prefix sums of exact integers."""
    xv = np.where(valid, x, 0)
    ints, low = _exact_ints(xv, t)
    # var and std take each value as an f64 (docs/USAGE.md): an integer beyond 2^53 rounded
    vints, vlow = ints, low
    if squares and t not in FLOATS and int(np.max(np.abs(xv.astype(np.float64)), initial=0)) > 2 ** 53:
        vints, vlow = _exact_ints(xv.astype(np.float64), 'f64')
    p1, q1, p2 = [0], [0], [0]
    for v, w in zip(ints, vints):
        p1.append(p1[-1] + v)
        if squares:
            q1.append(q1[-1] + w)
            p2.append(p2[-1] + w * w)
    s, mean, var = [], [], []
    for i, j, k in zip(a.tolist(), b.tolist(), c.tolist()):
        s1 = p1[j] - p1[i]
        s.append(_ratio(s1, 1, low))
        mean.append(_ratio(s1, k, low) if k else math.nan)
        if squares and k - ddof > 0:
            v1, v2 = q1[j] - q1[i], p2[j] - p2[i]
            var.append(_ratio(k * v2 - v1 * v1, k * (k - ddof), 2 * vlow))
        else:
            var.append(math.nan)
    absx = np.concatenate(([0.0], np.cumsum(np.where(valid & np.isfinite(x), np.abs(x.astype(np.float64)), 0))))
    return np.array(s), np.array(mean), np.array(var), absx[b] - absx[a]


def _float_tols(s, mean, var, std, absx, c, ct):
    """docs/USAGE.md's tolerances for sum, mean, var, std of C values (sum |x| = ABSX), plus the
    roundings of an f32 result (CT) and of these exact references to f64."""
    r = 2.0 ** -23 if ct == 'f32' else EPS / 2
    tiny = float(np.finfo(NP[ct]).smallest_subnormal)
    cw = np.maximum(c, 1).astype(np.float64)
    ts = 2 * EPS * np.abs(s) + cw * EPS * EPS * absx + r * np.abs(s) + tiny
    tm = 3 * EPS * np.abs(mean) + EPS * EPS * absx + r * np.abs(mean) + tiny
    tv = (16 + 2 * cw) * EPS * var + 8 * cw * EPS * EPS * (absx / cw) ** 2 + r * var + tiny
    with np.errstate(divide='ignore', invalid='ignore'):
        tsd = np.minimum(tv / std, np.sqrt(tv)) + 2 * EPS * std + r * std + tiny
    return ts, tm, tv, tsd


def _window_max(tol, w, partial):
    """The largest of TOL in each window."""
    full = _sliding(tol, w, np.maximum)
    return np.concatenate((np.maximum.accumulate(tol[:w - 1]), full)) if partial else full


def _win_counts(flag, a, b):
    """How many of FLAG are true in each window [a, b)."""
    c = np.concatenate(([0], np.cumsum(flag, dtype=np.int64)))
    return c[b] - c[a]


def _int_sums(x, t, a, b, wrap):
    """Window sums of integer X: wrapping in 64 bits (i64 for signed T, u64 for unsigned), or
    exact, rounded to f64, unless WRAP."""
    if not wrap:
        p = np.concatenate(([0], np.cumsum(np.array(x.tolist(), dtype=object))))
        return np.array([float(v) for v in (p[b] - p[a]).tolist()])
    p = np.concatenate((np.zeros(1, np.uint64), np.cumsum(x.astype(np.uint64), dtype=np.uint64)))
    s = p[b] - p[a]
    return s.view(np.int64) if t[0] == 'i' else s


def _stat_columns(x, t, a, b, c, valid, ddof, aggs, nan_in, wrap):
    """sum, mean, var, std columns (f64, NaN and inf as the window's values make them) and
    their tolerances, where AGGS asks for them."""
    s, mean, var, absx = _float_stats(x, t, a, b, c, valid, ddof,
                                      any(g in ('var', 'std') for g in aggs))
    std = np.sqrt(var)
    ct = 'f32' if t == 'f32' else 'f64'
    tols = dict(zip(FLOAT_AGGS, _float_tols(s, mean, var, std, absx, c, ct)))
    vals = {'sum': s, 'mean': mean, 'var': var, 'std': std}
    if t in FLOATS:
        pinf = _win_counts(valid & (x == np.inf), a, b) > 0
        ninf = _win_counts(valid & (x == -np.inf), a, b) > 0
        inf = np.where(pinf & ninf, np.nan, np.where(pinf, np.inf, -np.inf))
        for g in ('sum', 'mean'):
            vals[g] = np.where(pinf | ninf, inf, vals[g])
        for g in ('var', 'std'):
            vals[g] = np.where(pinf | ninf, np.nan, vals[g])
    for g in FLOAT_AGGS:
        vals[g] = np.where(nan_in, np.nan, vals[g])
        tols[g] = np.where(np.isfinite(tols[g]) & np.isfinite(vals[g]), tols[g], 0.0)
    if t not in FLOATS:
        vals['sum'] = _int_sums(x, t, a, b, wrap)
        tols['sum'] = None
    elif t == 'f32':
        vals['sum'] = vals['sum'].astype(np.float32)  # beyond f32's range: inf, as gpustream rounds
    return vals, tols


def _extremes(x, t, w, partial, a, b, skip, nan_pos, nan_in):
    """argmin, argmax, min, max columns: first position on ties, -0.0 below +0.0; a window
    with a NaN gives its first NaN's position and NaN unless SKIP."""
    k = _keys(x, t)
    out = {}
    for g, lower in (('min', True), ('max', False)):
        kk = k
        if skip and t in FLOATS:
            kk = np.where(np.isnan(x), np.iinfo(k.dtype).max if lower else np.iinfo(k.dtype).min, k)
        pos = _sliding_arg(kk, w, partial, lower) if len(a) else np.zeros(0, np.int64)
        if t in FLOATS and not skip:
            first = nan_pos[a] if len(a) else pos
            pos = np.where(nan_in, first, pos)
        val = x[pos].astype(np.float64) if t in FLOATS else x[pos]
        if t in FLOATS:
            val = np.where(nan_in, np.nan, val)
        out['arg' + g], out[g] = pos, val
    return out


def _converted(ys, ts, cols, out_t):
    """Columns YS (types COLS, tolerances TS) converted to OUT_T."""
    r = 2.0 ** -23 if out_t == 'f32' else 0.0
    ys2 = [convert(Val(y, ct, None), out_t).x for y, ct in zip(ys, cols)]
    ts2 = [np.where(tol < 0, tol, tol + r * np.abs(y.astype(np.float64)) + float(np.finfo(np.float32).smallest_subnormal))
           if out_t in FLOATS else tol for y, tol in zip(ys, ts)]
    return ys2, ts2, [out_t] * len(cols)


def rolling(v, w, aggs, partial, mp, ddof, skip, known=False, out_t=None):
    """rolling -w W --agg AGGS [--partial] [--min-periods MP] [--ddof DDOF] [--skip-nan] of V:
    one column per aggregate (1-D for one), in the shared type; Val.cols has each column's type,
    Val.own each column in it. OUT_T (--out-type): every column converted to it as convert does
    (a column with a tolerance only to a float type, one f32 rounding more).

    Known open behaviour, left out unless KNOWN: an integer sum written as f64 (the column that
    may say "no value") is the exact sum rounded, where an i64/u64 sum column wraps as
    docs/USAGE.md says; the exact one is expected then."""
    if v.tol is not None and not set(aggs) <= {'min', 'max', 'count'}:
        raise ValueError('rolling %s after an inexact float result' % ','.join(aggs))
    t, x, n = v.t, v.x, len(v.x)
    cols = rolling_types(t, aggs, partial, mp, skip)
    ww = min(w, n + 1)
    a, b = _bounds(n, ww, partial)
    nan = np.isnan(x) if t in FLOATS else np.zeros(n, bool)
    idx = np.where(nan, np.arange(n), n)
    nan_pos = np.minimum.accumulate(idx[::-1])[::-1] if n else idx
    nan_in = (nan_pos[a] < b) if (n and not skip) else np.zeros(len(a), bool)
    length = b - a
    cnt = length - _win_counts(nan, a, b)
    c = cnt if skip else length
    mp = 1 if mp is None else mp
    vals, tols = {}, {}
    if any(g in FLOAT_AGGS for g in aggs):
        wrap = known or cols[aggs.index('sum')] not in FLOATS if 'sum' in aggs else True
        vals, tols = _stat_columns(x, t, a, b, cnt, ~nan, ddof, aggs, nan_in, wrap)
    if any(g in ('min', 'max', 'argmin', 'argmax') for g in aggs):
        vals.update(_extremes(x, t, ww, partial, a, b, skip, nan_pos, nan_in))
    vals['count'] = cnt
    if v.tol is not None:  # min and max within the largest tolerance in reach
        tols['min'] = tols['max'] = _window_max(v.tol, ww, partial)
    ys, ts = [], []
    for g, ct in zip(aggs, cols):
        none = (length if g == 'count' else c) < mp
        y = vals[g]
        if ct in FLOATS:
            y = np.where(none, np.nan, y.astype(np.float64))
        ys.append(y.astype(NP[ct]))
        tol = tols.get(g)
        ts.append(np.full(len(a), -1.0) if tol is None else np.where(none, 0.0, tol))
    if out_t:
        ys, ts, cols = _converted(ys, ts, cols, out_t)
    st = shared_type(cols)
    if len(aggs) == 1:
        tol = None if tols.get(aggs[0]) is None else ts[0]
        return Val(ys[0].astype(NP[st]), st, tol, cols)
    y = np.stack([col.astype(NP[st]) for col in ys], axis=1) if len(a) else np.zeros((0, len(aggs)), NP[st])
    tol = np.stack(ts, axis=1) if any(tols.get(g) is not None for g in aggs) and len(a) else None
    return Val(y, st, tol, cols, ys)
