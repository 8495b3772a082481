#!/usr/bin/env bash
# tests/gpu/run.sh - what a GPU machine is needed for, in one call: the build, `make test` (where a
# GPU answers it runs the GPU programs and tests/gpu/test_*.sh too), then benchmarks, each one
# experiment in its own script under tests/bench/. Logs under $OUT (default /tmp/gs-out).
#   bash tests/gpu/run.sh                          STEPS="build test kernels e2e zstd startup"
#   BASE=/path/to/old/gpustream STEPS="build kernels e2e" bash tests/gpu/run.sh
#   BASE_REV=<commit> STEPS="build base kernels e2e zstd startup" bash tests/gpu/run.sh
# Steps, run in the order given:
#   build     make CUDA=1 GPU_ARCH=$GPU_ARCH (default sm_90): ./gpustream, the binary timed (BIN)
#   test      make test on that build (FUZZ_SECONDS, default 0: the fuzz targets' seeds only)
#   base      the commit BASE_REV built into build/base/<rev> (needs the repository's .git), timed
#             beside BIN as BASE by the steps after it
#   kernels e2e zstd startup mpi csv    bash tests/bench/<step>.sh (each script's header says
#             what it runs and which settings it takes: SIZE, REPS, BACKENDS, ...)
#   libraries python3 tests/bench/libraries.py (CuPy, PyTorch, NumPy, SciPy where installed)
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/gs-out}
export OUT
mkdir -p "$OUT"
STEPS=${STEPS:-build test kernels e2e zstd startup}
GPU_ARCH=${GPU_ARCH:-sm_90}
J=$(nproc)
log() { echo "== $(date +%T) $*" | tee -a "$OUT/summary.txt"; }

{
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,persistence_mode --format=csv
    echo "$(nproc) cores; $(uname -r); tree $(git rev-parse --short HEAD 2>/dev/null || echo '(no .git)')"
} 2>&1 | tee "$OUT/machine.txt"

build_base() { # REV: the commit's tree in build/base/REV, built with the same options
    local rev=$1 dir=build/base/$1
    [ -x "$dir/gpustream" ] && return 0
    rm -rf "$dir"
    mkdir -p "$dir"
    git archive "$rev" | tar -x -C "$dir" || return 1
    [ -d .deps ] && ln -s "$PWD/.deps" "$dir/.deps"
    make -C "$dir" -j"$J" CUDA=1 GPU_ARCH="$GPU_ARCH" gpustream >"$OUT/build_base.log" 2>&1
}

for step in $STEPS; do
    case $step in
    build)
        log "build: make CUDA=1 GPU_ARCH=$GPU_ARCH"
        make -j"$J" CUDA=1 GPU_ARCH="$GPU_ARCH" all >"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
        ./gpustream info | tee "$OUT/info.txt" | head -12
        ;;
    test)
        log "test: make test"
        FUZZ_SECONDS=${FUZZ_SECONDS:-0} make -j"$J" CUDA=1 GPU_ARCH="$GPU_ARCH" test >"$OUT/test.log" 2>&1
        echo "make test: exit $?"
        grep -E '^FAIL|^SKIP| passed ' "$OUT/test.log" | tail -60
        ;;
    base)
        rev=${BASE_REV:?the base step needs BASE_REV (a commit)}
        log "base: $rev into build/base/$rev"
        build_base "$rev" || { echo "base: $rev did not build"; tail -20 "$OUT/build_base.log" 2>/dev/null; exit 1; }
        BASE=$PWD/build/base/$rev/gpustream
        export BASE
        ;;
    libraries)
        log "libraries: python3 tests/bench/libraries.py"
        python3 tests/bench/libraries.py 2>&1 | tee "$OUT/libraries.txt"
        ;;
    *)
        [ -f "tests/bench/$step.sh" ] || { echo "run.sh: no step '$step' (no tests/bench/$step.sh)"; exit 2; }
        log "$step: bash tests/bench/$step.sh${BASE:+ (BASE=$BASE)}"
        bash "tests/bench/$step.sh"
        ;;
    esac
done
log "done"
