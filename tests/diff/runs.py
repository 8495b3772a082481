"""tests/diff/runs.py - one way of running a case: the input's format, compression and CSV shape,
how it reaches gpustream (a file, a file without extension, a stdin pipe, stdin from a file,
/dev/stdin, process substitution), the output's format and where it goes (a file, a file without
extension, stdout to a file, stdout into a pipe), chunk size, threads, backend, kernel variant,
options spread over a chain's stages, and mpirun where this gpustream has MPI. The result is a
bash command line, run in the case's directory, and what is needed to read its output."""
import shlex

import formats
import gen
from formats import EXT

CHUNKS = [None, None, None, '64', '100', '1000', '4K', '4K', '4097', '12345', '64K', '1M']
NAMES = ['price', 'volume', 'ts', 'label', 'v2']


def _csv_spec(rng):
    ncols = rng.choice([1, 1, 2, 3, 4])
    spec = {'header': rng.random() < 0.6, 'ncols': ncols, 'pos': rng.randrange(ncols),
            'names': rng.sample(NAMES, ncols), 'delim': rng.choice([',', ',', ',', ';', '\t']),
            'eol': rng.choice(['\n', '\n', '\r\n', '\r']), 'final_eol': rng.random() < 0.9,
            'spaces': rng.random() < 0.1, 'blanks': rng.random() < 0.1,
            'quote_all': rng.random() < 0.1}
    # quoted text beside the column; quoted fields never hold a line break
    spec['quoted'] = ncols > 1 and rng.random() < 0.3
    return spec


def _text_spec(rng):
    return {'eol': rng.choice(['\n', '\n', '\n', '\r\n', '\r']), 'final_eol': rng.random() < 0.9,
            'spaces': rng.random() < 0.1, 'blanks': rng.random() < 0.1}


def _length_known(case, r):
    """npy output needs its length before the data (else a seekable, uncompressed file)."""
    no_compact = all(st['verb'] != 'compact' for st in case['stages'])
    return no_compact and _count_known(r)


def _count_known(r):
    """The input's element count is known before it is read (a raw or npy file, uncompressed)."""
    return r['in_mode'] in ('file', 'noext', 'redirect') and r['in_fmt'] in ('raw', 'npy') and not r['in_zst']


def _stream_name(stages, name):
    """The name of the one column that STAGES pass on from input column NAME (None: unnamed), as
    gpustream names it: a rolling stage's is NAME_AGG (AGG alone), minmax --only's NAME_min or
    NAME_max (`min`, `max` alone), compact --indices' `index`; scan and compact keep theirs."""
    for st in stages:
        if st['verb'] == 'rolling':
            name = (name + '_' if name else '') + st['aggs'][0]
        elif st['verb'] == 'compact' and st['indices']:
            name = 'index'
        elif st['verb'] == 'minmax':
            name = (name + '_' if name else '') + st['only']
    return name


def _choose_io(rng, case, env, r):
    r['in_fmt'] = rng.choice(['raw', 'raw', 'npy', 'csv', 'csv', 'text'])
    r['in_zst'] = env['zstd'] and rng.random() < 0.25
    if r['mpi'] and r['in_fmt'] in ('csv', 'text'):
        r['in_zst'] = False  # compressed CSV/text is refused under MPI (documented)
    modes = ['file', 'file', 'noext', 'stdin', 'redirect', 'procsub', 'devstdin']
    r['in_mode'] = rng.choice(modes[:3] if r['mpi'] else modes)
    r['spec'] = _csv_spec(rng) if r['in_fmt'] == 'csv' else _text_spec(rng)
    # Known open behaviour, left out: under MPI a CSV with a header line and CR-only line ends is
    # read whole by every rank (K copies of the output, exit 0)
    if r['mpi'] and r['in_fmt'] == 'csv' and r['spec']['header'] and not env['include_known']:
        r['spec']['eol'] = rng.choice(['\n', '\r\n'])
    r['spec']['zst'] = r['in_zst']
    # a content size in the frame header (the zstd CLI gives none to a stream unless told): MPI
    # refuses frames without one, and every other run sees both kinds
    r['spec']['zst_size'] = r['mpi'] or rng.random() < 0.5
    r['spec']['zst_frames'] = rng.choice([1, 1, 1, 2, 5])
    last = case['stages'][-1]
    r['count'] = last['verb'] == 'compact' and last['count']
    r['ncols'] = 2 if last['verb'] == 'minmax' and not last['only'] else 1
    if last['verb'] == 'rolling':
        r['ncols'] = len(last['aggs'])
    r['out_fmt'] = rng.choice(['raw', 'npy', 'csv', 'text'])
    r['out_zst'] = env['zstd'] and rng.random() < 0.25
    omodes = ['file', 'file', 'noext', 'stdout-file', 'stdout-pipe']
    r['out_mode'] = rng.choice(omodes[:3] if r['mpi'] else omodes)
    if r['out_fmt'] == 'npy' and not _length_known(case, r):
        r['out_zst'] = False
        r['out_mode'] = rng.choice(['file', 'noext'])
    # a header line where the input has one; minmax and rolling at the end always write one, their
    # columns named after the input's column, else by the statistic alone
    r['header'] = (r['in_fmt'] == 'csv' and r['spec']['header']) or last['verb'] in ('minmax', 'rolling')
    r['names'] = None
    if last['verb'] in ('minmax', 'rolling') and r['out_fmt'] == 'csv':
        has = r['in_fmt'] == 'csv' and r['spec']['header']
        col = _stream_name(case['stages'][:-1], r['spec']['names'][r['spec']['pos']] if has else None)
        stats = last['aggs'] if last['verb'] == 'rolling' else [last['only']] if last['only'] else ['min', 'max']
        r['names'] = [(col + '_' if col else '') + g for g in stats]
    delim = r['spec'].get('delim', ',')
    r['delims'] = [','] if delim == ',' else [',', delim]


