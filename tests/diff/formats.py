"""tests/diff/formats.py - the differential tester's own reading and writing of gpustream's formats,
with numpy, the csv module and the zstd CLI only (never gpustream): inputs are written in raw, npy
(v1/v2/v3, shape (n,) or (n, 1)), csv (header or none, the column among others, quoted text
fields, three line ends, three delimiters) and text (several spellings of each number), and an
output is read back into an array of the expected type, or a message saying why it cannot be."""
import csv
import io
import struct
import subprocess
from decimal import Decimal

import numpy as np

NP = {'i32': np.dtype('<i4'), 'i64': np.dtype('<i8'), 'u32': np.dtype('<u4'),
      'u64': np.dtype('<u8'), 'f32': np.dtype('<f4'), 'f64': np.dtype('<f8')}
FLOATS = ('f32', 'f64')
EXT = {'raw': 'raw', 'npy': 'npy', 'csv': 'csv', 'text': 'txt'}
WORDS = ['alpha', 'beta', 'gamma', 'x y', 'a,b', 'say "hi"', 'semi;colon', 'tab\there', '']


def zstd(args, data):
    """Runs the zstd CLI on DATA; returns its stdout, or raises with its message."""
    p = subprocess.run(['zstd', '-q'] + args, input=data, capture_output=True, timeout=120)
    if p.returncode != 0:
        raise ValueError('zstd %s: %s' % (' '.join(args), p.stderr.decode(errors='replace').strip()))
    return p.stdout


# ---- numbers as text ------------------------------------------------------------------------

def _special_word(v, rng):
    if v != v:
        return rng.choice(('nan', 'NaN', 'NAN'))
    if v == 0:
        return rng.choice(('-0', '-0.0', '-0e0'))
    s = rng.choice(('inf', 'Inf', 'Infinity', 'INF'))
    return ('-' + s) if v < 0 else rng.choice(('', '+')) + s


def _float_words(x, t, style, rng):
    """The spellings of the float array X (type T) in one STYLE; NaN, infinities and -0.0 in
    several spellings each."""
    vals = x.tolist()
    if style == 'repr':
        out = [repr(v) for v in vals]
    elif style in ('g', 'sci'):
        f = {('g', 'f32'): '%.9g', ('g', 'f64'): '%.17g',
             ('sci', 'f32'): '%.8e', ('sci', 'f64'): '%.16e'}[style, t]
        out = [f % v if v == v and abs(v) != float('inf') else '' for v in vals]
    elif style == 'shifted':  # the same decimal with its point moved K places: long mantissas
        ks = (1, 20, 400) if len(vals) < 5000 else (1, 20)
        out = []
        for v in vals:
            if v != v or abs(v) == float('inf'):
                out.append('')
                continue
            k = rng.choice(ks) * rng.choice((1, -1))
            out.append('%se%+d' % (format(Decimal(repr(v)).scaleb(k), 'f'), -k))
    else:  # 'short': shortest digits for the type itself
        typ = NP[t].type
        out = [np.format_float_positional(typ(v), unique=True, trim='-')
               if 1e-5 < abs(v) < 1e16 else repr(v) for v in vals]
    with np.errstate(invalid='ignore'):
        special = np.flatnonzero(~np.isfinite(x) | ((x == 0) & np.signbit(x)))
    for i in special.tolist():
        out[i] = _special_word(vals[i], rng)
    return out


def number_words(x, t, rng):
    """Text for each element of X (type T), in a style picked for the whole column."""
    if t in FLOATS:
        return _float_words(x, t, rng.choice(('repr', 'g', 'sci', 'short', 'shifted')), rng)
    words = [str(v) for v in x.tolist()]
    if rng.random() < 0.1:
        zeros = '0' * rng.choice((1, 5, 30))
        words = [('-' + zeros + w[1:]) if w[0] == '-' else zeros + w for w in words]
    if rng.random() < 0.2:
        words = [('+' + w) if w[0] != '-' else w for w in words]
    return words


# ---- inputs -----------------------------------------------------------------------------------

