"""tests/diff/gen.py - random cases for the differential tester. A case is an input (type, length,
data) and a command: one verb (scan, compact, minmax, rolling, convert) or a chain of 2 to 4 stages
joined with `then` (docs/USAGE.md, Chains: types flow, compact --indices writes u64, a minmax that is
not last has --only, a rolling that is not last has one aggregate, --count ends a chain). Its
expected output comes from oracle.py, stage by stage, so that predicate values and windows are
picked from the data each stage really sees."""
import numpy as np

import oracle
from formats import NP, FLOATS, type_range
from oracle import Val

TYPES = ('i32', 'i64', 'u32', 'u64', 'f32', 'f64')
SIZES = ([0, 1, 2, 3] * 3 + [5, 7, 11, 13, 31, 61, 127, 257, 1021, 4093] * 2
         + [63, 64, 65, 1023, 1024, 1025, 4095, 4096, 4097, 16383, 16384, 16385,
            65535, 65536, 65537, 100000, 131071, 262147])
WINDOWS = [1, 1, 2, 2, 3, 4, 5, 7, 8, 16, 17, 64, 100, 255, 256, 257, 1000, 1023, 1024, 1025,
           4096, 4097, 65535, 65536, 65537]
PRED_KINDS = ['nonzero', 'eq', 'ne', 'gt', 'ge', 'lt', 'le', 'range', 'finite', 'nan']
DECIMALS = ['0.1', '-2.5', '1e10', '3.14159', '-1e-3', '0.3', '1e30']


def pick_n(rng):
    n = rng.choice(SIZES)
    return n if n < 100000 or rng.random() < 0.5 else rng.choice([0, 1, 7, 1025])


# ---- stages ----------------------------------------------------------------------------------

def _scan_stage(rng, t):
    st = {'verb': 'scan', 'op': rng.choice(['sum', 'sum', 'min', 'max']),
          'exclusive': rng.random() < 0.3, 'out_type': None, 'op_given': rng.random() < 0.5}
    r = rng.random()
    if r < 0.3 and st['op'] == 'sum' and t in oracle.WIDEN:
        st['out_type'] = oracle.WIDEN[t]
    elif r < 0.4:
        st['out_type'] = t  # the input's own type, said explicitly
    return st, st['out_type'] or t


def _compact_stage(rng, t, last):
    st = {'verb': 'compact', 'kind': rng.choice(PRED_KINDS), 'invert': rng.random() < 0.3,
          'indices': rng.random() < 0.25, 'count': last and rng.random() < 0.15}
    st['pred_given'] = st['kind'] != 'nonzero' or rng.random() < 0.5
    if st['count']:
        st['indices'] = False
    return st, 'u64' if st['indices'] else t


def _minmax_stage(rng, t, last):
    only = rng.choice(['min', 'max']) if not last or rng.random() < 0.3 else None
    return {'verb': 'minmax', 'partial': rng.random() < 0.4, 'only': only,
            'wflag': rng.choice(['-w', '--window'])}, t


AGGS = ['sum', 'mean', 'var', 'std', 'count', 'min', 'max', 'argmin', 'argmax']


def _rolling_stage(rng, t, last, inexact_before):
    """A rolling stage: one aggregate unless last (several end a chain); after an inexact float
    result, only aggregates that carry a tolerance through (min, max, count); now and then
    --out-type."""
    pool = ['min', 'max', 'count'] if inexact_before else AGGS
    k = rng.choice([1, 1, 2, 3, 4]) if last else 1
    st = {'verb': 'rolling', 'aggs': rng.sample(pool, min(k, len(pool))), 'partial': rng.random() < 0.4,
          'mp': rng.choice([None] * 6 + [1, 2, 3, 5, 10, 100]), 'skip': rng.random() < 0.3,
          'ddof': rng.choice([None, None, 0, 1, 2, 5]), 'wflag': rng.choice(['-w', '--window'])}
    st['out_type'] = None
    if rng.random() < 0.15:  # a bound on a float result cannot decide an integer's truncation
        st['out_type'] = rng.choice(FLOATS if inexact_before or _inexact(st, t) else TYPES)
    return st, _out_type(st, t)


def _inexact(st, t):
    """Whether stage ST (input type T) may give float results off by a tolerance: float sums,
    and rolling's sum, mean, var and std."""
    if st['verb'] == 'scan':
        return st['op'] == 'sum' and (st['out_type'] or t) in FLOATS
    if st['verb'] == 'rolling':
        return any(g in oracle.FLOAT_AGGS and not (g == 'sum' and t not in FLOATS) for g in st['aggs'])
    return False