def _run_wide(rng, case, env, r):
    """Option groups that describe the whole run, each given once in some stage."""
    t, fmt = case['t'], r['in_fmt']
    g = []
    need_t = (fmt == 'raw' and t != 'i32') or (fmt in ('csv', 'text') and t != 'f64')
    if need_t or rng.random() < 0.4:
        g.append([rng.choice(['-t', '--type']), t])
    named = r['in_mode'] == 'file'
    zmagic = case['magic'] == 'zstd' and fmt == 'raw' and not r['in_zst']
    if (fmt in ('csv', 'text') and not named) or zmagic or \
            (rng.random() < 0.3 and not (fmt == 'raw' and r['in_zst'])):
        g.append(['--from', fmt])
    if fmt == 'csv':
        s = r['spec']
        if s['ncols'] > 1 or s['pos'] or rng.random() < 0.3:
            col = s['names'][s['pos']] if s['header'] and rng.random() < 0.6 else \
                rng.choice(['', '', '', '+', ' ']) + str(s['pos'] + 1)
            g.append(['--col', col])
        if rng.random() < 0.4:
            g.append(['--header' if s['header'] else '--no-header'])
        if s['delim'] != ',':
            g.append(['--delim', 'tab' if s['delim'] == '\t' else s['delim']])
    chunk = rng.choice(CHUNKS)
    if chunk:
        g.append(['--chunk', chunk])
    if rng.random() < 0.7:
        g.append(['--threads', str(rng.choice([1, 2, 3]))])
    # Documented limits of the GPU backend, left out: a window keeps its W-1 inputs on the device,
    # so a window of 2^40 over an input of unknown length (which auto runs on the CPU) is refused
    # by --backend gpu, and one of 2^20 may pass --device-mem-limit; a chain runs with --host-mem
    # pinned, pageable, registered or direct and --device-alloc once.
    wmax = max([st.get('w', 0) for st in case['stages'] if st['verb'] in ('minmax', 'rolling')] + [0])
    unbounded = not _count_known(r)
    backends = [b for b in env['backends'] if not (b == 'gpu' and unbounded and wmax >= 1 << 40)]
    if rng.random() < 0.7:
        g.append(['--backend', rng.choice(backends)])
    if rng.random() < 0.1:
        g.append(['--buffers', str(rng.choice([1, 3, 4]))])
    if env['gpu']:
        chain = len(case['stages']) > 1
        groups = [['--host-mem', rng.choice(['direct', 'pinned', 'pageable', 'registered'] + ([] if chain else ['mapped']))],
                  ['--device-alloc', rng.choice(['once'] if chain else ['once', 'per-chunk', 'async'])],
                  ['--codec', rng.choice(['auto', 'cpu'])]]
        if not (unbounded and wmax >= 1 << 20):
            groups.append(['--device-mem-limit', rng.choice(['64M', '256M'])])
        g += rng.sample(groups, rng.choice([0, 0, 1, 2]))
    if r['out_zst'] and rng.random() < 0.5:
        g.append(['--frame-size', rng.choice(['1K', '4K', '64K'])])
    if r['out_zst'] and rng.random() < 0.2:
        g.append(['--level', str(rng.choice([1, 5, 19]))])
    r['quiet'] = rng.random() < 0.7
    if r['quiet']:
        g.append(['-q'])
    r['stats'] = rng.random() < 0.05
    if r['stats']:
        g.append(['--stats'])
    r['force'] = rng.random() < 0.5
    if r['force']:
        g.append(['-f'])
    return g


