#!/usr/bin/env python3
"""tests/bench/libraries.py - the same operations in other libraries, beside `gpustream bench`: scan of
i32 (cumsum with an i32 result), compaction of the nonzero values with about half of them zero
(x[x != 0]) and the sliding minimum and maximum over W = 500 (minimum_filter1d + maximum_filter1d,
on the same values as f32).
  GPU: --n-gpu elements (default 2^28) in device memory, CUDA events, the median of 10 after a
       warm-up (3 for the filters): CuPy (cupy, cupyx.scipy.ndimage) and PyTorch;
  CPU: --n-cpu elements (default 2^24), one thread, the median of 3 (1 for the filter): NumPy, SciPy.
A library that is not installed, or a GPU library without a device, prints a SKIP line.
    python3 tests/bench/libraries.py [--n-gpu 2^28] [--n-cpu 2^24]
Each line: library, operation, n, ms, Gelem/s."""
import argparse
import time

W = 500


def count(s):
    return 2 ** int(s[2:]) if s.startswith("2^") else int(float(s))


def report(lib, op, n, ms):
    print(f"{lib:6s} {op:24s} n={n:<11d} {ms:10.3f} ms {n / ms / 1e6:9.3f} Gelem/s", flush=True)


def median(ts):
    return sorted(ts)[len(ts) // 2]


def cpu_ms(f, reps):
    f()
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        f()
        ts.append((time.perf_counter() - t0) * 1e3)
    return median(ts)


def gpu_ms(f, event, sync, reps):
    f()
    sync()
    ts = []
    for _ in range(reps):
        a, b = event(), event()
        a.record()
        f()
        b.record()
        b.synchronize()
        ts.append(a.elapsed_time(b))
    return median(ts)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n-gpu", default="2^28")
    ap.add_argument("--n-cpu", default="2^24")
    a = ap.parse_args()
    ng, nc = count(a.n_gpu), count(a.n_cpu)
    try:
        import numpy as np
    except ImportError:
        print("SKIP numpy: not installed (every library here is timed on NumPy's data)")
        return
    def data(n):  # values 0..99, about half of them zero
        rng = np.random.default_rng(1)
        return rng.integers(0, 100, n, dtype=np.int32) * rng.integers(0, 2, n, dtype=np.int32)
    hc = data(nc)
    report("numpy", "cumsum i32", nc, cpu_ms(lambda: np.cumsum(hc, dtype=np.int32), 3))
    report("numpy", "x[x != 0]", nc, cpu_ms(lambda: hc[hc != 0], 3))
    try:
        import scipy.ndimage as sn
        hf = hc.astype(np.float32)
        report("scipy", "min + max filter W=500", nc, cpu_ms(lambda: (sn.minimum_filter1d(hf, W), sn.maximum_filter1d(hf, W)), 1))
    except ImportError:
        print("SKIP scipy: not installed")
    hg = None
    try:
        import cupy as cp
        import cupyx.scipy.ndimage as cn
        if cp.cuda.runtime.getDeviceCount() < 1:
            raise ImportError
        hg = data(ng)
        d = cp.asarray(hg)
        df = d.astype(cp.float32)
        ev, sync = cp.cuda.Event, cp.cuda.Device().synchronize
        report("cupy", "cumsum i32", ng, gpu_ms(lambda: cp.cumsum(d, dtype=cp.int32), ev, sync, 10))
        report("cupy", "x[x != 0]", ng, gpu_ms(lambda: d[d != 0], ev, sync, 10))
        report("cupy", "min + max filter W=500", ng,
               gpu_ms(lambda: (cn.minimum_filter1d(df, W), cn.maximum_filter1d(df, W)), ev, sync, 3))
    except Exception as e:  # not installed, or no device (CuPy raises its own CUDA errors)
        print(f"SKIP cupy: {type(e).__name__}")
    try:
        import torch
        if not torch.cuda.is_available():
            raise ImportError
        t = torch.from_numpy(hg if hg is not None else data(ng)).cuda()
        ev, sync = (lambda: torch.cuda.Event(enable_timing=True)), torch.cuda.synchronize
        report("torch", "cumsum i32", ng, gpu_ms(lambda: torch.cumsum(t, 0, dtype=torch.int32), ev, sync, 10))
        report("torch", "x[x != 0]", ng, gpu_ms(lambda: t[t != 0], ev, sync, 10))
    except ImportError:
        print("SKIP torch: not installed, or no CUDA device for it")


if __name__ == "__main__":
    main()
