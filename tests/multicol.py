#!/usr/bin/env python3
"""tests/multicol.py - several columns in one pass (--col a,b,c; a 2-D npy) against pandas and numpy.

    python3 tests/multicol.py GPUSTREAM SCRATCH_DIR [--quick] [--backend cpu|gpu|auto]

Prints PASS/FAIL/SKIP lines (tests/run.sh counts them). A table with quoted fields (the delimiter and
line breaks inside quotes), missing values in some columns and every kind of --col list (names,
indices, ranges, any order) goes through scan, minmax, rolling, compact --count and convert over
several --chunk and --threads values; each column's results must be pandas' on that column (after
pandas' dropna over the listed columns where --na skip drops rows), and the same as a run on that
column alone. A 2-D npy gives its columns the same way."""
import io
import os
import subprocess
import sys

from checks import check, cli_args, need, summary

np, pd = need("multicol", "numpy", "pandas")
G, D, QUICK, BACKEND = cli_args()
CHUNKS = ["64", "1K", "1M"] if not QUICK else ["64", "1M"]
THREADS = ["1", "2"]


def run(args):
    p = subprocess.run([G] + args, capture_output=True, timeout=120)
    return p.returncode, p.stdout, p.stderr.decode(errors="replace")


def make_table(path, n, seed):
    """id,"sym",price,vol,last,note: price and last with missing values (NA spellings, empty), vol an
    integer column with some missing, sym and note quoted text holding the delimiter and line breaks."""
    rng = np.random.default_rng(seed)
    lines = ['id,"sym",price,vol,last,note']
    for i in range(n):
        r = rng.random(5)
        sym = rng.choice(["AAPL", '"MS,FT"', '"multi\nline"', '"q""uote"', '""'])
        price = rng.choice(["NA", "", "nan", "null"]) if r[0] < 0.08 else f"{rng.random() * 8000:.4f}"
        vol = "" if r[1] < 0.05 else str(int(rng.integers(0, 9000)))
        last = "" if r[2] < 0.05 else f"{rng.normal():.6g}"
        note = '"a,b"' if r[3] < 0.3 else ("x" if r[3] < 0.6 else '"line\nbreak"')
        lines.append(",".join([str(i), sym, price, vol, last, note]))
    with open(path, "w", newline="") as f:
        f.write("\n".join(lines) + "\n")


