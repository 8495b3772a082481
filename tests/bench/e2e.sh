#!/usr/bin/env bash
# tests/bench/e2e.sh - whole runs from a raw i32 file in the page cache (/dev/shm) to /dev/null:
# scan, compact --pred nonzero, minmax -w 500 and the chain of the three, per backend, the process's
# wall time (its start, CUDA's start and its exit included); then the chain's three verbs as three
# processes in a shell pipeline, and BIN's --stats of each op on the first backend.
#   bash tests/bench/e2e.sh                                   (16 GiB: 2^32 i32, sparse:0.5)
#   BASE=/path/to/old/gpustream bash tests/bench/e2e.sh       (both binaries, run for run in turn)
#   OPTS="--chunk 64M" bash tests/bench/e2e.sh                (options given to every run)
#   SIZE=64M BACKENDS=cpu REPS=1 bash tests/bench/e2e.sh      (no GPU)
# OPS: the operations, separated by '|'; BACKENDS (default "gpu cpu", "cpu" without a GPU).
. "$(dirname "$0")/lib.sh"
SIZE=${SIZE:-16G}
CHAIN="compact --pred nonzero then scan then minmax -w 500 --only max"
IFS='|' read -r -a ops <<<"${OPS:-scan|compact --pred nonzero|minmax -w 500|$CHAIN}"
BACKENDS=${BACKENDS:-$(has_gpu && echo "gpu cpu" || echo cpu)}
OPTS=${OPTS:-}
header "e2e: $SIZE raw i32 (sparse:0.5) in $D -> /dev/null; backends $BACKENDS${OPTS:+; options $OPTS}"
bytes=$(bytes_of "$SIZE")
"$BIN" gen -q -n $((bytes / 4)) -t i32 --dist sparse:0.5 -f "$D/in.raw" || exit 1
for op in "${ops[@]}"; do
    for b in $BACKENDS; do
        # shellcheck disable=SC2086
        in_turn "$op --backend $b" @BIN@ $op -t i32 --backend $b $OPTS "$D/in.raw" -f /dev/null
    done
done
first=${BACKENDS%% *}
# shellcheck disable=SC2016
in_turn "compact | scan | minmax --only max, 3 processes, --backend $first" bash -c \
    '"$0" compact --pred nonzero -t i32 --backend $2 -q "$1" | "$0" scan -t i32 --backend $2 -q |
     "$0" minmax -w 500 --only max -t i32 --backend $2 -q' @BIN@ "$D/in.raw" "$first"
echo "-- BIN's --stats, --backend $first"
for op in "${ops[@]}"; do
    # shellcheck disable=SC2086
    "$BIN" $op -t i32 --backend "$first" $OPTS "$D/in.raw" -f /dev/null --stats 2>&1 | grep -vE '^ *$'
done
