#!/usr/bin/env python3
"""tests/diff/difftest.py - differential tester: random cases of gpustream's verbs and chains,
formats, chunkings, threads, backends, input paths and MPI ranks, each against an independent
numpy oracle (gen.py, oracle.py, formats.py, runs.py), for a bounded time.

    python3 tests/diff/difftest.py [--seconds 60] [--seed N] [--case K] [--gpustream PATH]

Every case is drawn from (seed, case number) alone, so `--seed N --case K` replays one. A
mismatch prints one line, `FAIL difftest_VERB: ...`, with the seed, the case and a command that
reproduces it; the failing run's files (input, output, run.sh, what numpy expects) are kept in
the directory the line names. At the end: a PASS line per verb family that never failed, with its
count of runs, and SKIP lines for what this machine cannot run (zstd CLI, mpirun with MPI built
in). Exit 1 when something failed. Left out of the random space (open behaviours, see the
comments where they are): --skip-bad (positions of skipped rows) is never used; the sign of a float
sum's zero, minmax's CSV header with a --delim other than ',', an empty raw file's npy output to a
pipe, raw data opening like a long skippable zstd frame, CSV with a header and CR-only line
ends under mpirun, rolling's integer sums written as f64 (not wrapped) and its integer columns
printed through f64 beside a float one are; `--include-known` runs them too."""
import argparse
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ beside the sources
try:
    import numpy as np
except ImportError:
    print('SKIP difftest: numpy is not installed')
    sys.exit(0)

import formats
import gen
import runs
from formats import FLOATS
from oracle import Val

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))


# ---- this machine ----------------------------------------------------------------------------

def detect(gs, include_known, mpi_share):
    """What this machine and this gpustream can run."""
    info = subprocess.run([gs, 'info'], capture_output=True, text=True).stdout
    dev = re.search(r'^devices\s+(\S+)', info, re.M)
    gpu = bool(dev) and dev.group(1) != 'none'
    variants = {}  # (op, backend) -> [(name, types)]
    for m in re.finditer(r'^\s+(scan|compact|minmax|rolling)\s+(\S+)\s+\*?\s*(cpu|gpu)\s+(.*)$', info, re.M):
        types = [w for w in m.group(4).split() if w in gen.TYPES]
        variants.setdefault((m.group(1), m.group(3)), []).append((m.group(2), types))
    mpi = shutil.which('mpirun') is not None and not re.search(r'^mpi\s+not built', info, re.M)
    return {'G': gs, 'zstd': shutil.which('zstd') is not None, 'mpi': mpi, 'gpu': gpu,
            'backends': ['cpu', 'auto'] + (['gpu'] if gpu else []), 'variants': variants,
            'include_known': include_known, 'mpirun': shutil.which('mpirun') is not None,
            'mpi_share': mpi_share}


# ---- running ---------------------------------------------------------------------------------

def run_bash(cmd, cwd, timeout):
    """Runs CMD with bash in CWD, in its own process group (killed whole on a timeout)."""
    p = subprocess.Popen(['bash', '-c', 'set -o pipefail; ' + cmd], cwd=cwd, stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, preexec_fn=os.setsid)
    try:
        _, err = p.communicate(timeout=timeout)
        return p.returncode, err.decode(errors='replace')
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        return None, 'timed out after %d s' % timeout


def _first_bad(got, want, loose):
    """Index of the first mismatching row of GOT against the Val WANT, or None; LOOSE: zeros
    compare by value alone."""
    if not len(got):
        return None
    g, w = got.reshape(len(got), -1), want.x.reshape(len(want.x), -1)
    if want.t in FLOATS:
        g64, w64 = g.astype(np.float64), w.astype(np.float64)
        both_nan = np.isnan(g64) & np.isnan(w64)
        same = (g64 == w64) & (loose | (np.signbit(g64) == np.signbit(w64)))
        if want.tol is not None:  # a tolerance below 0: that element is exact
            tol = want.tol.reshape(len(w), -1)
            with np.errstate(invalid='ignore'):
                near = (g64 == w64) | (np.abs(g64 - w64) <= tol)
            ok = both_nan | np.where(tol < 0, same, near)
        else:
            ok = both_nan | same
    else:
        ok = g == w
    bad = np.flatnonzero(~ok.all(axis=1))
    return int(bad[0]) if len(bad) else None


