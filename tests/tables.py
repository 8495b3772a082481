#!/usr/bin/env python3
"""tests/tables.py - real CSV tables against pandas: gpustream's reading of missing values, and the
positions it writes when rows are dropped, checked against pandas.read_csv on the whole frame.

    python3 tests/tables.py GPUSTREAM SCRATCH_DIR [--quick] [--backend cpu|gpu|auto]

Prints PASS/FAIL/SKIP lines (tests/run.sh counts them). The tables hold empty fields in every column
position, every default NA spelling of pandas, quoted fields holding the delimiter and line breaks,
a text column, bad tokens, LF and CRLF line ends. Each case runs over several --chunk and --threads
values; the answer must not change."""
import os
import shutil
import subprocess
import sys

from checks import check, cli_args, need, summary

np, pd, parsers = need("tables", "numpy", "pandas", "pandas._libs.parsers")
G, D, QUICK, BACKEND = cli_args()
NA = sorted(parsers.STR_NA_VALUES)


def run(args, stdin=None):
    p = subprocess.run([G] + args, input=stdin, capture_output=True, timeout=120)
    return p.returncode, p.stdout, p.stderr.decode(errors="replace")


def make_table(path, n, seed, crlf):
    """id,"sym",price,vol,bad,last: missing values in every column (first and last included), every
    NA spelling in price, quoted text with the delimiter and line breaks, bad tokens in bad."""
    rng = np.random.default_rng(seed)
    eol = "\r\n" if crlf else "\n"
    lines = ['id,"sym",price,vol,bad,last']
    for i in range(n):
        r = rng.random(6)
        idv = "" if r[0] < 0.03 else str(i)
        sym = rng.choice(["AAPL", '"MS,FT"', '"multi' + eol + 'line"', '"q""uote"', '""'])
        price = NA[int(rng.integers(len(NA)))] if r[1] < 0.15 else f"{rng.random() * 8000:.4f}"
        vol = "" if r[2] < 0.05 else str(int(rng.integers(0, 9000)))
        bad = "x" + str(i) if r[3] < 0.04 else ("" if r[3] < 0.07 else str(int(rng.integers(-50, 50))))
        last = "" if r[4] < 0.05 else f"{rng.normal():.6g}"
        lines.append(",".join([idv, sym, price, vol, bad, last]))
    with open(path, "w", newline="") as f:
        f.write(eol.join(lines) + eol)
    return [l + eol for l in lines]


def frame(path):
    df = pd.read_csv(path)
    df["bad"] = pd.to_numeric(df["bad"], errors="coerce")  # a bad token: gpustream's --skip-bad drops it
    return df


def text_values(out):
    return np.array([float(x) for x in out.split()], dtype=np.float64)


def same_floats(a, b):
    return len(a) == len(b) and np.array_equal(np.isnan(a), np.isnan(b)) and np.array_equal(a[~np.isnan(a)], b[~np.isnan(b)])


CHUNKS = ["64", "1K", "1M"] if not QUICK else ["64", "1M"]
THREADS = ["1", "2", "3"] if not QUICK else ["1", "3"]


def across(name, args, want, parse, stdin=None):
    """The same command over every chunk and thread count: each output equals want."""
    for ch in CHUNKS:
        for th in THREADS:
            rc, out, err = run(args + ["--chunk", ch, "--threads", th, "-q", "--backend", BACKEND], stdin)
            if rc != 0:
                check(False, f"{name}_c{ch}_t{th}", f"exit {rc}: {err}")
                continue
            got = parse(out)
            ok = same_floats(got, want) if got.dtype.kind == "f" else (len(got) == len(want) and np.array_equal(got, want))
            check(ok, f"{name}_c{ch}_t{th}", f"{len(got)} values, want {len(want)}; first difference at "
                  f"{next((i for i in range(min(len(got), len(want))) if got[i] != want[i]), '-')}")


