#!/usr/bin/env bash
# tests/cli/test_build.sh - the build's promises: gpustream never needs libmpi (MPI lives in
# gpustream-mpi beside it, which `mpirun -n K gpustream` runs, and whose absence gpustream names),
# and a second make with nothing changed does nothing, whatever is on the PATH in between (a
# python3 that "has" nvCOMP, an mpicc that fails). The make check runs where BUILD names a plain
# CPU or CUDA build (make test sets it); `make -q` evaluates the Makefile's probes and builds nothing.
set -u
cd "$(dirname "$0")/../.."
. tests/common.sh
REPO=$PWD
MPI_BIN=$(dirname "$G")/gpustream-mpi

if ! command -v ldd >/dev/null; then skip "ldd" "no ldd"
elif ldd "$G" | grep -q libmpi; then fail "gpustream without libmpi" "$(ldd "$G" | grep libmpi)"
else pass "gpustream without libmpi"; fi

if [ -x "$MPI_BIN" ]; then
    if "$G" info | grep -q "^mpi  *in $MPI_BIN "; then pass "info names gpustream-mpi"
    else fail "info names gpustream-mpi" "$("$G" info | grep '^mpi')"; fi
    if "$MPI_BIN" info | grep -q '^mpi  *not built'; then fail "gpustream-mpi has MPI" "$("$MPI_BIN" info | grep '^mpi')"
    else pass "gpustream-mpi has MPI"; fi
else
    if "$G" info | grep -q '^mpi  *not built (no gpustream-mpi beside this binary'; then pass "info: no gpustream-mpi"
    else fail "info: no gpustream-mpi" "$("$G" info | grep '^mpi')"; fi
fi

# Several ranks of a gpustream with no gpustream-mpi beside it: one error line naming it, exit 2.
MPIRUN=$(command -v mpirun)
if [ -z "$MPIRUN" ]; then skip "several ranks without gpustream-mpi" "no mpirun on the PATH"
else
    mkdir -p "$T/alone" && cp "$G" "$T/alone/gpustream"
    "$G" gen -q -n 100 -t i32 "$T/in.raw"
    (cd "$T" && "$MPIRUN" --oversubscribe --allow-run-as-root -n 2 alone/gpustream scan -q in.raw out.raw) >/dev/null 2>"$T/err"
    rc=$?
    if [ "$rc" = 2 ] && [ "$(grep -c '^gpustream: error: .*gpustream-mpi' "$T/err")" = 1 ] && [ ! -e "$T/out.raw" ]; then
        pass "several ranks without gpustream-mpi: refused, naming it"
    else fail "several ranks without gpustream-mpi" "exit $rc: $(grep gpustream "$T/err" | head -c 300)"; fi
fi

# A second make is a no-op with a python3 on the PATH that answers every import (a pip-installed
# nvCOMP, as the build once asked) and an mpicc that fails. Only under make test (MAKEFLAGS holds
# the build's variables, e.g. GPU_ARCH); the stamps are put back as they were whatever make -q does.
case ${BUILD:-} in
build/cpu) cuda=0 ;;
build/cuda) cuda=1 ;;
*) cuda= ;;
esac
if [ -z "$cuda" ] || [ -z "${MAKEFLAGS:-}" ] || ! command -v make >/dev/null; then
    skip "second make does nothing" "BUILD=${BUILD:-unset}: run through make test on a plain build"
else
    mkdir -p "$T/stamps"
    for f in "$BUILD/flags" "$BUILD/mpi-flags" build/linked; do
        if [ -f "$REPO/$f" ]; then cp -p "$REPO/$f" "$T/stamps/${f//\//_}"; fi
    done
    mkdir -p "$T/fake/bin" "$T/fake/nv/include/nvcomp" "$T/fake/nv/lib64"
    : >"$T/fake/nv/include/nvcomp/zstd.h"
    printf '#!/bin/sh\necho %s\n' "$T/fake/nv" >"$T/fake/bin/python3"
    printf '#!/bin/sh\nexit 1\n' >"$T/fake/bin/mpicc"
    chmod +x "$T/fake/bin/python3" "$T/fake/bin/mpicc"
    if PATH=$T/fake/bin:$PATH PYTHONPATH=$T/fake make -C "$REPO" -q CUDA=$cuda gpustream >"$T/make.out" 2>&1; then
        pass "second make does nothing (another python3 and mpicc on the PATH)"
    else fail "second make does nothing" "make -q says gpustream is out of date: $(head -c 300 "$T/make.out")"; fi
    for f in "$BUILD/flags" "$BUILD/mpi-flags" build/linked; do
        s=$T/stamps/${f//\//_}
        if [ -f "$s" ] && ! cmp -s "$s" "$REPO/$f"; then cp -p "$s" "$REPO/$f"; fi
    done
fi