def compare(got, want, loose):
    """None where GOT is what the Val WANT says, else the first difference."""
    if got.shape != want.x.shape:
        return 'got %d rows, numpy %d' % (len(got), len(want.x))
    i = _first_bad(got, want, loose)
    if i is None:
        return None
    tol = '' if want.tol is None else ' (tolerance %s)' % np.asarray(want.tol[i]).tolist()
    return 'row %d of %d: got %s, numpy %s%s' % (i, len(got), got[i].tolist(), want.x[i].tolist(), tol)


def check(case, r, rc, err, d):
    """None when the run did what numpy says, else why not."""
    if rc is None:
        return err
    if rc != 0:
        line = next((ln for ln in err.splitlines() if 'gpustream' in ln), err.strip()[:200])
        return 'exit %s: %s' % (rc, line[:300])
    junk = [f for f in os.listdir(d) if f.startswith('.') or '.gs-' in f]
    if junk:
        return 'files left behind: %s' % ' '.join(junk)
    if r['quiet'] and not r['stats'] and not r['mpi'] and err.strip():
        return 'stderr under -q: %s' % err.strip().splitlines()[0][:200]
    path = os.path.join(d, r['out_name'] if not r['count'] else 'stdout.bin')
    if not os.path.exists(path):
        return 'no output %s' % os.path.basename(path)
    data = open(path, 'rb').read()
    if r['count']:
        if not re.fullmatch(rb'\d+\n', data) or int(data) != case['want']:
            return 'count %r, numpy %d' % (data[:40], case['want'])
        return None
    want = case['want']
    # Known open behaviour, left out unless --include-known: CSV and text print an integer column
    # beside a float one through f64 (an i64 sum or min beyond 2^53 rounded), where docs/USAGE.md
    # says each column is printed in its own type; then each column is compared in its own type.
    own = want.own is not None and r['out_fmt'] in ('csv', 'text') and case['known']
    try:
        got = formats.read_output(data, r['out_fmt'], want.t, r['ncols'], r['header'],
                                  r['delims'], r['out_zst'], want.cols, r['names'], own)
    except (ValueError, OSError, KeyError) as e:
        return '%s output: %s' % (r['out_fmt'] + ('.zst' if r['out_zst'] else ''), e)
    if own:
        for c, (g, ct) in enumerate(zip(got, want.cols)):
            tol = None if want.tol is None or want.tol[:, c].max(initial=-1) < 0 else want.tol[:, c]
            why = compare(g, Val(want.own[c], ct, tol), case['loose_zero'])
            if why:
                return 'column %d (%s): %s' % (c + 1, ct, why)
        return None
    return compare(got, want, case['loose_zero'])


# ---- reporting -------------------------------------------------------------------------------

def family(case):
    st = case['stages']
    return 'chain' if len(st) > 1 else st[0]['verb']


def label(case, r):
    st = case['stages']
    verbs = '>'.join(s['verb'] for s in st)
    return '%s %s n=%d %s%s->%s%s%s' % (verbs, case['t'], case['n'], r['in_fmt'],
                                       '.zst' if r['in_zst'] else '', r['out_fmt'],
                                       '.zst' if r['out_zst'] else '',
                                       ' mpi%d' % r['ranks'] if r['mpi'] else '')


def keep(case, r, d, keep_dir, idx, k):
    """Copies the failing run's directory to KEEP_DIR with what numpy expects; its path."""
    dest = os.path.join(keep_dir, 'case%d-run%d' % (idx, k))
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(d, dest)
    want = case['want']
    if not isinstance(want, int):
        np.save(os.path.join(dest, 'numpy_expects.npy'), want.x)
    desc = {'stages': [{k2: v for k2, v in s.items() if k2 != '_words'} for s in case['stages']],
            't': case['t'], 'n': case['n'], 'exact_float_sums': case['exact'], 'cmd': r['cmd']}
    with open(os.path.join(dest, 'case.json'), 'w') as f:
        json.dump(desc, f, indent=1, default=str)
    return dest


