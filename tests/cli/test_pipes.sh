#!/usr/bin/env bash
# tests/cli/test_pipes.sh - IN named as a pipe: process substitution, /dev/stdin on a pipe and a
# named FIFO. Nothing but the reader may read such an input (a byte read by anyone else is lost),
# so every verb and a chain, on small inputs (under and over 4 KiB) and on inputs of many chunks,
# must give exactly what the same command gives on the regular file, with the default backend.
# A FIFO that is never written must not be opened twice (the run would hang): every run is bounded.
# PASS/FAIL/SKIP lines for tests/run.sh.
set -u
cd "$(dirname "$0")/../.."
. tests/common.sh
TO="timeout 60"

# same NAME FILE ARGS...: the command on FILE (regular) against the same on the three pipe forms
same() {
    local name=$1 file=$2; shift 2
    if ! $TO $G "$@" "$file" - >"$T/want" 2>"$T/want.err"; then
        fail "${name}_file" "exit $? on the regular file: $(head -c 300 "$T/want.err")"; return
    fi
    # process substitution
    $TO $G "$@" <(cat "$file") - >"$T/got" 2>"$T/err"
    local rc=$?
    if [ $rc -ne 0 ]; then fail "${name}_procsub" "exit $rc: $(head -c 300 "$T/err")"
    elif cmp -s "$T/want" "$T/got"; then pass "${name}_procsub"
    else fail "${name}_procsub" "$(stat -c %s "$T/got") bytes, want $(stat -c %s "$T/want") (or other bytes)"; fi
    # /dev/stdin on a pipe
    cat "$file" | $TO $G "$@" /dev/stdin - >"$T/got" 2>"$T/err"
    rc=${PIPESTATUS[1]}
    if [ "$rc" -ne 0 ]; then fail "${name}_devstdin" "exit $rc: $(head -c 300 "$T/err")"
    elif cmp -s "$T/want" "$T/got"; then pass "${name}_devstdin"
    else fail "${name}_devstdin" "$(stat -c %s "$T/got") bytes, want $(stat -c %s "$T/want") (or other bytes)"; fi
    # a named FIFO
    rm -f "$T/fifo"; mkfifo "$T/fifo"
    (cat "$file" >"$T/fifo") &
    local writer=$!
    $TO $G "$@" "$T/fifo" - >"$T/got" 2>"$T/err"
    rc=$?
    kill $writer 2>/dev/null; wait $writer 2>/dev/null
    if [ $rc -ne 0 ]; then fail "${name}_fifo" "exit $rc: $(head -c 300 "$T/err")"
    elif cmp -s "$T/want" "$T/got"; then pass "${name}_fifo"
    else fail "${name}_fifo" "$(stat -c %s "$T/got") bytes, want $(stat -c %s "$T/want") (or other bytes)"; fi
}

# sizes: 1 element, under 4 KiB, just over, and many chunks
for n in 1 1000 1025 100000; do
    $G gen -q -n $n -t i32 --seed $n "$T/x$n.raw"
    same "scan_$n" "$T/x$n.raw" scan -q -t i32 -f
    same "compact_$n" "$T/x$n.raw" compact -q --pred gt:0 -t i32 -f
    same "minmax_$n" "$T/x$n.raw" minmax -q -w 7 --partial -t i32 -f
    same "convert_$n" "$T/x$n.raw" convert -q -t i32 --to text
    same "chain_$n" "$T/x$n.raw" compact -q --pred gt:0 then scan then minmax -w 3 --only max -t i32 -f
done
same count_100000 "$T/x100000.raw" compact -q --count --pred gt:0 -t i32
same chunks_100000 "$T/x100000.raw" scan -q -t i32 --chunk 4K -f

# zstd through a pipe (detected by its magic, decoded by the reader alone)
if command -v zstd >/dev/null 2>&1; then
    zstd -q -c "$T/x100000.raw" >"$T/x.zst"
    same zstd_scan "$T/x.zst" scan -q -t i32 -f
    zstd -q -c "$T/x1000.raw" >"$T/s.zst"
    same zstd_small "$T/s.zst" scan -q -t i32 -f
else
    skip zstd_pipes "no zstd CLI"
fi
# npy through a pipe (the header is read by the reader alone)
$G convert -q -t i32 "$T/x1025.raw" "$T/x.npy"
same npy_scan "$T/x.npy" scan -q --to raw -f

# a FIFO of under 4 KiB whose writer writes once and closes: the run ends (no second open)
rm -f "$T/fifo2"; mkfifo "$T/fifo2"
(head -c 400 "$T/x1000.raw" >"$T/fifo2") &
$TO $G scan -q -t i32 "$T/fifo2" - >"$T/got" 2>"$T/err"
rc=$?
wait
head -c 400 "$T/x1000.raw" | $G scan -q -t i32 - - >"$T/want"
if [ $rc -ne 0 ]; then fail fifo_small_ends "exit $rc: $(head -c 300 "$T/err")"
elif cmp -s "$T/want" "$T/got"; then pass fifo_small_ends
else fail fifo_small_ends "output differs"; fi