def make_stages(rng, t):
    """The verbs and their options (predicate values and windows come later, from the data).
    After a rolling result with a tolerance no compact, argmin or argmax follows (a bound cannot
    decide a predicate or a position)."""
    r = rng.random()
    if r < 0.15:
        return [{'verb': 'convert', 'out_type': rng.choice(TYPES) if rng.random() < 0.8 else None}]
    length = 1 if r < 0.55 else rng.choice([2, 2, 3, 3, 4])
    stages, loose = [], False
    for k in range(length):
        last = k == length - 1
        verb = rng.choice(['scan', 'compact', 'minmax'])
        if verb == 'minmax' and rng.random() < 0.5:
            verb = 'rolling'
        if verb == 'compact' and loose:
            verb = 'scan'
        tin = t
        if verb == 'scan':
            st, t = _scan_stage(rng, t)
        elif verb == 'compact':
            st, t = _compact_stage(rng, t, last)
        elif verb == 'rolling':
            st, t = _rolling_stage(rng, t, last, loose)
        else:
            st, t = _minmax_stage(rng, t, last)
        loose = loose or (st['verb'] == 'rolling' and _inexact(st, tin))
        stages.append(st)
    return stages


def _out_type(st, t):
    """The type stage ST writes from input type T."""
    if st['verb'] in ('scan', 'convert'):
        return st['out_type'] or t
    if st['verb'] == 'compact' and st['indices']:
        return 'u64'
    if st['verb'] == 'rolling':
        return st['out_type'] or oracle.shared_type(oracle.rolling_types(t, st['aggs'], st['partial'],
                                                                          st['mp'], st['skip']))
    return t


def _float_sum_at(stages, t):
    """The positions of float sums among STAGES, input type T."""
    out = []
    for i, st in enumerate(stages):
        if st['verb'] == 'scan' and st['op'] == 'sum' and (st['out_type'] or t) in FLOATS:
            out.append(i)
        t = _out_type(st, t)
    return out


def _sums_data(stages, t):
    """Whether some stage sums floats (scan or rolling), so that data keep sums finite."""
    for st in stages:
        if _inexact(st, t) or (st['verb'] == 'rolling' and t in FLOATS and 'sum' in st['aggs']):
            return True
        t = _out_type(st, t)
    return False


# ---- data ------------------------------------------------------------------------------------

def _int_data(nrng, t, n, kind):
    lo, hi = type_range(t)
    if kind == 'full':
        return nrng.integers(lo, hi, size=n, dtype=NP[t], endpoint=True)
    if kind == 'extreme':
        pool = np.array(sorted({lo, lo + 1, max(lo, -1), 0, 1, hi - 1, hi}), dtype=object)
        return nrng.choice(pool, size=n).astype(NP[t])
    if kind == 'sparse':
        x = nrng.integers(0 if lo == 0 else -9, 10, size=n)
        return np.where(nrng.random(n) < 0.9, 0, x).astype(NP[t])
    if kind == 'runs':
        return _runs(nrng, n, 0 if lo == 0 else -1000, 1000).astype(NP[t])
    if kind == 'const':
        return np.full(n, nrng.integers(max(lo, -5), 6), dtype=NP[t])
    return nrng.integers(0 if lo == 0 else -9, 10, size=n).astype(NP[t])  # small


def _runs(nrng, n, lo, hi):
    """Monotone runs up and down (the hardest inputs for window wedges)."""
    x = np.empty(n, np.int64)
    i = 0
    while i < n:
        ln = int(nrng.integers(1, 300))
        step = int(nrng.choice([-1, 1])) * int(nrng.integers(0, 3))
        x[i:i + ln] = np.clip(int(nrng.integers(lo, hi + 1)) + step * np.arange(min(ln, n - i)), lo, hi)
        i += ln
    return x


def _float_data(nrng, t, n, kind, scale, sums):
    if kind == 'exact':   # quarters of small integers: every order of summation gives the same
        x = nrng.integers(-scale, scale + 1, size=n) / 4.0
    elif kind == 'runs':
        x = _runs(nrng, n, -scale, scale) / 4.0
    elif kind == 'sparse':
        zero = np.where(nrng.random(n) < float(nrng.choice([0, 0.5, 1])), -0.0, 0.0)
        x = np.where(nrng.random(n) < 0.9, zero, nrng.integers(-scale, scale + 1, size=n) / 4.0)
    else:                 # wide magnitudes and signs
        top = (15 if t == 'f32' else 100) if sums else (38 if t == 'f32' else 300)
        x = nrng.standard_normal(n) * 10.0 ** nrng.uniform(-top, top, size=n)
    with np.errstate(over='ignore'):
        x = x.astype(NP[t])
    rate = float(nrng.choice([0, 0, 0, 0.001, 0.02, 0.3]))
    if rate and n:
        specials = [np.nan, np.inf, -np.inf, -0.0]
        if not sums:
            fi = np.finfo(NP[t])
            specials += [fi.max, -fi.max, fi.tiny / 4, -fi.smallest_subnormal]
        pos = nrng.random(n) < rate
        x[pos] = nrng.choice(np.array(specials, dtype=NP[t]), size=int(pos.sum()))
    return x


