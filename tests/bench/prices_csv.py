#!/usr/bin/env python3
"""prices_csv.py - the CSV of the CSV benchmarks: `time,price,volume`, N rows (default 10^8:
2.6 GB), 26 bytes a row: time 1700000000 + row, price a 4-decimal random walk from 500.0000 (steps of
-0.0100..0.0100, kept within 100..999.9999) printed with its 4 decimals, volume uniform 10000..99999.
Deterministic for a seed; numpy only, written in blocks of 10^7 rows.
    python3 tests/bench/prices_csv.py OUT.csv [N] [SEED]"""
import sys
import numpy as np


def digits(out, col, x, width):
    """Write the non-negative integers x as `width` decimal digits into out[:, col:col+width]."""
    for k in range(width - 1, -1, -1):
        out[:, col + k] = 48 + (x % 10)
        x = x // 10


def main():
    path = sys.argv[1]
    n = int(float(sys.argv[2])) if len(sys.argv) > 2 else 10**8
    rng = np.random.default_rng(int(sys.argv[3]) if len(sys.argv) > 3 else 1)
    block = 10**7
    price = 5000000  # in units of 1e-4
    with open(path, "wb") as f:
        f.write(b"time,price,volume\n")
        for start in range(0, n, block):
            m = min(block, n - start)
            steps = rng.integers(-100, 101, m)
            p = np.clip(price + np.cumsum(steps), 1000000, 9999999)
            price = int(p[-1])
            t = np.arange(start, start + m, dtype=np.int64) + 1700000000
            v = rng.integers(10000, 100000, m)
            row = np.empty((m, 26), dtype=np.uint8)
            digits(row, 0, t, 10)
            row[:, 10] = ord(",")
            digits(row, 11, p // 10000, 3)
            row[:, 14] = ord(".")
            digits(row, 15, p % 10000, 4)
            row[:, 19] = ord(",")
            digits(row, 20, v, 5)
            row[:, 25] = ord("\n")
            f.write(row.tobytes())


if __name__ == "__main__":
    main()