def write_npy(x, rng):
    """X as .npy bytes: version 1, 2 or 3; shape (n,) or now and then (n, 1)."""
    buf = io.BytesIO()
    a = x.reshape(-1, 1) if rng.random() < 0.1 else x
    version = rng.choice([(1, 0)] * 4 + [(2, 0), (3, 0)])
    np.lib.format.write_array(buf, a, version=version, allow_pickle=False)
    return buf.getvalue()


def _blank_after(n, spec, rng):
    """The rows after which a blank line goes (spec['blanks']: now and then)."""
    if not spec.get('blanks') or not n:
        return set()
    return {rng.randrange(n) for _ in range(rng.randint(1, 5))}


def write_csv(x, t, spec, rng):
    """X as CSV bytes following SPEC (see runs._csv_spec): the column at spec['pos'] of
    spec['ncols'], a header when spec['header'], spec['delim'], spec['eol'], every field quoted
    where spec['quote_all'], text beside it where spec['quoted'], blank lines where spec['blanks']."""
    words = number_words(x, t, rng)
    if spec['spaces']:
        words = [' %s ' % w for w in words]
    buf = io.StringIO()
    w = csv.writer(buf, delimiter=spec['delim'], lineterminator=spec['eol'],
                   quoting=csv.QUOTE_ALL if spec['quote_all'] else csv.QUOTE_MINIMAL)
    ncols, pos = spec['ncols'], spec['pos']
    if spec['header']:
        w.writerow(spec['names'])
    blanks = _blank_after(len(words), spec, rng)
    for i, word in enumerate(words):
        row = []
        for c in range(ncols):
            if c == pos:
                row.append(word)
            elif c % 2:
                row.append(str((i * 7919 + c) % 1000 - 500))
            else:
                row.append(WORDS[(i + c) % len(WORDS)] if spec['quoted'] else 'r%d' % i)
        w.writerow(row)
        if i in blanks:
            buf.write(spec['eol'])
    text = buf.getvalue()
    if not spec['final_eol'] and text.endswith(spec['eol']):
        text = text[:-len(spec['eol'])]
    return text.encode()


def write_text(x, t, spec, rng):
    """X as text bytes, one number a line (spec: 'eol', 'final_eol', 'spaces', 'blanks')."""
    words = number_words(x, t, rng)
    if not words:
        return b''
    if spec['spaces']:
        words = [rng.choice((' ', '\t', '')) + w + rng.choice((' ', '\t', '')) for w in words]
    eol = spec['eol']
    for i in sorted(_blank_after(len(words) - 1, spec, rng), reverse=True):
        words.insert(i + 1, '')
    return (eol.join(words) + (eol if spec['final_eol'] else '')).encode()


def write_input(x, t, fmt, spec, rng):
    """X (type T) in FMT as bytes, compressed by the zstd CLI where spec['zst']."""
    if fmt == 'raw':
        data = x.astype(NP[t]).tobytes()
    elif fmt == 'npy':
        data = write_npy(x.astype(NP[t]), rng)
    elif fmt == 'csv':
        data = write_csv(x, t, spec, rng)
    else:
        data = write_text(x, t, spec, rng)
    return compress(data, spec, rng) if spec.get('zst') else data


def compress(data, spec, rng):
    """DATA as zstd frames by the zstd CLI: one, or several cut at any byte, with skippable frames
    between them now and then; each with its content size where spec['zst_size']."""
    cuts = sorted(rng.randrange(len(data) + 1) for _ in range(spec.get('zst_frames', 1) - 1))
    out = []
    for a, b in zip([0] + cuts, cuts + [len(data)]):
        piece = data[a:b]
        size = ['--stream-size=%d' % len(piece)] if spec.get('zst_size') else []
        if out and rng.random() < 0.3:
            junk = bytes(rng.randrange(256) for _ in range(rng.randrange(20)))
            out.append(struct.pack('<II', 0x184D2A50 + rng.randrange(16), len(junk)) + junk)
        out.append(zstd(['-c', '-%d' % rng.choice((1, 3, 9))] + size + ['-'], piece))
    return b''.join(out)


# ---- outputs ----------------------------------------------------------------------------------

