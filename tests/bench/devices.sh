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
    for d in 0 "${LISTS%% *}"; do
        echo "-- --stats: $op --backend gpu --device $d -> /dev/null"
        # shellcheck disable=SC2086
        "$BIN" $op -t i32 --backend gpu --device "$d" --stats "$D/in.raw" -f /dev/null 2>&1 | grep -vE '^ *$|note:'
    done
done
# the outputs, byte for byte, on the first CMP bytes of the input
head -c "$(bytes_of "$CMP")" "$D/in.raw" >"$D/cmp.raw"
rm -f "$D/in.raw"
# zstd frames that each device decodes and encodes (--codec gpu): ZSIZE of i32 as gen writes it with
# the GPU encoder, through scan -> /dev/null and compact -> a .zst file in $D (removed before each
# run); the compactions' outputs compared
if has_nvcomp && [ "${ZSIZE:-16G}" != 0 ]; then
    zb=$(bytes_of "${ZSIZE:-16G}")
    "$BIN" gen -q -n $((zb / 4)) -t i32 --dist sparse:0.5 -z --codec gpu -f "$D/big.zst" || exit 1
    echo "-- zstd: ${ZSIZE:-16G} of i32 in $(stat -c %s "$D/big.zst") bytes of 32K frames"
    for d in 0 $LISTS; do
        in_turn "scan big.zst --codec gpu --device $d -> /dev/null" @BIN@ scan --codec gpu --backend gpu \
            --device "$d" "$D/big.zst" -f /dev/null -q
        [ "$d" = 0 ] && one=$MED
        [ "$d" = 0 ] || echo "   one GPU / --device $d: $(awk -v a="$one" -v b="$MED" 'BEGIN { printf "%.2fx", a / b }')"
    done
    for d in 0 $LISTS; do
        # shellcheck disable=SC2016
        in_turn "compact --pred nonzero big.zst --codec gpu --device $d -> c.zst" bash -c 'rm -f "$2"; exec "$0" \
            compact --pred nonzero --codec gpu --backend gpu --device "$1" "$3" -f "$2" -q' @BIN@ "$d" "$D/c.$d.zst" \
            "$D/big.zst"
        [ "$d" = 0 ] && one=$MED
        [ "$d" = 0 ] || echo "   one GPU / --device $d: $(awk -v a="$one" -v b="$MED" 'BEGIN { printf "%.2fx", a / b }')"
        [ "$d" = 0 ] || { cmp -s "$D/c.0.zst" "$D/c.$d.zst" && echo "equal: c.zst, --device 0 and --device $d" ||
            echo "DIFFERENT: c.zst, --device 0 and --device $d"; }
    done
    for d in 0 "${LISTS%% *}"; do
        echo "-- --stats: compact --pred nonzero big.zst --codec gpu --device $d"
        "$BIN" compact --pred nonzero --codec gpu --backend gpu --device "$d" --stats "$D/big.zst" -f "$D/c.s.zst" 2>&1 |
            grep -vE '^ *$|note:'
        rm -f "$D/c.s.zst"
    done
    rm -f "$D"/c.*.zst "$D/big.zst"
fi
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