def _algo(rng, st, env, backend, m):
    """A kernel variant for stage ST (input length M) where the backend is named; cpu-naive only
    where n*W is small."""
    if st['verb'] == 'convert' or backend not in ('cpu', 'gpu') or rng.random() < 0.6:
        return None
    names = [v for v, types in env['variants'].get((st['verb'], backend), [])
             if st['tin'] in types
             and not (v == 'cpu-naive' and m * min(st.get('w', 1), m + 1) > 3_000_000)]
    return rng.choice(names) if names else None


def _out_words(rng, r):
    """Output option groups and the OUT word ('' for stdout)."""
    g, fmt, zst = [], r['out_fmt'], r['out_zst']
    r['out_name'], r['old_out'] = 'stdout.bin', None
    if r['count']:
        r['out_mode'] = 'stdout-file'
        return g, ''
    mode = r['out_mode']
    if mode == 'file':
        out = 'out.' + EXT[fmt] + ('.zst' if zst else '')
        if rng.random() < 0.3:
            g.append(['--to', fmt])
        if zst and rng.random() < 0.3:
            g.append(['-z'])
    else:
        out = 'outdata' if mode == 'noext' else ''
        if mode == 'noext' or fmt != r['in_fmt'] or rng.random() < 0.5:
            g.append(['--to', fmt])
        if zst:
            g.append([rng.choice(['-z', '--zstd'])])
    r['out_name'] = out or 'stdout.bin'
    # -f over an existing, longer file: what is left must be the new output alone
    r['old_out'] = bytes(range(256)) * 40 if out and r['force'] and rng.random() < 0.5 else None
    return g, out


def _spread(rng, stages, groups):
    """Stage word lists with the run-wide GROUPS spread over them (now and then twice)."""
    per = [[] for _ in stages]
    for grp in groups:
        per[rng.randrange(len(stages))].append(grp)
        if len(stages) > 1 and rng.random() < 0.05:
            per[rng.randrange(len(stages))].append(grp)  # the same value twice is allowed
    words = []
    for i, (st, own) in enumerate(zip(stages, per)):
        mine = own + st['_words']
        rng.shuffle(mine)
        if i:
            words.append('then')
        words.append(st['verb'])
        words += [w for grp in mine for w in grp]
    return words


def make_run(rng, case, env):
    """A run of CASE: {'cmd', 'in_name', 'in_bytes', 'out_name', 'out_fmt', 'out_zst', ...}."""
    # chains do not run over MPI ranks (refused, documented)
    r = {'mpi': env['mpi'] and len(case['stages']) == 1 and rng.random() < env['mpi_share']}
    _choose_io(rng, case, env, r)
    groups = _run_wide(rng, case, env, r)
    og, out = _out_words(rng, r)
    groups += og
    backend = next((grp[1] for grp in groups if grp[0] == '--backend'), 'auto')
    for st, m in zip(case['stages'], case['lens']):
        st['_words'] = gen.stage_words(st)
        a = _algo(rng, st, env, backend, m)
        if a:
            st['_words'].append(['--algo', a])
    words = [env['G']] + _spread(rng, case['stages'], groups)
    r['in_name'] = ('in.' + EXT[r['in_fmt']] if r['in_mode'] != 'noext' else 'indata') + \
        ('.zst' if r['in_zst'] else '')
    r['in_bytes'] = formats.write_input(case['x'], case['t'], r['in_fmt'], r['spec'], rng)
    q = shlex.quote
    src, mode = r['in_name'], r['in_mode']
    tail = {'file': [q(src)], 'noext': [q(src)], 'procsub': ['<(cat %s)' % q(src)],
            'devstdin': ['/dev/stdin']}.get(mode, ['-'])
    if out:
        tail.append(q(out))
    elif mode in ('stdin', 'redirect') and rng.random() < 0.5:
        tail = []  # stdin and stdout by omission
    elif rng.random() < 0.5:
        tail.append('-')
    cmd = ' '.join([q(w) for w in words] + tail)
    if r['mpi']:
        r['ranks'] = rng.choice([2, 3])
        cmd = 'mpirun -n %d --oversubscribe --allow-run-as-root %s' % (r['ranks'], cmd)
    if mode in ('stdin', 'devstdin'):
        cmd = 'cat %s | %s' % (q(src), cmd)
    elif mode == 'redirect':
        cmd += ' < ' + q(src)
    if not out:
        cmd += (' | cat > stdout.bin' if r['out_mode'] == 'stdout-pipe' else ' > stdout.bin')
    r['cmd'] = cmd
    return r
