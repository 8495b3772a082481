#!/usr/bin/env python3
"""tests/keep_columns.py - --keep with several columns (--col a,b) against pandas: each output row is
the kept input columns of its row, byte for byte as in the input, then every listed column's results.

    python3 tests/keep_columns.py GPUSTREAM SCRATCH_DIR [--quick] [--backend cpu|gpu|auto]

Prints PASS/FAIL/SKIP lines (tests/run.sh counts them). Fresh random tables (LF and CRLF) hold quoted
fields with the delimiter, doubled quotes and line breaks, empty fields and NA spellings in several
columns; scan, minmax, rolling with two aggregates, rolling argmin and a chain of scan then rolling run
on several columns with --keep by names, indices and all, with missing values as NaN and under
--na skip (a row missing in any listed column dropped from all), over several --chunk (64 bytes: many
chunks) and --threads values. The kept bytes and the header are compared exactly with the table as
written; the results with pandas' (integers exactly, floats to rounding). Tables of 0 and 1 data rows,
a window longer than the input and an input without a header too."""
import os
import subprocess
import sys

from checks import check, cli_args, need, summary

np, pd = need("keep_columns", "numpy", "pandas")
G, D, QUICK, BACKEND = cli_args()
CHUNKS = ["64", "1K", "1M"] if not QUICK else ["64", "1M"]
THREADS = ["1", "2"] if not QUICK else ["2"]
CELLS = ["time", '"sym"', "price", "vol", "last", "note"]  # the header as written
NAMES = ["time", "sym", "price", "vol", "last", "note"]    # as pandas and --keep name them


def run(args):
    p = subprocess.run([G] + args, capture_output=True, timeout=120)
    return p.returncode, p.stdout, p.stderr.decode(errors="replace")


