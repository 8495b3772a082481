#!/usr/bin/env bash
# tests/cli/test_numconv.sh - the text gpustream prints for floats against an independent oracle:
# hostile f64 values (random bits, denormals, powers of two, integers, prices, the edges) through
# `convert --to csv` must print exactly Python's repr (without its ".0" on integers), and f32
# values the same decimal as numpy's shortest (np.format_float_scientific, unique=True); the
# printed text read back by numpy gives the same bits. PASS/FAIL/SKIP lines for tests/run.sh.
set -u
cd "$(dirname "$0")/../.."
. tests/common.sh

if ! command -v python3 >/dev/null || ! python3 -c 'import numpy' 2>/dev/null; then
    skip numconv_repr "python3 with numpy missing"
    exit 0
fi

python3 - "$T" <<'PY'
import sys, numpy as np
d = sys.argv[1]
rng = np.random.default_rng(36)
n = 200000
bits = rng.integers(0, 2**63, n, dtype=np.uint64) | (rng.integers(0, 2, n, dtype=np.uint64) << np.uint64(63))
parts = [
    bits.view(np.float64),                                              # any bits
    (bits & np.uint64(0x800fffffffffffff)).view(np.float64),            # denormals
    np.ldexp(1.0, rng.integers(-1074, 1024, 20000)),                    # powers of two
    rng.integers(-2**62, 2**62, 20000).astype(np.float64),              # integers
    np.round(np.cumsum(rng.normal(0, 0.01, 50000)) + 100, 4),           # a 4-decimal price walk
    np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e308, -1e308, 1.7976931348623157e308, 2.2250738585072014e-308,
              5e-324, 1e16, 9999999999999998.0, 1e15, 1e-4, 9.999999999999999e-05, 0.1, 0.3, 1e23, 123.456]),
]
x = np.concatenate(parts)
x.tofile(d + "/f64.raw")
with open(d + "/f64.want", "w") as f:
    for v in x.tolist():
        s = repr(v)
        f.write((s[:-2] if s.endswith(".0") else s) + "\n")
# f32: numpy's shortest digits (Dragon4), compared as decimal values
fb = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
y = np.concatenate([fb.view(np.float32), (fb & np.uint32(0x807fffff)).view(np.float32),
                    np.float32(np.round(np.cumsum(rng.normal(0, 0.01, 50000)) + 100, 4)),
                    np.array([0.0, 1e-4, 1e16, 3.4028235e38, 1e-45, 16777216.0, 0.1], dtype=np.float32)])
y = y[np.isfinite(y)]
y.tofile(d + "/f32.raw")
with open(d + "/f32.want", "w") as f:
    for v in y:
        f.write(np.format_float_scientific(v, unique=True, trim="-") + "\n")
PY

# f64: exact text
if $G convert -q --from raw -t f64 "$T/f64.raw" --to csv -f "$T/f64.csv" 2>"$T/err"; then
    if cmp -s "$T/f64.csv" "$T/f64.want"; then pass numconv_f64_repr
    else fail numconv_f64_repr "$(diff "$T/f64.csv" "$T/f64.want" | head -6 | tr '\n' ' ')"; fi
else fail numconv_f64_repr "exit $?: $(head -c 300 "$T/err")"; fi

# f32: same decimal value and digit count as numpy's shortest, and numpy reads the same bits back
if $G convert -q --from raw -t f32 "$T/f32.raw" --to csv -f "$T/f32.csv" 2>"$T/err"; then
    r=$(python3 - "$T" <<'PY'
import sys, numpy as np
from decimal import Decimal
d = sys.argv[1]
got = open(d + "/f32.csv").read().split()
want = open(d + "/f32.want").read().split()
y = np.fromfile(d + "/f32.raw", dtype=np.float32)
bad = [i for i, (g, w) in enumerate(zip(got, want)) if Decimal(g) != Decimal(w)]
back = np.array(got, dtype=np.float32)
if len(got) != len(want): print("count", len(got), len(want))
elif bad: print("differ at", bad[:3], [got[i] for i in bad[:3]], [want[i] for i in bad[:3]])
elif back.view(np.uint32).tolist() != y.view(np.uint32).tolist(): print("numpy reads other bits back")
else: print("ok")
PY
)
    if [ "$r" = ok ]; then pass numconv_f32_shortest; else fail numconv_f32_shortest "$r"; fi
else fail numconv_f32_shortest "exit $?: $(head -c 300 "$T/err")"; fi
