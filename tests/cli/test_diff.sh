#!/usr/bin/env bash
# tests/cli/test_diff.sh - the differential tester (tests/diff/difftest.py) for a bounded time:
# random verbs, chains, formats, chunkings, threads, backends, input paths and (where mpirun and an
# MPI build are present) ranks, each against numpy. The seed comes from the clock and is printed;
# `python3 tests/diff/difftest.py --seed N --case K` replays a failing case. DIFF_SECONDS (default
# 60) bounds it; `make difftest` runs it longer. SKIP where python3 or numpy is missing.
# PASS/FAIL/SKIP lines for tests/run.sh.
set -u
cd "$(dirname "$0")/../.."
G=${G:-./gpustream}
if ! command -v python3 >/dev/null 2>&1; then echo "SKIP difftest: no python3"; exit 0; fi
if ! python3 -c 'import numpy' >/dev/null 2>&1; then echo "SKIP difftest: numpy is not installed"; exit 0; fi
exec python3 -B tests/diff/difftest.py --gpustream "$G" --seconds "${DIFF_SECONDS:-60}" ${DIFF_SEED:+--seed "$DIFF_SEED"}
