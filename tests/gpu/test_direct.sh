#!/usr/bin/env bash
# tests/gpu/test_direct.sh - the direct input on the GPU backend (a raw or npy file read where it
# lies, its pages locked in windows: pipeline/direct.c), run by tests/run.sh where a GPU answers:
#   - scan, compact and minmax of raw and npy files (npy data off page boundaries), sizes 0, 1 and
#     not multiples of a chunk or of a window, chunks on and off page boundaries: --host-mem direct,
#     --host-mem pinned (the staged copy) and the CPU backend give the same bytes (cmp);
#   - --stats of a direct run shows the "file pin" row (pages were locked) unless every chunk ran on
#     the CPU while CUDA started, a chain's always does, and a pinned one never does;
#   - a file cut short while read is an error naming it, never a crash or short output.
# Prints PASS/FAIL/SKIP lines for tests/run.sh.
set -u
cd "$(dirname "$0")/../.."
. tests/common.sh
need_gpu gpu_direct

# Did --stats ($1) say every chunk ran on the CPU while CUDA started (no chunk reached the GPU)?
all_warm() {
    local chunks first
    chunks=$(sed -n 's/.*elements .* \([0-9][0-9]*\) chunks.*/\1/p' "$1" | head -1)
    first=$(sed -n 's/.*the first \([0-9][0-9]*\) chunks* (.*/\1/p' "$1" | head -1)
    [ -n "$chunks" ] && [ "$first" = "$chunks" ]
}

ops=("scan" "scan --op max --exclusive" "compact --pred gt:0" "compact --pred nonzero --indices" "minmax -w 500"
    "minmax -w 70000 --partial")
# elements: 0, 1, a page's worth and one, 3 chunks of 1M and a bit, 11 windows of 4 chunks of 1M and a bit
sizes=(0 1 1025 $((3 * 262144 + 17)) $((11 * 4 * 262144 + 12345)))
for n in "${sizes[@]}"; do
    "$G" gen -q -n "$n" -t i32 --dist sparse:0.5 --seed "$n" -f "$T/in.raw"
    "$G" convert -q -t i32 "$T/in.raw" -f "$T/in.npy"
    for f in raw npy; do
        for chunk in 1M 1000000; do # 1M: chunks on page boundaries (raw); 1000000 B: off them
            for op in "${ops[@]}"; do
                # shellcheck disable=SC2086
                "$G" $op -t i32 --backend cpu --chunk $chunk "$T/in.$f" -f "$T/cpu" -q 2>"$T/err.cpu"
                rc_c=$?
                # shellcheck disable=SC2086
                "$G" $op -t i32 --backend gpu --host-mem pinned --chunk $chunk "$T/in.$f" -f "$T/pinned" -q 2>"$T/err.p"
                rc_p=$?
                # shellcheck disable=SC2086
                "$G" $op -t i32 --backend gpu --host-mem direct --chunk $chunk --stats "$T/in.$f" -f "$T/direct" \
                    2>"$T/err.d"
                rc_d=$?
                name="gpu direct: $op, $n elements, $f, --chunk $chunk"
                if [ $rc_c != 0 ] || [ $rc_p != 0 ] || [ $rc_d != 0 ]; then
                    fail "$name" "exit cpu $rc_c pinned $rc_p direct $rc_d: $(head -c 300 "$T/err.d")"
                elif ! cmp -s "$T/cpu" "$T/direct" || ! cmp -s "$T/cpu" "$T/pinned"; then
                    fail "$name" "outputs differ: $(cmp "$T/cpu" "$T/direct" 2>&1 | head -1) / $(cmp "$T/cpu" "$T/pinned" 2>&1 | head -1)"
                elif [ "$n" -gt $((8 * 262144)) ] && [ $f = raw ] && [ $chunk = 1M ] && ! grep -q "file pin" "$T/err.d" &&
                    ! all_warm "$T/err.d"; then
                    fail "$name" "no 'file pin' row in --stats: $(grep -m1 -E 'input|copied' "$T/err.d")"
                else
                    pass "$name"
                fi
            done
        done
    done
done
n=$((64 * 262144))
"$G" gen -q -n $n -t i32 --seed 3 -f "$T/in.raw"
# a chain runs no chunk on the CPU while CUDA starts: every chunk reads the locked pages
"$G" compact --pred gt:0 then scan -t i32 --backend gpu --host-mem direct --chunk 1M --stats "$T/in.raw" \
    -f /dev/null 2>"$T/err.d"
if grep -q "file pin" "$T/err.d"; then pass "gpu direct: a chain's chunks read locked file pages ('file pin' row)"
else fail "gpu direct: a chain's chunks read locked file pages ('file pin' row)" "$(grep -m3 -E 'input|copied|backend' "$T/err.d")"; fi
"$G" scan -t i32 --backend gpu --host-mem pinned --chunk 1M --stats "$T/in.raw" -f "$T/pinned" 2>"$T/err.p"
if grep -q "file pin" "$T/err.p"; then fail "gpu direct: --host-mem pinned locks no file pages" "$(grep "file pin" "$T/err.p")"
else pass "gpu direct: --host-mem pinned locks no file pages"; fi

# A file cut to a quarter while read: the output goes to a FIFO drained only after 2 s, so the run
# stalls a few chunks in (bounded queues) and meets the cut when it goes on: an error, exit 1.
n=$((1 << 28))
"$G" gen -q -n $n -t i32 --seed 5 -f "$T/big.raw"
mkfifo "$T/fifo"
(cat "$T/fifo" | (sleep 2; cat >/dev/null)) &
cpid=$!
"$G" scan -t i32 --backend gpu --host-mem direct --chunk 1M "$T/big.raw" -f "$T/fifo" -q 2>"$T/err.cut" &
pid=$!
sleep 1
truncate -s $n "$T/big.raw"
wait $pid
rc=$?
wait $cpid
if [ $rc = 1 ] && grep -q "shrank" "$T/err.cut"; then
    pass "gpu direct: a file cut short while read is an error"
else
    fail "gpu direct: a file cut short while read is an error" "exit $rc: $(head -c 300 "$T/err.cut")"
fi
