#!/usr/bin/env bash
# tests/bench/startup.sh - what a run costs around its work: OPS (default scan) of raw i32 files of
# SIZES (default 4K) in /dev/shm to /dev/null with --backend cpu, gpu and auto, the process's wall
# time; then, for BIN, auto's choice and its reason, and the time outside --stats' wall (the process
# minus the engine's run: exec, option parsing, the end of the process and, on the GPU backend,
# the driver's teardown of the CUDA context after the exit), with CUDA's start-up and the release
# of staging and device memory from --stats=json.
#   bash tests/bench/startup.sh                                    (a 4 KB input)
#   SIZES="4K 64M 4G 8G 16G" OPS="scan|compact --pred nonzero|minmax -w 500" bash tests/bench/startup.sh
#   BASE=/path/to/old/gpustream bash tests/bench/startup.sh        (both binaries, run for run in turn)
# BACKENDS: default "cpu gpu auto" ("cpu auto" without a GPU).
. "$(dirname "$0")/lib.sh"
SIZES=${SIZES:-4K}
IFS='|' read -r -a ops <<<"${OPS:-scan}"
BACKENDS=${BACKENDS:-$(has_gpu && echo "cpu gpu auto" || echo "cpu auto")}
header "startup: ${ops[*]} on raw i32 files of $SIZES -> /dev/null; backends $BACKENDS"
for s in $SIZES; do
    "$BIN" gen -q -n $(($(bytes_of "$s") / 4)) -t i32 --dist sparse:0.5 -f "$D/in_$s.raw" || exit 1
done
json() { grep -oE "\"$1\":([-0-9.]*|null)" | head -1 | cut -d: -f2 | sed 's/^null$/-1/'; } # null: not measured
for op in "${ops[@]}"; do
    for s in $SIZES; do
        for b in $BACKENDS; do
            # shellcheck disable=SC2086
            in_turn "$op $s --backend $b" @BIN@ $op -t i32 --backend $b "$D/in_$s.raw" -f /dev/null
        done
        # shellcheck disable=SC2086
        echo "  auto: $("$BIN" $op -t i32 --stats "$D/in_$s.raw" -f /dev/null 2>&1 | sed -n 's/^gpustream [a-z ]*: //p' | head -1)"
        for b in $BACKENDS; do
            [ "$b" = auto ] && continue
            : >"$D/outside"
            : >"$D/init"
            : >"$D/release"
            for r in $(seq 0 "$REPS"); do
                t0=$(date +%s.%N)
                # shellcheck disable=SC2086
                "$BIN" $op -t i32 --backend "$b" --stats=json "$D/in_$s.raw" -f /dev/null 2>"$D/j" >/dev/null
                t1=$(date +%s.%N)
                [ "$r" = 0 ] && continue
                w=$(grep '^{' "$D/j" | json wall_s)
                awk -v a="$t0" -v z="$t1" -v w="${w:-0}" 'BEGIN { printf "%.4f\n", z - a - w }' >>"$D/outside"
                grep '^{' "$D/j" | json cuda_init_s >>"$D/init"
                grep '^{' "$D/j" | json release_s >>"$D/release"
            done
            init=$(median <"$D/init")
            case $init in -*) init="not started" ;; *) init="$init s" ;; esac
            printf '  --backend %-4s outside --stats wall %s s; cuda init %s; release %s s (BIN, medians)\n' "$b" \
                "$(median <"$D/outside")" "$init" "$(median <"$D/release")"
        done
    done
done
