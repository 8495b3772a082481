#!/usr/bin/env bash
# tests/cli/test_zstd_memory.sh - the zstd encoder's memory follows the thread count, like the zstd
# CLI's (docs/USAGE.md, "The zstd encoder's memory"): convert to .zst of 192 MB of incompressible
# i32 on 2 threads (the worst case: compressed batches as large as their input) stays under 200 MB
# of peak RSS; the frames, and so the bytes, are the same for 1, 2 and 3 threads.
set -u
cd "$(dirname "$0")/../.."
. tests/common.sh
if [ ! -x /usr/bin/time ]; then skip "zstd encoder memory" "no /usr/bin/time"; exit 0; fi
sanitized=0 # a sanitizer's shadow memory counts in the RSS
grep -qE '__asan_init|__tsan_init' "$G" 2>/dev/null && sanitized=1
cd "$T"
"$G" gen -q -n 48M -t i32 --dist uniform:-2147483648:2147483647 --seed 11 in.raw
/usr/bin/time -o rss -f %M "$G" convert -q -t i32 --threads 2 in.raw out.zst 2>err
kb=$(tail -1 rss)
if [ $sanitized = 1 ]; then skip "convert to .zst on 2 threads: peak RSS" "a sanitizer build ($kb KB)"
elif [ -s out.zst ] && [ "$kb" -le 200000 ]; then pass "convert to .zst on 2 threads: peak RSS $kb KB <= 200000"
else fail "convert to .zst on 2 threads: peak RSS" "$kb KB (limit 200000): $(head -c 200 err)"; fi
if command -v zstd >/dev/null; then
    if zstd -q -dc out.zst | cmp -s - in.raw; then pass "zstd -d gives the input back"; else fail "zstd -d gives the input back" "differs"; fi
fi
"$G" gen -q -n 3M -t i32 --dist walk --seed 12 small.raw
for t in 1 2 3; do "$G" convert -q -t i32 --threads $t --frame-size 1M small.raw t$t.zst; done
if cmp -s t1.zst t2.zst && cmp -s t1.zst t3.zst; then pass "the same frames for 1, 2 and 3 threads"
else fail "the same frames for 1, 2 and 3 threads" "outputs differ"; fi
