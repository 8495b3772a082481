#!/usr/bin/env bash
# tests/bench/mpi.sh - MPI ranks over one file on one host (docs/SCALING.md):
#   1. mpirun's own cost: `mpirun -n RANKS true` with hwloc's I/O-device discovery on and off;
#   2. the outputs of 1 process and RANKS ranks compared (cmp) on a file of at most 1 GiB;
#   3. SIZE (default 32G) of raw i32 (sparse:0.5) in /dev/shm to /dev/null: scan, compact --pred
#      nonzero and minmax -w 500 as one process, under `mpirun -n 1` and `mpirun -n RANKS`, the whole
#      launch's wall time, and the speed-up of RANKS ranks over one process;
#   4. BIN's --stats of RANKS ranks (MPI_Init, MPI_Finalize, each stage's spread over the ranks).
# Every mpirun has MCA (default "--mca pml ob1 --mca btl self,vader"; MCA= for Open MPI's default)
# and, from step 2, HWLOC_COMPONENTS (default: the I/O-device components left out).
#   bash tests/bench/mpi.sh                           (BACKEND gpu where a GPU answers, else cpu)
#   SIZE=64M REPS=1 bash tests/bench/mpi.sh           (no GPU)
# Needs mpirun and a BIN built with MPI, else one SKIP line.
. "$(dirname "$0")/lib.sh"
command -v mpirun >/dev/null || { echo "SKIP mpi: no mpirun on this machine"; exit 0; }
"$BIN" info | grep -q '^mpi  *Open MPI' || { echo "SKIP mpi: $BIN is built without MPI"; exit 0; }
R=(mpirun --oversubscribe --allow-run-as-root --bind-to none)
SIZE=${SIZE:-32G}
RANKS=${RANKS:-2}
BACKEND=${BACKEND:-$(has_gpu && echo gpu || echo cpu)}
# shellcheck disable=SC2206
MCA=(${MCA---mca pml ob1 --mca btl self,vader})
HW=-linuxio,-pci,-nvml,-cuda,-opencl,-gl,-rsmi,-levelzero
header "mpi: $RANKS ranks, --backend $BACKEND, $SIZE raw i32 -> /dev/null; mpirun ${MCA[*]}"
mpirun --version 2>&1 | head -1
"$BIN" info | grep -E '^(mpi|devices)'

BASE='' in_turn "mpirun -n $RANKS true, hwloc's device discovery on" env -u HWLOC_COMPONENTS "${R[@]}" -n "$RANKS" true
BASE='' in_turn "mpirun -n $RANKS true, HWLOC_COMPONENTS=$HW" env HWLOC_COMPONENTS=$HW "${R[@]}" -n "$RANKS" true
export HWLOC_COMPONENTS=${HWLOC_COMPONENTS-$HW}

ops=("scan" "compact --pred nonzero" "minmax -w 500")
small=$(bytes_of "$SIZE")
[ "$small" -gt $((1 << 30)) ] && small=$((1 << 30))
"$BIN" gen -q -n $((small / 4)) -t i32 --dist sparse:0.5 -f "$D/small.raw" || exit 1
for op in "${ops[@]}"; do
    # shellcheck disable=SC2086
    "$BIN" $op --backend "$BACKEND" -q -t i32 "$D/small.raw" -f "$D/o1.raw"
    # shellcheck disable=SC2086
    "${R[@]}" "${MCA[@]}" -n "$RANKS" "$BIN" $op --backend "$BACKEND" -q -t i32 "$D/small.raw" -f "$D/ok.raw"
    if cmp -s "$D/o1.raw" "$D/ok.raw"; then echo "same output from 1 process and $RANKS ranks ($small B in): $op"
    else echo "OUTPUTS DIFFER between 1 process and $RANKS ranks: $op"; fi
done
rm -f "$D"/small.raw "$D"/o1.raw "$D"/ok.raw

"$BIN" gen -q -n $(($(bytes_of "$SIZE") / 4)) -t i32 --dist sparse:0.5 -f "$D/big.raw" || exit 1
for op in "${ops[@]}"; do
    args=(-t i32 --backend "$BACKEND" -q "$D/big.raw" -f /dev/null)
    # shellcheck disable=SC2086
    in_turn "$op, 1 process" @BIN@ $op "${args[@]}"
    one=$MED
    # shellcheck disable=SC2086
    in_turn "$op, mpirun -n 1" "${R[@]}" "${MCA[@]}" -n 1 @BIN@ $op "${args[@]}"
    # shellcheck disable=SC2086
    in_turn "$op, mpirun -n $RANKS" "${R[@]}" "${MCA[@]}" -n "$RANKS" @BIN@ $op "${args[@]}"
    echo "  $RANKS ranks against 1 process: $(awk -v a="$one" -v b="$MED" 'BEGIN { printf "%.2f", a / b }')x"
done
for op in "${ops[@]}"; do
    echo "-- BIN's --stats, $RANKS ranks: $op"
    # shellcheck disable=SC2086
    "${R[@]}" "${MCA[@]}" -n "$RANKS" "$BIN" $op -t i32 --backend "$BACKEND" "$D/big.raw" -f /dev/null --stats 2>&1 | grep -vE '^ *$'
done
