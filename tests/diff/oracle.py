"""tests/diff/oracle.py - what each verb must give, computed with numpy alone: cumsum and
minimum/maximum.accumulate for scan, flatnonzero for compact, sliding_window_view (a doubling
table for long windows) for minmax, and saturating casts for convert.

A value is a Val: the array, and for float sums whose order gpustream may change (docs/USAGE.md, Semantics), a
tolerance per element (None: exact). Min and max order -0.0 below +0.0 and give NaN wherever a NaN
is in reach, as gpustream documents."""
import math
from collections import namedtuple

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from formats import NP, FLOATS, type_range

Val = namedtuple('Val', 'x t tol')  # array, type name, per-element tolerance or None

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
