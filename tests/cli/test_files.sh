#!/usr/bin/env bash
# tests/cli/test_files.sh - raw and npy values written to a regular file in puts at their offsets
# (io/file_values.c: one pwrite stream, or with 16 threads on tmpfs pieces copied into a mapping):
# the same bytes as through a pipe, for a size known ahead (the file sized first, then trimmed) and
# not (compact), npy headers right either way, stdout redirected into a file between other writers'
# bytes (written, and mapped at an offset off a page), -f over a larger file, an output longer than
# one mapped window.
# Prints PASS/FAIL lines for tests/run.sh.
set -u
cd "$(dirname "$0")/../.."
. tests/common.sh

n=12000017 # 48 MB of i32: pieces of 2 MiB and more, an odd tail
"$G" gen -q -n $n -t i32 --dist sparse:0.5 --seed 9 -f "$T/in.raw"
check() { # name cmd...: OUT file against the same verb's bytes through a pipe
    local name=$1
    shift
    "$@" "$T/in.raw" -f "$T/out" -q && "$@" "$T/in.raw" -q | cmp -s - "$T/out" &&
        pass "files: $name" || fail "files: $name" "$(cmp <("$@" "$T/in.raw" -q) "$T/out" 2>&1 | head -1)"
}
check "scan, raw file" "$G" scan -t i32 --threads 2
check "minmax -w 500, raw file" "$G" minmax -w 500 -t i32 --threads 2
check "compact (size unknown ahead), raw file" "$G" compact --pred gt:0 -t i32 --threads 2
check "scan, raw file, 16 threads" "$G" scan -t i32 --threads 16
check "compact (size unknown ahead), raw file, 16 threads" "$G" compact --pred gt:0 -t i32 --threads 16

for v in "scan" "compact --pred nonzero" "minmax -w 7"; do
    # shellcheck disable=SC2086
    "$G" $v -t i32 "$T/in.raw" -f "$T/o.npy" -q
    # shellcheck disable=SC2086
    "$G" $v -t i32 "$T/in.raw" -q >"$T/o.raw"
    if ! have_numpy; then
        skip "files: $v, npy file" "numpy is not installed"
    elif python3 -c "
import numpy as np, sys
a = np.load(sys.argv[1]); b = np.fromfile(sys.argv[2], dtype=np.int32)
sys.exit(0 if a.dtype == np.int32 and a.reshape(-1).tobytes() == b.tobytes() else 1)" "$T/o.npy" "$T/o.raw"; then
        pass "files: $v, npy file"
    else
        fail "files: $v, npy file" "numpy reads other values (or another dtype)"
    fi
done

# stdout into a file, between bytes written before and after by others: the offset follows
{ printf head; "$G" scan -t i32 "$T/in.raw" -f -; printf tail; } >"$T/so"
bytes=$(stat -c %s "$T/so")
if [ "$bytes" = $((n * 4 + 8)) ] && [ "$(head -c 4 "$T/so")" = head ] && [ "$(tail -c 4 "$T/so")" = tail ] &&
    tail -c +5 "$T/so" | head -c $((n * 4)) | cmp -s - <("$G" scan -t i32 "$T/in.raw" -q); then
    pass "files: stdout redirected to a file keeps its offset"
else
    fail "files: stdout redirected to a file keeps its offset" "$bytes bytes"
fi

# -f over a larger file: the output is exactly its own size
head -c $((n * 8)) /dev/zero >"$T/big"
"$G" scan -t i32 "$T/in.raw" -f "$T/big" -q -f
[ "$(stat -c %s "$T/big")" = $((n * 4)) ] && pass "files: -f over a larger file" ||
    fail "files: -f over a larger file" "$(stat -c %s "$T/big") bytes"

# stdout opened for reading and writing (mapped where the write-only redirection is not), at an offset
# of 4 bytes: the pieces land after the bytes before them
: >"$T/so2"
{ printf head; "$G" scan -t i32 --threads 16 "$T/in.raw" -f -; printf tail; } 1<>"$T/so2"
if [ "$(stat -c %s "$T/so2")" = $((n * 4 + 8)) ] && [ "$(head -c 4 "$T/so2")" = head ] &&
    [ "$(tail -c 4 "$T/so2")" = tail ] && tail -c +5 "$T/so2" | head -c $((n * 4)) | cmp -s - <("$G" scan -t i32 "$T/in.raw" -q); then
    pass "files: stdout open read-write at an offset off a page"
else
    fail "files: stdout open read-write at an offset off a page" "$(stat -c %s "$T/so2") bytes"
fi

# the pieces go through the mapping (seen in the system calls) with 16 threads on tmpfs, not with 2
mapped() { # threads: the number of MADV_POPULATE_WRITE calls of a scan to a file (LeakSanitizer, in a
    # SANITIZE=1 build, stops a traced process: the leak check is left out here)
    ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 strace -f -e trace=madvise -o "$T/st" "$G" scan -t i32 --threads "$1" "$T/in.raw" -f "$T/o2.raw" -q 2>/dev/null &&
        grep -c MADV_POPULATE_WRITE "$T/st"
}
if ! command -v strace >/dev/null 2>&1; then
    skip "files: pieces copied into a mapping of a tmpfs file" "no strace here"
elif [ "$(stat -f -c %T "$T")" != tmpfs ]; then
    skip "files: pieces copied into a mapping of a tmpfs file" "$T is not on tmpfs"
else
    m16=$(mapped 16)
    m2=$(mapped 2)
    [ "${m16:-0}" -gt 0 ] && [ "${m2:-1}" = 0 ] && pass "files: pieces copied into a mapping of a tmpfs file" ||
        fail "files: pieces copied into a mapping of a tmpfs file" "MADV_POPULATE_WRITE calls: ${m16:-none} with 16 threads (want some), ${m2:-none} with 2 (want 0)"
fi

# 1.2 GB out (minmax's two columns of 150M i32): more than one window of the mapping (1 GiB)
rm -f "$T"/*.raw "$T"/*.npy "$T/so" "$T/so2" "$T/big"
"$G" gen -q -n 150000001 -t i32 --seed 3 -f "$T/in.raw"
"$G" minmax -w 3 -t i32 --threads 16 "$T/in.raw" -f "$T/mm.raw" -q
a=$(md5sum <"$T/mm.raw"); rm -f "$T/mm.raw"
b=$("$G" minmax -w 3 -t i32 "$T/in.raw" -q | md5sum)
[ "$a" = "$b" ] && pass "files: 1.2 GB output, the mapping moved on" || fail "files: 1.2 GB output, the mapping moved on" "$a against $b"