def make_table(path, n, seed, eol, header=True, quotes=True):
    """n data rows of CELLS: time never missing; price, vol and last missing in different rows (empty
    or an NA spelling); sym and note text, quoted where they hold the delimiter, a quote or a line
    break (none where not quotes: the parallel splitter's path). Returns each row's fields as
    written."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n):
        r = rng.random(4)
        sym = str(rng.choice(["AAPL", '"MS,FT"', '"multi' + eol + 'line"', '"q""uote"', '""', "x y"]))
        if not quotes:
            sym = sym.replace('"', "").replace(",", ";").replace(eol, " ")
        price = str(rng.choice(["NA", "", "nan", "N/A"])) if r[0] < 0.1 else f"{rng.random() * 8000:.4f}"
        vol = "" if r[1] < 0.07 else str(int(rng.integers(0, 9000)))
        last = str(rng.choice(["", "null"])) if r[2] < 0.05 else f"{rng.normal():.6g}"
        note = '"a,b"' if r[3] < 0.3 else ("" if r[3] < 0.4 else ('"line' + eol + 'break"' if r[3] < 0.5 else "z"))
        if not quotes:
            note = note.replace('"', "").replace(",", ";").replace(eol, " ")
        rows.append([str(1000 + i), sym, price, vol, last, note])
    with open(path, "w", newline="") as f:
        f.write("".join(",".join(x) + eol for x in ([CELLS] if header else []) + rows))
    return rows


def windows(n, w, partial):
    """[start, end) of each window of w over n values (pandas' right-aligned ones where partial)."""
    return [(max(0, e - w + 1), e + 1) for e in (range(n) if partial else range(w - 1, n))]


def expected(df, cols, na_skip, stages, w):
    """(the input data row of each output row, the results: rows x (columns x results), their names)
    for the stages ("scan", "minmax", "minmax_partial", "rolling", "argmin") on df's listed columns."""
    d = df.dropna(subset=cols) if na_skip else df
    rows, x = d.index.to_numpy(), d[cols].to_numpy(dtype=np.float64)
    outs, names = [], []
    for j, c in enumerate(cols):
        v, parts, suffix = x[:, j], [], []
        if "scan" in stages:
            v = np.cumsum(v)  # NaN carries on, as gpustream's running sum
        s = pd.Series(v)
        if "minmax" in stages:
            parts, suffix = [s.rolling(w).min(), s.rolling(w).max()], ["min", "max"]
        elif "minmax_partial" in stages:
            parts, suffix = [s.rolling(w, min_periods=1).min(), s.rolling(w, min_periods=1).max()], ["min", "max"]
        elif "rolling" in stages:
            parts, suffix = [s.rolling(w).mean(), s.rolling(w).std()], ["mean", "std"]
        elif "rolling_max" in stages:
            parts, suffix = [s.rolling(w).mean(), s.rolling(w).max()], ["mean", "max"]
        elif "argmin" in stages:  # numpy's first minimum, as an input row (pandas' index after dropna)
            am = [float(rows[b + int(np.argmin(v[b:e]))]) for b, e in windows(len(v), w, False)]
            parts, suffix = [pd.Series([np.nan] * (w - 1) + am), s.rolling(w).max()], ["argmin", "max"]
        else:
            parts, suffix = [s], [""]
        cols_out = [p.to_numpy(dtype=np.float64) for p in parts]
        outs.append(np.column_stack(cols_out) if len(v) else np.zeros((0, len(parts))))
        names += [f"{c}_{k}" if k else c for k in suffix]
    res = np.hstack(outs)
    first = 0 if not any(s in stages for s in ("minmax", "rolling", "rolling_max", "argmin")) else w - 1
    return rows[first:], res[first:], names


def compare(out, header, prefixes, want, exact):
    """None where out is the header line (None: no header), then for each row its kept bytes, the
    delimiter and its results (parsed: exact, or to rounding); else what differs first."""
    pos = 0
    if header is not None:
        h = (header + "\n").encode()
        if not out.startswith(h):
            return f"header {out[:len(h) + 20]!r} want {h!r}"
        pos = len(h)
    for i, (p, vals) in enumerate(zip(prefixes, want)):
        if out[pos:pos + len(p)] != p:
            return f"row {i}: kept {out[pos:pos + len(p) + 20]!r} want {p!r}"
        pos += len(p)
        end = out.find(b"\n", pos)
        if end < 0:
            return f"row {i}: no line end"
        got = out[pos:end].split(b",")
        pos = end + 1
        if len(got) != len(vals):
            return f"row {i}: {len(got)} results, want {len(vals)}"
        for g, v in zip(got, vals):
            if exact:
                ok = g == str(int(v)).encode()
            else:
                f = float(g)
                ok = (np.isnan(f) and np.isnan(v)) or (not np.isnan(v) and abs(f - v) <= 1e-9 * max(1.0, abs(v)))
            if not ok:
                return f"row {i}: results {out[pos - len(b','.join(got)) - 1:end]!r} want {list(vals)}"
    return None if pos == len(out) else f"{len(out) - pos} bytes after the last row: {out[pos:pos + 60]!r}"


def case(name, path, fields, df, args, cols, keep, na_skip=False, stages=(), w=1, exact=False, header=True):
    """One command over every chunk and thread count against the table as written and pandas."""
    idx = list(range(len(CELLS))) if keep == "all" else \
        [int(k) - 1 if k.isdigit() else NAMES.index(k) for k in keep.split(",")]
    rows, want, names = expected(df, cols, na_skip, stages, w)
    prefixes = [(",".join(fields[r][c] for c in idx) + ",").encode() for r in rows]
    head = ",".join([CELLS[c] for c in idx] + names) if header else None
    colarg = ",".join(cols) if header else ",".join(str(NAMES.index(c) + 1) for c in cols)
    for ch in CHUNKS:
        for th in THREADS:
            rc, out, err = run(args + ["--col", colarg, "--keep", keep] + (["--na", "skip"] if na_skip else []) +
                               [path, "--chunk", ch, "--threads", th, "-q", "--backend", BACKEND])
            why = f"exit {rc}: {err}" if rc else compare(out, head, prefixes, want, exact)
            check(why is None, f"{name}_c{ch}_t{th}", why)


def tables():
    n = 1500 if QUICK else 4000
    for eol, quotes, tag in (("\n", True, "lf"), ("\r\n", True, "crlf"), ("\r\n", False, "plain_crlf")):
        path = os.path.join(D, f"t_{tag}.csv")
        fields = make_table(path, n, 3 + len(eol) + quotes, eol, quotes=quotes)
        df = pd.read_csv(path)
        t = lambda name: f"{tag}_{name}"  # noqa: E731
        case(t("scan_names"), path, fields, df, ["scan"], ["price", "last"], "time,sym", stages=("scan",))
        case(t("scan_int_na_skip"), path, fields, df, ["scan", "-t", "i64"], ["vol", "time"], "sym,3", True,
             ("scan",), exact=True)
        case(t("minmax_all_na_skip"), path, fields, df, ["minmax", "-w", "7"], ["price", "last"], "all", True,
             ("minmax",), 7)
        case(t("minmax_int"), path, fields, df, ["minmax", "-w", "5", "-t", "i64"], ["vol", "time"], "note,1", True,
             ("minmax",), 5, exact=True)
        case(t("minmax_partial"), path, fields, df, ["minmax", "-w", "9", "--partial"], ["last", "price", "vol"],
             "6,sym,time", True, ("minmax_partial",), 9)
        case(t("rolling_nan"), path, fields, df, ["rolling", "-w", "20", "--agg", "mean,std"], ["price", "vol"],
             "time", False, ("rolling",), 20)
        case(t("rolling_na_skip"), path, fields, df, ["rolling", "-w", "20", "--agg", "mean,std"],
             ["vol", "price", "last"], "sym,time", True, ("rolling",), 20)
        case(t("rolling_argmin_na_skip"), path, fields, df, ["rolling", "-w", "6", "--agg", "argmin,max"],
             ["price", "last"], "1", True, ("argmin",), 6)
        case(t("chain_scan_rolling"), path, fields, df, ["scan", "then", "rolling", "-w", "9", "--agg", "mean,max"],
             ["price", "vol"], "time,sym", True, ("scan", "rolling_max"), 9)
        case(t("chain_all_nan"), path, fields, df, ["scan", "then", "rolling", "-w", "3", "--agg", "mean,max"],
             ["last", "vol"], "all", False, ("scan", "rolling_max"), 3)


def small():
    """0 and 1 data rows, a window longer than the input, no header."""
    for n in (0, 1, 3):
        path = os.path.join(D, f"s{n}.csv")
        fields = make_table(path, n, 20 + n, "\r\n")
        df = pd.read_csv(path, dtype={c: np.float64 for c in ["price", "vol", "last"]})
        case(f"n{n}_scan", path, fields, df, ["scan"], ["price", "vol"], "sym,time", stages=("scan",))
        case(f"n{n}_rolling_w5", path, fields, df, ["rolling", "-w", "5", "--agg", "mean,std"], ["price", "vol"],
             "all", stages=("rolling",), w=5)
        case(f"n{n}_minmax_partial_w5", path, fields, df, ["minmax", "-w", "5", "--partial"], ["time", "vol"],
             "note,2", True, ("minmax_partial",), 5)
    path = os.path.join(D, "nh.csv")
    fields = make_table(path, 300, 31, "\n", header=False)
    df = pd.read_csv(path, header=None, names=NAMES)
    case("no_header_scan", path, fields, df, ["scan"], ["vol", "time"], "2,1", stages=("scan",), header=False)
    case("no_header_rolling", path, fields, df, ["rolling", "-w", "4", "--agg", "mean,std"], ["price", "last"],
         "all", True, ("rolling",), 4, header=False)


def main():
    os.makedirs(D, exist_ok=True)
    tables()
    small()
    return summary()


if __name__ == "__main__":
    sys.exit(main())