def positions(out):
    return np.array([int(x) for x in out.split()], dtype=np.int64)


def window_rows(x, w, partial):
    """(start, end) of each window of w over n values: numpy's sliding windows, or pandas' right-aligned
    partial ones."""
    n = len(x)
    ends = range(n) if partial else range(w - 1, n)
    return [(max(0, e - w + 1), e + 1) for e in ends]


def arg_first(v, find_max):
    """numpy's argmin/argmax: the first NaN where there is one, else the first extreme."""
    nan = np.flatnonzero(np.isnan(v))
    if len(nan):
        return int(nan[0])
    return int(np.argmax(v) if find_max else np.argmin(v))


def frame_check(name, args, path, want):
    """ARGS on PATH at every chunk size and thread count, its CSV output against the frame WANT:
    the same columns and rows, values equal (NaN equal to NaN)."""
    import io
    for ch in CHUNKS:
        for th in THREADS:
            rc, out, err = run(args + [path, "--chunk", ch, "--threads", th, "-q", "--backend", BACKEND])
            if rc != 0:
                check(False, f"{name}_c{ch}_t{th}", f"exit {rc}: {err}")
                continue
            got = pd.read_csv(io.BytesIO(out))
            ok = list(got.columns) == list(want.columns) and len(got) == len(want)
            bad = None
            for col in want.columns if ok else []:
                a, b = got[col].to_numpy(), want[col].to_numpy()
                same = [(x == y) or (pd.isna(x) and pd.isna(y)) for x, y in zip(a, b)]
                if not all(same):
                    ok, bad = False, (col, same.index(False), a[same.index(False)], b[same.index(False)])
            check(ok, f"{name}_c{ch}_t{th}", f"{len(got)} rows, want {len(want)}; columns "
                  f"{list(got.columns)} want {list(want.columns)}; first difference {bad}")


def windows(tag, path, df):
    """rolling argmin/argmax as input rows where rows are dropped, and --keep on minmax and rolling:
    the kept columns of the row at each window's right end, against pandas and numpy."""

    def stats(x, rows, w, partial):
        """argmin, argmax, min, max, count of each window; positions as rows[] (the input's rows)."""
        out = {"argmin": [], "argmax": [], "min": [], "max": [], "count": []}
        for b, e in window_rows(x, w, partial):
            v = x[b:e]
            out["argmin"].append(rows[b + arg_first(v, False)])
            out["argmax"].append(rows[b + arg_first(v, True)])
            out["min"].append(np.nan if np.isnan(v).any() else v.min())
            out["max"].append(np.nan if np.isnan(v).any() else v.max())
            out["count"].append(int((~np.isnan(v)).sum()))
        return out

    for w, partial in [(7, False), (7, True), (1, False), (300, False)]:
        ptag = f"w{w}{'_partial' if partial else ''}"
        pargs = ["-w", str(w)] + (["--partial"] if partial else [])
        # argmin/argmax under --na skip: the rows pandas' index holds after dropna
        kept = df["price"].dropna()
        r = stats(kept.to_numpy(dtype=np.float64), kept.index.to_numpy(), w, partial)
        want = pd.DataFrame({"price_argmin": r["argmin"], "price_argmax": r["argmax"], "price_min": r["min"]})
        frame_check(f"{tag}_arg_na_skip_{ptag}", ["rolling", "--agg", "argmin,argmax,min", "--col", "price", "--na", "skip"]
                    + pargs, path, want)
        # --skip-bad and --na skip on an integer column
        kept = df["bad"].dropna()
        r = stats(kept.to_numpy(dtype=np.float64), kept.index.to_numpy(), w, partial)
        want = pd.DataFrame({"bad_argmax": r["argmax"], "bad_argmin": r["argmin"]})
        frame_check(f"{tag}_arg_skip_bad_{ptag}", ["rolling", "--agg", "argmax,argmin", "--col", "bad", "-t", "i64",
                                             "--skip-bad", "--na", "skip"] + pargs, path, want)
        # --keep on rolling: NaN kept (pandas' rows), the row at each window's right end
        x = df["price"].to_numpy(dtype=np.float64)
        r = stats(x, np.arange(len(x)), w, partial)
        ends = [e - 1 for _, e in window_rows(x, w, partial)]
        want = df.loc[ends, ["sym", "id"]].reset_index(drop=True)
        want["price_max"], want["price_count"], want["price_argmin"] = r["max"], r["count"], r["argmin"]
        frame_check(f"{tag}_keep_rolling_{ptag}", ["rolling", "--agg", "max,count,argmin", "--col", "price", "--keep",
                                             "sym,1"] + pargs, path, want)
        # --keep on minmax under --na skip: the rows left, the kept text as in the input
        kept = df["last"].dropna()
        r = stats(kept.to_numpy(dtype=np.float64), kept.index.to_numpy(), w, partial)
        ends = kept.index.to_numpy()[[e - 1 for _, e in window_rows(kept.to_numpy(), w, partial)]]
        want = df.loc[ends, ["vol", "sym"]].reset_index(drop=True)
        want["last_min"], want["last_max"] = r["min"], r["max"]
        frame_check(f"{tag}_keep_minmax_na_skip_{ptag}", ["minmax", "--col", "last", "--na", "skip", "--keep", "vol,sym"]
                    + pargs, path, want)
    # a chain of a scan and a rolling stage: positions and kept rows of the input
    kept = df["vol"].dropna()
    cum = kept.to_numpy(dtype=np.float64).cumsum()
    r = stats(cum, kept.index.to_numpy(), 5, False)
    ends = kept.index.to_numpy()[4:]
    want = df.loc[ends, ["id"]].reset_index(drop=True)
    want["vol_argmax"] = r["argmax"]
    frame_check(f"{tag}_keep_chain_scan_rolling", ["scan", "--col", "vol", "--na", "skip", "then", "rolling", "-w", "5",
                                            "--agg", "argmax", "--keep", "id"], path, want)