def _parse_words(words, t):
    """Numbers of type T from strings; raises ValueError naming the first bad one."""
    if t in FLOATS:
        try:
            return np.array(words, dtype=object).astype(np.float64).astype(NP[t])
        except (ValueError, OverflowError):
            pass
    else:
        lo, hi = type_range(t)
        try:
            vals = [int(w) for w in words]
            if all(lo <= v <= hi for v in vals):
                return np.array(vals, dtype=object).astype(NP[t])
        except ValueError:
            pass
    for w in words:
        try:
            v = float(w) if t in FLOATS else int(w)
            if t not in FLOATS and not lo <= v <= hi:
                raise ValueError
        except ValueError:
            raise ValueError('not a %s: %r' % (t, w[:40]))
    raise ValueError('unparsable %s column' % t)


def type_range(t):
    """The smallest and largest values of integer type T as Python ints."""
    info = np.iinfo(NP[t])
    return int(info.min), int(info.max)


def _columns(rows, t, ncols, cols, own=False):
    """Fields of ROWS parsed column by column, each in its own type (COLS, else T): the list of
    columns where OWN, else an array of type T, shape (m,), or (m, NCOLS) where NCOLS > 1."""
    cols = cols or [t] * ncols
    out = [_parse_words([r[c] for r in rows], cols[c]) for c in range(ncols)]
    if own:
        return out
    out = [c.astype(NP[t]) for c in out]
    return np.stack(out, axis=1) if ncols > 1 else out[0]


def _read_csv(data, t, ncols, header, delims, cols=None, names=None, own=False):
    """CSV output: one header line where HEADER (NAMES where given), then rows of NCOLS fields
    split by one of DELIMS (the same for the header and every row)."""
    text = data.decode()
    lines = text.splitlines()
    for d in delims:
        rows = list(csv.reader(lines, delimiter=d))
        if all(len(r) == ncols for r in rows):
            break
    else:
        bad = next(r for r in rows if len(r) != ncols)
        raise ValueError('csv row of %d fields, want %d: %r' % (len(bad), ncols, delims[-1].join(bad)[:60]))
    if header:
        if not rows:
            raise ValueError('csv output without its header line')
        head = rows.pop(0)
        if names and head != names:
            raise ValueError('csv header %r, want %r' % (','.join(head)[:80], ','.join(names)))
        try:
            _parse_words(head, t)
            raise ValueError('csv output has no header line (first row %r)' % ','.join(head))
        except ValueError as e:
            if 'no header' in str(e):
                raise
    return _columns(rows, t, ncols, cols, own)


def _read_text(data, t, ncols, cols=None, own=False):
    rows = [ln.split() for ln in data.decode().splitlines()]
    for r in rows:
        if len(r) != ncols:
            raise ValueError('text line of %d fields, want %d: %r' % (len(r), ncols, ' '.join(r)[:60]))
    return _columns(rows, t, ncols, cols, own)


def read_output(data, fmt, t, ncols, header, delims, zst, cols=None, names=None, own=False):
    """The output bytes DATA (format FMT, zstd where ZST) as an array of type T: shape (m,) or
    (m, NCOLS) where NCOLS > 1. CSV and text print each column in its own type (COLS, else T),
    read as such and then cast to T as raw and npy hold them; a CSV header must be NAMES where
    given; OWN: CSV and text as the list of columns in their own types. Raises ValueError with
    the reason when they do not read back."""
    if zst:
        if not data:
            raise ValueError('empty file where a zstd stream was due')
        data = zstd(['-dc'], data)
    dt = NP[t]
    if fmt == 'raw':
        if len(data) % (dt.itemsize * ncols):
            raise ValueError('%d bytes: not whole %s rows of %d' % (len(data), t, ncols))
        a = np.frombuffer(data, dtype=dt)
        return a.reshape(-1, ncols) if ncols > 1 else a
    if fmt == 'npy':
        a = np.load(io.BytesIO(data), allow_pickle=False)
        if a.dtype != dt:
            raise ValueError('npy dtype %s, want %s' % (a.dtype.str, dt.str))
        want = 2 if ncols > 1 else 1
        if a.ndim != want or (ncols > 1 and a.shape[1] != ncols):
            raise ValueError('npy shape %s, want %s' % (a.shape, '(n, %d)' % ncols if ncols > 1 else '(n,)'))
        return a
    if fmt == 'csv':
        return _read_csv(data, t, ncols, header, delims, cols, names, own)
    return _read_text(data, t, ncols, cols, own)
