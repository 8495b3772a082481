#!/usr/bin/env python3
"""kernel_times.py CSV: sum ncu's per-launch gpu__time_duration (--csv --metrics
gpu__time_duration.sum) by kernel name: launches, total ms, share, mean us; largest first.
Kernels run one at a time under ncu, so the total is the device's work without overlap."""
import csv
import sys

UNIT = {"nsecond": 1e-6, "ns": 1e-6, "usecond": 1e-3, "us": 1e-3, "msecond": 1.0, "ms": 1.0, "second": 1e3, "s": 1e3}


def main(path):
    rows = {}
    with open(path, newline="") as f:
        lines = [l for l in f if l.startswith('"')]  # ncu's own lines (==PROF==) are not CSV
    for r in csv.DictReader(lines):
        if r.get("Metric Name") != "gpu__time_duration.sum":
            continue
        name = r["Kernel Name"].split("(")[0].split("<")[0].strip()
        name = name[5:] if name.startswith("void ") else name or r["Kernel Name"]
        try:
            ms = float(r["Metric Value"].replace(",", "")) * UNIT[r["Metric Unit"]]
        except (KeyError, ValueError):
            continue
        n, t = rows.get(name, (0, 0.0))
        rows[name] = (n + 1, t + ms)
    total = sum(t for _, t in rows.values())
    if not rows:
        print("no kernel times in", path)
        return 1
    print(f"{'kernel':<48} {'launches':>8} {'total ms':>10} {'share':>6} {'mean us':>9}")
    for name, (n, t) in sorted(rows.items(), key=lambda kv: -kv[1][1]):
        print(f"{name[:48]:<48} {n:>8} {t:>10.2f} {100 * t / total:>5.1f}% {1000 * t / n:>9.1f}")
    print(f"{'all':<48} {sum(n for n, _ in rows.values()):>8} {total:>10.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