def main():
    os.makedirs(D, exist_ok=True)
    for crlf in (False, True):
        tag = "crlf" if crlf else "lf"
        path = os.path.join(D, f"t_{tag}.csv")
        raw = make_table(path, 3000 if QUICK else 6000, 5 + crlf, crlf)
        df = frame(path)
        # values: missing values are NaN (every column, default f64)
        for col in ["id", "price", "vol", "last"]:
            want = df[col].to_numpy(dtype=np.float64)
            across(f"{tag}_values_{col}", ["convert", "--col", col, path, "--to", "text"], want, text_values)
        # --na V and --na skip
        across(f"{tag}_na_value_price", ["convert", "--col", "price", "--na", "-7.5", path, "--to", "text"],
               df["price"].fillna(-7.5).to_numpy(dtype=np.float64), text_values)
        across(f"{tag}_na_skip_price", ["convert", "--col", "price", "--na", "skip", path, "--to", "text"],
               df["price"].dropna().to_numpy(dtype=np.float64), text_values)
        # positions: input data rows, as np.flatnonzero on the whole frame
        across(f"{tag}_indices_na_skip", ["compact", "--pred", "gt:4000", "--indices", "--col", "price", "--na", "skip",
                                          path, "--to", "text"], np.flatnonzero(df["price"] > 4000), positions)
        across(f"{tag}_indices_skip_bad", ["compact", "--pred", "lt:0", "--indices", "--col", "bad", "--skip-bad",
                                           path, "--to", "text"], np.flatnonzero(df["bad"] < 0), positions)
        across(f"{tag}_indices_both_int", ["compact", "--pred", "gt:10", "--indices", "--col", "bad", "-t", "i64",
                                           "--skip-bad", "--na", "skip", path, "--to", "text"],
               np.flatnonzero(df["bad"] > 10), positions)
        across(f"{tag}_indices_nan", ["compact", "--pred", "nan", "--indices", "--col", "price", path, "--to", "text"],
               np.flatnonzero(df["price"].isna()), positions)
        across(f"{tag}_indices_scan_chain", ["scan", "--col", "vol", "--na", "skip", "then", "compact", "--pred",
                                             "gt:1e6", "--indices", path, "--to", "text"],
               np.flatnonzero(df["vol"].notna()).take(np.flatnonzero(df["vol"].dropna().cumsum() > 1e6)), positions)
        # an integer column with missing values: the error names the fixes; --na skip reads it
        rc, out, err = run(["convert", "--col", "vol", "-t", "i64", path, "--to", "text"])
        check(rc == 1 and "missing value" in err and "-t f64" in err and "--na V" in err and "--na skip" in err
              and err.count("\n") == 1, f"{tag}_int_missing_error", f"exit {rc}: {err}")
        across(f"{tag}_int_na_skip", ["convert", "--col", "vol", "-t", "i64", "--na", "skip", path, "--to", "text"],
               df["vol"].dropna().to_numpy(dtype=np.int64), positions)
        across(f"{tag}_int_na_value", ["convert", "--col", "vol", "-t", "i32", "--na", "-1", path, "--to", "text"],
               df["vol"].fillna(-1).to_numpy(dtype=np.int64), positions)
        # the warning: one line with the count; -q silences it
        rc, out, err = run(["compact", "--count", "--pred", "nonzero", "--col", "price", "--na", "skip", path])
        nmiss = int(df["price"].isna().sum())
        check(rc == 0 and err == f"gpustream: warning: skipped {nmiss} rows (missing values, --na skip)\n",
              f"{tag}_warning_count", f"exit {rc}: [{err}] want {nmiss}")
        # stdin: the same values
        with open(path, "rb") as f:
            data = f.read()
        across(f"{tag}_stdin_indices", ["compact", "--pred", "gt:4000", "--indices", "--col", "price", "--na", "skip",
                                        "--to", "text"], np.flatnonzero(df["price"] > 4000), positions, stdin=data)
        # compact --rows: the rows pandas keeps, byte for byte as in the input (header first)
        def rows_of(mask):
            return (raw[0] + "".join(raw[1 + i] for i in np.flatnonzero(mask))).encode()
        for name, args, mask in [
            ("gt", ["--pred", "gt:4000", "--col", "price"], df["price"] > 4000),
            ("nan", ["--pred", "nan", "--col", "price"], df["price"].isna()),
            ("invert", ["--pred", "gt:4000", "--invert", "--col", "price"], ~(df["price"] > 4000)),
            ("na_skip", ["--pred", "lt:100", "--col", "vol", "--na", "skip"], df["vol"] < 100),
            ("skip_bad_int", ["--pred", "ge:0", "-t", "i32", "--col", "bad", "--skip-bad"], df["bad"] >= 0),
            ("first_col", ["--pred", "range:100:200", "--col", "1"], (df["id"] >= 100) & (df["id"] <= 200)),
            # (nearly) every row: runs of rows that go out as they lie in the input
            ("all", ["--pred", "ge:-1e300", "--col", "id"], df["id"] >= -1e300),
        ]:
            want = rows_of(mask)
            for ch in CHUNKS:
                for th in THREADS:
                    rc, out, err = run(["compact", "--rows"] + args + [path, "--chunk", ch, "--threads", th, "-q",
                                                                       "--backend", BACKEND])
                    check(rc == 0 and out == want, f"{tag}_rows_{name}_c{ch}_t{th}",
                          f"exit {rc} {err}; {len(out)} bytes, want {len(want)}")
        rc, out, err = run(["scan", "--col", "vol", "--na", "skip", "then", "compact", "--pred", "gt:1e6", "--rows",
                            path, "-q"])
        keep = np.zeros(len(df), bool)
        keep[np.flatnonzero(df["vol"].notna())[np.flatnonzero(df["vol"].dropna().cumsum() > 1e6)]] = True
        check(rc == 0 and out == rows_of(keep), f"{tag}_rows_after_scan", f"exit {rc} {err}")
        rc, out, err = run(["compact", "--pred", "gt:4000", "--col", "price", "--rows", "-q"], stdin=data)
        check(rc == 0 and out == rows_of(df["price"] > 4000), f"{tag}_rows_stdin", f"exit {rc} {err}")
        zpath = os.path.join(D, f"rows_{tag}.csv.zst")
        rc, out, err = run(["compact", "--pred", "gt:4000", "--col", "price", "--rows", "-q", path, zpath, "-f"])
        dz = subprocess.run(["zstd", "-dc", zpath], capture_output=True) if rc == 0 and shutil.which("zstd") else None
        if dz is None and rc == 0:
            print(f"SKIP {tag}_rows_zstd: no zstd CLI")
        else:
            check(rc == 0 and dz.stdout == rows_of(df["price"] > 4000), f"{tag}_rows_zstd", f"exit {rc} {err}")
        # --keep: input columns as in the input before each result
        m = df["vol"].notna()
        want = df.loc[m, ["id", "sym"]].reset_index(drop=True)
        want["vol"] = df.loc[m, "vol"].astype(np.int64).cumsum().to_numpy()
        frame_check(f"{tag}_keep_scan_int", ["scan", "--col", "vol", "-t", "i64", "--na", "skip", "--keep", "id,sym"], path, want)
        m = df["price"] > 4000
        want = df.loc[m, ["last", "sym", "price"]].reset_index(drop=True)
        frame_check(f"{tag}_keep_compact", ["compact", "--pred", "gt:4000", "--col", "price", "--keep", "last,2"], path, want)
        plain = pd.read_csv(path)  # bad tokens kept as text: --keep writes them as they are
        want = plain.loc[m].reset_index(drop=True).assign(price_=plain.loc[m, "price"].to_numpy())
        want.columns = list(df.columns) + ["price.1"]  # pandas names a repeated header this way
        frame_check(f"{tag}_keep_compact_all", ["compact", "--pred", "gt:4000", "--col", "price", "--keep", "all"], path, want)
        # the kept text is the input's: quoted fields stay quoted
        rc, out, err = run(["compact", "--pred", "gt:4000", "--col", "price", "--keep", "sym", path, "-q"])
        lines = out.decode().split("\n")
        want_sym = [raw[1 + i].split(",", 2)[1] for i in np.flatnonzero(m)[:50] if '"MS,FT"' not in raw[1 + i]
                    and "multi" not in raw[1 + i] and "uote" not in raw[1 + i]]
        check(rc == 0 and lines[0] == '"sym",price' and all(any(l.startswith(w + ",") for l in lines) for w in want_sym)
              and ('"MS,FT",' in out.decode()), f"{tag}_keep_bytes", f"exit {rc} {err} {lines[:3]}")
        windows(tag, path, df)
    # every NA spelling alone in a column, as the first, a middle and the last field
    for pos in range(3):
        rows = []
        for i, s in enumerate(NA + ["1.5"]):
            f = ["1", "2", "3"]
            f[pos] = s
            rows.append(",".join(f))
        path = os.path.join(D, f"na_{pos}.csv")
        with open(path, "w") as f:
            f.write("a,b,c\n" + "\n".join(rows) + "\n")
        want = pd.read_csv(path).iloc[:, pos].to_numpy(dtype=np.float64)
        rc, out, err = run(["convert", "--col", str(pos + 1), path, "--to", "text", "-q"])
        check(rc == 0 and same_floats(text_values(out), want), f"na_spellings_field{pos + 1}", f"exit {rc} {err} {out[:200]}")
    return summary()


if __name__ == "__main__":
    sys.exit(main())