def _exact_fits(stages, t, n, scale):
    """Whether sums of quarters up to SCALE stay exact through every float sum of STAGES."""
    bound, u = float(scale), t
    for st in stages:
        if st['verb'] == 'scan':
            u = st['out_type'] or u
            if st['op'] == 'sum':
                bound *= max(n, 1)
                if u in FLOATS and bound >= 2.0 ** (24 if u == 'f32' else 53):
                    return False
        elif st['verb'] == 'compact' and st['indices']:
            return True
        elif st['verb'] == 'rolling':
            u = _out_type(st, u)
            bound = max(bound, n)  # counts and positions; sums there carry a tolerance
    return True


def make_data(rng, nrng, t, n, stages):
    """The input array and whether its float sums are exact in any order. A float sum followed
    by a compact or another sum takes exact data (a bound on reassociation cannot decide a
    predicate); other float data may be wide, then sums are checked within a bound."""
    sums = _float_sum_at(stages, t)
    if t not in FLOATS:
        return _int_data(nrng, t, n, rng.choice(['full', 'full', 'small', 'extreme', 'sparse',
                                                  'runs', 'const'])), n, True
    later = [st for i, st in enumerate(stages) if sums and i > sums[0]]
    need_exact = any(st['verb'] in ('compact', 'rolling') or (st['verb'] == 'scan' and st['op'] == 'sum')
                     for st in later)
    kind = rng.choice(['exact', 'runs', 'sparse'] if need_exact else
                      ['exact', 'runs', 'sparse', 'wide', 'wide'])
    scale = rng.choice([1, 8, 128])
    while kind != 'wide' and not _exact_fits(stages, t, n, scale):
        n = n // 4
    return _float_data(nrng, t, n, kind, scale, _sums_data(stages, t)), n, kind != 'wide'


# ---- values picked from the data a stage sees ----------------------------------------------

def _value_word(rng, x, t):
    lo_hi = None if t in FLOATS else type_range(t)
    r = rng.random()
    if len(x) and r < 0.6:
        v = x[rng.randrange(len(x))]
        if t in FLOATS:
            return repr(float(v)) if v == v else rng.choice(['nan', '0'])
        return str(int(v))
    if r < 0.75:
        return '0'
    if r < 0.85:
        if t in FLOATS:
            return rng.choice(['inf', '-inf', repr(float(np.finfo(NP[t]).max)), 'nan'])
        return str(rng.choice(lo_hi))
    if t in FLOATS:
        return rng.choice(DECIMALS)
    return str(rng.randint(max(lo_hi[0], -1000), min(lo_hi[1], 1000)))


def _pick_pred(rng, st, v):
    kind = st['kind']
    if kind in ('nonzero', 'finite', 'nan'):
        return (kind, [])
    if kind == 'range':
        a, b = _value_word(rng, v.x, v.t), _value_word(rng, v.x, v.t)
        key = (lambda s: float(s)) if v.t in FLOATS else int
        if rng.random() < 0.85 and 'nan' not in (a, b) and key(a) > key(b):
            a, b = b, a
        return ('range', [a, b])
    return (kind, [_value_word(rng, v.x, v.t)])


def _pick_window(rng, m):
    r = rng.random()
    if r < 0.6:
        return rng.choice(WINDOWS)
    if r < 0.85:
        return max(1, rng.choice([m, m - 1, m + 1, rng.randint(1, max(1, 2 * m))]))
    return rng.choice([1 << 20, 1 << 40])