def close(a, b):
    """Same shape, NaN at the same places, the rest equal up to reassociation."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if a.shape != b.shape:
        return False
    na, nb = np.isnan(a), np.isnan(b)
    return np.array_equal(na, nb) and np.allclose(a[~na], b[~nb], rtol=1e-9, atol=1e-9)


def read_out(out):
    return pd.read_csv(io.BytesIO(out), header=0) if out else pd.DataFrame()


def across(name, args, want_cols, want):
    """The command over every chunk and thread count: its CSV header is want_cols, its values want."""
    for ch in CHUNKS:
        for th in THREADS:
            rc, out, err = run(args + ["--chunk", ch, "--threads", th, "-q", "--backend", BACKEND, "--to", "csv"])
            tag = f"{name}_c{ch}_t{th}"
            if rc != 0:
                check(False, tag, f"exit {rc}: {err}")
                continue
            got = read_out(out)
            ok = list(got.columns) == want_cols and close(got.to_numpy(dtype=np.float64), want)
            check(ok, tag, f"columns {list(got.columns)} want {want_cols}; shape {got.shape} want {np.shape(want)}")


def alone(name, verb_args, path, cols):
    """Each column of a several-column run equals a run on that column alone (NaN rules included)."""
    rc, out, err = run(verb_args + ["--col", ",".join(cols), path, "--to", "csv", "-q", "--backend", BACKEND])
    if rc != 0:
        check(False, name, f"exit {rc}: {err}")
        return
    got = read_out(out).to_numpy(dtype=np.float64)
    per = []
    for c in cols:
        rc, o1, err = run(verb_args + ["--col", c, path, "--to", "csv", "-q", "--backend", BACKEND])
        per.append(read_out(o1).to_numpy(dtype=np.float64))
    want = np.concatenate(per, axis=1) if per else None
    check(want is not None and got.shape == want.shape and np.array_equal(np.isnan(got), np.isnan(want))
          and np.array_equal(got[~np.isnan(got)], want[~np.isnan(want)]), name, f"shape {got.shape}")


def rolling_want(df, w, aggs):
    out = []
    for c in df.columns:
        r = df[c].rolling(w)
        for a in aggs:
            out.append(getattr(r, a)().to_numpy()[w - 1:])
    return np.stack(out, axis=1)


def csv_cases(path):
    df = pd.read_csv(path)
    f = df[["price", "vol", "last"]].astype(np.float64)
    # scan: names in any order, indices and a range; NaN carries on as in a float sum
    across("scan_names", ["scan", "--col", "vol,price", path], ["vol", "price"],
           np.cumsum(f[["vol", "price"]].to_numpy(), axis=0))
    across("scan_range", ["scan", "--col", "3-5", path], ["price", "vol", "last"], np.cumsum(f.to_numpy(), axis=0))
    across("scan_mixed", ["scan", "--col", "last,3", path], ["last", "price"],
           np.cumsum(f[["last", "price"]].to_numpy(), axis=0))
    # --na skip drops a row missing in any listed column (pandas' dropna over them)
    d = f[["price", "vol"]].dropna()
    across("scan_na_skip", ["scan", "--col", "price,vol", "--na", "skip", path], ["price", "vol"],
           np.cumsum(d.to_numpy(), axis=0))
    across("scan_na_value", ["scan", "--col", "price,last", "--na", "0", path], ["price", "last"],
           np.cumsum(f[["price", "last"]].fillna(0).to_numpy(), axis=0))
    # integer columns: exact sums
    di = df[["id", "vol"]].dropna().astype(np.int64)
    across("scan_int", ["scan", "-t", "i64", "--col", "id,vol", "--na", "skip", path], ["id", "vol"],
           np.cumsum(di.to_numpy(), axis=0))
    # minmax: each column's pair, named after it
    d = f[["price", "vol", "last"]].dropna()
    w = 9
    mm = []
    for c in d.columns:
        mm += [d[c].rolling(w).min().to_numpy()[w - 1:], d[c].rolling(w).max().to_numpy()[w - 1:]]
    across("minmax", ["minmax", "-w", str(w), "--col", "price,vol,last", "--na", "skip", path],
           ["price_min", "price_max", "vol_min", "vol_max", "last_min", "last_max"], np.stack(mm, axis=1))
    across("minmax_only", ["minmax", "-w", "4", "--only", "max", "--col", "vol,id", "--na", "skip", path],
           ["vol_max", "id_max"],
           np.stack([df[["vol", "id"]].dropna()[c].rolling(4).max().to_numpy()[3:] for c in ["vol", "id"]], axis=1))
    # rolling: each column's aggregates in turn
    across("rolling", ["rolling", "-w", "7", "--agg", "mean,std,max", "--col", "price,vol", "--na", "skip", path],
           ["price_mean", "price_std", "price_max", "vol_mean", "vol_std", "vol_max"],
           rolling_want(f[["price", "vol"]].dropna(), 7, ["mean", "std", "max"]))
    # compact --count: one count a column, one line
    for ch in CHUNKS:
        for th in THREADS:
            rc, out, err = run(["compact", "--count", "--pred", "gt:4000", "--col", "price,vol,last", path, "--chunk",
                                ch, "--threads", th, "-q", "--backend", BACKEND])
            want = ",".join(str(int((f[c] > 4000).sum())) for c in ["price", "vol", "last"]) + "\n"
            check(rc == 0 and out.decode() == want, f"compact_count_c{ch}_t{th}", f"exit {rc} {err} [{out}] want [{want}]")
    # convert: the columns as they are read
    across("convert", ["convert", "--col", "last,price", path], ["last", "price"], f[["last", "price"]].to_numpy())
    # the same as each column alone, NaN rules included (no --na)
    alone("alone_minmax", ["minmax", "-w", "5"], path, ["price", "last", "vol"])
    alone("alone_rolling", ["rolling", "-w", "6", "--agg", "sum,min,count"], path, ["last", "price"])
    alone("alone_chain", ["scan", "then", "minmax", "-w", "3", "--only", "min"], path, ["vol", "id"])


def npy_cases():
    rng = np.random.default_rng(7)
    a = rng.integers(-1000, 1000, size=(5000, 5)).astype(np.int64)
    p = os.path.join(D, "m.npy")
    np.save(p, a)
    out = os.path.join(D, "o.npy")
    for ch in CHUNKS:
        for th in THREADS:
            tag = f"c{ch}_t{th}"
            common = ["--chunk", ch, "--threads", th, "-q", "--backend", BACKEND, "-f"]
            rc, _, err = run(["scan", p, out] + common)
            got = np.load(out) if rc == 0 else None
            check(rc == 0 and got.shape == a.shape and np.array_equal(got, np.cumsum(a, axis=0)), f"npy_scan_all_{tag}",
                  f"exit {rc} {err}")
            rc, _, err = run(["scan", "--col", "4,1-2", p, out] + common)
            got = np.load(out) if rc == 0 else None
            check(rc == 0 and np.array_equal(got, np.cumsum(a[:, [3, 0, 1]], axis=0)), f"npy_scan_cols_{tag}",
                  f"exit {rc} {err}")
            rc, _, err = run(["minmax", "-w", "10", "--col", "2,5", p, out] + common)
            want = np.stack([pd.Series(a[:, c]).rolling(10).agg(fn).to_numpy()[9:] for c in [1, 4] for fn in ["min", "max"]],
                            axis=1)
            got = np.load(out) if rc == 0 else None
            check(rc == 0 and got.shape == want.shape and np.array_equal(got, want), f"npy_minmax_{tag}", f"exit {rc} {err}")
    # raw output: rows of k values, row-major
    rawp = os.path.join(D, "o.raw")
    rc, _, err = run(["scan", "--col", "3,2", p, rawp, "-q", "-f"])
    got = np.fromfile(rawp, dtype=np.int64) if rc == 0 else None
    check(rc == 0 and np.array_equal(got, np.cumsum(a[:, [2, 1]], axis=0).ravel()), "npy_raw_rows", f"exit {rc} {err}")
    # rolling's names without a header: each column's place in the list before its aggregates
    rc, o, err = run(["rolling", "-w", "3", "--agg", "mean", "--col", "1,3", p, "--to", "csv", "-q"])
    got = read_out(o)
    want = np.stack([pd.Series(a[:, c]).rolling(3).mean().to_numpy()[2:] for c in [0, 2]], axis=1)
    check(rc == 0 and list(got.columns) == ["1_mean", "2_mean"] and close(got.to_numpy(), want), "npy_rolling_names",
          f"exit {rc} {err} {list(got.columns)}")


def main():
    os.makedirs(D, exist_ok=True)
    path = os.path.join(D, "t.csv")
    make_table(path, 1500 if QUICK else 4000, 11)
    csv_cases(path)
    npy_cases()
    return summary()


if __name__ == "__main__":
    sys.exit(main())
