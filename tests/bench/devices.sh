#!/usr/bin/env bash
# tests/bench/devices.sh - several GPUs in one process: a raw i32 file in the page cache (/dev/shm)
# through scan, compact --pred nonzero and minmax -w 500 to /dev/null, on one GPU (--device 0) and on
# each device list of LISTS (default "0,1", and "all" where the machine has more than two), then the
# same runs on the CPU backend; the outputs of one GPU and of each list are compared (cmp through
# pipes, on a CMP-sized file), and BIN's --stats of each op on the first list is shown.
#   bash tests/bench/devices.sh                           (32 GiB: 2^33 i32, sparse:0.5)
#   SIZE=8G REPS=2 LISTS="0,1 0,0" CMP=2G bash tests/bench/devices.sh
# OPS: the operations, separated by '|'.
. "$(dirname "$0")/lib.sh"
SIZE=${SIZE:-32G}
CMP=${CMP:-4G}
IFS='|' read -r -a ops <<<"${OPS:-scan|compact --pred nonzero|minmax -w 500}"
has_gpu || { echo "devices: no GPU"; exit 0; }
ndev=$("$BIN" info | awk '/^devices/ {print $2}')
LISTS=${LISTS:-$([ "$ndev" -gt 2 ] && echo "0,1 all" || echo "0,1")}
header "devices: $SIZE raw i32 (sparse:0.5) in $D -> /dev/null; one GPU against --device $LISTS ($ndev GPUs)"
bytes=$(bytes_of "$SIZE")
"$BIN" gen -q -n $((bytes / 4)) -t i32 --dist sparse:0.5 -f "$D/in.raw" || exit 1
for op in "${ops[@]}"; do
    for d in 0 $LISTS; do
        # shellcheck disable=SC2086
        in_turn "$op --backend gpu --device $d" @BIN@ $op -t i32 --backend gpu --device "$d" "$D/in.raw" -f /dev/null -q
        [ "$d" = 0 ] && one=$MED
        [ "$d" = 0 ] || echo "   one GPU / --device $d: $(awk -v a="$one" -v b="$MED" 'BEGIN { printf "%.2fx", a / b }')"
    done
    # shellcheck disable=SC2086
    in_turn "$op --backend cpu" @BIN@ $op -t i32 --backend cpu "$D/in.raw" -f /dev/null -q
done
for op in "${ops[@]}"; do
    first=${LISTS%% *}
    echo "-- --stats: $op --backend gpu --device $first -> /dev/null"
    # shellcheck disable=SC2086
    "$BIN" $op -t i32 --backend gpu --device "$first" --stats "$D/in.raw" -f /dev/null 2>&1 | grep -vE '^ *$'
done
# the outputs, byte for byte, on the first CMP bytes of the input
head -c "$(bytes_of "$CMP")" "$D/in.raw" >"$D/cmp.raw"
rm -f "$D/in.raw"
for op in "${ops[@]}"; do
    for d in $LISTS; do
        # shellcheck disable=SC2086
        if cmp <("$BIN" $op -t i32 --backend gpu --device 0 "$D/cmp.raw" -q -) \
            <("$BIN" $op -t i32 --backend gpu --device "$d" "$D/cmp.raw" -q -); then
            echo "equal: $op, $CMP, --device 0 and --device $d"
        else
            echo "DIFFERENT: $op, $CMP, --device 0 and --device $d"
        fi
    done
done