def evaluate(rng, stages, v, exact, known=False):
    """Runs the oracle through STAGES from V, filling in predicates and windows; returns the
    expected Val (or the count) and the length each stage reads. KNOWN: expect what
    docs/USAGE.md says where gpustream is known to differ."""
    lens = []
    for st in stages:
        lens.append(len(v.x))
        st['tin'] = v.t
        if st['verb'] == 'convert':
            v = oracle.convert(v, st['out_type'])
        elif st['verb'] == 'scan':
            v = oracle.scan(v, st['op'], st['exclusive'], st['out_type'], exact)
        elif st['verb'] == 'compact':
            st['pred'] = _pick_pred(rng, st, v)
            v = oracle.compact(v, st['pred'], st['invert'], st['indices'], st['count'])
        elif st['verb'] == 'rolling':
            st['w'] = max(_pick_window(rng, len(v.x)), st['mp'] or 1)  # --min-periods <= W
            v = oracle.rolling(v, st['w'], st['aggs'], st['partial'], st['mp'],
                               1 if st['ddof'] is None else st['ddof'], st['skip'], known,
                               st['out_type'])
        else:
            st['w'] = _pick_window(rng, len(v.x))
            v = oracle.minmax(v, st['w'], st['partial'], st['only'])
    return v, lens


def make_case(rng, nrng, include_known=False):
    """A random case: {'t', 'n', 'x', 'stages', 'exact', 'want', 'lens', 'loose_zero', 'magic',
    'known'}."""
    t = rng.choice(TYPES)
    stages = make_stages(rng, t)
    x, n, exact = make_data(rng, nrng, t, pick_n(rng), stages)
    magic = None
    if t not in FLOATS and n and rng.random() < 0.05:
        # raw data that opens like a skippable zstd frame (data unless a frame follows) or like a
        # zstd frame (data where --from raw says so)
        magic = rng.choice(['skippable', 'zstd'])
        word = 0x184D2A50 + rng.randrange(16) if magic == 'skippable' else 0xFD2FB528
        b = x.view(np.uint8)
        b[:4] = np.frombuffer(word.to_bytes(4, 'little'), np.uint8)
        if magic == 'skippable' and len(b) >= 8 and not include_known:
            # Known open behaviour, left out: a skippable frame that ends past the first 64 KiB but
            # within the file (from a pipe: anywhere past 64 KiB) is taken for zstd (exit 1, the
            # message names --from raw) instead of data.
            b[4:8] = np.frombuffer(rng.randrange(60000).to_bytes(4, 'little'), np.uint8)
    b = x.view(np.uint8)
    if n and not include_known and len(b) <= 64 and all(32 <= c < 127 or c in (9, 10, 13) for c in b) and \
            any(c in (10, 13) for c in b):
        # Known open behaviour, left out: raw bytes that read as text with a line break, given
        # through a pipe, are taken for CSV (content detection); `--from raw` says otherwise, but
        # not for zstd-compressed raw on a pipe. A zero byte makes them binary.
        b[0] = 0
    want, lens = evaluate(rng, stages, Val(x, t, None), exact, include_known)
    # An exclusive float sum starts from +0.0 (its first output), so a run of -0.0 sums to +0.0
    # there where a shifted numpy cumsum gives -0.0: outputs of a chain with an exclusive float
    # sum compare zeros by value. Inclusive sums keep -0.0 as numpy does (compared exactly).
    loose = any(stages[i].get('exclusive') for i in _float_sum_at(stages, t)) and not include_known
    return {'t': t, 'n': n, 'x': x, 'stages': stages, 'exact': exact, 'want': want,
            'lens': lens, 'loose_zero': loose, 'magic': magic, 'known': include_known}


# ---- stage options as command words ----------------------------------------------------------

def stage_words(st):
    """The option groups of one stage (run-wide options are added by run.py)."""
    g = []
    if st['verb'] in ('scan', 'convert') and st['out_type']:
        g.append(['--out-type', st['out_type']])
    if st['verb'] == 'scan':
        if st['op'] != 'sum' or st['op_given']:
            g.append(['--op', st['op']])
        if st['exclusive']:
            g.append(['--exclusive'])
    elif st['verb'] == 'compact':
        kind, vals = st['pred']
        if st['pred_given']:
            g.append(['--pred', ':'.join([kind] + vals)])
        g += [[f] for f in ('--invert', '--indices', '--count') if st[f[2:]]]
    elif st['verb'] in ('minmax', 'rolling'):
        w = {1 << 20: '2^20', 1 << 40: '2^40'}.get(st['w'], str(st['w']))
        g.append([st['wflag'], w])
        if st['partial']:
            g.append(['--partial'])
        if st.get('only'):
            g.append(['--only', st['only']])
    if st['verb'] == 'rolling':
        if st['out_type']:
            g.append(['--out-type', st['out_type']])
        if st['aggs'] != ['mean'] or st['w'] % 2:
            g.append(['--agg', ','.join(st['aggs'])])  # mean is the default
        if st['mp'] is not None:
            g.append(['--min-periods', str(st['mp'])])
        if st['ddof'] is not None:
            g.append(['--ddof', str(st['ddof'])])
        if st['skip']:
            g.append(['--skip-nan'])
    return g
