#!/usr/bin/env bash
# tests/cli/test_sizes.sh - size property: every size-taking option (-n, --window, --chunk,
# --frame-size, --device-mem-limit, --buffers, --threads, --level) at 0, 1, 2^31+-1, 2^32+-1, 2^53,
# 2^62, 2^63-1, 2^63, 2^64-1 and 1e30 gives a correct run or a one-line error: never a signal, a
# hang (30 s), a stray message or a file left behind. A run that succeeds is checked for its output
# size (or, for zstd, that the zstd CLI reads it). Bench runs under a 4 GiB address-space limit (a
# malloc limit under ASan), so sizes that need more memory than that are refused, not attempted.
# PASS/FAIL lines for tests/run.sh.
set -u
cd "$(dirname "$0")/../.."
. tests/common.sh
asan=0
grep -q __asan_init "$G" 2>/dev/null && asan=1
D=$T/d
mkdir -p "$D"
$G gen -q -n 3000 -t i32 "$D/in.raw" # over 1023 elements: huge windows once overflowed here
VALUES="0 1 2147483647 2^31 2147483649 4294967295 2^32 4294967297 2^53 2^62 9223372036854775807 2^63 18446744073709551615 1e30"

# check NAME CHECK -- cmd...: run in $D with timeout 30 s. Exit 0 must pass CHECK (a shell
# snippet run in $D that may look at OUT*), then OUT* is removed; exit 1 or 2 must have exactly one
# "gpustream: error:" line (and nothing but notes, warnings and the usage hint). Either way $D must
# hold only in.raw afterwards.
check() {
    local name=$1 chk=$2; shift 3
    (cd "$D" && timeout -k 5 30 "$@") >"$T/.stdout" 2>"$T/.stderr"
    local rc=$? nerr other left
    nerr=$(grep -c '^gpustream: error: ' "$T/.stderr")
    other=$(grep -v -e '^gpustream: note: ' -e '^gpustream: warning: ' -e '^gpustream: error: ' -e "^Try 'gpustream " -e 'WARNING: AddressSanitizer failed to allocate' "$T/.stderr" | head -c 200)
    if [ $rc = 0 ] && ! (cd "$D" && eval "$chk") >/dev/null 2>&1; then fail "$name" "exit 0 but the output is wrong ($chk)"; rc=-1
    elif [ $rc = 124 ] || [ $rc = 137 ]; then fail "$name" "hung (killed after 30 s)"; rc=-1
    elif [ $rc -gt 2 ]; then fail "$name" "exit $rc (signal?): $(head -c 300 "$T/.stderr")"; rc=-1
    elif [ $rc != 0 ] && [ "$nerr" != 1 ]; then fail "$name" "exit $rc with $nerr error lines: $(head -c 300 "$T/.stderr")"; rc=-1
    elif [ -n "$other" ]; then fail "$name" "stray stderr: $other"; rc=-1
    fi
    rm -f "$D"/OUT*
    left=$(cd "$D" && ls -A | tr '\n' ' ')
    if [ "$left" != "in.raw " ]; then fail "${name}_leftover" "left: $left"; (cd "$D" && ls -A | grep -vx in.raw | xargs rm -rf); rc=-1; fi
    [ $rc -ge 0 ] && pass "$name"
}
# zcheck NAME WANT -- cmd...: check with the zstd CLI reading OUT.zst back as WANT; a machine
# without the zstd CLI cannot tell, so the case is skipped (ZSTD= empty simulates that machine)
ZSTD=${ZSTD-$(command -v zstd)}
zcheck() {
    local name=$1 want=$2; shift 3
    if [ -z "$ZSTD" ]; then skip "$name" "no zstd CLI to read the output"; return; fi
    check "$name" "'$ZSTD' -dc OUT.zst | cmp -s - '$want'" -- "$@"
}
# run a command with at most 4 GiB of memory
if [ $asan = 1 ]; then LIM=(env "ASAN_OPTIONS=${ASAN_OPTIONS:-}:allocator_may_return_null=1:max_allocation_size_mb=4096")
else LIM=(bash -c 'ulimit -v 4194304; exec "$@"' limit); fi
$G scan -q -t i32 "$D/in.raw" "$T/ref.raw"

for v in $VALUES; do
    N=$(python3 -c "v='$v'; print(2**int(v[2:]) if v.startswith('2^') else int(float(v)) if 'e' in v else int(v))")
    # -n: gen into a pipe that closes after 4 KiB (a correct run of any length ends there quietly)
    for f in raw npy; do
        check "gen_n_${v}_$f" 'true' -- bash -c "$G gen -q -n $v -t i64 --to $f | head -c 4096 >/dev/null; exit \${PIPESTATUS[0]}"
    done
    case $v in 0|1) check "gen_n_${v}_file" "test \$(stat -c %s OUT.raw) = $((v * 4))" -- $G gen -q -n $v -t i32 OUT.raw ;; esac
    check "bench_n_$v" 'true' -- "${LIM[@]}" $G bench --op scan,minmax --algo cpu,cpu-vhgw -n "$v" --reps 1 --window 2
    # --window on 3000 elements: n-W+1 pairs of i32, none (and a warning) when W > n
    check "window_$v" "test \$(stat -c %s OUT.raw) = $(python3 -c "print(max(0, 3000 - $N + 1) * 8)")" -- $G minmax -q -t i32 -w "$v" in.raw OUT.raw
    check "window_partial_chunk_$v" 'test $(stat -c %s OUT.raw) = 24000' -- $G minmax -q -t i32 --partial --chunk 256 -w "$v" in.raw OUT.raw
    # --chunk, --buffers, --device-mem-limit, --threads: the same scan whatever they are
    for o in chunk buffers device-mem-limit threads; do
        check "${o}_$v" "cmp -s OUT.raw $T/ref.raw" -- $G scan -q -t i32 --$o "$v" in.raw OUT.raw
    done
    zcheck "threads_zstd_$v" "$T/ref.raw" -- $G scan -q -t i32 --threads "$v" in.raw OUT.zst
    # --frame-size and --level: a zstd file the zstd CLI reads back
    zcheck "frame_size_$v" in.raw -- $G convert -q -t i32 --frame-size "$v" in.raw OUT.zst
    zcheck "level_$v" in.raw -- $G convert -q -t i32 --level "$v" in.raw OUT.zst
    zcheck "level_neg_$v" in.raw -- $G convert -q -t i32 --level "-$v" in.raw OUT.zst
done