def one_case(args, env, idx, work, stats):
    """Runs case IDX; returns the number of failed runs."""
    rng = random.Random('%d:%d' % (args.seed, idx))
    nrng = np.random.default_rng([args.seed, idx])
    case = gen.make_case(rng, nrng, env['include_known'])
    fails = 0
    for k in range(rng.choice([1, 2, 2, 3])):
        r = runs.make_run(rng, case, env)
        d = os.path.join(work, 'c%d-r%d' % (idx, k))
        os.makedirs(d)
        with open(os.path.join(d, r['in_name']), 'wb') as f:
            f.write(r['in_bytes'])
        if r['old_out']:
            with open(os.path.join(d, r['out_name']), 'wb') as f:
                f.write(r['old_out'])
        with open(os.path.join(d, 'run.sh'), 'w') as f:
            f.write('#!/usr/bin/env bash\nset -o pipefail\ncd "$(dirname "$0")"\n%s\n' % r['cmd'])
        if args.case is not None:
            print('case %d run %d: %s\n  %s' % (idx, k, label(case, r), r['cmd']))
        rc, err = run_bash(r['cmd'], d, args.timeout)
        why = check(case, r, rc, err, d)
        fam = 'mpi' if r['mpi'] else family(case)
        stats.setdefault(fam, [0, 0])
        stats[fam][0] += 1
        if why:
            stats[fam][1] += 1
            fails += 1
            dest = keep(case, r, d, args.keep, idx, k)
            print('FAIL difftest_%s: seed %d case %d run %d: %s: %s | repro: bash %s/run.sh | '
                  'replay: python3 tests/diff/difftest.py --seed %d --case %d'
                  % (fam, args.seed, idx, k, label(case, r), why, dest, args.seed, idx), flush=True)
        shutil.rmtree(d, ignore_errors=True)
    return fails


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--seconds', type=float, default=60, help='time to run new cases for (default 60)')
    ap.add_argument('--seed', type=int, default=None, help='master seed (default: the clock)')
    ap.add_argument('--case', type=int, default=None, help='run only this case of the seed, printing its commands')
    ap.add_argument('--gpustream', default=os.environ.get('G', os.path.join(ROOT, 'gpustream')))
    ap.add_argument('--keep', default=None, help='where failing runs are kept (default /tmp/gs-difftest-SEED)')
    ap.add_argument('--max-fail', type=int, default=10, help='stop after this many failed runs')
    ap.add_argument('--timeout', type=int, default=120, help='seconds one command may take')
    ap.add_argument('--mpi-share', type=float, default=0.2, help='share of single-verb runs under mpirun where it runs (default 0.2)')
    ap.add_argument('--include-known', action='store_true', help='also run the behaviours left out as known')
    args = ap.parse_args()
    if args.seed is None:
        args.seed = int(time.time())
    args.gpustream = os.path.abspath(args.gpustream)
    args.keep = args.keep or os.path.join(tempfile.gettempdir(), 'gs-difftest-%d' % args.seed)
    env = detect(args.gpustream, args.include_known, args.mpi_share)
    np.seterr(all='ignore')  # NaN and inf are data here
    print('difftest: seed %d (replay: python3 tests/diff/difftest.py --seed %d --seconds %g)'
          % (args.seed, args.seed, args.seconds), flush=True)
    if not env['zstd']:
        print('SKIP difftest_zstd: no zstd CLI: zstd input and output left out')
    if not env['mpi']:
        print('SKIP difftest_mpi: %s' % ('gpustream built without MPI' if env['mpirun'] else 'no mpirun on the PATH'))
    shm = '/dev/shm' if os.access('/dev/shm', os.W_OK) else None
    work = tempfile.mkdtemp(prefix='gs-difftest-', dir=shm)
    stats, fails, idx, t0 = {}, 0, 0, time.time()
    try:
        if args.case is not None:
            fails = one_case(args, env, args.case, work, stats)
            idx = 1
        while args.case is None and time.time() - t0 < args.seconds and fails < args.max_fail:
            fails += one_case(args, env, idx, work, stats)
            idx += 1
    finally:
        shutil.rmtree(work, ignore_errors=True)
    secs = time.time() - t0
    nruns = sum(v[0] for v in stats.values())
    for fam in sorted(stats):
        if stats[fam][1] == 0:
            print('PASS difftest_%s: %d runs' % (fam, stats[fam][0]))
    print('difftest: %d cases, %d runs, %d failed in %.0f s (%.0f cases/min), seed %d%s'
          % (idx, nruns, fails, secs, idx * 60 / max(secs, 1e-9), args.seed,
             ', failing runs kept in ' + args.keep if fails else ''))
    return 1 if fails else 0


if __name__ == '__main__':
    sys.exit(main())
